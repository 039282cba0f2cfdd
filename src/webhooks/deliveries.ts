/**
 * What the listener does with a delivery once its body is read: judged (src/webhooks/judge.ts), then rejected,
 * answered as a duplicate, filtered out, accepted, or forwarded to the developer's app (src/webhooks/forward.ts);
 * kept in the history before it is answered, answered and shown (src/webhooks/answers.ts), and counted.
 *
 * Every delivery is handled with callbacks, without a promise, until it is forwarded (the only step that waits for
 * something else): one HMAC, one JSON.parse and one answer, judged with the others read in the same turn of the
 * event loop.
 */
import type {IncomingMessage, ServerResponse} from 'node:http'
import {type Answers, DUPLICATE, FAILED_STATUS, FILTERED, RECEIVED} from './answers.js'
import type {WebhookEvent} from './events.js'
import type {EventFilter} from './filter.js'
import {forwardAll, forwardStatus, forwardSummary, type ForwardResult, type Route, type Routes} from './forward.js'
import type {HistoryWriter} from './history.js'
import {type Accepted, type Body, type Judgement, type RejectReason, STATUS_OF, type Verdict} from './judge.js'
import type {SeenEvents} from './seen-events.js'

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

const EMPTY = Buffer.alloc(0)

export function emptyStats(): ListenerStats {
  return {received: 0, verified: 0, unverified: 0, rejected: {}, duplicates: 0, filtered: 0, forwarded: 0, forward_failed: 0, not_found: 0, busy: 0}
}

/** The parts a delivery goes through, made by startListener (src/webhooks/listener.ts). */
interface StageParts {
  judge: (headers: IncomingMessage['headers'], raw: Body) => Judgement
  /** false: --no-verify (accepted deliveries are counted unverified). */
  verify: boolean
  /** --events: the types shown and forwarded. */
  filter: EventFilter
  seen: SeenEvents
  routes: Routes
  history?: HistoryWriter
  answers: Answers<Delivery>
  stats: ListenerStats
}

interface DeliveryStage {
  /** A body read (or over the limit, or cut short by the sender): judged with the others read in this turn. */
  read(req: IncomingMessage, res: ServerResponse, raw: Body): void
  /** A delivery rejected on its headers alone (its method, a declared length over the limit). */
  reject(req: IncomingMessage, res: ServerResponse, reason: RejectReason, detail: string, event: WebhookEvent | null, bytes: number): void
}

export function createDeliveryStage(parts: StageParts): DeliveryStage {
  const {judge, verify, filter, seen, routes, history, answers, stats} = parts

  /** An accepted delivery shown once answered; a body of another shape is marked so. */
  const show = (d: Delivery, j: Accepted) => {
    if (j.otherShape) d.otherShape = true
    answers.show(d)
  }

  /**
   * Keeps a delivery in the history (before its answer is sent): its id there. `status`: what it is answered;
   * undefined for one being forwarded, whose answer is kept once known (history.answered, in forward).
   */
  const keep = (req: IncomingMessage, raw: Buffer, event: WebhookEvent | null, verdict: 'accepted' | 'duplicate' | 'rejected', status: number | undefined, signed: Pick<Verdict, 'verified' | 'scheme'>, extra?: {reason?: string; detail?: string; filtered?: boolean}) => {
    if (!history) return undefined
    const ref = event && event.data && typeof event.data === 'object' ? (event.data as {merchant_reference?: unknown}).merchant_reference : undefined
    return history.delivery(
      {event_id: typeof event?.id === 'string' ? event.id : undefined, type: typeof event?.type === 'string' ? event.type : undefined, reference: typeof ref === 'string' ? ref : undefined, verdict, status, verified: signed.verified, ...(signed.scheme ? {scheme: signed.scheme} : {}), ...extra},
      req.rawHeaders,
      raw,
    )
  }

  const reject = (req: IncomingMessage, res: ServerResponse, reason: RejectReason, detail: string, event: WebhookEvent | null, bytes: number, raw: Buffer = EMPTY) => {
    const status = STATUS_OF[reason]
    stats.rejected[reason] = (stats.rejected[reason] ?? 0) + 1
    const id = keep(req, raw, event, 'rejected', status, {verified: false}, {reason, detail})
    answers.reply(res, status, {error: {code: reason, message: detail}}, reason === 'body_too_large')
    answers.show({time: new Date(), event, verdict: {ok: false, status, verified: false, reason, detail}, duplicate: false, filtered: false, bytes, id})
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
    const body = raw as Buffer
    if (j.dedupe === 'new') accept(req, res, body, j)
    else if (j.dedupe === 'duplicate') duplicate(req, res, body, j)
    else {
      // the same event is being forwarded: its outcome decides
      void seen
        .outcome(j.event.id)
        .then((o) => (o === 'accepted' ? duplicate : accept)(req, res, body, j))
        .catch((err: Error) => answers.failed(res, err))
    }
  }

  const duplicate = (req: IncomingMessage, res: ServerResponse, raw: Buffer, j: Accepted): void => {
    const {event, verdict} = j
    stats.duplicates++
    const id = keep(req, raw, event, 'duplicate', 200, verdict)
    answers.reply(res, 200, DUPLICATE)
    show({time: new Date(), event, verdict, duplicate: true, filtered: !filter(event.type), bytes: raw.length, id}, j)
  }

  /** A new event (or one whose forwarding failed before): filtered out, accepted, or forwarded. */
  const accept = (req: IncomingMessage, res: ServerResponse, raw: Buffer, j: Accepted): void => {
    const {event, verdict} = j
    if (!filter(event.type)) {
      stats.filtered++
      seen.accepted(event.id, true)
      const id = keep(req, raw, event, 'accepted', 200, verdict, {filtered: true})
      answers.reply(res, 200, FILTERED)
      show({time: new Date(), event, verdict, duplicate: false, filtered: true, bytes: raw.length, id}, j)
      return
    }
    const targets = routes.of(event.type)
    const id = keep(req, raw, event, 'accepted', targets.length === 0 ? 200 : undefined, verdict)
    if (targets.length === 0) {
      seen.accepted(event.id, true)
      answers.reply(res, 200, RECEIVED)
      show({time: new Date(), event, verdict, duplicate: false, filtered: false, bytes: raw.length, id}, j)
      return
    }
    forward(targets, req, res, raw, j, id).catch((err: Error) => {
      if (history && id) history.answered(id, FAILED_STATUS)
      answers.failed(res, err)
    })
  }

  /** Posts to every route of the event at once; the worst answer (the highest status; unreachable 502, timeout 504) goes back. */
  const forward = async (targets: Route[], req: IncomingMessage, res: ServerResponse, raw: Buffer, j: Accepted, id: string | undefined): Promise<void> => {
    const {event, verdict} = j
    const settle = seen.forwarding(event.id)
    const {worst, results} = await forwardAll(targets, raw, req.rawHeaders)
    const status = forwardStatus(worst)
    // the attempts and the status answered, kept before the answer goes out (answers.passBack/reply wait for them)
    if (history && id) {
      for (let i = 0; i < results.length; i++) history.attempt(id, event.id, {url: targets[i].url, ...forwardSummary(results[i])})
      history.answered(id, status)
    }
    const ok = worst.response !== undefined && worst.response.status >= 200 && worst.response.status < 300
    if (ok) stats.forwarded++
    else stats.forward_failed++
    settle(ok)
    if (worst.response) answers.passBack(res, worst.response.status, worst.response.headers, worst.response.body)
    else answers.reply(res, status, {error: {code: `forward_${worst.error}`, message: worst.detail}})
    show({
      time: new Date(),
      event,
      verdict: {...verdict, status},
      duplicate: false,
      filtered: false,
      bytes: raw.length,
      forward: forwardSummary(worst),
      ...(results.length > 1 ? {forwards: results.map((r, i) => ({url: targets[i].url, ...forwardSummary(r)}))} : {}),
      id,
    }, j)
  }

  /** Deliveries whose bodies were read in the same turn of the event loop, judged together (src/webhooks/answers.ts). */
  let queued: {req: IncomingMessage; res: ServerResponse; raw: Body}[] = []
  const judgeRead = () => {
    const batch = queued
    queued = []
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
  return {
    read(req, res, raw) {
      queued.push({req, res, raw})
      // once this turn's I/O is done, in the same turn (no timer)
      if (queued.length === 1) setImmediate(judgeRead)
    },
    reject,
  }
}
