/**
 * The run functions of `pay webhook history`, `pay webhook show` and `pay webhook replay` (the oclif classes only
 * parse): the local webhook history (src/webhooks/history.ts) read, filtered, shown and sent again.
 */
import {InputError, PayError} from '../base/errors.js'
import {ExitCode} from '../base/exit-codes.js'
import {redactUrl} from '../base/redact.js'
import {resolveSettings, webhookSecrets} from '../config/settings.js'
import type {Output} from '../output/output.js'
import {printable} from '../output/printable.js'
import {bodyView} from './body-view.js'
import {deliveryHeaders} from './delivery-headers.js'
import {HTTP_URL_RULE, eventFilter, isHttpUrl, parseDuration, parsePatterns, parseSince, parseSize} from './filter.js'
import {failedEvents, forwardState, historyDir, HistoryWriter, readHistory, type ForwardState, type HistoryBounds, type HistoryVerdict, type StoredDelivery, MAX_AGE_ENV, MAX_SIZE_ENV, DEFAULT_MAX_AGE_MS, DEFAULT_MAX_BYTES} from './history.js'
import type {ForwardRoute} from './forward.js'
import {SIGNATURE_HEADER, signingScheme, TIMESTAMP_HEADER} from './signature.js'

/** The header a replayed delivery carries, so that an app can tell it from the service's own. */
const REPLAY_HEADER = 'Service-Delivery-Replay'
const VERDICTS: HistoryVerdict[] = ['accepted', 'duplicate', 'rejected']
const FORWARD_STATES: ForwardState[] = ['ok', 'failed', 'none']

/** The filters shared by `history` and `replay`, as given on the command line. */
interface HistoryFilterFlags {
  type?: string[]
  since?: string
  verdict?: string
  forward?: string
  reference?: string
}

interface HistoryFilter {
  match: (d: StoredDelivery) => boolean
  /** Whether any filter was given. */
  any: boolean
}

/** The filters checked (a bad value names its flag, exit 2) and made into one predicate. */
function historyFilter(flags: HistoryFilterFlags, now = Date.now()): HistoryFilter {
  const problems: {flag: string; rule: string}[] = []
  const patterns = parsePatterns(flags.type)
  const since = flags.since === undefined ? undefined : parseSince(flags.since, now)
  if (flags.since !== undefined && since === undefined) problems.push({flag: '--since', rule: 'must be a duration back from now (30m, 1h, 2d) or a date/time (2026-11-26, 2026-11-26T14:00:00Z)'})
  if (flags.verdict !== undefined && !VERDICTS.includes(flags.verdict as HistoryVerdict)) problems.push({flag: '--verdict', rule: `must be one of ${VERDICTS.join(', ')}`})
  if (flags.forward !== undefined && !FORWARD_STATES.includes(flags.forward as ForwardState)) problems.push({flag: '--forward', rule: `must be one of ${FORWARD_STATES.join(', ')}`})
  if (problems.length > 0) throw new InputError(problems)
  const type = patterns.length > 0 ? eventFilter(patterns) : undefined
  return {
    any: patterns.length > 0 || since !== undefined || flags.verdict !== undefined || flags.forward !== undefined || flags.reference !== undefined,
    match: (d) =>
      (type === undefined || (d.type !== undefined && type(d.type))) &&
      (since === undefined || d.at >= since) &&
      (flags.verdict === undefined || d.verdict === flags.verdict) &&
      (flags.forward === undefined || forwardState(d.attempts) === flags.forward) &&
      (flags.reference === undefined || d.reference === flags.reference),
  }
}

/** The history's bounds: flag, else environment, else the defaults. A bad value names its flag (or variable). */
export function historyBounds(flags: {'history-max-age'?: string; 'history-max-size'?: string}, env: NodeJS.ProcessEnv = process.env): Required<HistoryBounds> {
  const problems: {flag: string; rule: string}[] = []
  const age = flags['history-max-age'] ?? env[MAX_AGE_ENV]
  const size = flags['history-max-size'] ?? env[MAX_SIZE_ENV]
  const maxAgeMs = age === undefined ? DEFAULT_MAX_AGE_MS : parseDuration(age)
  const maxBytes = size === undefined ? DEFAULT_MAX_BYTES : parseSize(size)
  if (maxAgeMs === undefined) problems.push({flag: flags['history-max-age'] === undefined ? MAX_AGE_ENV : '--history-max-age', rule: 'must be a duration such as 12h, 7d or 2w'})
  if (maxBytes === undefined) problems.push({flag: flags['history-max-size'] === undefined ? MAX_SIZE_ENV : '--history-max-size', rule: 'must be a size such as 64MiB or 1048576'})
  if (problems.length > 0) throw new InputError(problems)
  return {maxAgeMs: maxAgeMs!, maxBytes: maxBytes!}
}

/** One row of `pay webhook history`. */
function deliveryRow(d: StoredDelivery): Record<string, unknown> {
  return {
    at: new Date(d.at).toISOString(),
    event_id: d.event_id ?? null,
    type: d.type ?? null,
    verdict: d.filtered ? 'accepted (filtered)' : d.verdict,
    reason: d.reason ?? null,
    status: d.status ?? null,
    forward: forwardState(d.attempts),
    attempts: d.attempts.length,
    reference: d.reference ?? null,
    id: d.id,
  }
}

/** A forwarded delivery with no answer kept: the listener stopped while it was being forwarded. */
const NOT_ANSWERED = 'not answered (the listener stopped while forwarding it)'

const NO_HISTORY = 'No webhook deliveries are kept on this machine yet: `pay webhook listen` keeps every delivery it receives.'

interface HistoryOptions extends HistoryFilterFlags {
  limit: number
  env?: NodeJS.ProcessEnv
}

/** `pay webhook history`: the kept deliveries, newest first, filtered. The rows listed. */
export function runWebhookHistory(options: HistoryOptions, out: Output): Record<string, unknown>[] {
  const filter = historyFilter(options)
  const all = readHistory(historyDir(options.env))
  const rows = all.filter(filter.match).slice(0, options.limit).map(deliveryRow)
  if (out.json) out.data(JSON.stringify(rows))
  else if (rows.length === 0) out.info(all.length === 0 ? NO_HISTORY : 'No kept delivery matches these filters.')
  else out.data(out.list(rows, ['at', 'event_id', 'type', 'verdict', 'status', 'forward', 'reference']))
  return rows
}

/** The deliveries of an event id (EVT_…) or the one delivery of a delivery id (dlv_…), newest first. */
function deliveriesOf(all: StoredDelivery[], id: string): StoredDelivery[] {
  return all.filter((d) => d.event_id === id || d.id === id)
}

/** A delivery in full (the structured view of `pay webhook show`). */
function deliveryDetail(d: StoredDelivery): Record<string, unknown> {
  return {
    id: d.id,
    at: new Date(d.at).toISOString(),
    event_id: d.event_id ?? null,
    type: d.type ?? null,
    reference: d.reference ?? null,
    verdict: d.verdict,
    status: d.status ?? null,
    verified: d.verified,
    // the signature format it was verified in (schemeId, the name `pay webhook verify --json` gives it): a replay signs in it
    scheme: d.scheme ?? null,
    ...(d.filtered ? {filtered: true} : {}),
    ...(d.reason ? {reason: d.reason, detail: d.detail} : {}),
    headers: Object.fromEntries(d.headers),
    body: bodyView(d.body),
    forward: forwardState(d.attempts),
    // redactUrl: kept URLs are redacted when written; a history written by an older pay may hold one whole
    attempts: d.attempts.map((a) => ({at: new Date(a.at).toISOString(), url: redactUrl(a.url), status: a.status ?? null, ...(a.error ? {error: a.error, detail: a.detail} : {}), ms: a.ms, ...(a.replay ? {replay: true} : {})})),
  }
}

function attemptLine(a: StoredDelivery['attempts'][number]): string {
  const what = a.status !== undefined ? String(a.status) : `${a.error}: ${a.detail}`
  return `    ${new Date(a.at).toISOString()}  ${a.replay ? 'replay ' : ''}→ ${redactUrl(a.url)}  ${what}  (${a.ms} ms)`
}

/** `pay webhook show EVT_…|dlv_…`: every kept delivery of the event (or the one delivery), in full. */
export function runWebhookShow(options: {id: string; env?: NodeJS.ProcessEnv}, out: Output): Record<string, unknown>[] {
  const all = readHistory(historyDir(options.env))
  const found = deliveriesOf(all, options.id)
  if (found.length === 0) throw new PayError(`no kept delivery of "${options.id}"`, ExitCode.NOT_FOUND, all.length === 0 ? NO_HISTORY : 'see `pay webhook history` for what is kept')
  const views = found.map(deliveryDetail)
  if (out.json) {
    out.data(JSON.stringify(found.length === 1 && found[0].id === options.id ? views[0] : {event_id: options.id, deliveries: views}))
    return views
  }
  const blocks = found.map((d) => {
    const lines = [`Delivery ${d.id}  ${new Date(d.at).toISOString()}`]
    lines.push(`  event      ${d.event_id ?? '(none)'}  ${d.type ?? ''}${d.reference ? `  ref ${d.reference}` : ''}`)
    lines.push(`  verdict    ${d.verdict}${d.filtered ? ' (filtered out by --events)' : ''}, ${d.status === undefined ? NOT_ANSWERED : `answered ${d.status}`}${d.verified ? `, signature verified${d.scheme ? ` as ${d.scheme}` : ''}` : d.verdict === 'rejected' ? '' : ', signature NOT verified (--no-verify)'}${d.reason ? `: ${d.reason}: ${d.detail}` : ''}`)
    lines.push('  headers')
    for (const [name, value] of d.headers) lines.push(`    ${name}: ${value}`)
    lines.push('  body')
    const body = bodyView(d.body)
    for (const line of (typeof body === 'string' ? body : JSON.stringify(body, null, 2)).split('\n')) lines.push(`    ${line}`)
    lines.push(d.attempts.length === 0 ? '  attempts   none (not forwarded)' : `  attempts   forward ${forwardState(d.attempts)}`)
    for (const a of d.attempts) lines.push(attemptLine(a))
    return lines.join('\n')
  })
  out.data(printable(blocks.join('\n\n')))
  return views
}

interface ReplayOptions extends HistoryFilterFlags {
  ids: string[]
  failed: boolean
  to: string
  includeRejected: boolean
  /** Also replay deliveries accepted without a verified signature (a listener run with --no-verify). */
  includeUnverified?: boolean
  originalHeaders: boolean
  /** The secrets to sign with (--secret), else the one in effect (PAY_WEBHOOK_SECRET, the profile's): each replay is signed afresh with a current timestamp. */
  secret?: string[]
  profile?: string
  timeoutMs: number
  concurrency: number
  userAgent: string
  limit?: number
  env?: NodeJS.ProcessEnv
}

interface ReplayResult {
  event_id: string | null
  delivery_id: string
  type: string | null
  status: number | null
  ok: boolean
  error?: string
  ms: number
}

/** A delivery the listener accepted (or answered as a duplicate) without verifying its signature: --no-verify. */
const unverifiedAccepted = (d: StoredDelivery) => d.verdict !== 'rejected' && d.verified !== true

/**
 * The delivery to replay of one event's kept deliveries (newest first): an accepted one whose signature the
 * listener verified, else a verified duplicate; one it never verified (--no-verify) only with --include-unverified,
 * a rejected one only with --include-rejected. A replay is signed with the real secret: a delivery pay never
 * verified, signed so, would be trusted by the app whoever sent it.
 */
function replayPick(found: StoredDelivery[], options: ReplayOptions): StoredDelivery | undefined {
  const verified = (verdict: HistoryVerdict) => found.find((d) => d.verdict === verdict && d.verified === true)
  const unverified = (verdict: HistoryVerdict) => (options.includeUnverified ? found.find((d) => d.verdict === verdict) : undefined)
  return verified('accepted') ?? verified('duplicate') ?? unverified('accepted') ?? unverified('duplicate') ?? (options.includeRejected ? found.find((d) => d.verdict === 'rejected') : undefined)
}

interface Selection {
  chosen: StoredDelivery[]
  /** Events (or deliveries without one) left out only because no delivery of them was verified. */
  unverified: number
  /** Ids named after another one of the same event (or the same id twice): the event is replayed once. */
  repeated?: string[]
}

/**
 * What to replay: the named events (their newest accepted delivery; a delivery id names its event), or what the
 * filters select; one replay per event, however often it is named.
 */
function replaySelection(all: StoredDelivery[], options: ReplayOptions): Selection {
  const filter = historyFilter(options)
  if (options.ids.length > 0) {
    const problems: {flag: string; rule: string}[] = []
    const chosen: StoredDelivery[] = []
    const events = new Set<string>()
    const repeated: string[] = []
    for (const id of options.ids) {
      const found = deliveriesOf(all, id)
      if (found.length === 0) throw new PayError(`no kept delivery of "${id}"`, ExitCode.NOT_FOUND, 'see `pay webhook history` for what is kept; nothing was sent')
      const pick = replayPick(found, options)
      const event = pick && (pick.event_id ?? pick.id)
      if (event !== undefined && events.has(event)) repeated.push(id)
      else if (pick) {
        events.add(event!)
        chosen.push(pick)
      } else if (found.some(unverifiedAccepted)) problems.push({flag: '--include-unverified', rule: `is needed to replay ${id}: the listener accepted it without verifying its signature (--no-verify), and a replay is signed with your real secret`})
      else problems.push({flag: '--include-rejected', rule: `is needed to replay ${id}: every kept delivery of it was rejected (${found[0].reason})`})
    }
    if (problems.length > 0) throw new InputError(problems, 'nothing was sent')
    return {chosen, unverified: 0, repeated}
  }
  if (!options.failed && !filter.any) {
    throw InputError.one('EVENT_ID', 'or a filter is required (--failed, --since, --type, --verdict, --forward, --reference)', 'e.g. `pay webhook replay --failed --since 1h --to http://localhost:3000/webhooks`')
  }
  const failed = options.failed ? new Set(failedEvents(all).map((d) => d.event_id)) : undefined
  // the matching deliveries of each event (one without an event id stands alone), newest first
  const groups = new Map<string, StoredDelivery[]>()
  for (const d of all) {
    if (!filter.match(d) || (failed && !failed.has(d.event_id))) continue
    const key = d.event_id ?? d.id
    const group = groups.get(key)
    if (group) group.push(d)
    else groups.set(key, [d])
  }
  const chosen: StoredDelivery[] = []
  let unverified = 0
  for (const group of groups.values()) {
    const pick = replayPick(group, options)
    if (pick) chosen.push(pick)
    else if (group.some(unverifiedAccepted)) unverified++
  }
  return {chosen: options.limit === undefined ? chosen : chosen.slice(0, options.limit), unverified}
}

/** Says what was left out as never verified, and the flag that includes it; warns when unverified ones are sent. */
function tellUnverified(selection: Selection, out: Output): void {
  const n = selection.unverified
  if (n > 0) out.warn(`skipped ${n} event${n === 1 ? '' : 's'} the listener accepted without verifying the signature (--no-verify): a replay would sign ${n === 1 ? 'it' : 'them'} with your real secret; --include-unverified replays ${n === 1 ? 'it' : 'them'} anyway`)
  const sent = selection.chosen.filter((d) => d.verified !== true).length
  if (sent > 0) out.warn(`${sent} of these deliveries never had a verified signature (--no-verify or rejected): each replay is signed with your real secret, so your app will trust whatever they say`)
}

/** Headers of a delivery as received that a replay with --original-headers replaces: the signature's, the mark. */
const REPLACED = new Set([SIGNATURE_HEADER, TIMESTAMP_HEADER, REPLAY_HEADER].map((h) => h.toLowerCase()))

/**
 * The headers of one replay: fresh delivery headers (or the original ones), a fresh signature in the scheme the
 * settings pin, else the one the delivery was verified in (signingScheme), and the replay mark.
 */
function replayHeaders(d: StoredDelivery, options: ReplayOptions, secrets: string[], pinned: string | undefined): string[] {
  const scheme = signingScheme(pinned, d.scheme)
  const fresh = deliveryHeaders({id: d.event_id ?? '', type: d.type ?? ''}, d.body, secrets, {userAgent: options.userAgent, attempt: d.attempts.length + 1, scheme})
  const headers: string[] = []
  if (options.originalHeaders) {
    for (const [name, value] of d.headers) if (!REPLACED.has(name.toLowerCase())) headers.push(name, value)
    for (const name of [SIGNATURE_HEADER, TIMESTAMP_HEADER]) if (fresh[name] !== undefined) headers.push(name, fresh[name])
  } else {
    for (const [name, value] of Object.entries(fresh)) if (value !== '') headers.push(name, value)
  }
  headers.push(REPLAY_HEADER, 'true')
  return headers
}

/**
 * `pay webhook replay`: posts each selected delivery's exact raw body to `to`, signed afresh, and records each
 * attempt in the history (so a replayed failure no longer counts as failed). Progress and a summary on stderr;
 * the results as data. Exit code 1 when any replay was not answered 2xx.
 */
export async function runWebhookReplay(options: ReplayOptions, out: Output): Promise<{exitCode: number; results: ReplayResult[]}> {
  if (!isHttpUrl(options.to)) throw InputError.one('--to', HTTP_URL_RULE)
  const settings = await resolveSettings({profile: options.profile}, options.env)
  const secrets = await webhookSecrets(options.secret, settings)
  // a bad pinned format is bad input before anything is sent
  signingScheme(settings.webhookSignature)
  if (secrets.length === 0) {
    throw InputError.one('--secret', 'is required to sign the replays (or set PAY_WEBHOOK_SECRET, or webhook_secret in the profile)', "copy the webhook secret your app verifies with; it is never stored in the history")
  }
  const dir = historyDir(options.env)
  const selection = replaySelection(readHistory(dir), options)
  if (selection.repeated?.length) out.warn(printable(`${selection.repeated.join(', ')}: an event named before (by its id or one of its deliveries'); each event is replayed once`))
  tellUnverified(selection, out)
  const selected = selection.chosen
  if (selected.length === 0) {
    const verified = selection.unverified > 0 ? ' (with a verified signature)' : ''
    out.info(options.failed ? `Nothing to replay: no kept event whose forwarding failed matches${verified}.` : `Nothing to replay: no kept delivery matches${verified}.`)
    if (out.json) out.data('[]')
    return {exitCode: 0, results: []}
  }
  const writer = new HistoryWriter(dir, {...historyBounds({}, options.env), warn: (text) => out.warnQuoting(text)})
  writer.open()
  const {createForwarder} = await import('./forward.js')
  const forwarder = await createForwarder(options.to, options.timeoutMs, 'pay webhook replay')
  // --to as shown and kept in the history: no password, no secret-named query value
  const shown = redactUrl(options.to)
  const results: ReplayResult[] = new Array(selected.length)
  const total = selected.length
  const each = total <= 20
  let done = 0
  let failed = 0
  let next = 0
  out.info(printable(`Replaying ${total} deliver${total === 1 ? 'y' : 'ies'} to ${shown}`))
  const worker = async () => {
    while (next < total) {
      const i = next++
      const d = selected[i]
      const r = await forwarder.send(d.body, replayHeaders(d, options, secrets, settings.webhookSignature))
      const status = r.response?.status
      const ok = status !== undefined && status >= 200 && status < 300
      writer.attempt(d.id, d.event_id, {url: shown, status, error: r.error, detail: r.detail, ms: r.ms, replay: true})
      results[i] = {event_id: d.event_id ?? null, delivery_id: d.id, type: d.type ?? null, status: status ?? null, ok, ...(r.error ? {error: `${r.error}: ${r.detail}`} : {}), ms: r.ms}
      done++
      if (!ok) failed++
      if (each || !ok) out.info(printable(`${ok ? 'ok  ' : 'FAIL'} ${d.event_id ?? d.id} ${d.type ?? ''} → ${status ?? r.error} (${r.ms} ms)${r.error ? `: ${r.detail}` : ''}`))
      else if (done % Math.max(1, Math.ceil(total / 10)) === 0) out.info(`  ${done}/${total} replayed, ${failed} not 2xx`)
    }
  }
  try {
    await Promise.all(Array.from({length: Math.min(options.concurrency, total)}, worker))
  } finally {
    await forwarder.close()
    await writer.close()
  }
  out.info(`Replayed ${total}: ${total - failed} answered 2xx, ${failed} not${failed > 0 ? ' (see above; fix the app and run the same command again: --failed picks only those)' : ''}`)
  if (out.json) out.data(JSON.stringify(results))
  else out.data(out.list(results as unknown as Record<string, unknown>[], ['event_id', 'type', 'status', 'ok', 'ms', 'error']))
  return {exitCode: failed > 0 ? 1 : 0, results}
}

/** `--route GLOB=URL` values, checked: a problem (naming --route and the rule) is added for each bad one. */
export function parseRoutes(values: string[], problems: {flag: string; rule: string}[]): ForwardRoute[] {
  const routes: ForwardRoute[] = []
  for (const value of values) {
    const eq = value.indexOf('=')
    const pattern = eq > 0 ? value.slice(0, eq).trim() : ''
    const url = eq > 0 ? value.slice(eq + 1).trim() : ''
    if (pattern === '' || !isHttpUrl(url)) problems.push({flag: '--route', rule: `must be GLOB=URL with an http:// or https:// URL, e.g. 'payout.*=http://localhost:4000/p' (got ${JSON.stringify(value)})`})
    else routes.push({pattern, url})
  }
  return routes
}
