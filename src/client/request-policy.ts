/**
 * THE request policy of `pay`: the one place that decides, for every path that sends a request to the service
 * (a single command, a bulk row, a flow step, `pay smoke`, `pay api`, `--wait` polling, the token request):
 *
 *   - the CLASS of what a request came to: `accepted` (a 2xx the CLI can use), `refused` (the service certainly
 *     did nothing: it said no, or the request never reached it) or `unknown` (it may have acted);
 *   - whether to try again, and how long to wait first (back-off, Retry-After, the overall deadline);
 *   - whether repeating it later can help (`again`: a refusal for now, such as a 429 or a connection never made).
 *
 * The client core (src/client/api-client.ts), the journal gate (src/journal/gate.ts) and the bulk engine
 * (src/bulk/engine.ts) ask it and keep no rule of their own; test/client/request-policy.test.ts holds the table, and
 * test/client/one-policy.test.ts fails when another module of src/ classifies a failure or decides a retry.
 * docs/assumptions.md ("One request policy") says why each choice is what it is.
 */
import type {AttemptOutcome, RequestClass} from '../base/errors.js'

export const DEFAULT_RETRIES = 3
const BASE_DELAY_MS = 250
const MAX_DELAY_MS = 8000
/** A Retry-After longer than this is not waited out: the command fails with exit 6 and says when to retry. */
export const MAX_RETRY_AFTER_MS = 30_000
/** 429s one bulk row may meet (each slows the whole run down) before it is left for a later run. */
export const MAX_THROTTLES_PER_ROW = 50

export type {AttemptOutcome, RequestClass}

/** Statuses a request that is safe to repeat (a GET, or a POST with its Idempotency-Key) is sent again after. */
const REPEAT_STATUS = new Set([408, 429, 500, 502, 503, 504])
/**
 * Codes of the service's own error object that would say no earlier request under the key was done, so that a
 * refusal settles the key even after an earlier attempt may have reached the service. The interface names none: it
 * does not say that the service answers a repeated key with its stored answer, so a 400 or 422 to a retry may judge
 * the body afresh (against a balance the first attempt already moved), and a 409 `idempotency_key_mismatch` proves
 * the key WAS used (docs/assumptions.md, "One request policy"). A code the service documents as such goes here.
 */
const SETTLES_MAYBE_SENT_KEY: ReadonlySet<string> = new Set<string>()

/**
 * The service's own error answer (the interface, Errors: a JSON object whose `error` has the strings code, message
 * and request_id): its code; undefined for any other body (a gateway's or proxy's HTML page, an empty body, JSON
 * of another shape), which never decides what became of a request nor says that a resource is absent.
 */
function serviceErrorCode(body: unknown): string | undefined {
  const error = (body as {error?: unknown} | undefined)?.error
  if (!error || typeof error !== 'object') return undefined
  const {code, message, request_id: requestId} = error as Record<string, unknown>
  return typeof code === 'string' && typeof message === 'string' && typeof requestId === 'string' ? code : undefined
}

/** What an attempt answered with a status met: its code only when the body is the service's error object. */
export function statusOutcome(status: number, body: unknown): AttemptOutcome {
  const code = status >= 400 ? serviceErrorCode(body) : undefined
  return {kind: 'status', status, ...(code === undefined ? {} : {code})}
}

/**
 * Whether an answer says the resource looked up does not exist: only the service's own 404 `not_found` (its error
 * object). Any other 404 (a gateway's page for a route it lacks, a wrong base path) is a failed lookup.
 */
export function saysAbsent(outcome: AttemptOutcome | undefined): boolean {
  return outcome?.kind === 'status' && outcome.status === 404 && outcome.code === 'not_found'
}

/** saysAbsent of a failure of the client core (it carries its last attempt's outcome), read by shape. */
export function provesAbsent(failure: unknown): boolean {
  return saysAbsent((failure as {attemptOutcome?: AttemptOutcome} | undefined)?.attemptOutcome)
}

/** Whether this one attempt may have reached the service (and so may have been acted on). */
export function mayHaveReached(outcome: AttemptOutcome): boolean {
  if (outcome.kind === 'network') return outcome.sent
  if (outcome.kind === 'tls') return false
  if (outcome.kind === 'status') return outcome.status >= 500 || outcome.status === 408 || outcome.status < 400
  return true
}

/** Whether an attempt with this outcome is worth repeating at once (before its class is final). */
function isRetryable(outcome: AttemptOutcome, safeToRepeat: boolean): boolean {
  if (outcome.kind === 'status') return outcome.status === 429 || (safeToRepeat && REPEAT_STATUS.has(outcome.status))
  if (outcome.kind === 'network') return safeToRepeat || !outcome.sent
  if (outcome.kind === 'timeout') return safeToRepeat
  return false
}

/**
 * The class of a request whose last attempt had `outcome`; `earlierMaybeSent`: an earlier attempt under the same key
 * (this run's, or an earlier run's whose outcome is unknown) may have reached the service. Once one may have, a
 * refusal of a later attempt says what that attempt met, not what became of the earlier one: the request stays
 * unknown unless the service's own error object says, by its code, that nothing was done under the key
 * (SETTLES_MAYBE_SENT_KEY). A body that is not the service's (a gateway's page) decides nothing.
 */
export function classify(outcome: AttemptOutcome, earlierMaybeSent: boolean): RequestClass {
  if (outcome.kind === 'status' && outcome.status >= 200 && outcome.status < 300) return 'accepted'
  if (mayHaveReached(outcome)) return 'unknown'
  if (!earlierMaybeSent) return 'refused'
  return outcome.kind === 'status' && outcome.code !== undefined && SETTLES_MAYBE_SENT_KEY.has(outcome.code) ? 'refused' : 'unknown'
}

/** A refusal that may not last: sending the same request again later can succeed (rate limited, never connected). */
export function refusedForNow(outcome: AttemptOutcome): boolean {
  return (outcome.kind === 'status' && outcome.status === 429) || (outcome.kind === 'network' && !outcome.sent)
}

interface PolicyOptions {
  /** Retries after the first attempt (--retries). */
  retries: number
  /** A GET, or a request with an Idempotency-Key: repeating it cannot act twice. */
  safeToRepeat: boolean
  /** An earlier attempt under this key (an earlier run's, whose outcome is unknown) may have reached the service. */
  earlierMaybeSent?: boolean
  /** 429s waited out at most (default: as many as `retries`); a bulk row: MAX_THROTTLES_PER_ROW, the run's rate slows. */
  throttles?: number
  /** The request carries the bearer token: one 401 gets a fresh token and one more attempt (not counted). */
  auth?: boolean
  /** Milliseconds left before the request's overall deadline (all attempts and waits); undefined: none. */
  timeLeft?: () => number
}

export type Decision =
  | {retry: true; waitMs: number; throttled: boolean; refreshToken: boolean}
  | {retry: false; class: RequestClass; again: boolean; stoppedBy?: 'deadline' | 'retry-after'}

/**
 * The attempts of one request: after each attempt, `next` says whether to send it again (and after how long), or
 * what the request came to. One per request (or per bulk row).
 */
export class RequestAttempts {
  attempt = 0
  private throttled = 0
  private refreshed = false
  /** Some attempt so far (or an earlier run's under the same key) may have reached the service. */
  maybeSent: boolean

  constructor(private readonly options: PolicyOptions) {
    this.maybeSent = options.earlierMaybeSent ?? false
  }

  /** `retryAfter`: the service's requested wait (retryAfterMs of a 429's answer), when it said one. */
  next(outcome: AttemptOutcome, retryAfter?: number, random: () => number = Math.random): Decision {
    this.attempt++
    const earlier = this.maybeSent
    if (mayHaveReached(outcome)) this.maybeSent = true
    const stop = (stoppedBy?: 'deadline' | 'retry-after'): Decision => ({retry: false, class: classify(outcome, earlier), again: refusedForNow(outcome), ...(stoppedBy ? {stoppedBy} : {})})
    if (outcome.kind === 'status' && outcome.status === 401 && this.options.auth && !this.refreshed) {
      this.refreshed = true
      this.attempt--
      return {retry: true, waitMs: 0, throttled: false, refreshToken: true}
    }
    if (!isRetryable(outcome, this.options.safeToRepeat)) return stop()
    const throttle = outcome.kind === 'status' && outcome.status === 429
    // with a budget of 429s of their own (a bulk row), 429s do not use up the retries; else every attempt does
    const own = this.options.throttles !== undefined
    const retried = own ? this.attempt - 1 - this.throttled : this.attempt - 1
    if (throttle && own ? this.throttled >= this.options.throttles! : retried >= this.options.retries) return stop()
    if (throttle && retryAfter !== undefined && retryAfter > MAX_RETRY_AFTER_MS) return stop('retry-after')
    const waitMs = throttle ? (retryAfter ?? backoffMs(this.throttled + 1, random)) : backoffMs(this.attempt - this.throttled, random)
    const left = this.options.timeLeft?.()
    if (left !== undefined && waitMs >= left) return stop('deadline')
    if (throttle) this.throttled++
    return {retry: true, waitMs, throttled: throttle, refreshToken: false}
  }
}

/**
 * The class of a failure thrown on the way to an answer. The client core marks its errors with their class
 * (`requestClass`); anything else (bad input, a token that could not be had) was thrown before the request was sent:
 * refused, unless an earlier attempt under the key may have reached the service.
 */
export function classOfError(err: unknown, earlierMaybeSent = false): RequestClass {
  const marked = (err as {requestClass?: unknown} | undefined)?.requestClass
  if (marked === 'refused' || marked === 'unknown' || marked === 'accepted') return marked
  return earlierMaybeSent ? 'unknown' : 'refused'
}

/** The wait a refusal asks for: a 429's Retry-After (header or body, see retryAfterMs); undefined for anything else. */
export function askedWaitMs(status: number | undefined, headers: Record<string, string | undefined>, body: unknown): number | undefined {
  return status === 429 ? retryAfterMs(headers, body) : undefined
}

/** A failure that is the service slowing the caller down (a 429): the wait it asked for (possibly none); else undefined. */
export function throttleOf(err: unknown): {waitMs: number | undefined} | undefined {
  const e = err as {status?: unknown; responseHeaders?: Record<string, string>; body?: unknown} | undefined
  return e?.status === 429 ? {waitMs: askedWaitMs(429, e.responseHeaders ?? {}, e.body)} : undefined
}

/** Back-off of a shared rate after a 429 that named no wait: 4 x BASE, doubling while they last, capped. */
export function throttleBackoffMs(previousMs: number): number {
  return Math.min(MAX_DELAY_MS, previousMs === 0 ? BASE_DELAY_MS * 4 : previousMs * 2)
}

/** Waits between --wait polls: 0.5 s growing by half each time up to 5 s, with ±10 % jitter. */
export function pollDelayMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(5000, 500 * 1.5 ** attempt)
  return Math.round(base * (0.9 + random() * 0.2))
}

/** Exponential backoff with full jitter: attempt 1 waits up to BASE, attempt 2 up to 2×BASE, … capped. */
function backoffMs(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** Math.max(0, attempt - 1))
  return Math.round(ceiling / 2 + (random() * ceiling) / 2)
}

/**
 * The server's requested wait: the Retry-After header (seconds or an HTTP date), else the body's
 * error.retry_after (seconds). Undefined when neither is present.
 */
export function retryAfterMs(headers: Record<string, string | undefined>, body: unknown, now = Date.now()): number | undefined {
  const header = headers['retry-after']
  if (header !== undefined && header.trim() !== '') {
    const trimmed = header.trim()
    if (/^[0-9]+$/.test(trimmed)) return Number(trimmed) * 1000
    const date = Date.parse(trimmed)
    if (!Number.isNaN(date)) return Math.max(0, date - now)
  }
  const fromBody = (body as {error?: {retry_after?: unknown}} | undefined)?.error?.retry_after
  if (typeof fromBody === 'number' && Number.isFinite(fromBody) && fromBody >= 0) return fromBody * 1000
  return undefined
}

/** Network error codes that prove the request never left: safe to retry even a non-idempotent POST. */
/** The codes of src/client/transport.ts's own failures (UND_ERR_*: undici's, through a proxy). */
export const CONNECT_TIMEOUT_CODE = 'PAY_CONNECT_TIMEOUT'
export const RESPONSE_TIMEOUT_CODE = 'PAY_RESPONSE_TIMEOUT'
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', CONNECT_TIMEOUT_CODE, 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_CONNECT'])
const TIMEOUT_CODES = new Set([RESPONSE_TIMEOUT_CODE, 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT', 'ABORT_ERR', 'UND_ERR_ABORTED'])
/** Certificate verification failures (node's tls / OpenSSL codes). */
const TLS_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
  'INVALID_CA',
  'ERR_TLS_CERT_ALTNAME_INVALID',
])

export function classifyNetworkError(err: unknown): AttemptOutcome {
  const code = errorCode(err)
  if (code && TLS_CODES.has(code)) return {kind: 'tls', code}
  if (code && TIMEOUT_CODES.has(code)) return {kind: 'timeout'}
  return {kind: 'network', sent: !(code && NOT_SENT_CODES.has(code))}
}

/** The most telling error code in an error's cause chain (undici wraps system errors). */
export function errorCode(err: unknown): string | undefined {
  const codes: string[] = []
  let e: unknown = err
  for (let depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const code = (e as {code?: unknown}).code
    if (typeof code === 'string') codes.push(code)
    e = (e as {cause?: unknown}).cause
  }
  return codes.find((c) => TLS_CODES.has(c) || NOT_SENT_CODES.has(c) || TIMEOUT_CODES.has(c)) ?? codes[0]
}

/** All attempts of one request, with the waits between them, end within this many times --timeout. */
export const DEADLINE_FACTOR = 2
