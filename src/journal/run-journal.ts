/**
 * The journal of one bulk run: `journal/runs/<run id>.ndjson` next to the operation journal (same directory,
 * modes and retention). A header line, then one line per row outcome. Row keys are derived (from the row's body and scope, see rowKey), so
 * an outcome that is lost (the process killed before the buffer reached the disk) costs only a resend with the
 * same key, which the service answers with the first result: outcomes are therefore written in batches, fsync'd
 * every FLUSH_MS, instead of one fsync per row.
 */
import {closeSync, existsSync, openSync, readFileSync, readSync, readdirSync} from 'node:fs'
import {join} from 'node:path'
import type {RequestClass} from '../client/request-policy.js'
import type {JournalStore} from './store.js'
import {ByteLines, lineBlocks} from './byte-lines.js'
import {SortedRecords} from './sorted-spool.js'

const FLUSH_MS = 250
/** 2^32: what a 32-bit word of a sorted record holds (a byte offset takes two). */
const WORD = 0x1_0000_0000
const FLUSH_BYTES = 256 * 1024
/** Earlier outcomes handed out at a time. */
const CHUNK_ROWS = 128

/**
 * A row's verdict, from two facts kept apart: what the request came to (`outcome`, the request policy's class) and
 * the resource's latest known state. `succeeded`/`failed`: the resource reached that end; `processing`: the service
 * accepted the request and the resource has not ended (as far as pay saw); `failed` is also a request the service
 * refused; `unknown`: the service may have acted (the row is resent with its key); `not_sent`: refused for now (rate
 * limited to the end, or the service never reached): nothing was done, a plain re-run sends it.
 */
type RowState = 'succeeded' | 'processing' | 'failed' | 'unknown' | 'not_sent'

export interface RowOutcome {
  row: number
  line: number
  reference: string | null
  /** The row's verdict (rowState of the two facts below): what the counts, the totals and the exit code read. */
  status: RowState
  /** What the request came to: accepted (with id), refused, or unknown. */
  outcome: RequestClass
  http_status: number | null
  id: string | null
  /** The resource's latest known state (processing, succeeded, failed, …), and when pay saw it. */
  state: string | null
  state_at: string | null
  error_code: string | null
  error_message: string | null
  idempotency_key: string
  amount: string | null
  currency: string | null
  /** True when the request was sent by an earlier run of the same command on the same file. */
  earlier: boolean
}

/** The verdict of a row (see RowState); `ended`: the class of its state (classifyState), undefined while not terminal. */
export function rowState(outcome: RequestClass, ended: 'succeeded' | 'failed' | undefined, refusedForNow: boolean): RowState {
  if (outcome === 'accepted') return ended ?? 'processing'
  if (outcome === 'refused') return refusedForNow ? 'not_sent' : 'failed'
  return 'unknown'
}

/** A row outcome with every key, in one order (a first run and a re-run write the same keys); `status` derived. */
export function rowOutcome(o: Omit<RowOutcome, 'status'>, ended: 'succeeded' | 'failed' | undefined, refusedForNow = false): RowOutcome {
  return withStatus(o, rowState(o.outcome, ended, refusedForNow))
}

/**
 * A row outcome's fields in one order, with this verdict: a copy made by an object literal, never by a spread
 * (`{...o}`). Measured: a spread per row of a long run sent every row's copy to V8's old space (a re-run of 100,000
 * settled rows promoted ~3 MB at every scavenge, 30 MB in all; with the literal, nothing).
 */
export function withStatus(o: Omit<RowOutcome, 'status'>, status: RowState): RowOutcome {
  return outcomeOf(o.row, o.line, o.reference, status, o.outcome, o.http_status, o.id, o.state, o.state_at, o.error_code, o.error_message, o.idempotency_key, o.amount, o.currency, o.earlier)
}

/** The one object literal a row outcome is made by (withStatus; a sent row's, src/bulk/send.ts): its keys in one order. */
export function outcomeOf(
  row: number, line: number, reference: string | null, status: RowState, outcome: RequestClass, httpStatus: number | null, id: string | null, state: string | null,
  stateAt: string | null, code: string | null, message: string | null, key: string, amount: string | null, currency: string | null, earlier: boolean,
): RowOutcome {
  return {row, line, reference, status, outcome, http_status: httpStatus, id, state, state_at: stateAt, error_code: code, error_message: message, idempotency_key: key, amount, currency, earlier}
}

/** A row record of a run journal as a row outcome of an earlier run (its verdict derived again), or undefined. */
function rowOfRecord(rec: {t?: string; again?: unknown} & Partial<RowOutcome>, ended: (state: string | null) => 'succeeded' | 'failed' | undefined): (RowOutcome & {again: boolean}) | undefined {
  if (rec.t !== 'row' || typeof rec.row !== 'number' || typeof rec.idempotency_key !== 'string') return undefined
  const text = (v: unknown) => (typeof v === 'string' ? v : null)
  const outcome = outcomeOfRecord(rec)
  const state = text(rec.state)
  const again = rec.again === true || (rec.outcome === undefined && outcome === 'unknown')
  const o = rowOutcome(
    {
      row: rec.row, line: typeof rec.line === 'number' ? rec.line : 0, reference: text(rec.reference), outcome, http_status: typeof rec.http_status === 'number' ? rec.http_status : null,
      id: text(rec.id), state, state_at: text(rec.state_at), error_code: text(rec.error_code), error_message: text(rec.error_message), idempotency_key: rec.idempotency_key,
      amount: text(rec.amount), currency: text(rec.currency), earlier: true,
    },
    ended(state),
    again,
  ) as EarlierRow
  o.again = again // (not a spread: see withStatus)
  return o
}

type Ended = (state: string | null) => 'succeeded' | 'failed' | undefined

/** An earlier run's row as a re-run reads it: its outcome, and whether it was refused for now (`again`). */
export type EarlierRow = RowOutcome & {again: boolean}

/**
 * The newest record of each row that earlier runs of the same salt journaled, in row order: the records' places in the
 * journal are sorted by row on disk (src/bulk/sorted-spool.ts) and each row's newest record is read back from the
 * journal when asked for. A re-run of a million settled rows holds a chunk of them at a time, not a map of all.
 */
export class EarlierOutcomes {
  /** Rows with an outcome (once counted). */
  rows = 0
  /**
   * A run of these keys ended without its end record (killed, or interrupted): a row it has no record of may have
   * been in flight, so its key may have reached the service.
   */
  cut = false

  constructor(
    private readonly sorted: SortedRecords | undefined,
    private readonly file: string,
    private readonly epoch: number,
    private readonly ended: Ended,
  ) {}

  /** Counts the rows (and returns how many `settled` says are, when given) by reading them all once. */
  async count(settled?: (o: EarlierRow) => boolean): Promise<number> {
    let rows = 0
    let n = 0
    for await (const chunk of this.chunks()) {
      rows += chunk.length
      if (settled) for (const o of chunk) if (settled(o)) n++
    }
    this.rows = rows
    return n
  }

  /** The rows' newest outcomes, in row order, a chunk at a time. */
  async *chunks(): AsyncGenerator<EarlierRow[]> {
    if (!this.sorted) return
    const reader = new Positioned(this.file)
    try {
      let row = -1
      // the newest record of `row` so far, of the newest salt (only those count): its place in the journal
      let offset = -1
      let length = 0
      let out: EarlierRow[] = []
      const take = () => {
        if (offset < 0) return
        const o = rowOfRecord(JSON.parse(reader.read(offset, length).replace(/\0+/g, '')) as Partial<RowOutcome>, this.ended)
        if (o) out.push(o)
        offset = -1
      }
      for await (const recs of this.sorted.sorted()) {
        for (let i = 0; i < recs.length; i += 6) {
          if (recs[i] !== row) {
            take()
            row = recs[i]
            // a few rows at a time: a chunk is dropped before a scavenge finds it twice (nothing of it reaches old space)
            if (out.length >= CHUNK_ROWS) {
              yield out
              out = []
            }
          }
          if (recs[i + 2] === this.epoch) {
            offset = recs[i + 3] + recs[i + 4] * WORD
            length = recs[i + 5]
          }
        }
      }
      take()
      if (out.length > 0) yield out
    } finally {
      reader.close()
    }
  }

  dispose(): void {
    this.sorted?.dispose()
  }
}

/** Reads byte ranges of a file that are asked for mostly in order, through a window of the file. */
class Positioned {
  private readonly fd: number
  private window: Buffer = Buffer.alloc(0)
  /** The memory the window is read into, again and again (grown for a longer record). */
  private space: Buffer = Buffer.alloc(0)
  private start = 0

  constructor(file: string) {
    this.fd = openSync(file, 'r')
  }

  read(offset: number, length: number): string {
    if (offset < this.start || offset + length > this.start + this.window.length) {
      if (this.space.length < length) this.space = Buffer.allocUnsafeSlow(Math.max(length, 64 * 1024))
      const n = readSync(this.fd, this.space, 0, this.space.length, offset)
      this.window = this.space.subarray(0, n)
      this.start = offset
    }
    return this.window.toString('utf8', offset - this.start, offset - this.start + length)
  }

  close(): void {
    closeSync(this.fd)
  }
}

/** The lines of a file, each with its byte offset and length (without the line break), read 256 KiB at a time. */
async function* linesOf(file: string): AsyncGenerator<{text: string; offset: number; length: number}> {
  for await (const {block, offset} of lineBlocks(file, 256 * 1024)) {
    for (let from = 0; from < block.length; ) {
      const nl = block.indexOf(10, from)
      const stop = nl < 0 ? block.length : nl
      if (stop > from) yield {text: block.toString('utf8', from, stop), offset: offset + from, length: stop - from}
      from = stop + 1
    }
  }
}

/** The name of a run's journal file in `journal/runs/` (its run id); lineage files are named otherwise. */
export const RUN_FILE = /^[0-9a-f]{32}\.ndjson$/

/**
 * One run file as `pay journal` reads it: its last header, each row's latest record with when its request was first
 * sent (`sent_at`: the start of the run that first sent it under its key; a later run that only reports it, or resends
 * it under the same key, does not move it), and whether its last run ended.
 */
export interface RunFileView {
  run: string
  header: RunHeader
  rows: Array<RowOutcome & {sent_at: string}>
  /** False when the last run of the file began and never ended (killed, interrupted): its unrecorded rows are unknown. */
  finished: boolean
}

/** Every bulk run file of the journal, for `pay journal` (src/journal/view.ts): synchronous, whole files. */
export function readRuns(store: JournalStore): RunFileView[] {
  if (!store.open()) return []
  const dir = join(store.dir, 'runs')
  let names: string[]
  try {
    names = readdirSync(dir).filter((n) => RUN_FILE.test(n))
  } catch {
    return []
  }
  const views: RunFileView[] = []
  for (const name of names) {
    let text: string
    try {
      text = readFileSync(join(dir, name), 'utf8')
    } catch {
      continue
    }
    let header: RunHeader | undefined
    let finished = true
    const rows = new Map<number, RowOutcome & {sent_at: string}>()
    // each row's key and when it was first sent under it (a record of a run that sent it: not an earlier run's row
    // reported again, nor one refused for now, which sent nothing; none such yet: the first run that recorded it)
    const sent = new Map<number, {key: string; at: string; sent: boolean}>()
    for (const line of text.split('\n')) {
      let rec: ({t?: string; again?: unknown} & Partial<RowOutcome> & Partial<RunHeader>) | null
      try {
        rec = JSON.parse(line.replace(/^\0+|\0+$/g, '')) as typeof rec
      } catch {
        continue
      }
      if (rec?.t === 'run') {
        header = rec as RunHeader
        finished = false
      } else if (rec?.t === 'end') finished = true
      else if (rec) {
        const o = rowOfRecord(rec, () => undefined)
        if (o && header) {
          const {again, ...row} = o
          const sentHere = rec.earlier !== true && !again
          let first = sent.get(o.row)
          // another key is another request (--force-new); the same key first sent by this run: its time from now on
          if (first?.key !== o.idempotency_key || (sentHere && !first.sent)) sent.set(o.row, (first = {key: o.idempotency_key, at: header.at, sent: sentHere}))
          rows.set(o.row, {...row, sent_at: first.at})
        }
      }
    }
    if (header) views.push({run: name.slice(0, 32), header, rows: [...rows.values()], finished})
  }
  return views
}

/**
 * What a run journal's row record says of its request: its `outcome`, or for a record written before outcomes were
 * kept, what its answer shows (a 2xx status: accepted; a refusal with a status: refused; else unknown).
 */
function outcomeOfRecord(rec: Partial<RowOutcome>): RequestClass {
  if (rec.outcome === 'accepted' || rec.outcome === 'refused' || rec.outcome === 'unknown') return rec.outcome
  const status = typeof rec.http_status === 'number' ? rec.http_status : undefined
  if (status !== undefined && status >= 200 && status < 300) return 'accepted'
  return (rec.status as string) === 'failed' && status !== undefined ? 'refused' : 'unknown'
}

interface RunHeader {
  t: 'run'
  run: string
  at: string
  operation: string
  file: string
  file_sha256: string
  profile: string
  base_url: string
  /** The client id and account ref the rows were sent with (runs of an older pay: not recorded). */
  client_id?: string
  account_ref?: string
  /** --force-new's salt of the row keys ('' for none). */
  salt: string
  /** This run writes each row's index line before its record (RunJournal.begin): none of its records lacks one. */
  index_first?: true
}

/**
 * What must reach the disk before the row records of a flush (the reference index, src/bulk/references.ts): `take`
 * hands over what is buffered (at the moment the records are taken), `write` writes it (fsync'd) and says why not;
 * `writeNow` the same, synchronously (a signal handler about to exit).
 */
export interface FlushedFirst<T> {
  take(): T | undefined
  write(taken: T): Promise<string | undefined>
  writeNow(taken: T): string | undefined
  /** Closes what the writes kept open, once the run's last flush is done. */
  close?(): Promise<void>
}

export class RunJournal {
  readonly file: string
  /** The records not yet written (a flush's worth, and room for the record that fills it). */
  private readonly buffer = new ByteLines(FLUSH_BYTES + 64 * 1024)
  private timer?: NodeJS.Timeout
  /** The write in progress: flushes run one after the other, off the event loop's critical path. */
  private writing: Promise<void> = Promise.resolve()
  /** Why a write of this run failed (the first one): the run stops, and says so. */
  failed?: string
  private first?: FlushedFirst<unknown>
  /** The journal was on when the run began. */
  private on = false

  constructor(
    private readonly store: JournalStore,
    readonly runId: string,
  ) {
    this.file = join(store.dir, 'runs', `${runId}.ndjson`)
  }

  /**
   * What earlier runs know of each row: its newest record, whatever it says (the caller decides what is settled).
   * Only those of the newest salt (--force-new) count, and that salt is returned (`ran`: some run of this content
   * began): a plain re-run resumes the last forced run (see resumedSalt for a content never run before, an edited
   * file). `ended` classes a state (the operation's terminal states): each row's verdict is derived again here,
   * never read from the record. The records are sorted by row on disk (`spoolDir`), not held: see EarlierOutcomes.
   */
  async load(ended: Ended = () => undefined, spoolDir = this.store.dir): Promise<{salt: string; ran: boolean; indexed: boolean; outcomes: EarlierOutcomes}> {
    let salt = ''
    let ran = false
    let epoch = 0
    // a run of the newest salt began and did not end (`open`: the last one so far), or one before it
    let open = false
    let cut = false
    // whether every row record of the file has its line in the reference index: false after the header of a run that
    // wrote its records first (an older pay: killed between the two writes, it left records without lines), until a
    // run ends having added them all again (`indexed` in its end record)
    let indexed = true
    if (!this.store.open() || !existsSync(this.file)) return {salt, ran, indexed, outcomes: new EarlierOutcomes(undefined, this.file, 0, ended)}
    // each row record as (row, position in the file, salt's epoch, byte offset (2 words), length): sorted by row on disk
    const sorted = new SortedRecords(spoolDir, 6)
    let seq = 0
    try {
      for await (const {text, offset, length} of linesOf(this.file)) {
        let rec: {t?: string; salt?: unknown; row?: unknown; indexed?: unknown; index_first?: unknown} | null
        try {
          rec = JSON.parse(text.replace(/\0+/g, '')) as typeof rec
        } catch {
          continue // a torn last line
        }
        if (rec === null || typeof rec !== 'object') continue
        if (rec.t === 'run') {
          const s = typeof rec.salt === 'string' ? rec.salt : ''
          if (s !== salt) {
            epoch++ // the records of another salt no longer count
            cut = false
          } else cut ||= open
          salt = s
          ran = true
          open = true
          if (rec.index_first !== true) indexed = false
          continue
        }
        if (rec.t === 'end') {
          open = false
          if (rec.indexed === true) indexed = true
          continue
        }
        if (rec.t === 'row' && typeof rec.row === 'number' && rec.row >= 0 && rec.row < WORD) sorted.add(rec.row, ++seq, epoch, offset % WORD, Math.floor(offset / WORD), length)
      }
    } catch (err) {
      sorted.dispose()
      throw err
    }
    const outcomes = new EarlierOutcomes(sorted, this.file, epoch, ended)
    outcomes.cut = cut || open
    return {salt, ran, indexed, outcomes}
  }

  /**
   * Every row record of the file, of every run and salt, oldest first (streamed): what a run re-indexes when some of
   * them may lack their line in the reference index (load: `indexed` false). A torn line is skipped.
   */
  async *rowRecords(): AsyncGenerator<RowOutcome> {
    if (!this.store.open() || !existsSync(this.file)) return
    for await (const {text} of linesOf(this.file)) {
      if (!text.includes('"t":"row"')) continue
      let rec: ({t?: string; again?: unknown} & Partial<RowOutcome>) | null
      try {
        rec = JSON.parse(text.replace(/\0+/g, '')) as typeof rec
      } catch {
        continue
      }
      const o = rec ? rowOfRecord(rec, () => undefined) : undefined
      if (o) yield o
    }
  }

  /**
   * Starts the run (its header). `first`: what each flush writes before the row records it takes (the reference
   * index): a record is never on disk before its row's index line, so a crash cannot leave a row journaled (and so
   * never sent again) but missing from the index; when that write fails, the records are not written either.
   */
  begin(header: RunHeader, first?: FlushedFirst<unknown>): void {
    this.first = first
    // a journal off from the start (an unwritable state dir, said once) records nothing: that is no failure of this run
    this.on = this.store.open()
    if (this.on) this.failed ??= this.store.appendLine(this.file, JSON.stringify(first ? {...header, index_first: true} : header), true)
    this.timer = setInterval(() => this.flush(), FLUSH_MS)
    this.timer.unref()
  }

  /** A row's outcome as this run knows it (sent now, or an earlier row looked up again); `again`: refused for now. */
  record(outcome: RowOutcome, again = false): void {
    // {"t":"row", then the outcome's own fields: the same line as JSON.stringify({t: 'row', ...outcome}), without a copy
    const fields = JSON.stringify(outcome).slice(1, -1)
    this.buffer.push(`{"t":"row",${fields}${again ? ',"again":true' : ''}}\n`)
    if (this.buffer.length >= FLUSH_BYTES) this.flush()
  }

  /**
   * Hands the buffered outcomes to the disk (append + fsync) without blocking the senders: what `first` holds (taken
   * now, so it covers every record taken with it), then the records. After a failed write nothing more is written.
   */
  flush(): void {
    if (this.buffer.length === 0) return
    const text = this.buffer.take()
    const first = this.first?.take()
    if (!this.on) return
    this.writing = this.writing.then(async () => {
      if (this.failed === undefined && first !== undefined) this.failed = await this.first!.write(first)
      if (this.failed === undefined) this.failed = await this.store.appendLineAsync(this.file, text)
      this.buffer.giveBack(text)
    })
  }

  /**
   * Flushes what is left, marks the run ended (a run without its end record was cut; `indexed`: every row this run
   * and those before it journaled is in the reference index, those of older runs added again first) and waits for
   * the disk.
   */
  async end(): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
    await this.writing
    this.buffer.push(`${JSON.stringify({t: 'end', at: new Date().toISOString(), ...(this.first && this.failed === undefined ? {indexed: true} : {})})}\n`)
    this.flush()
    await this.writing
    await this.first?.close?.()
  }

  /** For a signal handler about to exit: what is buffered, written synchronously (what `first` holds first). */
  endNow(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
    const text = this.buffer.take()
    const first = this.first?.take()
    if (!this.on) return
    if (this.failed === undefined && first !== undefined) this.failed = this.first!.writeNow(first)
    if (this.failed === undefined && text.length > 0) this.store.appendLine(this.file, text.toString('utf8'), true)
  }
}

/** One line of a lineage file: a run of the lineage and the salt of its row keys ('' for none). */
interface LineageRecord {
  t: 'lineage'
  run: string
  at: string
  salt: string
}

/**
 * The runs of one input file, named by its absolute, resolved path, under the same settings (operation, base URL,
 * client id, account ref, defaults, --data/-F), whatever the file's content: `journal/runs/lineage-<id>.ndjson`,
 * one line per run (its run id, time and salt). A run journal is per content (the run id includes the file's
 * hash), so editing the file starts a new one; the lineage carries --force-new's salt across the edit, so that a
 * plain run of the edited file keeps the keys of the rows it did not change. Like the run files: each record one
 * fsync'd write on an O_APPEND file (several processes at once), a torn line skipped, pruned after the retention
 * (every run of the lineage touches it). Stdin (`-`) has no path, so no lineage.
 */
export class RunLineage {
  readonly file: string

  constructor(
    private readonly store: JournalStore,
    readonly id: string,
  ) {
    this.file = join(store.dir, 'runs', `lineage-${id}.ndjson`)
  }

  /** The newest run of the lineage (the last whole line), or undefined when none is recorded. */
  newest(): LineageRecord | undefined {
    let text: string
    try {
      if (!this.store.open()) return undefined
      text = readFileSync(this.file, 'utf8')
    } catch {
      return undefined
    }
    let last: LineageRecord | undefined
    for (const line of text.split('\n')) {
      try {
        const r = JSON.parse(line) as Partial<LineageRecord> | null
        if (r?.t === 'lineage' && typeof r.run === 'string' && typeof r.at === 'string' && typeof r.salt === 'string') last = r as LineageRecord
      } catch {
        // an empty or torn line
      }
    }
    return last
  }

  record(rec: LineageRecord): void {
    this.store.appendLine(this.file, JSON.stringify(rec), true)
  }
}

/**
 * The salt a plain run resumes: a content run before resumes the newest salt of its own runs (its run journal),
 * whatever ran since on other contents of the lineage (its settled rows are matched by key under that salt); a
 * content never run before (a new or edited file) resumes the salt of the newest run of its lineage (`run` names
 * it), so the rows it shares with that run keep their keys. Neither: '' (no salt).
 */
export function resumedSalt(own: {salt: string; ran: boolean}, lineage: LineageRecord | undefined): {salt: string; run?: string} {
  if (own.ran || lineage === undefined) return {salt: own.salt}
  return {salt: lineage.salt, run: lineage.run}
}
