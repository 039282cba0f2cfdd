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
import type {IncomingMessage, ServerResponse} from 'node:http'
import {createAnswers, RECEIVED} from './answers.js'
import type {WebhookEvent} from './events.js'
import {eventFilter} from './filter.js'
import {createRoutes, forwardAll, forwardStatus, forwardSummary, type ForwardResult, type ForwardRoute, type Route} from './forward.js'
import type {HistoryWriter} from './history.js'
import {startHttpShell} from './http-shell.js'
import {type Body, createJudge, isOtherShape, type RejectReason, STATUS_OF, type Verdict} from './judge.js'
import type {PingKey} from './ping.js'
import {SeenEvents} from './seen-events.js'
import type {Scheme} from './signature.js'


export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024
export const DEFAULT_PATH = '/webhooks'

export interface ListenerOptions {
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
  /** Requests in progress at most (DEFAULT_MAX_CONNECTIONS); open sockets at most OVERFLOW_FACTOR times it. */
  maxConnections?: number
  /** Accepted event ids remembered for the duplicate check (default SEEN_LIMIT). */
  seenLimit?: number
}

export interface Delivery {
  time: Date
  /** The parsed event when the body was JSON (also for some rejections), else null. */
  event: WebhookEvent | null
  verdict: Verdict
  duplicate: boolean
  filtered: boolean
  /** The worst of the forwards (the status passed back); each route's in `forwards`. */
  forward?: ForwardResult
  forwards?: (ForwardResult & {url: string})[]
  bytes: number
  /** Its id in the history, when kept. */
  id?: string
  /**
   * The body is a JSON object but not the event shape pay assumes (string `id` and `type`, docs/assumptions.md):
   * then `event.data` holds the body as sent, and its id and type come from the delivery headers (or a digest).
   */
  otherShape?: boolean
}

export interface ListenerStats {
  received: number
  verified: number
  unverified: number
  rejected: Partial<Record<RejectReason, number>>
  duplicates: number
  filtered: number
  forwarded: number
  forward_failed: number
  not_found: number
  /** Requests answered 503 over the cap on requests in progress (the sender retries them). */
  busy: number
}

export interface Listener {
  /** http://host:port (no path). */
  readonly url: string
  readonly port: number
  readonly path: string
  readonly stats: ListenerStats
  close(): Promise<void>
}

const EMPTY = Buffer.alloc(0)

export function emptyStats(): ListenerStats {
  return {received: 0, verified: 0, unverified: 0, rejected: {}, duplicates: 0, filtered: 0, forwarded: 0, forward_failed: 0, not_found: 0, busy: 0}
}

/**
 * Every request is handled with callbacks, without a promise, until it is forwarded (the only step that waits
 * for something else): a delivery is one body read, one HMAC, one JSON.parse and one answer, judged with the
 * others read in the same turn of the event loop. Measured as a whole process against a bare node:http server by
 * test/bench/webhook-listener.mjs.
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

  /** A delivery shown once answered; a body of another shape is marked so. */
  const show = (d: Delivery) => {
    if (d.event && isOtherShape(d.event)) d.otherShape = true
    answers.show(d)
  }

  /** Keeps a delivery in the history (before its answer is sent): its id there. */
  const keep = (req: IncomingMessage, raw: Buffer, event: WebhookEvent | null, verdict: 'accepted' | 'duplicate' | 'rejected', status: number, verified: boolean, extra?: {reason?: string; detail?: string; filtered?: boolean}) => {
    if (!history) return undefined
    const ref = event && event.data && typeof event.data === 'object' ? (event.data as {merchant_reference?: unknown}).merchant_reference : undefined
    return history.delivery(
      {event_id: typeof event?.id === 'string' ? event.id : undefined, type: typeof event?.type === 'string' ? event.type : undefined, reference: typeof ref === 'string' ? ref : undefined, verdict, status, verified, ...extra},
      req.rawHeaders,
      raw,
    )
  }

  const reject = (req: IncomingMessage, res: ServerResponse, reason: RejectReason, detail: string, event: WebhookEvent | null, bytes: number, raw: Buffer = EMPTY) => {
    const status = STATUS_OF[reason]
    stats.rejected[reason] = (stats.rejected[reason] ?? 0) + 1
    const id = keep(req, raw, event, 'rejected', status, false, {reason, detail})
    answers.reply(res, status, {error: {code: reason, message: detail}}, reason === 'body_too_large')
    show({time: new Date(), event, verdict: {ok: false, status, verified: false, reason, detail}, duplicate: false, filtered: false, bytes, id})
  }

  /** The body read: judged, then rejected, or accepted, or answered as a duplicate. */
  const act = (req: IncomingMessage, res: ServerResponse, raw: Body): void => {
    const j = judge(req.headers, raw)
    if (j.kind === 'reject') {
      reject(req, res, j.reason, j.detail, j.event, j.bytes, typeof raw === 'string' ? EMPTY : raw)
      return
    }
    if (verify) stats.verified++
    else stats.unverified++
    const {event, verdict} = j
    const body = raw as Buffer
    if (j.dedupe === 'new') accept(req, res, body, event, verdict)
    else if (j.dedupe === 'duplicate') duplicate(req, res, body, event, verdict)
    else {
      // the same event is being forwarded: its outcome decides
      void seen
        .outcome(event.id)
        .then((o) => (o === 'accepted' ? duplicate : accept)(req, res, body, event, verdict))
        .catch((err: Error) => answers.failed(res, err))
    }
  }

  const duplicate = (req: IncomingMessage, res: ServerResponse, raw: Buffer, event: WebhookEvent, verdict: Verdict): void => {
    stats.duplicates++
    const id = keep(req, raw, event, 'duplicate', 200, verdict.verified)
    answers.reply(res, 200, {received: true, duplicate: true})
    show({time: new Date(), event, verdict, duplicate: true, filtered: !filter(event.type), bytes: raw.length, id})
  }

  /** A new event (or one whose forwarding failed before): filtered out, accepted, or forwarded. */
  const accept = (req: IncomingMessage, res: ServerResponse, raw: Buffer, event: WebhookEvent, verdict: Verdict): void => {
    if (!filter(event.type)) {
      stats.filtered++
      seen.accepted(event.id, true)
      const id = keep(req, raw, event, 'accepted', 200, verdict.verified, {filtered: true})
      answers.reply(res, 200, {received: true, filtered: true})
      show({time: new Date(), event, verdict, duplicate: false, filtered: true, bytes: raw.length, id})
      return
    }
    const targets = routes.of(event.type)
    const id = keep(req, raw, event, 'accepted', 200, verdict.verified)
    if (targets.length === 0) {
      seen.accepted(event.id, true)
      answers.reply(res, 200, RECEIVED)
      show({time: new Date(), event, verdict, duplicate: false, filtered: false, bytes: raw.length, id})
      return
    }
    forward(targets, req, res, raw, event, verdict, id).catch((err: Error) => answers.failed(res, err))
  }

  /** Posts to every route of the event at once; the worst answer (the highest status; unreachable 502, timeout 504) goes back. */
  const forward = async (targets: Route[], req: IncomingMessage, res: ServerResponse, raw: Buffer, event: WebhookEvent, verdict: Verdict, id: string | undefined): Promise<void> => {
    const settle = seen.forwarding(event.id)
    const {worst, results} = await forwardAll(targets, raw, req.rawHeaders)
    if (history && id) for (let i = 0; i < results.length; i++) history.attempt(id, event.id, {url: targets[i].url, ...forwardSummary(results[i])})
    const ok = worst.response !== undefined && worst.response.status >= 200 && worst.response.status < 300
    if (ok) stats.forwarded++
    else stats.forward_failed++
    settle(ok)
    if (worst.response) answers.passBack(res, worst.response.status, worst.response.headers, worst.response.body)
    else answers.reply(res, forwardStatus(worst), {error: {code: `forward_${worst.error}`, message: worst.detail}})
    show({
      time: new Date(),
      event,
      verdict: {...verdict, status: forwardStatus(worst)},
      duplicate: false,
      filtered: false,
      bytes: raw.length,
      forward: forwardSummary(worst),
      ...(results.length > 1 ? {forwards: results.map((r, i) => ({url: targets[i].url, ...forwardSummary(r)}))} : {}),
      id,
    })
  }

  /** Deliveries whose bodies were read in the same turn of the event loop, judged together (src/webhooks/answers.ts). */
  let read: {req: IncomingMessage; res: ServerResponse; raw: Body}[] = []
  const judgeRead = () => {
    const batch = read
    read = []
    answers.together(() => {
      for (const {req, res, raw} of batch) {
        try {
          act(req, res, raw)
        } catch (err) {
          answers.failed(res, err as Error)
        }
      }
    })
  }

  const shell = await startHttpShell({
    port: options.port,
    host: options.host,
    path,
    maxBodyBytes: maxBody,
    pingKey: options.pingKey,
    headersTimeoutMs: options.headersTimeoutMs,
    requestTimeoutMs: options.requestTimeoutMs,
    maxConnections: options.maxConnections,
    counts: stats,
    handlers: {
      reply: answers.reply,
      early: (req, res, reason, detail, bytes) => reject(req, res, reason, detail, null, bytes),
      body(req, res, raw) {
        read.push({req, res, raw})
        // once this turn's I/O is done, in the same turn (no timer)
        if (read.length === 1) setImmediate(judgeRead)
      },
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
