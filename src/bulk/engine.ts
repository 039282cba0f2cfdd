/**
 * The bulk engine: one idempotent operation for every row of a file, exactly once across runs.
 *
 *   1. the input is hashed (stdin is spooled first);
 *   2. every row is read and validated with the single command's rules; any bad row: exit 2, each one listed
 *      (file:line, flag, rule), nothing sent;
 *   3. each row's Idempotency-Key is derived from the scope (method + URL, client id, account ref, --force-new's
 *      salt), its exact body bytes and the occurrence of that body in the file (rowKey): an unchanged row keeps its
 *      key whatever else changes in the file. The run id (file hash, operation, base URL, client id, account ref,
 *      defaults) only names the journal of settled rows. Running the same command on the same file again is the
 *      same run: rows that succeeded are not sent again (their journaled result is reported), rows whose outcome
 *      is unknown are sent again with their key, rows that failed are reported again and sent again only with
 *      --retry-failed; on an edited file the rows its lineage's newest run settled under the same key are reported from
 *      that run, the others are sent (the service replays unchanged rows that moved), and a row whose reference was
 *      accepted under another key refuses the run before anything is sent (src/bulk/references.ts). A plain
 *      run of a content never run before takes the --force-new salt of the newest run of its lineage (the same
 *      path and settings, whatever the content; see RunLineage), so an edit after a forced run keeps its keys;
 *   4. rows are sent --concurrency at a time under an adaptive rate (src/bulk/rate.ts); 5xx and cut connections
 *      are retried per row with backoff (the same key), then left "unknown" for the next run.
 * Memory is nearly flat: rows are streamed in every pass; only the outcomes settled by earlier runs and a short
 * hash per distinct body (the occurrence count) are held.
 */
import {createHash, hash as sha256Of, randomUUID} from 'node:crypto'
import {realpathSync, rmSync} from 'node:fs'
import {resolve} from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'
import {setFlagsFromString} from 'node:v8'
import {runInNewContext} from 'node:vm'
import type {ApiResponse, CallInput, PreparedRequest} from '../client/api-client.js'
import {PoolTransport} from '../client/pool-transport.js'
import type {EndpointId} from '../api/endpoints.js'
import {compileParsers} from '../api/zod-config.js'
import {classifyState, stateOf} from '../operation/wait.js'
import {InputError, type InputProblem} from '../base/errors.js'
import {ExitCode} from '../base/exit-codes.js'
import {redactUrl} from '../base/redact.js'
import {uuidOfHex} from '../base/digest.js'
import {type AttemptOutcome, MAX_THROTTLES_PER_ROW, RequestAttempts, askedWaitMs, pollDelayMs, throttleOf} from '../client/request-policy.js'
import {openJournalStore} from '../journal/index.js'
import type {ApiContext} from '../operation/api-context.js'
import {type BulkInput, type InputRow, RowSyntaxError, openInput, readRowChunks} from './input.js'
import type {BulkOperation, BulkRecord, BulkRequest} from './operation.js'
import {RowSpool, type SpooledRow} from './spool.js'
import {AcceptedRows, checkReferences} from './references.js'
import {AdaptiveRate} from './rate.js'
import {type Counts, MoneyTotals, ResultSink, progressReporter} from './report.js'
import {type RowOutcome, RunJournal, RunLineage, resumedSalt, rowOutcome} from '../journal/run-journal.js'

export const DEFAULT_CONCURRENCY = 8
/** Problems listed in full before the rest are only counted. */
const MAX_LISTED_PROBLEMS = 1000
/** How often (rows) the engine looks at its heap, and how far past what was live it lets it grow. */
const MEMORY_CHECK_ROWS = 1000
const MEMORY_HEADROOM_BYTES = 32 * 1024 * 1024

/**
 * V8 lets its old space grow far beyond what is live when a process allocates fast for long (each row's request
 * and answer survive a few young collections while in flight): a 100,000-row run peaked at ~180 MiB with ~20 MiB
 * live. So, in the checking pass and while sending, when the heap has grown MEMORY_HEADROOM_BYTES past what was
 * live (at the start, or after the last collection), one full collection brings it back: a 100,000-row run then
 * peaks at ~130 MiB. Only then: a forced collection also shrinks V8's young generation, and a run that forced
 * one every 2,000 rows spent ~40% more CPU in the collections that followed. (Judged on the heap, not the
 * process's RSS: V8 keeps freed pages for a while, so a limit on RSS kept moving up.)
 */
function memoryKeeper(): {row(): void} {
  let gc: (() => void) | undefined
  try {
    setFlagsFromString('--expose-gc')
    gc = runInNewContext('gc') as () => void
  } catch {
    return {row: () => undefined}
  } finally {
    // V8's flags back as they were (the function stays): while a flag differs, every Node module loaded (the
    // ES-module loader for csv-parse, net and the rest for undici's Pool) misses Node's code cache and is compiled
    // from source, ~25 ms of a 10,000-row run's CPU (docs/architecture.md, "No V8 flag at start-up")
    setFlagsFromString('--no-expose-gc')
  }
  const heap = () => process.memoryUsage().heapUsed
  let limit = heap() + MEMORY_HEADROOM_BYTES
  let rows = 0
  return {
    /** Called once per row (checked or sent): looks at the heap every MEMORY_CHECK_ROWS. */
    row: () => {
      if (++rows % MEMORY_CHECK_ROWS !== 0 || heap() <= limit) return
      gc()
      // what stays after a collection is live: the next one only when the heap grows as much again
      limit = heap() + MEMORY_HEADROOM_BYTES
    },
  }
}

/** How long a bulk run may hold its file's lock while its process lives (a killed run's lock is taken over at once). */
const RUN_LEASE_MS = 24 * 3_600_000

/** Rows in a row left "unknown" by network errors after their retries: the service is unreachable, stop. */
const UNREACHABLE_AFTER = 24

export interface BulkFlags {
  'from-file'?: string
  format?: string
  concurrency?: number
  results?: string
  'retry-failed'?: boolean
  'force-new'?: boolean
  'dry-run'?: boolean
  'idempotency-key'?: string
  retries?: number
  wait?: boolean
}

export interface BulkRun {
  op: BulkOperation
  /** Column -> value given as a flag: the default of every row. */
  defaults: Record<string, string | undefined>
  /** Anything else that shapes every body (--data, -F), for the run's identity. */
  shared: unknown
  flags: BulkFlags
  /** --wait: the get request that reports a created row's state (and the terminal states), how long to poll. */
  wait?: {timeoutSec: number; poll: (endpoint: EndpointId, res: ApiResponse, input: CallInput) => PollTarget}
  /** The resource's terminal states (the operation's --wait states): a row's verdict reads its state with them. */
  states?: {succeeded: readonly string[]; failed: readonly string[]}
  /** Asked once, after every row passed and before anything is sent (a live profile on a terminal; src/operation/confirm.ts). */
  confirm?: (plan: {rows: number; toSend: number; totals: Record<string, string>; file: string}) => Promise<void>
}

/** An endpoint's request as the first row built it, and its URL's origin: every row's request is it with the row's target, body and key. */
interface Template {
  request: PreparedRequest
  origin: string
}

/** Stands for the row's key while its request is first built: the key is derived from that request's bytes. */
const KEY_PLACEHOLDER = 'derived-from-the-row'

/**
 * What the checking pass does with each good row, in file order: builds its request, derives its key (rowKey:
 * scope, body bytes, occurrence of that body) and spools it. `templates` keeps one request per endpoint: a row's
 * request is its endpoint's with the row's URL, body and key (the headers are the same for every row).
 */
function keyer(ctx: ApiContext, salt: string, spool: RowSpool, templates: Map<EndpointId, Template>): Keep {
  const {client, settings} = ctx
  const occurrences = new Occurrences()
  const scopes = new Map<string, string>()
  // a reference is a promise: one reference, one body. Per reference one number (memory: a 100,000-row file holds
  // 100,000 of them): the first line with it times 2^21 plus 21 bits of its body's hash (two bodies whose 21 bits
  // agree are taken for one: about one in two million pairs of rows with one reference goes unrefused)
  const references = new Map<string, number>()
  return (r, {endpoint, input}, money) => {
    input.idempotencyKey = KEY_PLACEHOLDER // the row's own input object (the operation built it for this row)
    const bare = client.prepare(endpoint, input)
    if (!templates.has(endpoint)) templates.set(endpoint, {request: {...bare, retries: 0}, origin: splitUrl(bare.url).origin}) // sendRow retries rows itself
    const scopeId = `${bare.method} ${bare.url}`
    let scope = scopes.get(scopeId)
    if (scope === undefined) {
      scope = JSON.stringify({v: 2, method: bare.method, url: bare.url, client: settings.clientId ?? '', account: settings.accountRef ?? '', salt})
      if (scopes.size < 64) scopes.set(scopeId, scope) // one URL for a create; one per row for a path (mandates cancel)
    }
    const hash = bodyHash(bare.body ?? '')
    if (money.reference !== null) {
      const bits = Number.parseInt(hash.slice(0, 6), 16) & 0x1f_ffff
      const first = references.get(money.reference)
      if (first === undefined) references.set(money.reference, r.line * 0x20_0000 + bits)
      else if (first % 0x20_0000 !== bits) return {flag: 'reference', rule: `${money.reference} is also on line ${Math.floor(first / 0x20_0000)} with another body: a reference names one request; give one of them another reference (nothing was sent)`}
    }
    spool.add({row: r.row, line: r.line, endpoint, target: splitUrl(bare.url).target, body: bare.body, key: rowKeyOfHash(scope, hash, occurrences.next(hash)), path: input.path, query: input.query, reference: money.reference, amount: money.amount, currency: money.currency})
  }
}

/**
 * A URL as its scheme, user info and host (`origin`) and the rest (`target`: path and query). The spool keeps only
 * the target: a password in the base URL never reaches the disk; the origin is the same for every row.
 */
export function splitUrl(url: string): {origin: string; target: string} {
  const slash = url.indexOf('/', url.indexOf('//') + 2)
  return slash < 0 ? {origin: url, target: '/'} : {origin: url.slice(0, slash), target: url.slice(slash)}
}

/** The operation's input of a spooled row (what --wait's poll reads: path, query, body). */
function callInputOf(r: SpooledRow): CallInput {
  return {path: r.path, query: r.query, body: r.body === undefined ? undefined : (JSON.parse(r.body) as unknown)}
}

interface PollTarget {
  id: EndpointId
  input: CallInput
  states?: {succeeded: readonly string[]; failed: readonly string[]}
}

/** A UUID-shaped key from any text: the same text, the same key. */
function uuidOf(text: string): string {
  return uuidOfHex(sha256Of('sha256', text, 'hex')) // one-shot: no Hash object per row (createHash cost ~3 µs of each of two hashes a row)
}

/**
 * A row's Idempotency-Key: the scope (method and URL, so operation and base URL; client id, account ref, and the
 * --force-new salt), the SHA-256 of the row's exact body bytes, and which occurrence of that same body in the file
 * this row is (1st, 2nd, ...). Nothing else in the file counts: an unchanged row keeps its key when other rows are
 * edited or the file is re-saved (CRLF, BOM), so the service replays its stored answer instead of moving money again.
 */
export function rowKey(scope: string, body: string, occurrence: number): string {
  return rowKeyOfHash(scope, bodyHash(body), occurrence)
}

/** The SHA-256 (hex) of a row's body bytes: what rowKey and Occurrences both read, hashed once per row. */
export function bodyHash(body: string): string {
  return sha256Of('sha256', body, 'hex')
}

function rowKeyOfHash(scope: string, hash: string, occurrence: number): string {
  return uuidOf(`${scope}\n${hash}\n${occurrence}`)
}

/** Counts identical bodies (by bodyHash) as rows are read in file order: the occurrence index of rowKey. */
export class Occurrences {
  private readonly seen = new Map<string, number>()
  next(hash: string): number {
    const h = hash.slice(0, 32) // 128 bits are plenty to tell bodies apart, and half the memory per distinct body
    const n = (this.seen.get(h) ?? 0) + 1
    this.seen.set(h, n)
    return n
  }
}

export async function runBulk(ctx: ApiContext, run: BulkRun): Promise<number> {
  const {out, client, settings} = ctx
  const {flags, op} = run
  const name = flags['from-file'] ?? '-'
  const usage: InputProblem[] = []
  if (flags['idempotency-key'] !== undefined) usage.push({flag: '--idempotency-key', rule: 'cannot be used with --from-file: each row gets its own key, derived from the file'})
  if (usage.length > 0) throw new InputError(usage)

  compileParsers()
  const store = openJournalStore(out)
  const spoolDir = store.open() ? store.dir : (await import('node:os')).tmpdir()
  let input: BulkInput | undefined
  let stdinSpool: string | undefined
  let spool: RowSpool | undefined
  let pool: PoolTransport | undefined
  let releaseRun: (() => void) | undefined
  // Ctrl-C / SIGTERM at any point: say where the run stands, remove this run's spool files, exit 130 / 143
  let interrupted = (signal: NodeJS.Signals) => out.errorLine(`interrupted (${signal}) before any row was sent`)
  const onSignal = (signal: NodeJS.Signals) => {
    interrupted(signal)
    try {
      spool?.dispose()
      if (stdinSpool) rmSync(stdinSpool, {force: true})
    } catch {
      // exiting anyway; a file left behind is pruned with the journal
    }
    process.exit(signal === 'SIGINT' ? ExitCode.INTERRUPTED : ExitCode.TERMINATED)
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  try {
    input = await openInput(name, flags.format, spoolDir, process.stdin, (path) => (stdinSpool = path))
    const rowTotals = new MoneyTotals()
    const checkStarted = Date.now()
    // no usable base URL (or profile): the rows' own problems are listed (exit 2); with none, that one is
    let baseProblem: unknown
    try {
      client.baseUrl()
    } catch (err) {
      baseProblem = err
    }
    if (baseProblem !== undefined) {
      await validateAll(input, run, rowTotals)
      throw baseProblem
    }
    // the run id names the journal of this file's runs (a quick lookup of settled rows); row keys do not depend on it.
    // The lineage id: the same settings and the file's path instead of its content (stdin has none)
    const identity = (v: number, of: Record<string, string>) =>
      createHash('sha256')
        .update(JSON.stringify({v, op: op.id, ...of, base: client.baseUrl(), client: settings.clientId ?? '', account: settings.accountRef ?? '', defaults: run.defaults, shared: run.shared}))
        .digest('hex')
        .slice(0, 32)
    const runId = identity(2, {file: input.sha256})
    const journal = new RunJournal(store, runId)
    const lineage = name === '-' ? undefined : new RunLineage(store, identity(1, {path: resolvedPath(input.path)}))
    // one run of a file at a time: a second one waits for the first to end, then resumes from its outcomes; and one
    // run of a file's path at a time (its lineage, taken first), so an edited version never sends a row the running one is sending
    if (!flags['dry-run']) releaseRun = await holdRun(store, runId, lineage?.id, (text) => out.info(text))
    const ended = (state: string | null) => classifyState(state ?? undefined, run.states)
    const loaded = await journal.load(ended)
    // --force-new starts a new salt (recorded in the run's header and its lineage); a plain run resumes the newest
    // salt of this content's runs, or for a content never run (an edited file) that of the newest run of its path
    const forced = flags['force-new'] === true
    const resumed = resumedSalt(loaded, lineage?.newest())
    const salt = forced ? randomUUID() : resumed.salt
    const earlier = forced ? new Map<number, RowOutcome & {again: boolean}>() : resumed.run === undefined ? loaded.outcomes : await lineageOutcomes(store, resumed, ended)
    // what an earlier run settled: an accepted request (never sent again: its key would only replay the answer), and a
    // refusal (sent again with --retry-failed); an unknown outcome, or a refusal for now, is sent again with its key
    const settledBy = (o: RowOutcome & {again: boolean}) => o.outcome === 'accepted' || (o.outcome === 'refused' && !o.again && !flags['retry-failed'])
    const resume = salt === '' ? 'run the same command again' : 'run the same command again WITHOUT --force-new (it resumes this run; with it, every row is sent again as new)'

    // pass 1: every row checked; while all are good, each one's request is built, keyed and spooled for sending
    spool = new RowSpool(spoolDir)
    const templates = new Map<EndpointId, Template>()
    const memory = memoryKeeper()
    const total = await validateAll(input, run, rowTotals, keyer(ctx, salt, spool, templates), memory)
    spool.close()
    // a reference is a promise across runs: a row whose reference an accepted request of another body (or a single
    // command) already holds refuses the run (exit 5), unless --force-new (src/bulk/references.ts)
    const scopeOf = (endpoint: string) => ({endpoint, baseUrl: redactUrl(client.baseUrl()), clientId: settings.clientId, accountRef: settings.accountRef})
    if (!forced) await checkReferences(store, scopeOf, templates.keys(), () => spool!.rows(), input.name)
    const checkSeconds = ((Date.now() - checkStarted) / 1000).toFixed(1)
    const requestOf = (s: SpooledRow): PreparedRequest => {
      const {request, origin} = templates.get(s.endpoint)!
      return client.withIdempotencyKey({...request, url: origin + s.target, body: s.body}, s.key)
    }

    // rows an earlier run settled (the plan of --dry-run and the live confirmation both show it)
    const settled = [...earlier.values()].filter(settledBy).length
    if (flags['dry-run']) {
      let first: PreparedRequest | undefined
      for await (const r of spool.rows()) {
        first = requestOf(r)
        break
      }
      const plan = {run: runId, operation: op.id, method: first?.method, url: first?.url, rows: total, settled_by_earlier_runs: settled, to_send: total - settled, first_idempotency_key: first?.idempotencyKey, journal: journal.file}
      out.data(out.json ? JSON.stringify(plan) : out.human(plan))
      out.info(`dry run: ${total} valid rows; nothing was sent`)
      return ExitCode.OK
    }

    const sink = await ResultSink.open(out, flags.results)
    await run.confirm?.({rows: total, toSend: total - settled, totals: rowTotals.toJSON(), file: input.name})
    // bad credentials fail the run here (exit 3), not on every row; the token is asked for while undici's Pool loads
    const concurrency = flags.concurrency ?? DEFAULT_CONCURRENCY
    const tokenReady = client.token()
    tokenReady.catch(() => undefined) // (awaited just below: no unhandled rejection meanwhile)
    pool = client.poolable ? await PoolTransport.open(concurrency) : undefined
    await tokenReady
    const at = new Date().toISOString()
    journal.begin({t: 'run', run: runId, at, operation: op.id, file: input.name, file_sha256: input.sha256, profile: settings.profileName, base_url: redactUrl(client.baseUrl()), salt})
    lineage?.record({t: 'lineage', run: runId, at, salt})
    if (forced) out.info(out.color('dim', `new run (--force-new): every row is sent as a new request; to resume it, ${resume}`, 'err'))
    else if (salt !== '' && resumed.run !== undefined) {
      out.info(out.color('dim', `resuming the --force-new keys of run ${resumed.run} of ${input.name}, which has changed since: unchanged rows keep their keys, edited rows are new requests`, 'err'))
    }
    if (earlier.size > 0) out.info(out.color('dim', `resuming run ${runId}: ${earlier.size} of ${total} rows settled by an earlier run`, 'err'))

    const rate = new AdaptiveRate(concurrency)
    const accepted = new AcceptedRows(store, scopeOf, runId, input.name)
    const counts: Counts = {total, done: 0, succeeded: 0, processing: 0, failed: 0, unknown: 0, not_sent: 0, earlier: 0}
    const money = {succeeded: new MoneyTotals(), processing: new MoneyTotals(), failed: new MoneyTotals()}
    let acceptedThenFailed = 0
    const failedRows: string[] = []
    const progress = await progressReporter(out, total)
    const started = Date.now()
    const retries = flags.retries ?? 3

    let unreachableStreak = 0
    let stopped = false
    // `news`: this run learnt it (sent the row, or looked an earlier row up): journaled; `again`: refused for now
    const finish = (o: RowOutcome, news: boolean, again = false) => {
      const noAnswer = news && !o.earlier && o.http_status === null && (o.status === 'unknown' || o.status === 'not_sent')
      unreachableStreak = noAnswer ? unreachableStreak + 1 : o.earlier ? unreachableStreak : 0
      if (unreachableStreak >= UNREACHABLE_AFTER) stopped = true
      counts.done++
      memory.row()
      counts[o.status]++
      if (o.earlier) counts.earlier++
      if (news) journal.record(o, again)
      if (o.status === 'succeeded' || o.status === 'processing' || o.status === 'failed') money[o.status].add(o.amount, o.currency)
      if (o.status === 'failed' && o.outcome === 'accepted') acceptedThenFailed++
      if (o.status === 'failed' && failedRows.length < 20) failedRows.push(`  line ${o.line}${o.reference ? ` (${o.reference})` : ''}: ${o.error_code ?? ''} ${o.error_message ?? ''}`.trimEnd())
      sink.write(o)
      if (sink.failed) stopped = true // the outcomes are journaled: the run ends cleanly, resumable
      progress.update(counts)
    }

    interrupted = (signal) => {
      journal.endNow()
      accepted.end()
      progress.stop(counts)
      out.errorLine(`interrupted (${signal}) after ${counts.done} of ${total} rows; ${resume} to resume: rows in flight are resent with their keys (run ${runId})`)
    }

    // the spooled rows, a chunk at a time: a worker takes the next one without an await while the chunk lasts
    const chunks = spool.chunks()
    let chunk: SpooledRow[] = []
    let taken = 0
    let reading: Promise<boolean> | undefined
    const take = (): SpooledRow | undefined => (taken < chunk.length ? chunk[taken++] : undefined)
    const readMore = async (): Promise<SpooledRow | undefined> => {
      for (;;) {
        const r = take()
        if (r !== undefined) return r
        reading ??= chunks.next().then((next) => {
          reading = undefined
          if (next.done) return false
          chunk = next.value
          taken = 0
          return true
        })
        if (!(await reading)) return undefined
      }
    }
    const worker = async () => {
      while (!stopped) {
        const r = take() ?? (await readMore())
        if (r === undefined) return
        const known = earlier.get(r.row)
        if (known && known.idempotency_key === r.key && settledBy(known)) {
          const {again: _again, ...settled} = known
          // --wait: an earlier row whose resource has not ended is looked up again (GETs; nothing is sent)
          if (run.wait && settled.status === 'processing') finish(await waitRow(ctx, settled, run.wait.poll(r.endpoint, answerOf(settled), callInputOf(r)), run.wait.timeoutSec, rate, ended), true)
          else finish(settled, resumed.run !== undefined) // another content's outcome: journaled in this run's file too
          continue
        }
        const sent = await sendRow(ctx, requestOf(r), r, rate, retries, ended, pool)
        accepted.add(r, sent.outcome)
        if (run.wait && sent.response) finish(await waitRow(ctx, sent.outcome, run.wait.poll(r.endpoint, sent.response, callInputOf(r)), run.wait.timeoutSec, rate, ended), true)
        else finish(sent.outcome, true, sent.again)
      }
    }
    try {
      await Promise.all(Array.from({length: concurrency}, worker))
    } finally {
      accepted.end()
      await journal.end()
      progress.stop(counts)
      await sink.close()
    }

    if (sink.failed) {
      out.errorLine(`stopped after ${counts.done} of ${total} rows: --results ${flags.results} could not be written (${(sink.failed as NodeJS.ErrnoException).code ?? sink.failed.message}); every row's outcome is in the journal`)
      out.info(`  ${out.color('cyan', 'next:', 'err')} free the space (or choose another --results), then ${resume}: it resumes, and no row is sent twice`)
      return ExitCode.NETWORK
    }
    if (stopped) {
      out.errorLine(`stopped after ${counts.done} of ${total} rows: the last ${UNREACHABLE_AFTER} rows got no answer from ${client.baseUrl()} (network errors, after retries)`)
      out.info(`  ${out.color('cyan', 'next:', 'err')} check the service, then ${resume}: it resumes, and rows whose outcome is unknown are resent with their keys`)
      return ExitCode.NETWORK
    }
    const seconds = ((Date.now() - started) / 1000).toFixed(1)
    out.info(
      `${total} rows in ${seconds} s (checked in ${checkSeconds} s before sending): ${counts.succeeded} succeeded, ${counts.processing} processing, ${counts.failed} failed, ${counts.unknown} unknown${counts.not_sent > 0 ? `, ${counts.not_sent} not sent` : ''}${counts.earlier > 0 ? ` (${counts.earlier} sent by an earlier run)` : ''}${rate.throttled > 0 ? `; rate limited ${rate.throttled} time(s), slowed down` : ''}`,
    )
    for (const line of moneyLines(money)) out.info(`  ${line}`)
    if (counts.processing > 0) out.info(`  ${out.color('cyan', 'next:', 'err')} ${counts.processing} row(s) accepted and still processing (as last seen): ${run.wait ? 'run the same command again with --wait later' : 'add --wait to the same command to follow them to their end'}`)
    if (counts.failed > 0) {
      out.info(`  failed rows${counts.failed > failedRows.length ? ` (first ${failedRows.length})` : ''}:\n${failedRows.join('\n')}`)
      if (counts.failed > acceptedThenFailed) out.info(`  ${out.color('cyan', 'next:', 'err')} fix what the service refused, then ${resume} with --retry-failed (rows you did not edit keep their keys; an edited row is a new request)`)
      if (acceptedThenFailed > 0) out.info(`  ${out.color('cyan', 'next:', 'err')} ${acceptedThenFailed} row(s) were accepted and then failed: --retry-failed does not send them again (their key only replays the answer); to try one again, give it a new reference`)
    }
    if (counts.unknown > 0) out.info(`  ${out.color('cyan', 'next:', 'err')} ${counts.unknown} row(s) with an unknown outcome: ${resume}; they are resent with their keys and never done twice`)
    if (counts.not_sent > 0) out.info(`  ${out.color('cyan', 'next:', 'err')} ${counts.not_sent} row(s) not sent (rate limited, or the service was not reached): ${resume} to send them`)
    out.info(out.color('dim', `  run ${runId}, journal ${journal.file}`, 'err'))
    return counts.failed > 0 || counts.unknown > 0 || counts.not_sent > 0 ? ExitCode.OTHER : ExitCode.OK
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
    await pool?.close()
    spool?.dispose()
    input?.dispose()
    releaseRun?.()
  }
}

/**
 * For a content never run (an edited file), the outcomes of its lineage's newest run: a row of it under the same key
 * (the same row number, body, occurrence and salt) is that very request, settled there, and is not sent again (an
 * edited version that waited for a running one reports its rows instead of resending them). Those of another salt: none.
 */
async function lineageOutcomes(store: ReturnType<typeof openJournalStore>, resumed: {salt: string; run?: string}, ended: Ended): Promise<Map<number, RowOutcome & {again: boolean}>> {
  const other = await new RunJournal(store, resumed.run!).load(ended)
  return other.salt === resumed.salt ? other.outcomes : new Map()
}

/**
 * Holds the locks of a run: its lineage's (the file's path and settings, any content), then its content's. Taken in
 * that order by every run, so two runs never wait for each other. Resolves with the release of both.
 */
async function holdRun(store: ReturnType<typeof openJournalStore>, runId: string, lineageId: string | undefined, say: (text: string) => void): Promise<() => void> {
  const holder = (pid: number | undefined) => `another pay process${pid === undefined ? '' : ` (pid ${pid})`}`
  const releaseLineage =
    lineageId === undefined
      ? undefined
      : await store.holdSender(`lineage-${lineageId}`, RUN_LEASE_MS, (pid) =>
          say(`waiting: ${holder(pid)} is running this file (another version of it, or the same); this run starts once it ends, and no row they share is sent while the other may be sending it`),
        )
  const releaseRun = await store.holdSender(`run-${runId}`, RUN_LEASE_MS, (pid) =>
    say(`waiting: ${holder(pid)} is running this same file; this run resumes from its outcomes once it ends (no row is sent twice)`),
  )
  return () => {
    releaseRun?.()
    releaseLineage?.()
  }
}

/** The file's absolute path, symbolic links resolved (what names its lineage); just absolute when it cannot be resolved. */
function resolvedPath(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return resolve(path)
  }
}

/**
 * The row's record: the flags' defaults, then the row's own values (a row's value wins). Without a default (no
 * flag given a value), the row's values as they are: the operation only reads its record.
 */
function recordsOf(run: BulkRun): (r: InputRow) => BulkRecord {
  const given = Object.values(run.defaults).some((v) => v !== undefined)
  return given ? (r) => ({...run.defaults, ...r.values}) : (r) => r.values
}

/** What a row's body says of its money and reference (strings, else null): for the totals, the spool and the report. */
function moneyOf(body: unknown): Pick<SpooledRow, 'reference' | 'amount' | 'currency'> {
  const b = (body ?? {}) as {amount?: unknown; currency?: unknown; merchant_reference?: unknown}
  const text = (v: unknown) => (typeof v === 'string' ? v : null)
  return {reference: text(b.merchant_reference), amount: text(b.amount), currency: text(b.currency)}
}

/** What the checking pass hands on for each good row, in file order. */
type Keep = (r: InputRow, req: BulkRequest, money: Pick<SpooledRow, 'reference' | 'amount' | 'currency'>) => InputProblem | undefined

/**
 * The checking pass: every row checked; exit 2 with each problem when any. Returns the number of rows. While no
 * row has had a problem, `keep` gets each row's request (in file order), to derive its key and spool it.
 */
async function validateAll(input: BulkInput, run: BulkRun, totals: MoneyTotals, keep?: Keep, memory?: {row(): void}): Promise<number> {
  const problems: InputProblem[] = []
  let more = 0
  const reported = new Set<string>()
  const add = (line: number, flag: string, rule: string) => {
    if (problems.length < MAX_LISTED_PROBLEMS) problems.push({flag: `${input.name}:${line} ${flag}`, rule, line})
    else more++
  }
  let rows = 0
  const recordOf = recordsOf(run)
  for await (const chunk of readRowChunks(input)) {
    for (const r of chunk) {
      if (r instanceof RowSyntaxError) {
        add(r.line, r.what, r.message)
        continue
      }
      rows++
      memory?.row()
      const checked = run.op.request(recordOf(r))
      if (checked.problems.length === 0) {
        const money = moneyOf(checked.input.body)
        totals.add(money.amount, money.currency)
        const problem = problems.length === 0 ? keep?.(r, checked, money) : undefined
        if (problem) add(r.line, problem.flag, problem.rule)
      }
      for (const p of checked.problems) {
        // a column that is not an input is a problem of the header: listed once, at the CSV's header line (a JSON
        // Lines file has none: the first line showing it)
        const column = p.flag.startsWith('column "')
        if (column) {
          if (reported.has(p.flag + p.rule)) continue
          reported.add(p.flag + p.rule)
        }
        add(column ? (input.headerLine ?? r.line) : r.line, p.flag, p.rule)
      }
    }
  }
  if (more > 0) problems.push({flag: `${input.name}`, rule: `has ${more} more problem(s) not listed`})
  if (problems.length > 0) throw new InputError(problems, 'nothing was sent: fix these rows (or the flags) and run the same command again')
  if (rows === 0) throw InputError.one('--from-file', `has no rows (${input.name})`)
  return rows
}

interface ErrorShape {
  status?: number
  error?: {code?: string; message?: string}
  body?: unknown
  message?: string
  responseHeaders?: Record<string, string>
  attemptOutcome?: AttemptOutcome
}

interface Sent {
  outcome: RowOutcome
  response?: ApiResponse
  /** Refused for now: a plain re-run sends it. */
  again?: boolean
}

type Ended = (state: string | null) => 'succeeded' | 'failed' | undefined

/** An earlier row's answer as --wait's poll reads it (its id, reference and state). */
function answerOf(o: RowOutcome): ApiResponse {
  const body = {id: o.id ?? undefined, merchant_reference: o.reference ?? undefined, status: o.state ?? undefined}
  return {status: o.http_status ?? 200, headers: {}, body, text: '', attempts: 0, request: undefined as unknown as PreparedRequest}
}

/**
 * --wait: polls an accepted row until its resource ends (its state decides the row: succeeded or failed), under the
 * shared rate; still not ended after the timeout: processing, as last seen (a re-run with --wait polls it again).
 * A poll that fails keeps the last state seen. An earlier run's row is looked up at once.
 */
async function waitRow(ctx: ApiContext, accepted: RowOutcome, spec: PollTarget, timeoutSec: number, rate: AdaptiveRate, ended: Ended): Promise<RowOutcome> {
  const deadline = Date.now() + timeoutSec * 1000
  let state = accepted.state
  let seen = accepted.state_at
  let detail: string | undefined
  for (let attempt = 0; ; attempt++) {
    const end = ended(state)
    const reached = {...accepted, state, state_at: seen}
    if (end === 'succeeded') return rowOutcome(reached, end)
    if (end === 'failed') return rowOutcome({...reached, error_code: 'transaction_failed', error_message: detail ?? `ended ${state}`}, end)
    if (attempt > 0 && Date.now() >= deadline) return rowOutcome({...reached, error_code: 'wait_timeout', error_message: `still ${state ?? 'in progress'} after ${timeoutSec} s`}, undefined)
    if (attempt > 0 || !accepted.earlier) await sleep(Math.min(pollDelayMs(attempt), Math.max(0, deadline - Date.now())))
    await rate.acquire()
    try {
      const body = (await ctx.client.sendUnjournaled(ctx.client.prepare(spec.id, spec.input))).body as {failure_reason?: unknown; status_detail?: unknown} | undefined
      state = stateOf(body) ?? state
      seen = new Date().toISOString()
      detail = typeof body?.failure_reason === 'string' ? body.failure_reason : typeof body?.status_detail === 'string' && body.status_detail ? body.status_detail : undefined
      rate.ok()
    } catch (err) {
      const throttled = throttleOf(err)
      if (throttled) rate.throttle(throttled.waitMs)
    } finally {
      rate.release()
    }
  }
}

/**
 * Sends one row until the request policy (src/client/request-policy.ts) says what it came to: accepted, refused
 * (for now, or for good) or unknown. 429s slow the whole run down (the shared rate) instead of this row waiting alone.
 */
async function sendRow(ctx: ApiContext, req: PreparedRequest, r: SpooledRow, rate: AdaptiveRate, retries: number, ended: Ended, via?: PoolTransport): Promise<Sent> {
  const base = {row: r.row, line: r.line, reference: r.reference, http_status: null, id: null, state: null, state_at: null, error_code: null, error_message: null, idempotency_key: r.key, amount: r.amount, currency: r.currency, earlier: false}
  const policy = new RequestAttempts({retries, safeToRepeat: true, throttles: MAX_THROTTLES_PER_ROW})
  for (;;) {
    if (!rate.tryAcquire()) await rate.acquire()
    let res: ApiResponse | undefined
    let err: ErrorShape | undefined
    try {
      res = await ctx.client.sendUnjournaled(req, via) // req.retries is 0 (the template's): the policy below repeats it
    } catch (e) {
      err = e as ErrorShape
    } finally {
      rate.release()
    }
    if (res) {
      rate.ok()
      const b = res.body as {id?: unknown; merchant_reference?: unknown} | undefined
      const id = typeof b?.id === 'string' ? b.id : typeof b?.merchant_reference === 'string' ? b.merchant_reference : null
      const state = stateOf(res.body) ?? null
      return {outcome: rowOutcome({...base, outcome: 'accepted', http_status: res.status, id, state, state_at: new Date().toISOString()}, ended(state)), response: res}
    }
    const status = typeof err?.status === 'number' ? err.status : undefined
    // a failure the client did not judge (none is expected): it may have reached the service
    const outcome: AttemptOutcome = err?.attemptOutcome ?? {kind: 'network', sent: true}
    const asked = askedWaitMs(status, err?.responseHeaders ?? {}, err?.body)
    const decision = policy.next(outcome, asked)
    if (decision.retry && decision.throttled) {
      rate.throttle(asked)
      continue
    }
    if (decision.retry) {
      await sleep(decision.waitMs)
      continue
    }
    rate.ok()
    const code = err?.error?.code ?? (status === undefined ? 'network_error' : `http_${status}`)
    const message = err?.error?.message ?? err?.message ?? String(err)
    return {outcome: rowOutcome({...base, outcome: decision.class, http_status: status ?? null, error_code: code, error_message: message}, undefined, decision.again), again: decision.again}
  }
}

/** The money lines of the summary: per currency, what succeeded, what is still processing and what failed. */
function moneyLines(money: Record<'succeeded' | 'processing' | 'failed', MoneyTotals>): string[] {
  const lines: string[] = []
  const rows = {succeeded: 'the succeeded rows', processing: 'the rows still processing', failed: 'the failed rows'} as const
  for (const kind of ['succeeded', 'processing', 'failed'] as const) {
    const totals = Object.entries(money[kind].toJSON()).map(([c, a]) => `${a} ${c}`)
    if (totals.length > 0) lines.push(`total amount of ${rows[kind]}: ${totals.join(', ')}`)
  }
  return lines
}
