/**
 * The webhook listener behind `pay webhook listen`, in stages: the HTTP shell reads each delivery
 * (src/webhooks/http-shell.ts) → the pure judge decides on its headers and raw body (src/webhooks/judge.ts: size,
 * signature, JSON, event shape, duplicate) → the delivery is rejected, answered as a duplicate, filtered out,
 * accepted, or forwarded to the developer's app (src/webhooks/forward.ts) → it is kept in the history
 * (src/webhooks/history.ts), answered and shown, in that order (src/webhooks/answers.ts). Everything is counted.
 * It answers every request and never throws out of a request handler: bad input is a rejection, not a crash.
 *
 * Answers: 200 accepted (or duplicate, or filtered out); 400 missing/malformed signature header, body not
 * JSON or not an event; 401 no matching signature or timestamp outside tolerance; 413 body over maxBodyBytes;
 * 404 other paths; 405 other methods; 503 with Retry-After over the connection cap; with forwardTo, the app's
 * status and body, 502 when the app is unreachable or its answer is over MAX_FORWARD_ANSWER_BYTES, 504 when it
 * does not answer in time. A body nested deeper than MAX_JSON_DEPTH is never parsed (invalid_json).
 */
import {createAnswers} from './answers.js'
import {createDeliveryStage, type Delivery, emptyStats, type ListenerStats} from './deliveries.js'
import {eventFilter} from './filter.js'
import {createRoutes, type ForwardRoute} from './forward.js'
import type {HistoryWriter} from './history.js'
import {startHttpShell} from './http-shell.js'
import {createJudge} from './judge.js'
import type {PingKey} from './ping.js'
import {SeenEvents} from './seen-events.js'
import type {Scheme} from './signature.js'

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024
const DEFAULT_PATH = '/webhooks'

interface ListenerOptions {
  /** Port to bind; 0 (default) picks a free one. */
  port?: number
  /** Address to bind (default 127.0.0.1). */
  host?: string
  path?: string
  /** Secrets to verify with; any one matching passes (rotation). Required unless verify is false. */
  secrets?: string[]
  /** false = accept unsigned deliveries (--no-verify); each delivery is then marked unverified. */
  verify?: boolean
  /** The one signature scheme accepted (the profile's webhook_signature); by default every recognised one. */
  pinnedScheme?: Scheme
  toleranceSeconds?: number
  maxBodyBytes?: number
  /** Glob patterns on the event type; others are answered 200 and counted as filtered. */
  events?: string[]
  forwardTo?: string
  /** Forward by type: each accepted event goes to every route whose glob matches (forwardTo is the route '*'). */
  routes?: ForwardRoute[]
  forwardTimeoutMs?: number
  /** Keeps every delivery and forward attempt (src/webhooks/history.ts), durable before the answer. */
  history?: HistoryWriter
  /** Called once per delivery at the path, after it was answered. */
  onDelivery?: (delivery: Delivery) => void
  /** Current unix time in seconds (tests). */
  now?: () => number
  /** The tunnel health check's key: a request carrying a ping signed with it is answered, not counted or shown. */
  pingKey?: PingKey
  headersTimeoutMs?: number
  requestTimeoutMs?: number
  /** How long an idle keep-alive connection is kept at least (65 s). */
  idleTimeoutMs?: number
  /** Requests in progress at most (DEFAULT_MAX_CONNECTIONS); open sockets at most OVERFLOW_FACTOR times it. */
  maxConnections?: number
  /** Accepted event ids remembered for the duplicate check (default SEEN_LIMIT). */
  seenLimit?: number
}

export interface Listener {
  /** http://host:port (no path). */
  readonly url: string
  readonly port: number
  readonly path: string
  readonly stats: ListenerStats
  close(): Promise<void>
}

/**
 * Starts a listener: the parts made once (the judge of its rules, the duplicate memory, the forwarders, the history,
 * the answers), the delivery stage that runs a delivery through them, and the HTTP shell in front. Measured as a
 * whole process against a bare node:http server by test/bench/webhook-listener.mjs (docs/performance.md).
 */
export async function startListener(options: ListenerOptions): Promise<Listener> {
  const path = options.path ?? DEFAULT_PATH
  const verify = options.verify !== false
  const secrets = options.secrets ?? []
  if (verify && secrets.length === 0) throw new Error('a webhook secret is required unless verification is off')
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES
  const filter = eventFilter(options.events ?? [])
  const stats = emptyStats()
  const seen = new SeenEvents(options.seenLimit)
  const judge = createJudge({verify, secrets, toleranceSeconds: options.toleranceSeconds, pinned: options.pinnedScheme, maxBodyBytes: maxBody, now: options.now, seen: (id) => seen.state(id)})
  const history = options.history
  history?.open()
  const routes = await createRoutes([...(options.forwardTo ? [{pattern: '*', url: options.forwardTo}] : []), ...(options.routes ?? [])], options.forwardTimeoutMs ?? 10_000)
  const answers = createAnswers<Delivery>(history, options.onDelivery)
  const deliveries = createDeliveryStage({judge, verify, filter, seen, routes, history, answers, stats})

  const shell = await startHttpShell({
    port: options.port,
    host: options.host,
    path,
    maxBodyBytes: maxBody,
    pingKey: options.pingKey,
    headersTimeoutMs: options.headersTimeoutMs,
    requestTimeoutMs: options.requestTimeoutMs,
    idleTimeoutMs: options.idleTimeoutMs,
    maxConnections: options.maxConnections,
    counts: stats,
    handlers: {
      reply: answers.reply,
      early: (req, res, reason, detail, bytes) => deliveries.reject(req, res, reason, detail, null, bytes),
      body: deliveries.read,
      failed: answers.failed,
    },
  })
  return {
    url: shell.url,
    port: shell.port,
    path,
    stats,
    async close() {
      await shell.close()
      await routes.close()
      await history?.close()
    },
  }
}
