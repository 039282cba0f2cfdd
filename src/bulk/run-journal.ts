/**
 * The journal of one bulk run: `journal/runs/<run id>.ndjson` next to the operation journal (same directory,
 * modes and retention). A header line, then one line per row outcome. Row keys are derived (from the row's body and scope, see rowKey), so
 * an outcome that is lost (the process killed before the buffer reached the disk) costs only a resend with the
 * same key, which the service answers with the first result: outcomes are therefore written in batches, fsync'd
 * every FLUSH_MS, instead of one fsync per row.
 */
import {existsSync, createReadStream, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {createInterface} from 'node:readline'
import type {JournalStore} from '../journal/store.js'

export const FLUSH_MS = 250
const FLUSH_BYTES = 256 * 1024

export type RowState = 'succeeded' | 'failed' | 'unknown'

export interface RowOutcome {
  row: number
  line: number
  reference: string | null
  status: RowState
  http_status: number | null
  id: string | null
  /** The resource's last known state (with --wait: its final state). */
  state: string | null
  error_code: string | null
  error_message: string | null
  idempotency_key: string
  amount: string | null
  currency: string | null
  /** True when this outcome comes from an earlier run of the same command on the same file. */
  earlier?: boolean
}

export interface RunHeader {
  t: 'run'
  run: string
  at: string
  operation: string
  file: string
  file_sha256: string
  profile: string
  base_url: string
  /** --force-new's salt of the row keys ('' for none). */
  salt: string
}

export class RunJournal {
  readonly file: string
  private buffer = ''
  private timer?: NodeJS.Timeout
  /** The write in progress: flushes run one after the other, off the event loop's critical path. */
  private writing: Promise<void> = Promise.resolve()

  constructor(
    private readonly store: JournalStore,
    readonly runId: string,
  ) {
    this.file = join(store.dir, 'runs', `${runId}.ndjson`)
  }

  /**
   * Outcomes of earlier runs that settle a row (succeeded, failed); the newest per row wins. Only those of the
   * newest salt (--force-new) count, and that salt is returned (`ran`: some run of this content began): a plain
   * re-run resumes the last forced run (see resumedSalt for a content never run before, an edited file).
   */
  async load(): Promise<{salt: string; ran: boolean; outcomes: Map<number, RowOutcome>}> {
    const done = new Map<number, RowOutcome>()
    let salt = ''
    let ran = false
    if (!this.store.open() || !existsSync(this.file)) return {salt, ran, outcomes: done}
    for await (const line of createInterface({input: createReadStream(this.file), crlfDelay: Infinity})) {
      let rec: {t?: string; salt?: unknown} & Partial<RowOutcome>
      try {
        rec = JSON.parse(line) as typeof rec
      } catch {
        continue // a torn last line
      }
      if (rec.t === 'run') {
        const s = typeof rec.salt === 'string' ? rec.salt : ''
        if (s !== salt) done.clear()
        salt = s
        ran = true
        continue
      }
      if (rec.t !== 'row' || typeof rec.row !== 'number') continue
      if (rec.status === 'succeeded' || rec.status === 'failed') {
        const {t: _t, ...outcome} = rec
        done.set(rec.row, {...(outcome as RowOutcome), earlier: true})
      } else done.delete(rec.row)
    }
    return {salt, ran, outcomes: done}
  }

  begin(header: RunHeader): void {
    this.store.appendLine(this.file, JSON.stringify(header), true)
    this.timer = setInterval(() => this.flush(), FLUSH_MS)
    this.timer.unref()
  }

  /** An outcome of this run (never one of an earlier run: `earlier` is not set). */
  record(outcome: RowOutcome): void {
    // {"t":"row", then the outcome's own fields: the same line as JSON.stringify({t: 'row', ...outcome}), without a copy
    this.buffer += `{"t":"row",${JSON.stringify(outcome).slice(1)}\n`
    if (this.buffer.length >= FLUSH_BYTES) this.flush()
  }

  /** Hands the buffered outcomes to the disk (append + fsync) without blocking the senders. */
  flush(): void {
    if (this.buffer === '') return
    const text = this.buffer
    this.buffer = ''
    this.writing = this.writing.then(() => this.store.appendLineAsync(this.file, text))
  }

  /** Flushes what is left and waits for the disk. */
  async end(): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
    this.flush()
    await this.writing
  }

  /** For a signal handler about to exit: what is buffered, written synchronously. */
  endNow(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
    const text = this.buffer
    this.buffer = ''
    if (text !== '') this.store.appendLine(this.file, text, true)
  }
}

/** One line of a lineage file: a run of the lineage and the salt of its row keys ('' for none). */
export interface LineageRecord {
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
