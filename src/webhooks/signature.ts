/**
 * The webhook signature scheme, in one place (spec, Events §4 and §6: the format is "not shown").
 * ASSUMPTION (docs/assumptions.md): header `Service-Signature: t=<unix seconds>,v1=<lowercase hex HMAC-SHA256>`,
 * keyed by the secret's UTF-8 bytes, over `<t>.<raw body bytes>`. Several v1 entries may appear during secret
 * rotation; any one matching passes. Timestamps more than `toleranceSeconds` from now are rejected.
 */
import {createHmac, timingSafeEqual} from 'node:crypto'

export const SIGNATURE_HEADER = 'Service-Signature'
export const DEFAULT_TOLERANCE_SECONDS = 300

/** The HMAC-SHA256 bytes of `<t>.<raw body>`. */
function signatureBytes(secret: string, timestamp: number, rawBody: Buffer | string): Buffer {
  const mac = createHmac('sha256', Buffer.from(secret, 'utf8'))
  mac.update(`${timestamp}.`)
  mac.update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody)
  return mac.digest()
}

export function computeSignature(secret: string, timestamp: number, rawBody: Buffer | string): string {
  return signatureBytes(secret, timestamp, rawBody).toString('hex')
}

/** The header value for a body signed with one or more secrets (several during rotation). */
export function signatureHeader(secrets: string | string[], rawBody: Buffer | string, timestamp = Math.floor(Date.now() / 1000)): string {
  const list = Array.isArray(secrets) ? secrets : [secrets]
  return [`t=${timestamp}`, ...list.map((secret) => `v1=${computeSignature(secret, timestamp, rawBody)}`)].join(',')
}

export interface ParsedSignature {
  timestamp: number
  signatures: string[]
}

export type VerifyFailure =
  | 'missing_header'
  | 'malformed_header'
  | 'timestamp_outside_tolerance'
  | 'no_matching_signature'

export type VerifyResult = {ok: true; timestamp: number} | {ok: false; reason: VerifyFailure; detail: string}

/** The usual header, one timestamp and one v1 signature: parsed with one match. */
const SIMPLE_HEADER = /^t=([0-9]{1,12}),v1=([0-9a-f]{64})$/

export function parseSignatureHeader(value: string): ParsedSignature | undefined {
  const simple = SIMPLE_HEADER.exec(value)
  if (simple) return {timestamp: Number(simple[1]), signatures: [simple[2]]}
  let timestamp: number | undefined
  const signatures: string[] = []
  for (const part of value.split(',')) {
    const eq = part.indexOf('=')
    if (eq <= 0) return undefined
    const key = part.slice(0, eq).trim()
    const val = part.slice(eq + 1).trim()
    if (key === 't') {
      if (!/^[0-9]{1,12}$/.test(val) || timestamp !== undefined) return undefined
      timestamp = Number(val)
    } else if (key === 'v1') {
      if (!/^[0-9a-f]{64}$/.test(val)) return undefined
      signatures.push(val)
    }
    // unknown schemes (v0, v2…) are ignored so a future scheme can be added beside v1
  }
  if (timestamp === undefined || signatures.length === 0) return undefined
  return {timestamp, signatures}
}

export interface VerifyOptions {
  toleranceSeconds?: number
  /** Current time in unix seconds; defaults to the clock. */
  now?: number
}

/** Verifies a delivery against the raw body bytes, never a re-serialised object. Constant-time comparison. */
export function verifySignature(
  header: string | undefined,
  rawBody: Buffer | string,
  secrets: string | string[],
  options: VerifyOptions = {},
): VerifyResult {
  if (header === undefined || header.trim() === '') {
    return {ok: false, reason: 'missing_header', detail: `no ${SIGNATURE_HEADER} header`}
  }
  const parsed = parseSignatureHeader(header)
  if (!parsed) {
    return {ok: false, reason: 'malformed_header', detail: `${SIGNATURE_HEADER} is not of the form t=<unix seconds>,v1=<64 hex>`}
  }
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS
  const now = options.now ?? Math.floor(Date.now() / 1000)
  const skew = parsed.timestamp - now
  if (Math.abs(skew) > tolerance) {
    const side = skew > 0 ? 'in the future' : 'old'
    return {ok: false, reason: 'timestamp_outside_tolerance', detail: `timestamp is ${Math.abs(skew)} s ${side}; tolerance is ${tolerance} s`}
  }
  const list = Array.isArray(secrets) ? secrets : [secrets]
  const candidates = parsed.signatures.map((candidate) => Buffer.from(candidate, 'hex'))
  for (const secret of list) {
    const expected = signatureBytes(secret, parsed.timestamp, rawBody)
    for (const got of candidates) {
      if (got.length === expected.length && timingSafeEqual(got, expected)) return {ok: true, timestamp: parsed.timestamp}
    }
  }
  return {ok: false, reason: 'no_matching_signature', detail: 'no v1 signature matches the body with the configured secret'}
}
