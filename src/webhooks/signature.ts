/**
 * The webhook signature, in one place (spec, Events §4: an HMAC over `<timestamp>.<raw_body>` in `Service-Signature`,
 * timestamps within 300 s; §6: the algorithm and the header format are "not shown").
 *
 * What pay signs (`sign`, the sandbox and `pay webhook trigger`) is its assumption (docs/assumptions.md):
 * `Service-Signature: t=<unix seconds>,v1=<lowercase hex HMAC-SHA256>`, keyed by the secret's UTF-8 bytes; several
 * v1 entries during a rotation.
 *
 * What pay accepts (`verify`, the listener and `pay webhook verify`) is every plausible encoding of that HMAC, since
 * the service's own is not shown: a digest in hex or base64 (base64url too), SHA-256 or SHA-512 told apart by its
 * length, as `v1=` beside `t=` in the header, or as the whole header (or `sha256=`/`sha512=`) with the timestamp in
 * a separate `Service-Timestamp` header. The result names the scheme that matched; a profile's `webhook_signature`
 * pins one. Tolerance never weakens the check: each candidate digest is compared in full, in constant time
 * (timingSafeEqual on equal lengths), with an HMAC computed by node:crypto, and only inside the timestamp window.
 */
import {createHmac, createSecretKey, type KeyObject, timingSafeEqual} from 'node:crypto'
import {InputError} from '../base/errors.js'

export const SIGNATURE_HEADER = 'Service-Signature'
/** The separate timestamp header of the schemes whose Service-Signature holds only the digest. */
export const TIMESTAMP_HEADER = 'Service-Timestamp'
export const DEFAULT_TOLERANCE_SECONDS = 300

type Algorithm = 'sha256' | 'sha512'
type Encoding = 'hex' | 'base64'
/** Where the timestamp is: `t=` in Service-Signature, or the Service-Timestamp header. */
type TimestampPlace = 'inline' | 'header'

export interface Scheme {
  place: TimestampPlace
  encoding: Encoding
  algorithm: Algorithm
}

/** The scheme pay signs with (and the sandbox sends). */
export const DEFAULT_SCHEME: Scheme = {place: 'inline', encoding: 'hex', algorithm: 'sha256'}

/** A scheme's name, as `--signature-format` / the profile's `webhook_signature` take it: `inline-hex-sha256`. */
export function schemeId(s: Scheme): string {
  return `${s.place}-${s.encoding}-${s.algorithm}`
}

/** Every scheme, by name. */
export const SCHEME_IDS: readonly string[] = (['inline', 'header'] as const).flatMap((place) =>
  (['hex', 'base64'] as const).flatMap((encoding) => (['sha256', 'sha512'] as const).map((algorithm) => schemeId({place, encoding, algorithm}))),
)

export function parseSchemeId(id: string): Scheme | undefined {
  const [place, encoding, algorithm] = id.split('-')
  const scheme = {place, encoding, algorithm} as Scheme
  return SCHEME_IDS.includes(id) ? scheme : undefined
}

/** The scheme a setting pins (the profile's webhook_signature, PAY_WEBHOOK_SIGNATURE), or the rule it breaks. */
export function pinnedScheme(id: string | undefined): {scheme?: Scheme; problem?: string} {
  if (id === undefined || id === '') return {}
  const scheme = parseSchemeId(id.trim().toLowerCase())
  return scheme ? {scheme} : {problem: `must be one of ${SCHEME_IDS.join(', ')} (got ${JSON.stringify(id)})`}
}

/** The scheme the settings pin (the profile's webhook_signature, PAY_WEBHOOK_SIGNATURE); a bad one is bad input. */
export function pinnedSetting(id: string | undefined): Scheme | undefined {
  const pinned = pinnedScheme(id)
  if (pinned.problem) throw InputError.one('webhook_signature', pinned.problem, 'fix it in the profile (pay profiles add NAME --webhook-signature …) or PAY_WEBHOOK_SIGNATURE')
  return pinned.scheme
}

/**
 * The scheme to sign with, in one place (`pay webhook replay` and `trigger`): the one the settings pin (the
 * profile's webhook_signature, PAY_WEBHOOK_SIGNATURE; a bad one is bad input), else the one a kept delivery was
 * verified in (its schemeId), else pay's default.
 */
export function signingScheme(pinned: string | undefined, detected?: string): Scheme {
  return pinnedSetting(pinned) ?? (detected === undefined ? undefined : parseSchemeId(detected)) ?? DEFAULT_SCHEME
}

/** A scheme in words: "t=…,v1=<hex HMAC-SHA256> in Service-Signature". */
export function describeScheme(s: Scheme): string {
  const digest = `<${s.encoding} HMAC-${s.algorithm.toUpperCase().replace('SHA', 'SHA-')}>`
  return s.place === 'inline' ? `t=…,v1=${digest} in ${SIGNATURE_HEADER}` : `${digest} in ${SIGNATURE_HEADER}, timestamp in ${TIMESTAMP_HEADER}`
}

const DIGEST_BYTES: Record<Algorithm, number> = {sha256: 32, sha512: 64}

/** A secret: its text, or its UTF-8 bytes as a KeyObject (secretKeys). */
type Secret = string | KeyObject

/**
 * The secrets as node:crypto KeyObjects, made once by a listener: an HMAC keyed by one skips converting the text to
 * bytes on every delivery (about a tenth of the HMAC's cost, measured in docs/performance.md).
 */
export function secretKeys(secrets: readonly string[]): KeyObject[] {
  return secrets.map((secret) => createSecretKey(Buffer.from(secret, 'utf8')))
}

/** The HMAC of `<t>.<raw body>` keyed by the secret's UTF-8 bytes. */
function hmac(algorithm: Algorithm, secret: Secret, timestamp: number, rawBody: Buffer | string): Buffer {
  return createHmac(algorithm, secret).update(`${timestamp}.`).update(rawBody).digest()
}

function encode(digest: Buffer, encoding: Encoding): string {
  return digest.toString(encoding)
}

interface SignedHeaders {
  /** The Service-Signature value. */
  signature: string
  /** The Service-Timestamp value, for the schemes that carry the timestamp apart. */
  timestamp?: string
}

/**
 * Signs a body: the headers a delivery carries, with one digest per secret (several during a rotation). The
 * default scheme is pay's assumption; others serve tests and a sender that must match a pinned scheme.
 */
export function sign(secrets: string | readonly string[], rawBody: Buffer | string, options: {timestamp?: number; scheme?: Scheme} = {}): SignedHeaders {
  const list = typeof secrets === 'string' ? [secrets] : secrets
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000)
  const scheme = options.scheme ?? DEFAULT_SCHEME
  const digests = list.map((secret) => encode(hmac(scheme.algorithm, secret, timestamp, rawBody), scheme.encoding))
  if (scheme.place === 'inline') return {signature: [`t=${timestamp}`, ...digests.map((d) => `v1=${d}`)].join(',')}
  return {signature: digests.join(','), timestamp: String(timestamp)}
}

/** One digest found in a header: how it is encoded, which algorithm its length says, its bytes. */
interface Candidate {
  scheme: Scheme
  digest: Buffer
}

interface ParsedSignature {
  /** The timestamp, from `t=` or the Service-Timestamp header (undefined: neither). */
  timestamp?: number
  candidates: Candidate[]
}

const TIMESTAMP = /^[0-9]{1,12}$/
const HEX = /^[0-9a-fA-F]+$/
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/
const BASE64URL = /^[A-Za-z0-9_-]+$/
const TIMESTAMP_KEYS = new Set(['t', 'ts', 'timestamp'])
/** Keys of a digest in a `k=v` header; unknown ones (v0, v2…) are ignored, so a future scheme can sit beside these. */
const DIGEST_KEYS = new Set(['v1', 'sha256', 'sha512', 's', 'sig', 'signature'])

/** The ways a text reads as an HMAC digest (at most one: the lengths do not overlap). */
function digestOf(text: string, place: TimestampPlace): Candidate | undefined {
  if (HEX.test(text) && (text.length === 64 || text.length === 128)) {
    return {scheme: {place, encoding: 'hex', algorithm: text.length === 64 ? 'sha256' : 'sha512'}, digest: Buffer.from(text, 'hex')}
  }
  if (BASE64.test(text) || BASE64URL.test(text)) {
    const digest = Buffer.from(text, BASE64.test(text) ? 'base64' : 'base64url')
    const algorithm = digest.length === 32 ? 'sha256' : digest.length === 64 ? 'sha512' : undefined
    // the text must be the digest's own encoding (padding optional), not a longer text that decodes short
    if (algorithm && text.replace(/=+$/, '').length === Math.ceil((digest.length * 4) / 3)) return {scheme: {place, encoding: 'base64', algorithm}, digest}
  }
  return undefined
}

const USUAL_HEX = 64
/**
 * The usual header, `t=<1 to 12 digits>,v1=<64 hex>` and nothing else, read without a regular expression or a
 * split (every delivery of the default scheme comes this way), or undefined for any other header.
 */
function usualHeader(value: string): ParsedSignature | undefined {
  const digits = value.length - USUAL_HEX - 6
  if (digits < 1 || digits > 12 || value.charCodeAt(0) !== 0x74 || value.charCodeAt(1) !== 0x3d) return undefined
  let timestamp = 0
  for (let i = 2; i < 2 + digits; i++) {
    const d = value.charCodeAt(i) - 0x30
    if (d < 0 || d > 9) return undefined
    timestamp = timestamp * 10 + d
  }
  const v1 = 2 + digits
  if (value.charCodeAt(v1) !== 0x2c || value.charCodeAt(v1 + 1) !== 0x76 || value.charCodeAt(v1 + 2) !== 0x31 || value.charCodeAt(v1 + 3) !== 0x3d) return undefined
  // hex decoding stops at the first character that is not hex (Buffer.from's documented truncation), so a full
  // digest says all 64 were hex: no separate pass over them
  const digest = Buffer.from(value.slice(-USUAL_HEX), 'hex')
  return digest.length === USUAL_HEX / 2 ? {timestamp, candidates: [{scheme: DEFAULT_SCHEME, digest}]} : undefined
}

/**
 * Reads a Service-Signature value (and the Service-Timestamp header, if any) into its digests; undefined when the
 * shape is not one pay recognises.
 */
function parseSignatureHeader(value: string, timestampHeader?: string): ParsedSignature | undefined {
  const usual = usualHeader(value)
  if (usual) return usual
  const separate = timestampHeader !== undefined && TIMESTAMP.test(timestampHeader.trim()) ? Number(timestampHeader.trim()) : undefined
  const whole = value.trim()
  // the whole value one digest (or several, comma-separated, during a rotation): the timestamp is apart
  const bare = whole.split(',').map((p) => digestOf(p.trim(), 'header'))
  if (bare.every((c) => c !== undefined)) return {timestamp: separate, candidates: bare}
  let timestamp: number | undefined
  const candidates: Candidate[] = []
  for (const part of whole.split(',')) {
    const eq = part.indexOf('=')
    if (eq <= 0) return undefined
    const key = part.slice(0, eq).trim()
    const val = part.slice(eq + 1).trim()
    if (TIMESTAMP_KEYS.has(key)) {
      if (!TIMESTAMP.test(val) || timestamp !== undefined) return undefined
      timestamp = Number(val)
    } else if (DIGEST_KEYS.has(key)) {
      const candidate = digestOf(val, 'inline')
      if (!candidate) return undefined
      // sha256=/sha512= name the algorithm: a digest of the other length is not theirs
      if ((key === 'sha256' || key === 'sha512') && candidate.scheme.algorithm !== key) return undefined
      candidates.push(candidate)
    }
  }
  if (candidates.length === 0) return undefined
  if (timestamp === undefined) {
    // `sha256=<digest>` alone: the timestamp is in its own header
    for (const c of candidates) c.scheme = {...c.scheme, place: 'header'}
    return {timestamp: separate, candidates}
  }
  return {timestamp, candidates}
}

/** The shape of a header value with its digits and letters masked (`t=0000000000,xx=xxxx…`): says what came, shows no value. */
function maskedShape(value: string, max = 80): string {
  const masked = value.replace(/[0-9]/g, '0').replace(/[A-Za-z]/g, 'x').replace(/[^\x20-\x7e]/g, '?')
  return masked.length > max ? `${masked.slice(0, max)}… (${value.length} characters)` : masked
}

type VerifyFailure = 'missing_header' | 'malformed_header' | 'timestamp_outside_tolerance' | 'no_matching_signature'

type VerifyResult = {ok: true; timestamp: number; scheme: Scheme} | {ok: false; reason: VerifyFailure; detail: string}

interface VerifyOptions {
  toleranceSeconds?: number
  /** Current time in unix seconds; defaults to the clock. */
  now?: number
  /** The Service-Timestamp header, for the schemes that carry the timestamp apart. */
  timestampHeader?: string
  /** Only this scheme is accepted (the profile's `webhook_signature`). */
  pinned?: Scheme
}

/** What `pay webhook verify --explain` shows: each candidate tried and whether it matched. */
interface Explanation {
  result: VerifyResult
  timestamp?: number
  candidates: {scheme: string; description: string; matched: boolean; skipped?: string}[]
}

function sameScheme(a: Scheme, b: Scheme): boolean {
  return a.place === b.place && a.encoding === b.encoding && a.algorithm === b.algorithm
}

type Examined = {ok: true; timestamp: number; scheme: Scheme} | {ok: false; reason: VerifyFailure; detail: string; timestamp?: number}

const MISSING: Examined = {ok: false, reason: 'missing_header', detail: `no ${SIGNATURE_HEADER} header`}

function examine(header: string | undefined, rawBody: Buffer | string, secrets: Secret | readonly Secret[], options: VerifyOptions, explain?: Explanation['candidates']): Examined {
  if (header === undefined) return MISSING
  // the usual header is read first: an empty one is told apart only when it is not that
  const parsed = parseSignatureHeader(header, options.timestampHeader)
  if (!parsed) {
    if (header.trim() === '') return MISSING
    return {ok: false, reason: 'malformed_header', detail: `unrecognised ${SIGNATURE_HEADER} format: ${maskedShape(header)} (pay webhook verify --explain lists the formats tried)`}
  }
  const pinned = options.pinned
  const candidates = pinned ? parsed.candidates.filter((c) => sameScheme(c.scheme, pinned)) : parsed.candidates
  if (explain) {
    for (const c of parsed.candidates) if (pinned && !sameScheme(c.scheme, pinned)) explain.push({scheme: schemeId(c.scheme), description: describeScheme(c.scheme), matched: false, skipped: `not the pinned ${schemeId(pinned)}`})
  }
  if (candidates.length === 0) return {ok: false, reason: 'malformed_header', detail: `${SIGNATURE_HEADER} is not in the pinned format ${schemeId(pinned!)} (${describeScheme(pinned!)}); its shape: ${maskedShape(header)}`}
  if (parsed.timestamp === undefined) {
    return {ok: false, reason: 'malformed_header', detail: `no timestamp: ${SIGNATURE_HEADER} holds no t= and there is no ${TIMESTAMP_HEADER} header (shape: ${maskedShape(header)})`}
  }
  const timestamp = parsed.timestamp
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS
  const now = options.now ?? Math.floor(Date.now() / 1000)
  const skew = timestamp - now
  if (Math.abs(skew) > tolerance) {
    if (explain) for (const c of candidates) explain.push({scheme: schemeId(c.scheme), description: describeScheme(c.scheme), matched: false, skipped: 'timestamp outside the tolerance'})
    return {ok: false, reason: 'timestamp_outside_tolerance', detail: `timestamp is ${Math.abs(skew)} s ${skew > 0 ? 'in the future' : 'old'}; tolerance is ${tolerance} s`, timestamp}
  }
  const list = (Array.isArray(secrets) ? secrets : [secrets]) as readonly Secret[]
  let matched: Scheme | undefined
  // every candidate is compared in full against every secret: which one matches does not change the work done;
  // each secret's HMAC is computed once per algorithm, whatever the number of candidates
  const macs: Record<Algorithm, Buffer[] | undefined> = {sha256: undefined, sha512: undefined}
  for (const c of candidates) {
    let hit = false
    const algorithm = c.scheme.algorithm
    const computed = (macs[algorithm] ??= [])
    for (let i = 0; i < list.length; i++) {
      const mac = (computed[i] ??= hmac(algorithm, list[i], timestamp, rawBody))
      if (mac.length === c.digest.length && c.digest.length === DIGEST_BYTES[algorithm] && timingSafeEqual(mac, c.digest)) hit = true
    }
    if (hit) matched ??= c.scheme
    explain?.push({scheme: schemeId(c.scheme), description: describeScheme(c.scheme), matched: hit})
  }
  if (matched) return {ok: true, timestamp, scheme: matched}
  const tried = [...new Set(candidates.map((c) => schemeId(c.scheme)))].join(', ')
  return {ok: false, reason: 'no_matching_signature', detail: `no signature matches the body with the configured secret (tried ${tried})`, timestamp}
}

/** Verifies a delivery against the raw body bytes, never a re-serialised object. Constant-time comparison. */
export function verifySignature(header: string | undefined, rawBody: Buffer | string, secrets: Secret | readonly Secret[], options: VerifyOptions = {}): VerifyResult {
  const r = examine(header, rawBody, secrets, options)
  return r.ok ? r : {ok: false, reason: r.reason, detail: r.detail}
}

/** The same check, with every candidate tried and its outcome (`pay webhook verify --explain`). */
export function explainSignature(header: string | undefined, rawBody: Buffer | string, secrets: string | readonly string[], options: VerifyOptions = {}): Explanation {
  const candidates: Explanation['candidates'] = []
  const r = examine(header, rawBody, secrets, options, candidates)
  return {result: r.ok ? r : {ok: false, reason: r.reason, detail: r.detail}, timestamp: r.timestamp, candidates}
}

/** The API the rest of pay uses: `sign` a body (above), `verify` a delivery. */
export const verify = verifySignature
