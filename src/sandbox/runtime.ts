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
  /** Whether the dashboard is served (at DASHBOARD_PATH; `pay sandbox start --no-dashboard` turns it off). */
  dashboard: boolean
  /**
   * Called after every request logged and every state change while a dashboard page is open (its live updates);
   * undefined otherwise, so the request path pays one property read. Set only by src/sandbox/dashboard/live.ts.
   */
  activity?: () => void
}

/** Where the dashboard is served, on the sandbox's own port. */
export const DASHBOARD_PATH = '/_dashboard'
