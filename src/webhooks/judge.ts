/**
 * What the listener makes of one delivery whose body was read: a pure function of its headers and raw body (and
 * of which event ids were seen before), with no I/O, so that every rule is a row of a table test
 * (test/webhooks/judge.test.ts). The HTTP shell (src/webhooks/listener.ts) reads the body, answers, keeps the
 * history, forwards and counts, as the judgement says.
 *
 * Order: a body over the limit or cut short is rejected first; a body nested deeper than MAX_JSON_DEPTH is never
 * parsed; the signature is checked against the raw bytes before the body's shape is judged (an unsigned body learns
 * nothing of what pay would accept); then JSON, then the event's shape; last, the duplicate decision by event id.
 */
import {createHash} from 'node:crypto'
import type {IncomingHttpHeaders} from 'node:http'
import {depthProblem} from '../output/json-shape.js'
import {EVENT_ID_HEADER, EVENT_TYPE_HEADER} from './delivery-headers.js'
import type {WebhookEvent} from './events.js'
import {DEFAULT_SCHEME, DEFAULT_TOLERANCE_SECONDS, type Scheme, secretKeys, SIGNATURE_HEADER, schemeId, TIMESTAMP_HEADER, verifySignature} from './signature.js'

export type RejectReason =
  | 'missing_header'
  | 'malformed_header'
  | 'no_matching_signature'
  | 'timestamp_outside_tolerance'
  | 'invalid_json'
  | 'invalid_event'
  | 'body_too_large'
  | 'method_not_allowed'
  | 'aborted'

/** The status answered for each rejection. */
export const STATUS_OF: Record<RejectReason, number> = {
  missing_header: 400,
  malformed_header: 400,
  invalid_json: 400,
  invalid_event: 400,
  no_matching_signature: 401,
  timestamp_outside_tolerance: 401,
  body_too_large: 413,
  method_not_allowed: 405,
  aborted: 400,
}

export interface Verdict {
  ok: boolean
  /** The status answered to the sender. */
  status: number
  /** true when the signature was checked and matched; false under --no-verify or when rejected. */
  verified: boolean
  /** The signature scheme that matched (src/webhooks/signature.ts: schemeId), when verified. */
  scheme?: string
  reason?: RejectReason
  detail?: string
}

/** The body as read: its bytes, or over the limit, or cut short by the sender. */
export type Body = Buffer | 'too_large' | 'aborted'

/** What became of an event id seen before: answered 2xx, its forwarding failed, or it is being forwarded now. */
export type Seen = 'accepted' | 'failed' | 'in_flight' | undefined

/**
 * The judgement of one delivery. `reject`: answered STATUS_OF[reason], never forwarded. `event`: a signed (or, with
 * verification off, accepted) event and what to do about its id: `new` (first time, or its earlier forwarding
 * failed: handle it), `duplicate` (answered 200 before: do not forward again), `wait` (the same event is being
 * forwarded: its outcome decides). `otherShape`: the event was made of a JSON object of another shape (otherEvent).
 */
export type Judgement =
  | {kind: 'reject'; reason: RejectReason; detail: string; event: WebhookEvent | null; bytes: number}
  | Accepted

/** A judgement that lets a delivery in. */
export interface Accepted {
  kind: 'event'
  event: WebhookEvent
  verdict: Verdict
  dedupe: 'new' | 'duplicate' | 'wait'
  otherShape: boolean
}

interface JudgeRules {
  /** false = accept unsigned deliveries (--no-verify); each is then marked unverified. */
  verify: boolean
  /** Secrets to verify with; any one matching passes (rotation). */
  secrets: readonly string[]
  toleranceSeconds?: number
  /** The one signature scheme accepted (the profile's webhook_signature); by default every recognised one. */
  pinned?: Scheme
  maxBodyBytes: number
  /** Current unix time in seconds (tests). */
  now?: () => number
  /** What became of an event id before. */
  seen: (id: string) => Seen
}

const SIGNATURE = SIGNATURE_HEADER.toLowerCase()
const TIMESTAMP = TIMESTAMP_HEADER.toLowerCase()
const EVENT_ID = EVENT_ID_HEADER.toLowerCase()
const EVENT_TYPE = EVENT_TYPE_HEADER.toLowerCase()

/** The verdict of every verified, accepted delivery, one per scheme that matched (shared: read-only). */
const ACCEPTED_AS = new Map<string, Verdict>()
function acceptedAs(scheme: Scheme): Verdict {
  const id = schemeId(scheme)
  let verdict = ACCEPTED_AS.get(id)
  if (!verdict) ACCEPTED_AS.set(id, (verdict = Object.freeze({ok: true, status: 200, verified: true, scheme: id})))
  return verdict
}
const ACCEPTED = acceptedAs(DEFAULT_SCHEME)
const ACCEPTED_UNVERIFIED: Verdict = Object.freeze({ok: true, status: 200, verified: false})

/** The judge of a listener's rules: `judge(headers, raw)` → its Judgement. */
export function createJudge(rules: JudgeRules): (headers: IncomingHttpHeaders, raw: Body) => Judgement {
  const verifyOptions = {toleranceSeconds: rules.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS, pinned: rules.pinned}
  const keys = secretKeys(rules.secrets)
  const reject = (reason: RejectReason, detail: string, event: WebhookEvent | null, bytes: number): Judgement => ({kind: 'reject', reason, detail, event, bytes})

  return function judge(headers, raw) {
    if (typeof raw === 'string') {
      if (raw === 'too_large') return reject('body_too_large', `body is over the limit of ${rules.maxBodyBytes} bytes`, null, rules.maxBodyBytes + 1)
      return reject('aborted', 'the sender closed the connection before the body was complete', null, 0)
    }
    const parsed = parseBody(raw)
    let event = parsed.event
    let verdict = ACCEPTED_UNVERIFIED
    if (rules.verify) {
      const signature = headers[SIGNATURE]
      const stamp = headers[TIMESTAMP]
      const withStamp = stamp === undefined ? verifyOptions : {...verifyOptions, timestampHeader: Array.isArray(stamp) ? stamp.join(',') : stamp}
      const result = verifySignature(Array.isArray(signature) ? signature.join(',') : signature, raw, keys, rules.now ? {...withStamp, now: rules.now()} : withStamp)
      if (!result.ok) return reject(result.reason, result.detail, event, raw.length)
      verdict = result.scheme === DEFAULT_SCHEME ? ACCEPTED : acceptedAs(result.scheme)
    }
    if (!parsed.json) return reject('invalid_json', parsed.tooDeep ? `the body ${parsed.tooDeep}` : 'the body is not JSON', null, raw.length)
    const otherShape = !event && parsed.other !== undefined
    if (otherShape) event = otherEvent(parsed.other!, headers, raw)
    if (!event) return reject('invalid_event', 'the body is not an event: it must be a JSON object', null, raw.length)
    const seen = rules.seen(event.id)
    const dedupe = seen === 'accepted' ? 'duplicate' : seen === 'in_flight' ? 'wait' : 'new'
    return {kind: 'event', event, verdict, dedupe, otherShape}
  }
}

/** The body parsed once: the event, or a JSON object of another shape, or not JSON (too deep: never parsed). */
function parseBody(raw: Buffer): {json: boolean; event: WebhookEvent | null; other?: Record<string, unknown>; tooDeep?: string} {
  // nested deeper than any event: never parsed, so nothing after (the render, --json, --jq) walks it
  const text = raw.toString('utf8')
  const tooDeep = depthProblem(text)
  if (tooDeep) return {json: false, event: null, tooDeep}
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return {json: false, event: null}
  }
  if (isEvent(parsed)) return {json: true, event: parsed}
  if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return {json: true, event: null, other: parsed as Record<string, unknown>}
  return {json: true, event: null}
}

/**
 * The event pay makes of a signed JSON object of another shape (the payload shape is "not shown"): the body as its
 * data, its id from Service-Event-Id (else a digest of the body, so a redelivery is still a duplicate), its type from
 * Service-Event-Type (else "unknown"). The judgement says so (otherShape), and so do the line and --json.
 */
function otherEvent(body: Record<string, unknown>, headers: IncomingHttpHeaders, raw: Buffer): WebhookEvent {
  const header = (name: string) => {
    const v = headers[name]
    return typeof v === 'string' && v !== '' ? v : undefined
  }
  const id = header(EVENT_ID) ?? `sha256:${createHash('sha256').update(raw).digest('hex').slice(0, 24)}`
  return {id, object: 'event', type: header(EVENT_TYPE) ?? 'unknown', created_at: '', data: body} as WebhookEvent
}

function isEvent(value: unknown): value is WebhookEvent {
  return !!value && typeof value === 'object' && !Array.isArray(value) && typeof (value as {id?: unknown}).id === 'string' && typeof (value as {type?: unknown}).type === 'string'
}
