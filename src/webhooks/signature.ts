/**
 * The webhook signature scheme, in one place (spec, Events §4 and §6: the format is "not shown").
 * ASSUMPTION (docs/assumptions.md): header `Service-Signature: t=<unix seconds>,v1=<lowercase hex HMAC-SHA256>`,
 * keyed by the secret's UTF-8 bytes, over `<t>.<raw body bytes>`. Several v1 entries may appear during secret
 * rotation; any one matching passes. Timestamps more than `toleranceSeconds` from now are rejected.
 */
import {createHmac, hash, timingSafeEqual} from 'node:crypto'

export const SIGNATURE_HEADER = 'Service-Signature'
export const DEFAULT_TOLERANCE_SECONDS = 300

/**
 * HMAC-SHA256 (RFC 2104: H(K^opad || H(K^ipad || message))) made of two one-shot SHA-256 digests, with each
 * secret's padded key blocks prepared once: createHmac() sets up an OpenSSL HMAC context on every call, which
 * costs more than hashing a delivery (the listener verifies every event). Bodies over SCRATCH_MAX go through
 * createHmac (no copy). Checked against openssl in test/webhooks/signature.test.ts.
 */
const BLOCK = 64
const SCRATCH_MAX = 64 * 1024
interface PreparedKey {
  /** K ^ ipad, then room for the message. */
  inner: Buffer
  /** K ^ opad, then the inner digest. */
  outer: Buffer
}
const prepared = new Map<string, PreparedKey>()
let scratch = Buffer.alloc(BLOCK + 1024)
/** Whose K ^ ipad block is at the start of `scratch`. */
let scratchKey: PreparedKey | undefined

function preparedKey(secret: string): PreparedKey {
  let key = prepared.get(secret)
  if (key) return key
  let bytes = Buffer.from(secret, 'utf8')
  if (bytes.length > BLOCK) bytes = hash('sha256', bytes, 'buffer')
  key = {inner: Buffer.alloc(BLOCK), outer: Buffer.alloc(BLOCK + 32)}
  for (let i = 0; i < BLOCK; i++) {
    const k = i < bytes.length ? bytes[i] : 0
    key.inner[i] = k ^ 0x36
    key.outer[i] = k ^ 0x5c
  }
  if (prepared.size >= 32) {
    prepared.clear()
    scratchKey = undefined
  }
  prepared.set(secret, key)
  return key
}

/** Writes the HMAC-SHA256 of `<t>.<raw body>` keyed by the secret's UTF-8 bytes into `out` (32 bytes) and returns it. */
function signInto(secret: string, timestamp: number, rawBody: Buffer | string, out: Buffer): Buffer {
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody
  const prefix = `${timestamp}.`
  const size = BLOCK + prefix.length + body.length
  if (body.length > SCRATCH_MAX) {
    createHmac('sha256', secret).update(prefix).update(body).digest().copy(out)
    return out
  }
  const key = preparedKey(secret)
  if (scratch.length < size) {
    scratch = Buffer.allocUnsafe(Math.max(size, scratch.length * 2))
    scratchKey = undefined
  }
  // the key block stays in place from one delivery to the next (one secret, or the last one tried)
  if (scratchKey !== key) {
    scratch.set(key.inner, 0)
    scratchKey = key
  }
  scratch.write(prefix, BLOCK, 'binary')
  scratch.set(body, BLOCK + prefix.length)
  // 'binary' (latin1) strings carry the digest bytes one to one, and cost less than digest Buffers
  key.outer.write(hash('sha256', new Uint8Array(scratch.buffer, scratch.byteOffset, size), 'binary'), BLOCK, 'binary')
  out.write(hash('sha256', key.outer, 'binary'), 0, 'binary')
  return out
}

/** The HMAC-SHA256 bytes of `<t>.<raw body>`. */
function signatureBytes(secret: string, timestamp: number, rawBody: Buffer | string): Buffer {
  return signInto(secret, timestamp, rawBody, Buffer.allocUnsafe(32))
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

/** The expected and the given signature bytes of the delivery being verified (verification is synchronous). */
const expected = Buffer.alloc(32)
const got = Buffer.alloc(32)

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
  for (const secret of list) {
    signInto(secret, parsed.timestamp, rawBody, expected)
    for (const candidate of parsed.signatures) {
      got.write(candidate, 0, 'hex')
      if (timingSafeEqual(got, expected)) return {ok: true, timestamp: parsed.timestamp}
    }
  }
  return {ok: false, reason: 'no_matching_signature', detail: 'no v1 signature matches the body with the configured secret'}
}
