/**
 * A reference is a promise across runs, for a bulk run: before anything is sent, every row whose reference already
 * names an accepted request of the same kind (a single command, or a row of another run under another key) refuses
 * the whole run (exit 5, each line named); while sending, each accepted row is added to the reference index
 * (src/journal/references.ts: its format, and a single command's lookup) for the checks of later runs and commands.
 */
import {hash as sha256Of} from 'node:crypto'
import {mkdirSync} from 'node:fs'
import {CONFIG_DIR_MODE} from '../config/paths.js'
import {ExitCode} from '../base/exit-codes.js'
import {PayError} from '../base/errors.js'
import {type JournalStore, latestState} from '../journal/store.js'
import {type AcceptedReference, BUCKETS, type ReferenceScope, ReferenceIndex, bucketOf, describeAccepted, originOf, parseLine} from '../journal/references.js'
import {type RowOutcome, linesOf} from '../journal/run-journal.js'
import {SortedRecords, hexWords} from '../journal/sorted-spool.js'
import type {SpooledRow} from './spool.js'

/** Rows listed in full before the rest are only counted. */
const MAX_LISTED = 20
/** How often accepted rows are appended to the index. */
const FLUSH_MS = 250

type RowKey = {line: number; reference: string | null; key: string}

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

/** A broken promise: a row's line, and the first accepted request that holds its reference under another key. */
interface BrokenPromise {
  line: number
  earlier: AcceptedReference
}

/**
 * Every row whose reference an accepted request of the index's scope already holds under another key (a single
 * command, or a bulk row of another body) and none under the row's own key. `singles` are the operation journal's
 * accepted requests of the scope (acceptedSingles). Returns how many rows there are, and the first `limit` of them
 * in file order, each with the first accepted request of its reference (the index's oldest, else a single command).
 *
 * A join sorted on disk (src/journal/sorted-spool.ts), so that memory does not grow with the rows or the index: each
 * accepted request and each row is a record (SHA-256 of the reference: 128 bits; accepted request or row; its place
 * in the index's reading order, or the row's line; 64 bits of the SHA-256 of its key); sorted, a reference's accepted
 * requests come before its rows. Only the `limit` listed requests are read back from the index, by their place.
 */
export async function brokenPromises(
  index: ReferenceIndex,
  rows: () => AsyncIterable<RowKey>,
  singles: Map<string, AcceptedReference[]>,
  limit = MAX_LISTED,
  budget?: number,
): Promise<{count: number; listed: BrokenPromise[]}> {
  const none = {count: 0, listed: []}
  if (!index.exists() && singles.size === 0) return none
  const dir = index.store.dir
  const joined = new SortedRecords(dir, 8, budget) // reference (4 words), 0 accepted | 1 row, place | line, key (2 words)
  const found = new SortedRecords(dir, 4, budget) // line, place of the first accepted request of its reference, reference (2 words)
  try {
    let places = 0
    await eachAccepted(index, singles, (e) => {
      const [r0, r1, r2, r3] = words(e.ref)
      const [k0, k1] = words(e.key)
      joined.add(r0, r1, r2, r3, 0, places++, k0, k1)
    })
    if (places === 0) return none
    for await (const r of rows()) {
      if (r.reference === null) continue
      const [r0, r1, r2, r3] = words(r.reference)
      const [k0, k1] = words(r.key)
      joined.add(r0, r1, r2, r3, 1, r.line, k0, k1)
    }
    // per reference: its accepted requests' keys (few), then its rows
    const keys: number[] = []
    let first = -1
    let ref = [-1, -1, -1, -1]
    let count = 0
    for await (const recs of joined.sorted()) {
      for (let i = 0; i < recs.length; i += 8) {
        if (recs[i] !== ref[0] || recs[i + 1] !== ref[1] || recs[i + 2] !== ref[2] || recs[i + 3] !== ref[3]) {
          ref = [recs[i], recs[i + 1], recs[i + 2], recs[i + 3]]
          keys.length = 0
          first = recs[i + 5]
        }
        if (recs[i + 4] === 0) keys.push(recs[i + 6], recs[i + 7])
        else if (keys.length > 0 && !heldUnder(keys, recs[i + 6], recs[i + 7])) {
          found.add(recs[i + 5], first, ref[0], ref[1])
          count++
        }
      }
    }
    if (count === 0) return none
    // the first `limit` rows in file order, and the accepted requests they name, read back by place (by reference
    // instead when a file of the index was pruned between the two readings)
    const listed: {line: number; place: number; ref: [number, number]; earlier?: AcceptedReference}[] = []
    for await (const recs of found.sorted()) {
      for (let i = 0; i < recs.length && listed.length < limit; i += 4) listed.push({line: recs[i], place: recs[i + 1], ref: [recs[i + 2], recs[i + 3]]})
      if (listed.length >= limit) break
    }
    const byPlace = new Map(listed.map((l) => [l.place, l]))
    let place = 0
    await eachAccepted(index, singles, (e) => {
      const l = byPlace.get(place++)
      if (l && sameRef(e, l.ref)) l.earlier = e
    })
    if (listed.some((l) => l.earlier === undefined)) {
      await eachAccepted(index, singles, (e) => {
        const [r0, r1] = words(e.ref)
        for (const l of listed) if (l.earlier === undefined && l.ref[0] === r0 && l.ref[1] === r1) l.earlier = e
      })
    }
    return {count, listed: listed.flatMap((l) => (l.earlier ? [{line: l.line, earlier: l.earlier}] : []))}
  } finally {
    joined.dispose()
    found.dispose()
  }
}

/** Whether an accepted request's reference is the one of these words (its SHA-256's first two). */
function sameRef(e: AcceptedReference, ref: [number, number]): boolean {
  const [r0, r1] = words(e.ref)
  return r0 === ref[0] && r1 === ref[1]
}

/** Whether the (k0, k1) pairs of `keys` hold this one. */
function heldUnder(keys: number[], k0: number, k1: number): boolean {
  for (let i = 0; i < keys.length; i += 2) if (keys[i] === k0 && keys[i + 1] === k1) return true
  return false
}

/** The first four 32-bit words of a text's SHA-256. */
function words(text: string): [number, number, number, number] {
  const h = sha256Of('sha256', text, 'hex')
  return [hexWords(h, 0), hexWords(h, 1), hexWords(h, 2), hexWords(h, 3)]
}

/**
 * Every accepted request of the scope, in one fixed order (so that a place in it names one request): the index
 * bucket by bucket, each bucket's files oldest first, line by line (streamed, never a whole file), then single
 * commands'. A reference's oldest indexed request comes before its others.
 */
async function eachAccepted(index: ReferenceIndex, singles: Map<string, AcceptedReference[]>, each: (e: AcceptedReference) => void): Promise<void> {
  if (index.exists()) {
    for (let bucket = 0; bucket < BUCKETS; bucket++) {
      for (const file of index.bucketFiles(bucket)) {
        try {
          for await (const {text} of linesOf(file)) {
            const e = parseLine(text)
            if (e) each(e)
          }
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err // a file pruned meanwhile
        }
      }
    }
  }
  for (const list of singles.values()) for (const e of list) each(e)
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
    if (op.reference === undefined || op.endpoint !== scope.endpoint || op.base_url !== scope.baseUrl) continue
    if ((op.client_id ?? '') !== (scope.clientId ?? '') || (op.account_ref ?? '') !== (scope.accountRef ?? '') || e.outcome?.request !== 'accepted') continue
    const seen = latestState(e)
    const accepted = {ref: op.reference, key: op.key, at: e.outcome.at, id: e.outcome.id, state: seen?.state, state_at: seen?.at}
    const list = out.get(op.reference)
    if (list) list.push(accepted)
    else out.set(op.reference, [accepted])
  }
  return out
}

/** Appends a run's accepted rows to the index of their scope: buffered per bucket, one write a bucket every FLUSH_MS. */
export class ReferenceWriter {
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
