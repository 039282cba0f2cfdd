/**
 * When to retry and how long to wait: pure functions, unit-tested without a network.
 * GETs and idempotent POSTs (they carry an Idempotency-Key) retry connection errors, timeouts, 429, 502, 503, 504.
 * A non-idempotent POST retries only a 429 and a connection that failed before the request was sent.
 */
export const DEFAULT_RETRIES = 3
export const BASE_DELAY_MS = 250
export const MAX_DELAY_MS = 8000
/** A Retry-After longer than this is not waited out: the command fails with exit 6 and says when to retry. */
export const MAX_RETRY_AFTER_MS = 30_000

export type AttemptOutcome =
  | {kind: 'status'; status: number}
  /** sent: whether the request may have reached the service (false for refused connections, DNS errors, connect timeouts). */
  | {kind: 'network'; sent: boolean}
  | {kind: 'timeout'}
  /** The server's certificate could not be verified: repeating cannot help. */
  | {kind: 'tls'; code: string}

const RETRYABLE_STATUS = new Set([429, 502, 503, 504])

export function isRetryable(outcome: AttemptOutcome, safeToRepeat: boolean): boolean {
  if (outcome.kind === 'status') return safeToRepeat ? RETRYABLE_STATUS.has(outcome.status) : outcome.status === 429
  if (outcome.kind === 'network') return safeToRepeat || !outcome.sent
  if (outcome.kind === 'tls') return false
  return safeToRepeat
}

/** Exponential backoff with full jitter: attempt 1 waits up to BASE, attempt 2 up to 2×BASE, … capped. */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
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
