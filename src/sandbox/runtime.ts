/** Everything one running sandbox holds: engine, limiter, faults, request log, webhook delivery, seed. */
import type {Core} from './core.js'
import type {Faults} from './faults.js'
import type {RateLimiter} from './rate-limit.js'
import type {RequestLog} from './request-log.js'
import type {Seed} from './seed.js'
import type {WebhookDelivery} from './webhooks-delivery.js'

export interface Runtime {
  core: Core
  limiter: RateLimiter
  faults: Faults
  log: RequestLog
  webhooks: WebhookDelivery
  seed: Seed
  /** Replaces the state with a fresh one from the seed. */
  reset(): void
}
