/**
 * What a bulk run tells: a progress bar on a terminal (cli-progress, on stderr) or one NDJSON progress line on
 * stderr every few seconds otherwise; one result per row (stdout NDJSON under --json, and --results FILE as CSV
 * or NDJSON), in completion order, each with the same keys (RESULT_COLUMNS); and the summary: counts by verdict,
 * money by currency split into succeeded, processing and failed, time.
 */
import {createWriteStream, openSync, type WriteStream} from 'node:fs'
import {InputError} from '../base/errors.js'
import {DecimalSum, isDecimal} from '../api/money.js'
import type {Output} from '../output/output.js'
import {neutralized} from '../output/table.js'
import type {RowOutcome} from '../journal/run-journal.js'

/** The keys of every row's result, in order: --json, --results (NDJSON or CSV), first run and re-run alike. */
export const RESULT_COLUMNS = ['row', 'line', 'reference', 'status', 'outcome', 'http_status', 'id', 'state', 'state_at', 'error_code', 'error_message', 'idempotency_key', 'amount', 'currency', 'earlier'] as const

export interface Counts {
  total: number
  done: number
  succeeded: number
  /** Accepted, and the resource has not ended (as last seen). */
  processing: number
  failed: number
  unknown: number
  /** Refused for now (rate limited to the end, the service not reached): a plain re-run sends them. */
  not_sent: number
  /** Sent by an earlier run, not sent now. */
  earlier: number
}

/** Writes each row's result where it was asked for. */
export class ResultSink {
  private file?: WriteStream
  private csv?: {write(row: unknown[]): void; end(): void}
  /**
   * Why the --results file could not be written (a full disk, an I/O error), once it happened: nothing more is
   * written to it, and the run stops cleanly (src/bulk/engine.ts: exit 7, the outcomes in the journal).
   */
  failed?: Error
  private readonly fail = (err: Error) => {
    this.failed ??= err
  }

  private constructor(private readonly out: Output) {}

  static async open(out: Output, resultsFile: string | undefined): Promise<ResultSink> {
    const sink = new ResultSink(out)
    if (resultsFile) {
      // opened here, before anything is sent: a path that cannot be written is bad input (exit 2), not a crash mid-run
      let fd: number
      try {
        fd = openSync(resultsFile, 'w', 0o600)
      } catch (err) {
        throw InputError.one('--results', `cannot write ${resultsFile}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 'give a path in a directory you can write to')
      }
      sink.file = createWriteStream('', {fd})
      sink.file.on('error', sink.fail)
      if (/\.csv$/i.test(resultsFile)) {
        const {stringify} = await import('csv-stringify')
        const s = stringify({header: true, columns: [...RESULT_COLUMNS]})
        s.on('error', sink.fail)
        s.pipe(sink.file)
        sink.csv = s
      }
    }
    return sink
  }

  write(o: RowOutcome): void {
    const line = this.out.json || (this.file && !this.csv) ? JSON.stringify(o) : ''
    if (this.out.json) this.out.data(line)
    if (this.failed) return
    if (this.csv) {
      const cells = RESULT_COLUMNS.map((c) => (c === 'earlier' ? (o.earlier ? 'true' : 'false') : String(o[c] ?? '')))
      this.csv.write(this.out.options.rawCsv ? cells : cells.map(neutralized))
    }
    else this.file?.write(`${line}\n`)
  }

  /** Ends the file; a failure to write it (now or earlier) is kept in `failed`, never thrown. */
  async close(): Promise<void> {
    const file = this.file
    if (!file) return
    if (this.failed) {
      file.destroy()
      return
    }
    const finished = new Promise<void>((resolve) => {
      file.on('finish', () => resolve())
      file.on('close', () => resolve())
      file.on('error', () => resolve())
    })
    if (this.csv) this.csv.end()
    else file.end()
    await finished
  }
}

/** Distinct (currency, amount) pairs counted before they are added up (memory stays bounded). */
const PENDING_PAIRS = 4096

/**
 * Money of rows, per currency, as exact decimal strings (no floats): every decimal string is added as it is, negative
 * ones and those with more fraction digits included (a service answer may hold any decimal, docs/assumptions.md), each
 * currency's sum kept in units of its largest scale seen (decimalTotal in src/api/money.ts). Each row's amount is only
 * counted (currency -> amount -> rows: a bulk file repeats its amounts); the counts are added up when PENDING_PAIRS
 * distinct pairs are held and at the end: one decimal parse per distinct pair instead of one per row of both passes.
 * A currency is totalled under its upper-case code (`kes` and `KES` are one currency), expected and found alike.
 */
export class MoneyTotals {
  private readonly sums = new Map<string, DecimalSum>()
  private readonly pending = new Map<string, Map<string, number>>()
  private pairs = 0
  /** Rows that charge the amount of a plan (src/operation/confirm.ts, chargeOf): counted, as no answer shows it. */
  planRows = 0

  add(amount: string | null, currency: string | null): void {
    if (!amount || !currency) return
    let counts = this.pending.get(currency)
    if (!counts) this.pending.set(currency, (counts = new Map()))
    const rows = counts.get(amount)
    counts.set(amount, (rows ?? 0) + 1)
    if (rows === undefined && ++this.pairs >= PENDING_PAIRS) this.settle()
  }

  toJSON(): Record<string, string> {
    this.settle()
    return Object.fromEntries([...this.sums.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([c, sum]) => [c, sum.toString()]))
  }

  private settle(): void {
    for (const [spelled, counts] of this.pending) {
      // one currency whatever its case (`kes` is KES: reconcile matches it so): totalled under its upper-case code
      const currency = spelled.toUpperCase()
      let sum = this.sums.get(currency)
      for (const [amount, rows] of counts) {
        if (!isDecimal(amount)) continue
        if (!sum) this.sums.set(currency, (sum = new DecimalSum()))
        sum.add(amount, rows)
      }
    }
    this.pending.clear()
    this.pairs = 0
  }
}

export interface ProgressReporter {
  update(c: Counts): void
  stop(c: Counts): void
}

/** A bar on a terminal, NDJSON lines every `everyMs` otherwise. Both on stderr, through `out`. */
export async function progressReporter(out: Output, total: number, everyMs = Number(process.env.PAY_BULK_PROGRESS_MS ?? 2000)): Promise<ProgressReporter> {
  const started = Date.now()
  const rate = (c: Counts) => Math.round((c.done - c.earlier) / Math.max(0.001, (Date.now() - started) / 1000))
  if (out.term.stderrIsTTY) {
    const {SingleBar, Presets} = await import('cli-progress')
    const bar = new SingleBar(
      {format: ' {bar} {value}/{total} rows | {rate}/s | ETA {eta_formatted} | {succeeded} ok, {processing} processing, {failed} failed, {unknown} unknown', stream: out.liveStream as NodeJS.WriteStream, hideCursor: true, etaBuffer: 200},
      Presets.shades_classic,
    )
    bar.start(total, 0, {rate: 0, succeeded: 0, processing: 0, failed: 0, unknown: 0})
    return {
      update: (c) => bar.update(c.done, {rate: rate(c), succeeded: c.succeeded, processing: c.processing, failed: c.failed, unknown: c.unknown}),
      stop: (c) => {
        bar.update(c.done, {rate: rate(c), succeeded: c.succeeded, processing: c.processing, failed: c.failed, unknown: c.unknown})
        bar.stop()
      },
    }
  }
  let last = Date.now()
  const line = (c: Counts) => out.info(JSON.stringify({progress: {...c, rate_per_s: rate(c), elapsed_s: Math.round((Date.now() - started) / 1000)}}))
  return {
    update: (c) => {
      if (Date.now() - last < everyMs) return
      last = Date.now()
      line(c)
    },
    stop: () => undefined,
  }
}
