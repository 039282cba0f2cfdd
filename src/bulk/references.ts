/**
 * A reference is a promise across runs, for a bulk run: before anything is sent, every row whose reference an earlier
 * request of the same kind already holds under another key (a single command, or a row of another run; accepted, or
 * with its outcome unknown: it may have paid) refuses the whole run (exit 5, each line named); while sending, each row
 * sent is added to the reference index (src/journal/references.ts: its format, and a single command's lookup) for the
 * checks of later runs and commands, no later than the run journal records it.
 */
import type {FileHandle} from 'node:fs/promises'
import {mkdirSync} from 'node:fs'
import type {EndpointId} from '../api/endpoints.js'
import {CONFIG_DIR_MODE} from '../config/paths.js'
import {lookupCommand} from '../api/kinds.js'
import {ExitCode} from '../base/exit-codes.js'
import {PayError} from '../base/errors.js'
import {ByteLines} from '../journal/byte-lines.js'
import {JOURNAL_OFF, type JournalStore} from '../journal/store.js'
import {type AcceptedReference, BUCKETS, type ReferenceScope, ReferenceIndex, RunLines, bucketOf, describeAccepted, heldByEntry, originOf, sharesPromise} from '../journal/references.js'
import type {FlushedFirst, RowOutcome, RunJournal} from '../journal/run-journal.js'
import {bodyHash} from './check.js'
import {brokenPromises} from './reference-join.js'
import type {SpooledRow} from './spool.js'

/** Rows listed in full before the rest are only counted. */
const MAX_LISTED = 20

/**
 * Refuses the run (exit 5) when a row's reference already names another request of its endpoint's scope (the rule:
 * referenceVerdict). Reads the spooled rows and the index once each (none when the scope has none), holding neither.
 */
export async function checkReferences(store: JournalStore, scopeOf: (endpoint: string) => ReferenceScope, endpoints: Iterable<string>, rows: () => AsyncIterable<SpooledRow>, file: string): Promise<void> {
  if (!store.open()) return
  const listed: string[] = []
  let broken = 0
  const lookups = new Set<string>()
  for (const endpoint of endpoints) {
    const scope = scopeOf(endpoint)
    const ofEndpoint = async function* () {
      for await (const r of rows()) if (r.endpoint === endpoint) yield r
    }
    const found = await brokenPromises(new ReferenceIndex(store, scope), ofEndpoint, singlesHolding(store, scope), MAX_LISTED - listed.length)
    broken += found.count
    if (found.count > 0) lookups.add(lookupCommand(endpoint, 'REF') ?? 'pay find REF')
    for (const {line, earlier} of found.listed) listed.push(`  ${file}:${line} reference ${earlier.ref}: ${originOf(earlier)}, ${describeAccepted(earlier)}`)
  }
  if (broken === 0) return
  const more = broken > listed.length ? `\n  and ${broken - listed.length} more row(s)` : ''
  throw new PayError(
    `${broken} row(s) reuse a reference that already names another request (accepted, or with its outcome unknown: it may have paid; another body, another salt, another client id or account ref, or a single command); nothing was sent:\n${listed.join('\n')}${more}`,
    ExitCode.CONFLICT,
    `look each one up with ${[...lookups].map((l) => `\`${l}\``).join(' or ')} (or \`pay journal REF\`); a reference is one promise to the service, whatever the client id, and with or without an account ref (only two different account refs are two sub-accounts); remove the rows it paid, or give them other references; a single command whose outcome is unknown is settled by running it again (it reuses its key); --force-new sends every row of the file again as a new request`,
  )
}

/**
 * The operation journal's requests that hold a reference against a scope (sharesPromise: its service, any client id,
 * an account ref that may be its), by reference: accepted ones, with their latest known state, and those whose outcome
 * is still unknown (no later answer under their key). A bulk run reads them once: single commands are few next to bulk
 * rows.
 */
function singlesHolding(store: JournalStore, scope: ReferenceScope): Map<string, AcceptedReference[]> {
  const out = new Map<string, AcceptedReference[]>()
  if (!store.open()) return out
  const entries = store.entriesAbout([`"endpoint":${JSON.stringify(scope.endpoint)}`])
  entries.forEach((e, i) => {
    const held = sharesPromise(scope, e.op) ? heldByEntry(entries, i) : undefined
    if (held === undefined) return
    const list = out.get(held.ref)
    if (list) list.push(held)
    else out.set(held.ref, [held])
  })
  return out
}

/** The lines a run adds to the index of one scope, buffered per bucket until the run journal's next flush takes them. */
class ReferenceWriter {
  private readonly buffers = Array.from({length: BUCKETS}, () => new ByteLines())
  private pending = false
  private made = false
  /** Files written and not yet fsync'd (write with `sync` false). */
  private readonly unsynced = new Set<string>()

  /** Today's bucket files, opened at their first write and kept open until close(): a flush costs a write and an fsync each, no open. */
  private readonly handles = new Map<string, Promise<FileHandle>>()

  /** The run's lines (their shape, its shared fields stringified once). */
  readonly lines: RunLines

  constructor(
    readonly index: ReferenceIndex,
    run: string,
    file: string,
  ) {
    this.lines = new RunLines(index.scope, run, file)
  }

  /** A row's line (lines.of), buffered in its reference's bucket. */
  add(ref: string, text: string): void {
    this.buffers[bucketOf(ref)].push(text)
    this.pending = true
  }

  /** What is buffered, per bucket (empty for none); undefined when nothing is (and nothing waits for its fsync). */
  take(): Buffer[] | undefined {
    if (!this.pending && this.unsynced.size === 0) return undefined
    this.pending = false
    return this.buffers.map((lines) => lines.take())
  }

  /**
   * Appends what was taken, one write per bucket file of today, at once, each fsync'd with every file written unsynced
   * before (`sync` false: none is); why not, or undefined.
   */
  async write(taken: Buffer[], sync = true): Promise<string | undefined> {
    const made = this.make()
    if (made !== undefined) return made
    const store = this.index.store
    const files = new Map<string, Buffer>()
    taken.forEach((lines, b) => lines.length > 0 && files.set(this.index.fileOf(b), lines))
    if (sync) for (const file of this.unsynced) if (!files.has(file)) files.set(file, EMPTY)
    const failures = await Promise.all([...files].map(([file, lines]) => store.appendLineAsync(file, lines, this.handles, sync)))
    taken.forEach((lines, b) => this.buffers[b].giveBack(lines))
    if (sync) this.unsynced.clear()
    else for (const file of files.keys()) this.unsynced.add(file)
    return failures.find((f) => f !== undefined)
  }

  /** Closes the bucket files write() keeps open for the run. */
  async close(): Promise<void> {
    const open = [...this.handles.values()]
    this.handles.clear()
    await Promise.all(open.map((h) => h.then((fh) => fh.close()).catch(() => undefined)))
  }

  /** The same, synchronously (a signal handler about to exit; a test). */
  writeNow(taken: Buffer[]): string | undefined {
    const made = this.make()
    if (made !== undefined) return made
    for (let b = 0; b < BUCKETS; b++) {
      if (taken[b].length === 0) continue
      const failed = this.index.store.appendLine(this.index.fileOf(b), taken[b].toString('utf8'), true)
      this.buffers[b].giveBack(taken[b])
      if (failed !== undefined) return failed
    }
    return undefined
  }

  /** The scope's directory, once. */
  private make(): string | undefined {
    if (this.made) return undefined
    if (!this.index.store.open()) return JOURNAL_OFF
    try {
      mkdirSync(this.index.dir, {recursive: true, mode: CONFIG_DIR_MODE})
    } catch (err) {
      return `${(err as NodeJS.ErrnoException).code ?? (err as Error).message}: ${this.index.dir}`
    }
    this.made = true
    return undefined
  }
}

const EMPTY = Buffer.alloc(0)

/** What a flush of AcceptedRows took: each scope's writer with its buckets. */
type Taken = [ReferenceWriter, Buffer[]][]

/**
 * Adds each row a run sent (accepted, unknown, or refused: a refusal settles an unknown line of its key) and has a
 * reference to the index of its endpoint's scope, for the checks of later runs and single commands. Written by the
 * run journal's flushes, before the row records they take (RunJournal.begin): a row journaled is a row indexed.
 */
export class AcceptedRows implements FlushedFirst<Taken> {
  private readonly writers = new Map<string, ReferenceWriter>()

  constructor(
    private readonly store: JournalStore,
    private readonly scopeOf: (endpoint: string) => ReferenceScope,
    private readonly run: string,
    private readonly file: string,
  ) {}

  /** A row this run sent (`r.body`: the bytes sent, whose hash an unknown line carries). */
  add(r: Pick<SpooledRow, 'endpoint' | 'reference' | 'key' | 'line' | 'body' | 'bodySha256'>, o: RowOutcome): void {
    if (r.reference === null) return
    let writer = this.writers.get(r.endpoint)
    if (writer === undefined) {
      writer = new ReferenceWriter(new ReferenceIndex(this.store, this.scopeOf(r.endpoint)), this.run, this.file)
      this.writers.set(r.endpoint, writer)
    }
    writer.add(r.reference, writer.lines.of(r.reference, r.key, r.line, o, o.outcome === 'unknown' && r.body !== undefined ? (r.bodySha256 ?? bodyHash(r.body)) : undefined))
  }

  take(): Taken | undefined {
    const taken: Taken = []
    for (const w of this.writers.values()) {
      const buckets = w.take()
      if (buckets) taken.push([w, buckets])
    }
    return taken.length > 0 ? taken : undefined
  }

  /** Writes what take() took (`sync` false: not fsync'd yet; see ReferenceWriter.write). */
  async write(taken: Taken, sync = true): Promise<string | undefined> {
    for (const [w, buckets] of taken) {
      const failed = await w.write(buckets, sync)
      if (failed !== undefined) return failed
    }
    return undefined
  }

  writeNow(taken: Taken): string | undefined {
    for (const [w, buckets] of taken) {
      const failed = w.writeNow(buckets)
      if (failed !== undefined) return failed
    }
    return undefined
  }

  /** What is buffered, written now (synchronously); why not, or undefined. */
  end(): string | undefined {
    const taken = this.take()
    return taken === undefined ? undefined : this.writeNow(taken)
  }

  /** Closes the files the writes keep open (after the run journal's last flush). */
  async close(): Promise<void> {
    await Promise.all([...this.writers.values()].map((w) => w.close()))
  }
}

/**
 * Rows re-indexed (or reserved) between two writes: few, so that the lines waiting as bytes outside V8's heap
 * (ByteLines) stay small whatever the row count. Those writes are not fsync'd; the last one is, with every file
 * written before it (an fsync of each of 16 bucket files per write cost more than the rest of the reservation).
 */
const REINDEX_BATCH = 1024

/**
 * Adds every row record of a run file (every run and salt of it) to the index, when a run of an older pay (which wrote
 * the index after the records, so a kill between the two left records without lines) is in it and no run since has
 * ended having done this (RunJournal.load `indexed`): a row an earlier run journaled is never sent again, so this is
 * the only way its reference gets into the index. Lines already there are written again
 * (harmless: a key's lines agree). A write that fails stops the run before anything is sent (exit 1).
 */
export async function reindexRun(journal: RunJournal, rows: AcceptedRows, endpoint: EndpointId, file: string): Promise<void> {
  let n = 0
  const flush = flusher(rows, `while adding the rows an earlier run of ${file} had sent`)
  for await (const o of journal.rowRecords()) {
    if (o.reference === null) continue
    rows.add({endpoint, reference: o.reference, key: o.idempotency_key, line: o.line, body: undefined}, o)
    if (++n % REINDEX_BATCH === 0) await flush(false)
  }
  await flush(true)
}

/** Writes what `rows` buffered (`sync`: fsync'd, with what was written before); a write that fails stops the run before anything is sent (exit 1). */
function flusher(rows: AcceptedRows, what: string): (sync: boolean) => Promise<void> {
  return async (sync) => {
    const taken = rows.take()
    const failed = taken === undefined ? undefined : await rows.write(taken, sync)
    if (failed !== undefined) {
      throw new PayError(`the reference index could not be written (${failed}) ${what}; nothing was sent`, ExitCode.OTHER, 'free space on that disk (or fix its permissions), then run the same command again')
    }
  }
}

/**
 * Reserves the references of the rows a run is about to send: one `unknown` line per row (its key and its body's
 * hash, as for a row whose outcome is unknown), written in batches and fsync'd before the first row is sent, so that
 * a single command or another run (another client, another account ref) checking meanwhile finds the reference held:
 * the same body resumes under the row's key, another is refused. The row's outcome line, written later, supersedes it
 * (a key's lines merge: accepted stays, else the newest says). Rows an earlier run settled are not reserved (their
 * lines are there). Called under the service's lock (promiseLockName), right after the check that it follows.
 */
export async function reserveRows(rows: AcceptedRows, toSend: AsyncIterable<Array<{r: SpooledRow; settled: boolean}>>): Promise<void> {
  const flush = flusher(rows, 'while reserving the references of the rows to send')
  const at = new Date().toISOString()
  const unknown = {outcome: 'unknown', state_at: at} as RowOutcome
  let n = 0
  for await (const chunk of toSend) {
    for (const {r, settled} of chunk) {
      if (settled || r.reference === null) continue
      rows.add(r, unknown)
      if (++n % REINDEX_BATCH === 0) await flush(false)
    }
  }
  await flush(true)
}
