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
 * Memory is flat in the row count: rows are streamed in every pass, and what is known per row (its reference, its
 * body's earlier copies, an earlier run's outcome) is sorted on disk (src/journal/sorted-spool.ts), not held.
 *
 * runBulk reads as its stages: check -> spool (src/bulk/check.ts) -> send (src/bulk/send.ts) -> report.
 */
import {createHash, randomUUID} from 'node:crypto'
import {realpathSync, rmSync} from 'node:fs'
import {resolve} from 'node:path'
import type {PreparedRequest} from '../client/api-client.js'
import {PoolTransport} from '../client/pool-transport.js'
import {compileParsers} from '../api/zod-config.js'
import {classifyState} from '../operation/wait.js'
import {InputError} from '../base/errors.js'
import {ExitCode, exitCodeOfSignal} from '../base/exit-codes.js'
import {openJournalStore} from '../journal/index.js'
import type {JournalStore} from '../journal/store.js'
import type {ApiContext} from '../operation/api-context.js'
import {type Checked, check, keyScopes, rowKey, validateAll} from './check.js'
import {type BulkInput, openInput} from './input.js'
import type {BulkOperation} from './operation.js'
import {AdaptiveRate} from './rate.js'
import {MoneyTotals, ResultSink, progressReporter} from './report.js'
import {EarlierOutcomes, type EarlierRow, RunJournal, RunLineage, resumedSalt} from '../journal/run-journal.js'
import {LOOKUP_FAILED, OTHER_RESOURCE, type SendPlan, Tally, UNREACHABLE_AFTER, callInputOf, rowsAndSettled, send} from './send.js'
import type {BulkRunPlan} from '../operation/confirm.js'
import type {SpooledRow} from './spool.js'
import {AcceptedRows, checkReferences, reindexRun, reserveRows} from './references.js'
import {capYoungGeneration} from './young-generation.js'
import {PROMISE_WAIT_TOLD_MS, type ReferenceScope, promiseLockName} from '../journal/references.js'
import {rebuildReferenceIndex} from '../journal/reference-rebuild.js'

export {bodyHash, rowKey, splitUrl} from './check.js'

export const DEFAULT_CONCURRENCY = 8

/** How long a bulk run may hold its file's lock while its process lives (a killed run's lock is taken over at once). */
const RUN_LEASE_MS = 24 * 3_600_000

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

interface BulkRun {
  op: BulkOperation
  /** Column -> value given as a flag: the default of every row. */
  defaults: Record<string, string | undefined>
  /** Anything else that shapes every body (--data, -F), for the run's identity. */
  shared: unknown
  flags: BulkFlags
  /** --wait: the get request that reports a created row's state (and the terminal states), how long to poll. */
  wait?: SendPlan['wait']
  /** The get request that reports a row's state, with or without --wait (SendPlan.lookUp). */
  lookUp?: SendPlan['lookUp']
  /** The resource's terminal states (the operation's --wait states): a row's verdict reads its state with them. */
  states?: {succeeded: readonly string[]; failed: readonly string[]}
  /** Asked once, after every row passed and before anything is sent (a live profile on a terminal; src/operation/confirm.ts). */
  confirm?: (plan: BulkRunPlan) => Promise<void>
}

/** Files and handles a run holds until it ends (removed on every way out, a signal included). */
interface Held {
  input?: BulkInput
  stdinSpool?: string
  checked?: Checked
  earlier?: EarlierOutcomes
  pool?: PoolTransport
  /** The reference index's writer (its bucket files stay open while the run writes). */
  accepted?: AcceptedRows
  releaseRun?: () => void
}

/** A bulk run, in its stages: check -> spool -> send -> report. Returns the exit code. */
export async function runBulk(ctx: ApiContext, run: BulkRun): Promise<number> {
  const {out, client} = ctx
  const {flags} = run
  const name = flags['from-file'] ?? '-'
  if (flags['idempotency-key'] !== undefined) throw InputError.one('--idempotency-key', 'cannot be used with --from-file: each row gets its own key, derived from the file')

  compileParsers()
  const uncapYoung = capYoungGeneration() // memory flat in the row count (src/bulk/young-generation.ts)
  const store = openJournalStore(out)
  const spoolDir = store.open() ? store.dir : (await import('node:os')).tmpdir()
  const held: Held = {}
  // Ctrl-C / SIGTERM at any point: say where the run stands, remove this run's spool files, exit 130 / 143
  let interrupted = (signal: NodeJS.Signals) => out.errorLine(`interrupted (${signal}) before any row was sent`)
  const onSignal = (signal: NodeJS.Signals) => {
    interrupted(signal)
    try {
      disposeFiles(held)
    } catch {
      // exiting anyway; a file left behind is pruned with the journal
    }
    process.exit(exitCodeOfSignal(signal))
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  try {
    const input = (held.input = await openInput(name, flags.format, spoolDir, process.stdin, (path) => (held.stdinSpool = path)))
    await refuseWithoutBaseUrl(ctx, run, input)
    const resumed = await resume(ctx, run, input, store, held)
    const checked = (held.checked = await check(ctx, run, input, resumed.salt, spoolDir))
    // a reference is a promise across runs: a row whose reference an accepted request of another key (another body,
    // or a single command) already holds refuses the run (exit 5), unless --force-new (src/bulk/references.ts)
    const referenceScope = (endpoint: string) => ({endpoint, baseUrl: client.shownBaseUrl(), clientId: ctx.settings.clientId, accountRef: ctx.settings.accountRef})
    const accepted = (held.accepted = new AcceptedRows(store, referenceScope, resumed.runId, input.name))
    // the rows of earlier runs that may be missing from the index (runs of an older pay, which wrote the index after
    // the records) are added now, before any check reads it (a bulk operation sends to one endpoint)
    // the index lost beside the run files is made again from all of them first (src/journal/references.ts)
    await rebuildReferenceIndex(store, (text) => out.info(text))
    for (const journal of resumed.reindex) await reindexRun(journal, accepted, checked.templates.keys().next().value!, input.name)
    if (!resumed.forced) await checkReferences(store, referenceScope, checked.templates.keys(), () => checked.spool.rows(), input.name)
    const scopeOf = keyScopes(ctx, resumed.salt)
    const rekey = (r: SpooledRow, occurrence: number) => {
      const {request, origin} = checked.templates.get(r.endpoint)!
      return rowKey(scopeOf(request.method, origin + r.target), r.body ?? '', occurrence)
    }
    const requestOf = (s: SpooledRow): PreparedRequest => {
      const {request, origin} = checked.templates.get(s.endpoint)!
      const keyed = client.withIdempotencyKey(request, s.key) // a fresh object: the row's target and body set on it (one copy a row)
      keyed.url = origin + s.target
      keyed.body = s.body
      return keyed
    }
    // rows an earlier run settled (the plan of --dry-run and the live confirmation both show it)
    const settled = await resumed.earlier.count(resumed.settledBy)
    if (flags['dry-run']) return await dryRun(ctx, run, input, checked, resumed, settled, requestOf)

    const sink = await ResultSink.open(out, flags.results)
    await run.confirm?.({rows: checked.total, toSend: checked.total - settled, totals: checked.totals.toJSON(), planRows: checked.totals.planRows, file: input.name})
    // the references, checked again and reserved (an `unknown` line per row to send, fsync'd) under the service's lock,
    // before anything is sent: a single command or another run (another client) checking meanwhile finds them held
    const releaseReferences = await holdPromises(store, [...checked.templates.keys()].map(referenceScope), (text) => out.info(text))
    try {
      if (!resumed.forced) await checkReferences(store, referenceScope, checked.templates.keys(), () => checked.spool.rows(), input.name)
      // (the journal off: no index to reserve in, as none to write the outcomes to)
      if (store.open()) await reserveRows(accepted, rowsAndSettled({checked, earlier: resumed.earlier, settledBy: resumed.settledBy, rekey}))
    } finally {
      releaseReferences()
    }
    // the client secret goes out only for a run that will send: every row passed, no reference refused it, and it
    // was confirmed (--dry-run asks nothing). The token's round trip overlaps the Pool's loading; bad credentials
    // fail the run once (exit 3), not on every row
    const tokenReady = client.token()
    tokenReady.catch(() => undefined) // (awaited below, after the Pool: no unhandled rejection meanwhile)
    const concurrency = flags.concurrency ?? DEFAULT_CONCURRENCY
    held.pool = client.poolable ? await PoolTransport.open(concurrency) : undefined
    await tokenReady
    begin(ctx, run, input, resumed, checked.total, settled, accepted)

    const tally = new Tally(checked.total)
    const progress = await progressReporter(out, checked.total)
    const started = Date.now()
    interrupted = (signal) => {
      resumed.journal.endNow()
      progress.stop(tally.counts)
      out.errorLine(`interrupted (${signal}) after ${tally.counts.done} of ${checked.total} rows; ${resumed.resume} to resume: rows in flight are resent with their keys (run ${resumed.runId})`)
    }
    const rate = new AdaptiveRate(concurrency)
    const plan: SendPlan = {
      checked, earlier: resumed.earlier, settledBy: resumed.settledBy, requestOf, journal: resumed.journal, sink, progress, rate, concurrency,
      retries: flags.retries ?? 3, ended: resumed.ended, pool: held.pool, wait: run.wait, lookUp: run.lookUp, adopted: resumed.adopted, sent: (r, o) => accepted.add(r, o), rekey,
      charge: (r) => run.op.charge(() => callInputOf(r)),
    }
    try {
      await send(ctx, plan, tally)
    } finally {
      await resumed.journal.end()
      progress.stop(tally.counts)
      await sink.close()
    }
    return report(ctx, run, {tally, resumed, checked, rate, seconds: ((Date.now() - started) / 1000).toFixed(1), sink})
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
    await held.pool?.close()
    await held.accepted?.close() // after the run journal's last flush (its end, above), which writes the index first
    disposeFiles(held)
    held.releaseRun?.()
    uncapYoung()
  }
}

function disposeFiles(held: Held): void {
  held.checked?.spool.dispose()
  held.checked?.repeats.dispose()
  held.earlier?.dispose()
  held.input?.dispose()
  if (held.stdinSpool) rmSync(held.stdinSpool, {force: true})
}

/** No usable base URL (or profile): the rows' own problems are listed (exit 2); with none, that one is. */
async function refuseWithoutBaseUrl(ctx: ApiContext, run: BulkRun, input: BulkInput): Promise<void> {
  try {
    ctx.client.baseUrl()
  } catch (err) {
    await validateAll(input, run, new MoneyTotals())
    throw err
  }
}

/** Where a run of this file stands: its id and journal, the salt of its keys, and what earlier runs settled. */
interface Resumed {
  runId: string
  journal: RunJournal
  lineage?: RunLineage
  salt: string
  forced: boolean
  /** The run whose --force-new salt a changed file resumes. */
  saltOf?: string
  earlier: EarlierOutcomes
  /** `earlier` holds the outcomes of another content of the file (its lineage's newest run). */
  adopted: boolean
  /** Run files whose rows may be missing from the reference index (RunJournal.load `indexed`). */
  reindex: RunJournal[]
  settledBy: (o: EarlierRow) => boolean
  ended: (state: string | null) => 'succeeded' | 'failed' | undefined
  /** What to tell the user to do to resume. */
  resume: string
}

/**
 * The run's identity, its lock (one run of a file at a time: a second one waits for the first to end, then resumes
 * from its outcomes), and what earlier runs of it settled. The run id names the journal of this file's runs; row keys
 * do not depend on it. The lineage id: the same settings and the file's path instead of its content (stdin has none).
 */
async function resume(ctx: ApiContext, run: BulkRun, input: BulkInput, store: JournalStore, held: Held): Promise<Resumed> {
  const {out, client, settings} = ctx
  const {flags} = run
  const identity = (v: number, of: Record<string, string>) =>
    createHash('sha256')
      .update(JSON.stringify({v, op: run.op.id, ...of, base: client.baseUrl(), client: settings.clientId ?? '', account: settings.accountRef ?? '', defaults: run.defaults, shared: run.shared}))
      .digest('hex')
      .slice(0, 32)
  const runId = identity(2, {file: input.sha256})
  const journal = new RunJournal(store, runId)
  const lineage = input.name === '-' ? undefined : new RunLineage(store, identity(1, {path: resolvedPath(input.path)}))
  // one run of a file at a time, and one run of a file's path at a time (an edited version waits for a running one)
  if (!flags['dry-run']) held.releaseRun = await holdRun(store, runId, lineage?.id, (text) => out.info(text))
  const ended = (state: string | null) => classifyState(state ?? undefined, run.states)
  const loaded = await journal.load(ended)
  held.earlier = loaded.outcomes
  // --force-new starts a new salt (recorded in the run's header and its lineage); a plain run resumes the newest
  // salt of this content's runs, or for a content never run (an edited file) that of the newest run of its path
  const forced = flags['force-new'] === true
  const resumed = resumedSalt(loaded, lineage?.newest())
  const salt = forced ? randomUUID() : resumed.salt
  // a content never run (an edited file): a row under the same key as one of its lineage's newest run (the same row
  // number, body, occurrence and salt) is that very request, settled there: reported from it, not sent again
  let adopted = false
  const reindex = loaded.indexed ? [] : [journal]
  if (!forced && resumed.run !== undefined) {
    const otherJournal = new RunJournal(store, resumed.run)
    const other = await otherJournal.load(ended)
    if (!other.indexed) reindex.push(otherJournal)
    if (other.salt === resumed.salt) {
      loaded.outcomes.dispose()
      held.earlier = other.outcomes
      adopted = true
    } else other.outcomes.dispose()
  }
  // what an earlier run settled: an accepted request (never sent again: its key would only replay the answer), and a
  // refusal (sent again with --retry-failed); an unknown outcome, or a refusal for now, is sent again with its key
  const settledBy = forced ? () => false : (o: EarlierRow) => o.outcome === 'accepted' || (o.outcome === 'refused' && !o.again && !flags['retry-failed'])
  const resume = salt === '' ? 'run the same command again' : 'run the same command again WITHOUT --force-new (it resumes this run; with it, every row is sent again as new)'
  if (forced) {
    loaded.outcomes.dispose() // every row is sent as new: what earlier runs settled does not count
    held.earlier = new EarlierOutcomes(undefined, '', 0, ended)
  }
  return {runId, journal, lineage, salt, forced, saltOf: resumed.run, earlier: held.earlier, adopted, reindex, settledBy, ended, resume}
}

/** --dry-run: the plan (the first row's request, how many rows are to send); nothing is sent. */
async function dryRun(ctx: ApiContext, run: BulkRun, input: BulkInput, checked: Checked, resumed: Resumed, settled: number, requestOf: (s: SpooledRow) => PreparedRequest): Promise<number> {
  const {out} = ctx
  let first: PreparedRequest | undefined
  for await (const chunk of checked.spool.chunks()) {
    if (chunk.length > 0) first = requestOf(chunk[0]) // the first row is its body's first occurrence: its key as spooled
    break
  }
  const total = checked.total
  const plan = {run: resumed.runId, operation: run.op.id, method: first?.method, url: first?.url, rows: total, settled_by_earlier_runs: settled, to_send: total - settled, first_idempotency_key: first?.idempotencyKey, journal: resumed.journal.file}
  out.data(out.json ? JSON.stringify(plan) : out.human(plan))
  out.info(`dry run: ${total} valid rows; nothing was sent`)
  return ExitCode.OK
}

/** The run's header in its journal and lineage, and what it resumes. */
function begin(ctx: ApiContext, run: BulkRun, input: BulkInput, resumed: Resumed, total: number, settled: number, index: AcceptedRows): void {
  const {out, client, settings} = ctx
  const at = new Date().toISOString()
  const header = {t: 'run', run: resumed.runId, at, operation: run.op.id, file: input.name, file_sha256: input.sha256, profile: settings.profileName, base_url: client.shownBaseUrl(), client_id: settings.clientId, account_ref: settings.accountRef, salt: resumed.salt} as const
  resumed.journal.begin(header, index)
  resumed.lineage?.record({t: 'lineage', run: resumed.runId, at, salt: resumed.salt})
  if (resumed.forced) out.info(out.color('dim', `new run (--force-new): every row is sent as a new request; to resume it, ${resumed.resume}`, 'err'))
  else if (resumed.salt !== '' && resumed.saltOf !== undefined) {
    out.info(out.color('dim', `resuming the --force-new keys of run ${resumed.saltOf} of ${input.name}, which has changed since: unchanged rows keep their keys, edited rows are new requests`, 'err'))
  }
  const again = resumed.earlier.rows - settled
  if (!resumed.forced && resumed.earlier.rows > 0) {
    const resent = again > 0 ? `; the other ${again} (unknown, not sent, or failed with --retry-failed) are sent again with their keys` : ''
    out.info(out.color('dim', `resuming run ${resumed.runId}: ${settled} of ${total} rows settled by an earlier run${resent}`, 'err'))
  }
}

/** The summary: why the run stopped, or the counts, the money, and what to do next. Returns the exit code. */
function report(ctx: ApiContext, run: BulkRun, r: {tally: Tally; resumed: Resumed; checked: Checked; rate: AdaptiveRate; seconds: string; sink: ResultSink}): number {
  const {out, client} = ctx
  const {counts, money, failedRows} = r.tally
  const {resume, runId, journal} = r.resumed
  const next = out.color('cyan', 'next:', 'err')
  if (journal.failed !== undefined) {
    out.errorLine(`stopped after ${counts.done} of ${counts.total} rows: the journal could not be written (${journal.failed}); the rows sent since its last write are not recorded, and their references may be missing from the reference index`)
    out.info(`  ${next} free the space (or fix the permissions), then ${resume}: rows not recorded are resent with their keys (the service answers them once) and recorded then`)
    return ExitCode.OTHER
  }
  if (r.sink.failed) {
    out.errorLine(`stopped after ${counts.done} of ${counts.total} rows: --results ${run.flags.results} could not be written (${(r.sink.failed as NodeJS.ErrnoException).code ?? r.sink.failed.message}); every row's outcome is in the journal`)
    out.info(`  ${next} free the space (or choose another --results), then ${resume}: it resumes, and no row is sent twice`)
    return ExitCode.NETWORK
  }
  if (r.tally.stopped === 'unreachable') {
    out.errorLine(`stopped after ${counts.done} of ${counts.total} rows: the last ${UNREACHABLE_AFTER} rows got no answer from ${client.shownBaseUrl()} (network errors, after retries)`)
    out.info(`  ${next} check the service, then ${resume}: it resumes, and rows whose outcome is unknown are resent with their keys`)
    return ExitCode.NETWORK
  }
  out.info(
    `${counts.total} rows in ${r.seconds} s (checked in ${r.checked.seconds} s before sending): ${counts.succeeded} succeeded, ${counts.processing} processing, ${counts.failed} failed, ${counts.unknown} unknown${counts.not_sent > 0 ? `, ${counts.not_sent} not sent` : ''}${counts.earlier > 0 ? ` (${counts.earlier} sent by an earlier run)` : ''}${r.rate.throttled > 0 ? `; rate limited ${r.rate.throttled} time(s), slowed down` : ''}`,
  )
  for (const line of moneyLines(money)) out.info(`  ${line}`)
  const following = counts.processing - r.tally.otherResource - r.tally.lookupFailed
  if (following > 0) out.info(`  ${next} ${following} row(s) accepted and still processing (as last seen): ${run.wait ? 'run the same command again with --wait later' : 'add --wait to the same command to follow them to their end'}`)
  if (counts.failed > 0) {
    out.info(`  failed rows${counts.failed > failedRows.length ? ` (first ${failedRows.length})` : ''}:\n${failedRows.join('\n')}`)
    if (counts.failed > r.tally.acceptedThenFailed) out.info(`  ${next} fix what the service refused, then ${resume} with --retry-failed (rows you did not edit keep their keys; an edited row is a new request)`)
    if (r.tally.acceptedThenFailed > 0) out.info(`  ${next} ${r.tally.acceptedThenFailed} row(s) were accepted and then failed: --retry-failed does not send them again (their key only replays the answer); to try one again, give it a new reference`)
  }
  if (r.tally.otherResource > 0) {
    out.info(
      `  ${next} ${r.tally.otherResource} row(s) whose lookup by reference answered another resource with the same reference (error_code ${OTHER_RESOURCE}): their state is as last seen, not the other's; the service looks them up by reference only, so see how each ended in its webhook events (\`pay webhook history --reference REF\`) or the service's dashboard`,
    )
  }
  if (r.tally.lookupFailed > 0) {
    out.info(
      `  ${next} ${r.tally.lookupFailed} row(s) could not be followed: their lookup failed after the retries (error_code ${LOOKUP_FAILED}, the failure in error_message); their state is as last seen (state, state_at), not what it is now: run the same command again with --wait once the service answers`,
    )
  }
  if (counts.unknown > 0) out.info(`  ${next} ${counts.unknown} row(s) with an unknown outcome: ${resume}; they are resent with their keys and never done twice`)
  if (counts.not_sent > 0) out.info(`  ${next} ${counts.not_sent} row(s) not sent (rate limited, or the service was not reached): ${resume} to send them`)
  out.info(out.color('dim', `  run ${runId}, journal ${journal.file}`, 'err'))
  return counts.failed > 0 || counts.unknown > 0 || counts.not_sent > 0 || r.tally.otherResource > 0 || r.tally.lookupFailed > 0 ? ExitCode.OTHER : ExitCode.OK
}

/**
 * Holds the locks of a run: its lineage's (the file's path and settings, any content), then its content's. Taken in
 * that order by every run, so two runs never wait for each other. Resolves with the release of both.
 */
async function holdRun(store: JournalStore, runId: string, lineageId: string | undefined, say: (text: string) => void): Promise<() => void> {
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

/**
 * Holds the reference locks of the services a run sends to (promiseLockName), in one order; resolves with their
 * release. Held only for the check and the reservation; a single command holds one for its check and its record.
 */
async function holdPromises(store: JournalStore, scopes: ReferenceScope[], say: (text: string) => void): Promise<() => void> {
  const releases: Array<(() => void) | undefined> = []
  for (const name of [...new Set(scopes.map(promiseLockName))].sort()) {
    releases.push(
      await store.holdSender(name, RUN_LEASE_MS, (pid) =>
        say(`waiting: another pay process${pid === undefined ? '' : ` (pid ${pid})`} is checking or reserving references of this service; this run checks its own once it is done`), PROMISE_WAIT_TOLD_MS),
    )
  }
  return () => {
    for (const release of releases.reverse()) release?.()
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

/** The money lines of the summary: per currency, what succeeded, what is still processing and what failed. */
function moneyLines(money: Tally['money']): string[] {
  const lines: string[] = []
  const rows = {succeeded: 'the succeeded rows', processing: 'the rows still processing', failed: 'the failed rows'} as const
  for (const kind of ['succeeded', 'processing', 'failed'] as const) {
    const totals = Object.entries(money[kind].toJSON()).map(([c, a]) => `${a} ${c}`)
    if (totals.length > 0) lines.push(`total amount of ${rows[kind]}: ${totals.join(', ')}`)
  }
  const plans = {succeeded: money.succeeded.planRows, processing: money.processing.planRows, failed: money.failed.planRows}
  if (plans.succeeded + plans.processing + plans.failed > 0)
    lines.push(`rows that charge their plan's amount (once approved; the service's answers do not show it, see \`pay balance\`): ${plans.succeeded} succeeded, ${plans.processing} still processing, ${plans.failed} failed`)
  return lines
}
