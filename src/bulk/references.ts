/**
 * A reference is a promise across runs, for a bulk run: before anything is sent, every row whose reference already
 * names an accepted request of the same kind (a single command, or a row of another run under another key) refuses
 * the whole run (exit 5, each line named); while sending, each accepted row is added to the reference index
 * (src/journal/references.ts: its format, and a single command's lookup) for the checks of later runs and commands.
 */
import {mkdirSync} from 'node:fs'
import {CONFIG_DIR_MODE} from '../config/paths.js'
import {ExitCode} from '../base/exit-codes.js'
import {PayError} from '../base/errors.js'
import {type JournalStore, latestState} from '../journal/store.js'
import {type AcceptedReference, BUCKETS, type ReferenceScope, ReferenceIndex, bucketOf, describeAccepted, inScope, originOf} from '../journal/references.js'
import type {RowOutcome} from '../journal/run-journal.js'
import {brokenPromises} from './reference-join.js'
import type {SpooledRow} from './spool.js'

/** Rows listed in full before the rest are only counted. */
const MAX_LISTED = 20
/** How often accepted rows are appended to the index. */
const FLUSH_MS = 250

/**
 * Refuses the run (exit 5) when a row's reference already names another accepted request of its endpoint's scope.
 * Reads the spooled rows and the index once each (none when the scope has no accepted reference), holding neither.
 */
export async function checkReferences(store: JournalStore, scopeOf: (endpoint: string) => ReferenceScope, endpoints: Iterable<string>, rows: () => AsyncIterable<SpooledRow>, file: string): Promise<void> {
  if (!store.open()) return
  const listed: string[] = []
  let broken = 0
  for (const endpoint of endpoints) {
    const scope = scopeOf(endpoint)
    const ofEndpoint = async function* () {
      for await (const r of rows()) if (r.endpoint === endpoint) yield r
    }
    const found = await brokenPromises(new ReferenceIndex(store, scope), ofEndpoint, acceptedSingles(store, scope), MAX_LISTED - listed.length)
    broken += found.count
    for (const {line, earlier} of found.listed) listed.push(`  ${file}:${line} reference ${earlier.ref}: ${originOf(earlier)}, ${describeAccepted(earlier)}`)
  }
  if (broken === 0) return
  const more = broken > listed.length ? `\n  and ${broken - listed.length} more row(s)` : ''
  throw new PayError(
    `${broken} row(s) reuse a reference that already names another accepted request (another body, or a single command); nothing was sent:\n${listed.join('\n')}${more}`,
    ExitCode.CONFLICT,
    'give those rows other references, or remove them (their references were accepted already; look one up with `pay transactions verify REF`); --force-new sends every row of the file again as a new request',
  )
}

/**
 * The operation journal's accepted requests of a scope that hold a reference, by reference, each with its latest
 * known state (a bulk run reads them once: single commands are few next to bulk rows).
 */
function acceptedSingles(store: JournalStore, scope: ReferenceScope): Map<string, AcceptedReference[]> {
  const out = new Map<string, AcceptedReference[]>()
  if (!store.open()) return out
  for (const e of store.entriesAbout([`"endpoint":${JSON.stringify(scope.endpoint)}`])) {
    const {op} = e
    if (op.reference === undefined || !inScope(scope, op) || e.outcome?.request !== 'accepted') continue
    const seen = latestState(e)
    const accepted = {ref: op.reference, key: op.key, at: e.outcome.at, id: e.outcome.id, state: seen?.state, state_at: seen?.at}
    const list = out.get(op.reference)
    if (list) list.push(accepted)
    else out.set(op.reference, [accepted])
  }
  return out
}

/** Appends a run's accepted rows to the index of their scope: buffered per bucket, one write a bucket every FLUSH_MS. */
class ReferenceWriter {
  private readonly buffers: string[] = Array.from({length: BUCKETS}, () => '')
  private pending = false
  private timer?: NodeJS.Timeout
  private made = false

  constructor(private readonly index: ReferenceIndex) {}

  /** An accepted row with a reference. */
  add(e: AcceptedReference): void {
    this.buffers[bucketOf(e.ref)] += `${JSON.stringify(e)}\n`
    this.pending = true
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.flush(), FLUSH_MS)
      this.timer.unref()
    }
  }

  /** Appends what is buffered, one write per bucket file of today (synchronous: a few small writes). */
  flush(): void {
    const {store} = this.index
    if (!this.pending || !store.open()) return
    this.pending = false
    if (!this.made) {
      try {
        mkdirSync(this.index.dir, {recursive: true, mode: CONFIG_DIR_MODE})
      } catch {
        return // the journal's own writes report an unwritable state dir
      }
      this.made = true
    }
    for (let b = 0; b < BUCKETS; b++) {
      if (this.buffers[b] === '') continue
      const text = this.buffers[b]
      this.buffers[b] = ''
      store.appendLine(this.index.fileOf(b), text, false)
    }
  }

  /** The last flush; no timer left behind. */
  end(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
    this.flush()
  }
}

/** Adds each row this run had accepted to the reference index of its endpoint's scope; `end` writes what is left. */
export class AcceptedRows {
  private readonly writers = new Map<string, ReferenceWriter>()

  constructor(
    private readonly store: JournalStore,
    private readonly scopeOf: (endpoint: string) => ReferenceScope,
    private readonly run: string,
    private readonly file: string,
  ) {}

  add(r: SpooledRow, o: RowOutcome): void {
    if (r.reference === null || o.outcome !== 'accepted' || o.earlier) return
    let writer = this.writers.get(r.endpoint)
    if (writer === undefined) {
      writer = new ReferenceWriter(new ReferenceIndex(this.store, this.scopeOf(r.endpoint)))
      this.writers.set(r.endpoint, writer)
    }
    writer.add({ref: r.reference, key: r.key, at: o.state_at ?? new Date().toISOString(), id: o.id ?? undefined, state: o.state ?? undefined, run: this.run, line: r.line, file: this.file})
  }

  end(): void {
    for (const w of this.writers.values()) w.end()
  }
}
