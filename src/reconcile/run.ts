/**
 * `pay reconcile FILE`: every row of a file of expected transactions looked up at the service, read only, and classed
 * (src/reconcile/expected.ts). The bulk runs' machinery does the work: their reader (src/bulk/input.ts), their
 * adaptive rate (src/bulk/rate.ts) over an undici Pool of --concurrency connections (src/client/pool-transport.ts)
 * under the client core (token, 401 refresh, response schema), their run journal (src/journal/run-journal.ts) and money
 * totals (src/bulk/report.ts).
 *
 * Resumable: each row's result goes to a run journal (`journal/runs/reconcile-<id>.ndjson`, batched like a bulk
 * run's); a run of the same file (same content, profile and --kind) that did not finish, killed with kill -9 too,
 * takes the rows already classed from it and looks up only the rest. A run that finished is not resumed: running it
 * again looks everything up again (the service's states move on); --fresh starts over in any case.
 */
import {createHash} from 'node:crypto'
import {closeSync, existsSync, openSync, readFileSync, writeSync} from 'node:fs'
import {setTimeout as sleep} from 'node:timers/promises'
import type {EndpointId} from '../api/endpoints.js'
import {type Kind, KINDS, kindNamed, kindOfObject, referenceLookup} from '../api/kinds.js'
import type {ApiContext} from '../operation/api-context.js'
import type {PreparedRequest} from '../client/api-client.js'
import {InputError, type InputProblem} from '../base/errors.js'
import {ExitCode, exitCodeOfSignal} from '../base/exit-codes.js'
import {PoolTransport} from '../client/pool-transport.js'
import {neutralized} from '../output/table.js'
import {type AttemptOutcome, MAX_THROTTLES_PER_ROW, RequestAttempts, askedWaitMs, provesAbsent} from '../client/request-policy.js'
import {openJournalStore} from '../journal/index.js'
import {openInput, readRowChunks, RowSyntaxError} from '../bulk/input.js'
import {AdaptiveRate} from '../bulk/rate.js'
import {MoneyTotals} from '../bulk/report.js'
import {type RowOutcome, RunJournal} from '../journal/run-journal.js'
import {DEFAULT_CONCURRENCY} from '../bulk/engine.js'
import {CLASSES, type ExpectedRow, type Found, type ReconcileClass, RESULT_COLUMNS, type RowResult, classify, duplicateKey, expectedOf, markRepeatedObjects} from './expected.js'

interface ReconcileOptions {
  file: string
  format?: string
  /** The kind of the rows that name none. */
  kind?: string
  concurrency?: number
  results?: string
  /** Ignore an unfinished earlier run of the same file. */
  fresh?: boolean
  retries?: number
  env?: NodeJS.ProcessEnv
  stdin?: NodeJS.ReadableStream
}

interface ClassSummary {
  rows: number
  /** Expected amounts of the rows of this class, per currency. */
  expected: Record<string, string>
  /** What the service shows for them, per currency (rows it found). */
  found: Record<string, string>
}

interface ReconcileSummary {
  file: string
  rows: number
  run: string
  /** Rows classed by an earlier, interrupted run of the same file. */
  resumed: number
  classes: Record<ReconcileClass, ClassSummary>
  mismatches: RowResult[]
}

/** Listed problems of the file before the rest are only counted. */
const MAX_LISTED_PROBLEMS = 1000

/** The whole file checked (every problem at once, exit 2, nothing sent), with each repeated reference marked. */
async function readExpected(options: ReconcileOptions, spoolDir: string): Promise<{rows: ExpectedRow[]; sha256: string; name: string; dispose: () => void}> {
  let defaultKind: Kind | undefined
  if (options.kind !== undefined) {
    defaultKind = kindNamed(options.kind)
    if (!defaultKind) throw InputError.one('--kind', `must be one of ${KINDS.map((k) => k.name).join(', ')}`)
  }
  const input = await openInput(options.file, options.format, spoolDir, options.stdin)
  const problems: InputProblem[] = []
  let more = 0
  const rows: ExpectedRow[] = []
  const first = new Map<string, number>()
  const told = new Set<string>()
  try {
    for await (const chunk of readRowChunks(input)) {
      for (const r of chunk) {
        if (r instanceof RowSyntaxError) {
          problems.push({flag: `${input.name}:${r.line} ${r.what}`, rule: r.message, line: r.line})
          continue
        }
        const {row, problems: found} = expectedOf(r, defaultKind, input)
        for (const p of found) {
          // a problem of the columns (two for one input) is the header's: told once
          if (told.has(p.flag + p.rule)) continue
          told.add(p.flag + p.rule)
          if (problems.length < MAX_LISTED_PROBLEMS) problems.push(p)
          else more++
        }
        if (!row) continue
        const key = duplicateKey(row)
        const earlier = first.get(key)
        if (earlier === undefined) first.set(key, row.row)
        else row.repeats = earlier
        rows.push(row)
      }
    }
  } catch (err) {
    input.dispose()
    throw err
  }
  if (more > 0) problems.push({flag: input.name, rule: `has ${more} more problem(s) not listed`})
  if (problems.length > 0) {
    input.dispose()
    throw new InputError(problems, 'nothing was looked up: fix these rows and run the same command again')
  }
  if (rows.length === 0) {
    input.dispose()
    throw InputError.one('FILE', `has no rows (${input.name})`)
  }
  return {rows, sha256: input.sha256, name: input.name, dispose: () => input.dispose()}
}

/**
 * Results of the last run of this file when it did not finish (killed, interrupted): the rows it classed, lookup
 * failures excepted. Empty when there was none or it finished: a run that finished writes its end record
 * (RunJournal.end) whatever its rows came to, lookup failures included, and is never resumed (states move on). A run
 * journals every row it classes, those it took from the run before included, so its records alone are its rows.
 */
function earlierResults(file: string): Map<number, RowResult> {
  const done = new Map<number, RowResult>()
  if (!existsSync(file)) return done
  let finished = false
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    let rec: ({t?: string} & Partial<RowResult>) | null
    try {
      rec = JSON.parse(line) as typeof rec
    } catch {
      continue // empty, or torn by a kill
    }
    if (rec?.t === 'run') {
      done.clear()
      finished = false
    } else if (rec?.t === 'end') finished = true
    else if (rec?.t === 'row' && typeof rec.row === 'number' && CLASSES.includes(rec.class as ReconcileClass)) {
      const {t: _t, ...result} = rec
      if (result.class === 'lookup_failed') done.delete(rec.row)
      else done.set(rec.row, result as RowResult)
    }
  }
  return finished ? new Map() : done
}

/** The request that looks a row up: its kind's lookup by reference, or the verify lookup when it names no kind. */
function requestOf(ctx: ApiContext, e: ExpectedRow): {req: PreparedRequest; endpoint: EndpointId} {
  const {endpoint, input} = e.kind ? referenceLookup(e.kind, e.reference, e.mandateId) : {endpoint: 'transactions.verify' as const, input: {path: {merchant_reference: e.reference}}}
  return {req: {...ctx.client.prepare(endpoint, input), retries: 0}, endpoint}
}

/**
 * One row's lookup under the shared rate, repeated as the request policy says (src/client/request-policy.ts): its
 * 429s slow the whole run down (up to MAX_THROTTLES_PER_ROW); 5xx and cut connections are retried.
 */
async function lookUp(ctx: ApiContext, e: ExpectedRow, rate: AdaptiveRate, retries: number, pool?: PoolTransport): Promise<Found> {
  const {req, endpoint} = requestOf(ctx, e)
  const policy = new RequestAttempts({retries, safeToRepeat: true, throttles: MAX_THROTTLES_PER_ROW})
  for (;;) {
    if (!rate.tryAcquire()) await rate.acquire()
    let body: Record<string, unknown> | undefined
    let err: {status?: number; message?: string; responseHeaders?: Record<string, string>; body?: unknown; attemptOutcome?: AttemptOutcome} | undefined
    try {
      body = (await ctx.client.sendUnjournaled<Record<string, unknown>>(req, pool)).body
    } catch (caught) {
      err = caught as typeof err
    } finally {
      rate.release()
    }
    const status = err?.status
    const asked = err ? askedWaitMs(status, err.responseHeaders ?? {}, err.body) : undefined
    // the service's own not_found (src/client/request-policy.ts): the row is missing; any other 404 is a failed lookup
    const absent = err !== undefined && provesAbsent(err)
    // a failure the client did not judge (none is expected) may have reached the service: a lookup is safe to repeat
    const decision = err && !absent ? policy.next(err.attemptOutcome ?? {kind: 'network', sent: true}, asked) : undefined
    if (decision?.retry && decision.throttled) {
      rate.throttle(asked)
      continue
    }
    rate.ok()
    if (body) {
      // the verify lookup names the kind it found; for a row of another kind, that is not the row's transaction
      const kind = endpoint === 'transactions.verify' ? kindOfObject(body.object) : e.kind
      if (kind && (!e.kind || kind === e.kind)) return {body, kind}
      return {missing: `no ${e.kind?.label ?? 'transaction'} with this reference (the verify lookup found a ${String(body.object)})`}
    }
    // a row naming an id of a kind the verify lookup does not cover (a bulk debit's DB_…: no kind by its prefix) was
    // not looked up as what it is: not found there is no verdict
    if (absent && !e.kind && e.id !== undefined) return {failed: unknownKindOf(e)}
    if (absent) return {missing: `no ${e.kind?.label ?? 'collection, payout or checkout session'} with this reference`}
    if (decision?.retry) {
      await sleep(decision.waitMs)
      continue
    }
    return {failed: err?.message ?? String(err)}
  }
}

/** Why a row whose id names no kind pay can look up was not found by the verify lookup (no verdict), and what to do. */
function unknownKindOf(e: ExpectedRow): string {
  return `not found by the verify lookup (a collection, payout or checkout session), and its id ${e.id} names no kind pay knows by its prefix (a debit's, say): it was not looked up as what it is; give the row a kind column (a debit: kind debit and its mandate_id), or --kind`
}

export async function runReconcile(ctx: ApiContext, options: ReconcileOptions): Promise<number> {
  const {out, client, settings} = ctx
  const store = openJournalStore(out, options.env)
  const spoolDir = store.open() ? store.dir : (await import('node:os')).tmpdir()
  const input = await readExpected(options, spoolDir)
  let pool: PoolTransport | undefined
  let journal: RunJournal | undefined
  const onSignal = (signal: NodeJS.Signals) => {
    journal?.endNow()
    out.errorLine(`interrupted (${signal}); run the same command again to resume: the rows already classed are not looked up again`)
    input.dispose()
    process.exit(exitCodeOfSignal(signal))
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  try {
    // the --results file is opened before anything is looked up: a path that cannot be written is bad input
    let resultsFd: number | undefined
    if (options.results) {
      try {
        resultsFd = openSync(options.results, 'w', 0o600)
      } catch (err) {
        throw InputError.one('--results', `cannot write ${options.results}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 'give a path in a directory you can write to')
      }
    }
    const total = input.rows.length
    const runId = createHash('sha256')
      .update(JSON.stringify({v: 1, op: 'reconcile', file: input.sha256, base: client.baseUrl(), client: settings.clientId ?? '', account: settings.accountRef ?? '', kind: options.kind ?? ''}))
      .digest('hex')
      .slice(0, 32)
    journal = new RunJournal(store, `reconcile-${runId}`)
    const earlier = options.fresh ? new Map<number, RowResult>() : earlierResults(journal.file)
    await client.token() // bad credentials: exit 3 here, not a failure on every row
    const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY
    pool = client.poolable ? await PoolTransport.open(concurrency) : undefined
    journal.begin({t: 'run', run: runId, at: new Date().toISOString(), operation: 'reconcile', file: input.name, file_sha256: input.sha256, profile: settings.profileName, base_url: client.shownBaseUrl(), salt: ''})
    if (earlier.size > 0) out.info(out.color('dim', `resuming: ${earlier.size} of ${total} rows classed by an earlier run of this file (--fresh looks them up again)`, 'err'))

    const results: RowResult[] = []
    const counts = new Map<ReconcileClass, number>(CLASSES.map((c) => [c, 0]))
    const progress = await reconcileProgress(out, total)
    const rate = new AdaptiveRate(concurrency)
    const retries = options.retries ?? 3
    const started = Date.now()
    const record = (r: RowResult) => {
      results.push(r)
      counts.set(r.class, counts.get(r.class)! + 1)
      // the run journal's line is {"t":"row", then the result's own fields}: a reconcile row in a bulk run's file format;
      // a row taken from the run before is journaled again, so that this run's records alone are its rows (earlierResults)
      journal!.record(r as unknown as RowOutcome)
      progress.update(results.length, counts)
    }
    let next = 0
    const worker = async () => {
      while (next < total) {
        const e = input.rows[next++]
        const known = earlier.get(e.row)
        record(known ?? classify(e, e.repeats === undefined ? await lookUp(ctx, e, rate, retries, pool) : {missing: ''}))
      }
    }
    try {
      await Promise.all(Array.from({length: concurrency}, worker))
      results.sort((a, b) => a.row - b.row)
      markRepeatedObjects(results)
      for (const c of CLASSES) counts.set(c, 0)
      for (const r of results) counts.set(r.class, counts.get(r.class)! + 1)
    } finally {
      await journal.end()
      progress.stop(results.length, counts)
    }

    if (resultsFd !== undefined) await writeResults(resultsFd, options.results!, results, out.options.rawCsv === true)
    const summary = summarise(input.name, runId, earlier.size, results)
    printSummary(ctx, summary, (Date.now() - started) / 1000, rate.throttled)
    return summary.classes.matched.rows === total ? ExitCode.OK : ExitCode.OTHER
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
    await pool?.close()
    input.dispose()
  }
}

function summarise(file: string, run: string, resumed: number, results: RowResult[]): ReconcileSummary {
  const totals = new Map(CLASSES.map((c) => [c, {rows: 0, expected: new MoneyTotals(), found: new MoneyTotals()}]))
  for (const r of results) {
    const t = totals.get(r.class)!
    t.rows++
    t.expected.add(r.expected_amount, r.expected_currency)
    t.found.add(r.amount, r.currency)
  }
  const classes = Object.fromEntries(CLASSES.map((c) => [c, {rows: totals.get(c)!.rows, expected: totals.get(c)!.expected.toJSON(), found: totals.get(c)!.found.toJSON()}])) as Record<ReconcileClass, ClassSummary>
  return {file, rows: results.length, run, resumed, classes, mismatches: results.filter((r) => r.class !== 'matched')}
}

const money = (totals: Record<string, string>) =>
  Object.entries(totals)
    .map(([c, a]) => `${a} ${c}`)
    .join(', ')

function printSummary(ctx: ApiContext, s: ReconcileSummary, seconds: number, throttled: number): void {
  const {out} = ctx
  if (out.json) {
    out.data(JSON.stringify(s))
    return
  }
  const matched = s.classes.matched.rows
  out.info(`${s.rows} rows of ${s.file} in ${seconds.toFixed(1)} s: ${matched} matched, ${s.rows - matched} not${throttled > 0 ? `; rate limited ${throttled} time(s), slowed down` : ''}`)
  out.data(out.list(CLASSES.map((c) => ({class: c, rows: s.classes[c].rows, expected: money(s.classes[c].expected), found: money(s.classes[c].found)}))))
  if (s.mismatches.length > 0) {
    out.info(out.color('bold', `mismatches (${s.mismatches.length})`, 'err'))
    out.data(out.list(s.mismatches.map((r) => ({...r, expected: `${r.expected_amount} ${r.expected_currency}${r.expected_state ? ` ${r.expected_state}` : ''}`, found: r.amount ? `${r.amount} ${r.currency ?? ''}`.trim() : ''})) as unknown as Record<string, unknown>[], ['row', 'reference', 'class', 'expected', 'found', 'state', 'detail']))
  }
}

/** The results in file order: CSV when the name ends in .csv (formula cells neutralised unless --raw-csv), else NDJSON. */
async function writeResults(fd: number, name: string, results: RowResult[], raw: boolean): Promise<void> {
  try {
    if (/\.csv$/i.test(name)) {
      const {stringify} = await import('csv-stringify/sync')
      const cell = raw ? (v: unknown) => String(v ?? '') : (v: unknown) => neutralized(String(v ?? ''))
      writeSync(fd, stringify(results.map((r) => RESULT_COLUMNS.map((c) => cell(r[c]))), {header: true, columns: [...RESULT_COLUMNS]}))
    } else writeSync(fd, results.map((r) => JSON.stringify(r)).join('\n') + '\n')
  } finally {
    closeSync(fd)
  }
}

/** A bar on a terminal (stderr); off one, a JSON progress line every PAY_BULK_PROGRESS_MS (2 s), as bulk runs do. */
async function reconcileProgress(out: ApiContext['out'], total: number): Promise<{update(done: number, c: Map<ReconcileClass, number>): void; stop(done: number, c: Map<ReconcileClass, number>): void}> {
  const values = (c: Map<ReconcileClass, number>) => ({matched: c.get('matched'), differ: c.get('amount_differs')! + c.get('state_differs')!, missing: c.get('missing'), other: c.get('duplicated')! + c.get('lookup_failed')!})
  if (out.term.stderrIsTTY && !out.options.quiet) {
    const {SingleBar, Presets} = await import('cli-progress')
    const bar = new SingleBar({format: ' {bar} {value}/{total} rows | ETA {eta_formatted} | {matched} matched, {differ} differ, {missing} missing, {other} duplicated or failed', stream: out.errorStream, hideCursor: true, etaBuffer: 200}, Presets.shades_classic)
    bar.start(total, 0, values(new Map(CLASSES.map((c) => [c, 0]))))
    return {update: (done, c) => bar.update(done, values(c)), stop: (done, c) => (bar.update(done, values(c)), bar.stop())}
  }
  const every = Number(process.env.PAY_BULK_PROGRESS_MS ?? 2000)
  let last = Date.now()
  return {
    update: (done, c) => {
      if (Date.now() - last < every) return
      last = Date.now()
      out.info(JSON.stringify({progress: {total, done, ...values(c)}}))
    },
    stop: () => undefined,
  }
}
