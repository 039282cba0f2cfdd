/**
 * `pay webhook verify`: checks a saved delivery exactly as the listener does (src/webhooks/signature.ts) and says
 * why it is or is not genuine; with --explain, every signature candidate tried. The command only parses; this is
 * its logic, tested in-process.
 */
import {readFile} from 'node:fs/promises'
import {InputError} from '../base/errors.js'
import {resolveSettings, webhookSecrets} from '../config/settings.js'
import type {Output} from '../output/output.js'
import {printableLine} from '../output/printable.js'
import {describeScheme, explainSignature, parseSchemeId, pinnedSetting, type Scheme, SCHEME_IDS, schemeId, SIGNATURE_HEADER, TIMESTAMP_HEADER, verifySignature} from './signature.js'

interface VerifyOptions {
  profile?: string
  secret?: string[]
  /** The Service-Signature header value. */
  signature: string
  /** The Service-Timestamp header value. */
  timestamp?: string
  /** The file holding the raw body (default: stdin). */
  file?: string
  tolerance: number
  'ignore-timestamp'?: boolean
  explain?: boolean
}

interface VerifyRun {
  /** The environment settings are read from (default: the process's). */
  env?: NodeJS.ProcessEnv
  /** Where the body comes from without --file (default: the process's stdin); a terminal is refused. */
  stdin?: NodeJS.ReadableStream & {isTTY?: boolean}
}

/** `pay webhook verify`: the secrets and the pinned format from flags, env or profile, the body, then the verdict. */
export async function runWebhookVerify(o: VerifyOptions, out: Output, run: VerifyRun = {}): Promise<number> {
  const settings = await resolveSettings({profile: o.profile}, run.env)
  const secrets = await webhookSecrets(o.secret, settings)
  if (secrets.length === 0) throw InputError.one('--secret', 'is required (or set PAY_WEBHOOK_SECRET, or webhook_secret in the profile)')
  const pinned = pinnedSetting(settings.webhookSignature)
  const body = await bodyOf(o.file, run.stdin)
  return verifyDelivery(out, {
    header: o.signature,
    timestampHeader: o.timestamp,
    body,
    secrets,
    toleranceSeconds: o.tolerance,
    ignoreTimestamp: o['ignore-timestamp'],
    explain: o.explain,
    pinned,
  })
}

/** The raw body: the file's bytes, or stdin's (never a terminal's: nobody types a signed body). */
async function bodyOf(file: string | undefined, given: (NodeJS.ReadableStream & {isTTY?: boolean}) | undefined): Promise<Buffer> {
  if (file) {
    try {
      return await readFile(file)
    } catch (err) {
      throw InputError.one('--file', `cannot be read: ${(err as Error).message}`)
    }
  }
  // process.stdin only when read: touching it builds a stream (src/operation/body-input.ts)
  const stdin = given ?? process.stdin
  if (stdin.isTTY) throw InputError.one('--file', 'or a body on stdin is required', 'pipe the raw body in, or give --file body.json')
  const chunks: Buffer[] = []
  for await (const chunk of stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk))
  return Buffer.concat(chunks)
}

interface VerifyDeliveryOptions {
  /** The Service-Signature value (a leading `Service-Signature:` is dropped). */
  header: string
  /** The Service-Timestamp value, when the service sends the timestamp apart. */
  timestampHeader?: string
  body: Buffer
  secrets: string[]
  toleranceSeconds: number
  ignoreTimestamp?: boolean
  explain?: boolean
  pinned?: Scheme
}

/** Prints the verdict (the event on stdout when genuine) and returns the exit code: 0 genuine, 1 not. */
function verifyDelivery(out: Output, o: VerifyDeliveryOptions): number {
  const header = o.header.replace(/^\s*service-signature\s*:\s*/i, '').trim()
  const timestampHeader = o.timestampHeader?.replace(/^\s*service-timestamp\s*:\s*/i, '').trim()
  const now = Math.floor(Date.now() / 1000)
  const options = {toleranceSeconds: o.ignoreTimestamp ? Number.MAX_SAFE_INTEGER : o.toleranceSeconds, now, timestampHeader, pinned: o.pinned}
  const explained = explainSignature(header, o.body, o.secrets, options)
  const result = explained.result
  if (o.explain) explain(out, explained.candidates, o.pinned)

  let failure: {reason: string; detail: string} | undefined
  let event: unknown
  if (!result.ok) {
    failure = {reason: result.reason, detail: result.detail}
    const text = o.body.toString('latin1')
    if (result.reason === 'no_matching_signature' && /\r?\n$/.test(text)) {
      const trimmed = o.body.subarray(0, o.body.length - (text.endsWith('\r\n') ? 2 : 1))
      if (verifySignature(header, trimmed, o.secrets, {...options, toleranceSeconds: Number.MAX_SAFE_INTEGER}).ok) {
        failure.detail += '; it WOULD match without the trailing newline of the body (added by echo or an editor?)'
      }
    }
  } else {
    try {
      event = JSON.parse(o.body.toString('utf8'))
    } catch {
      failure = {reason: 'invalid_json', detail: 'the signature matches but the body is not JSON'}
    }
  }

  if (failure) {
    if (out.json) out.data(JSON.stringify({valid: false, ...failure, ...(o.explain ? {candidates: explained.candidates} : {})}))
    out.errorLine(`invalid: ${failure.reason}: ${failure.detail}`)
    return 1
  }
  const ok = result as {ok: true; timestamp: number; scheme: Scheme}
  const age = now - ok.timestamp
  const scheme = schemeId(ok.scheme)
  if (out.json) out.data(JSON.stringify({valid: true, timestamp: ok.timestamp, scheme, event, ...(o.explain ? {candidates: explained.candidates} : {})}))
  else {
    out.info(`${out.color('green', 'valid', 'err')}: signature matches as ${scheme} (${describeScheme(ok.scheme)}); timestamp ${ok.timestamp} (${Math.abs(age)} s ${age >= 0 ? 'ago' : 'in the future'})`)
    if (!o.pinned) out.info(`  pin it once the service's format is known: webhook_signature=${scheme} in the profile (or PAY_WEBHOOK_SIGNATURE)`)
    out.data(JSON.stringify(event, null, 2))
  }
  return 0
}

/** The candidates tried, one line each, on stderr; for a header pay cannot read, the formats it recognises. */
function explain(out: Output, candidates: {scheme: string; description: string; matched: boolean; skipped?: string}[], pinned: Scheme | undefined): void {
  if (candidates.length === 0) {
    out.info(`no signature candidate could be read from ${SIGNATURE_HEADER}; the formats pay recognises${pinned ? ` (pinned: ${describeScheme(pinned)})` : ''}:`)
    for (const id of SCHEME_IDS) out.info(`  ${id.padEnd(20)} ${describeScheme(parseSchemeId(id)!)}`)
    out.info(`  (hex or base64/base64url digests; SHA-256 or SHA-512 by length; several digests comma-separated; the timestamp as t= or in ${TIMESTAMP_HEADER})`)
    return
  }
  out.info('signature candidates tried:')
  for (const c of candidates) out.info(`  ${c.scheme.padEnd(20)} ${printableLine(c.description)}: ${c.skipped ? `skipped (${c.skipped})` : c.matched ? 'MATCHES' : 'no match'}`)
}
