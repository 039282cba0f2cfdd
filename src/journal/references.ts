/**
 * A reference is a promise across bulk runs and single commands: the index of the merchant references that bulk rows
 * had accepted, so that a single command (src/journal/gate.ts) and a later bulk run (src/bulk/engine.ts) find them
 * without reading every run file.
 *
 *   journal/references/<scope id>/<bucket>-<YYYY-MM-DD>.ndjson
 *
 * The scope is what makes two requests "of the same kind": endpoint id, base URL (as the journal shows it), client id
 * and account ref. Its directory exists only once a bulk row of that scope was accepted, so a command of a scope no
 * bulk run touched pays one failed stat. A reference falls in one of 16 buckets (a cheap hash of its text): a lookup
 * reads the bucket's files of the retention (one a day), never the run files. A line: the reference, the row's key,
 * when it was accepted, its id and state then, its run, line and file. Lines are appended in batches with one write
 * each (O_APPEND, a line break first, as every journal write), not fsync'd: an index line lost with the machine only
 * loses that row's promise check, never a key (a re-run still resends an unknown row with its key). Files are pruned
 * with the journal (their day past the retention).
 *
 * Single commands are not indexed here: their accepted requests are in the operation journal, which the gate reads
 * already, and a bulk run reads once (`acceptedSingles`).
 */
import {readFileSync, readdirSync, statSync, mkdirSync} from 'node:fs'
import {join} from 'node:path'
import {CONFIG_DIR_MODE} from '../config/paths.js'
import {sha256Hex} from '../client/digest.js'
import {type JournalEntry, type JournalStore, latestState} from './store.js'

/** What makes two requests with one reference requests of the same kind. */
export interface ReferenceScope {
  endpoint: string
  /** The base URL as the journal records it (redactUrl). */
  baseUrl: string
  clientId?: string
  accountRef?: string
}

/** An accepted request that holds a reference: a bulk row (run, line, file) or a single command (neither). */
export interface AcceptedReference {
  ref: string
  key: string
  at: string
  id?: string
  state?: string
  state_at?: string
  run?: string
  line?: number
  file?: string
}

const BUCKETS = 16
/** How many references of the index a bulk run's check holds at once (the index is read in as many passes as needed). */
const REFERENCES_PER_PASS = 200_000
const FLUSH_MS = 250

/** The directory name of a scope (a hash of its four parts). */
export function scopeId(scope: ReferenceScope): string {
  return sha256Hex(JSON.stringify([scope.endpoint, scope.baseUrl, scope.clientId ?? '', scope.accountRef ?? ''])).slice(0, 32)
}

/** The bucket (0-15) of a reference: FNV-1a of its UTF-16 code units, so a bulk row pays no hash of its own for it. */
export function bucketOf(ref: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < ref.length; i++) h = Math.imul(h ^ ref.charCodeAt(i), 0x01000193)
  return (h >>> 0) % BUCKETS
}

/** The reference index of one scope. */
export class ReferenceIndex {
  readonly dir: string

  constructor(
    private readonly store: JournalStore,
    scope: ReferenceScope,
  ) {
    this.dir = join(store.dir, 'references', scopeId(scope))
  }

  /** Whether any bulk row of this scope was indexed (within the retention). */
  exists(): boolean {
    try {
      return statSync(this.dir).isDirectory()
    } catch {
      return false
    }
  }

  /** The accepted requests with this reference, oldest first (a single command's check). */
  lookup(ref: string): AcceptedReference[] {
    const needle = `"ref":${JSON.stringify(ref)}`
    const found: AcceptedReference[] = []
    for (const text of this.bucketTexts(bucketOf(ref))) {
      for (const line of text.split('\n')) {
        if (!line.includes(needle)) continue
        const e = parseLine(line)
        if (e?.ref === ref) found.push(e)
      }
    }
    return found
  }

  /** The files of a bucket (one a day), oldest first. */
  private bucketTexts(bucket: number): string[] {
    let names: string[]
    try {
      names = readdirSync(this.dir)
    } catch {
      return []
    }
    const prefix = `${bucket.toString(16)}-`
    const texts: string[] = []
    for (const name of names.filter((n) => n.startsWith(prefix)).sort()) {
      try {
        texts.push(readFileSync(join(this.dir, name), 'utf8'))
      } catch {
        // pruned meanwhile
      }
    }
    return texts
  }

  /**
   * The bulk run's check: every row whose reference an accepted request of this scope already holds under another
   * key (a single command, or a bulk row of another body) and none under the row's own key. `rows` is read once per
   * pass; `singles` are the operation journal's accepted requests of the scope (acceptedSingles). Calls `broken` for
   * each such row, in file order within a pass; holds at most REFERENCES_PER_PASS references of the index at once.
   */
  async check(
    rows: () => AsyncIterable<{line: number; reference: string | null; key: string}>,
    singles: Map<string, AcceptedReference[]>,
    broken: (line: number, earlier: AcceptedReference) => void,
    perPass = REFERENCES_PER_PASS,
  ): Promise<void> {
    const indexed = this.exists()
    if (!indexed && singles.size === 0) return
    let bucket = 0
    do {
      // the references of the next buckets, up to the cap: those of single commands too (few: one per command run)
      const held = new Map<string, {keys: Set<string>; first: AcceptedReference}>()
      const buckets = new Set<number>()
      const hold = (e: AcceptedReference) => {
        const h = held.get(e.ref)
        if (h) h.keys.add(e.key)
        else held.set(e.ref, {keys: new Set([e.key]), first: e})
      }
      while (bucket < BUCKETS && (buckets.size === 0 || held.size < perPass)) {
        buckets.add(bucket)
        if (indexed) {
          for (const text of this.bucketTexts(bucket)) {
            for (const line of text.split('\n')) {
              const e = line === '' ? undefined : parseLine(line)
              if (e) hold(e)
            }
          }
        }
        bucket++
      }
      for (const [ref, list] of singles) if (buckets.has(bucketOf(ref))) for (const e of list) hold(e)
      if (held.size === 0) continue
      for await (const r of rows()) {
        if (r.reference === null) continue
        const h = held.get(r.reference)
        if (h && !h.keys.has(r.key)) broken(r.line, h.first)
      }
    } while (bucket < BUCKETS)
  }

  /** A writer for a bulk run's accepted rows: buffered per bucket, appended every FLUSH_MS and at the end. */
  writer(): ReferenceWriter {
    return new ReferenceWriter(this.store, this.dir)
  }
}

export class ReferenceWriter {
  private readonly buffers: string[] = Array.from({length: BUCKETS}, () => '')
  private pending = false
  private timer?: NodeJS.Timeout
  private made = false

  constructor(
    private readonly store: JournalStore,
    private readonly dir: string,
  ) {}

  /** An accepted row with a reference. */
  add(e: AcceptedReference): void {
    const b = bucketOf(e.ref)
    this.buffers[b] += `${JSON.stringify(e)}\n`
    this.pending = true
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.flush(), FLUSH_MS)
      this.timer.unref()
    }
  }

  /** Appends what is buffered, one write per bucket file of today (synchronous: a few small writes). */
  flush(): void {
    if (!this.pending || !this.store.open()) return
    this.pending = false
    if (!this.made) {
      try {
        mkdirSync(this.dir, {recursive: true, mode: CONFIG_DIR_MODE})
      } catch {
        return // the journal's own writes report an unwritable state dir
      }
      this.made = true
    }
    const today = new Date().toISOString().slice(0, 10)
    for (let b = 0; b < BUCKETS; b++) {
      if (this.buffers[b] === '') continue
      const text = this.buffers[b]
      this.buffers[b] = ''
      this.store.appendLine(join(this.dir, `${b.toString(16)}-${today}.ndjson`), text, false)
    }
  }

  /** The last flush; no timer left behind. */
  end(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
    this.flush()
  }
}

function parseLine(line: string): AcceptedReference | undefined {
  try {
    const e = JSON.parse(line.replace(/^\0+|\0+$/g, '')) as Partial<AcceptedReference> | null
    return e && typeof e.ref === 'string' && typeof e.key === 'string' && typeof e.at === 'string' ? (e as AcceptedReference) : undefined
  } catch {
    return undefined // a torn line
  }
}

/** An accepted single command of the operation journal as an index entry (its latest known state). */
export function acceptedOf(e: JournalEntry): AcceptedReference {
  const seen = latestState(e)
  return {ref: e.op.reference ?? '', key: e.op.key, at: e.outcome?.at ?? e.op.at, id: e.outcome?.id, state: seen?.state, state_at: seen?.at}
}

/**
 * The operation journal's accepted requests of a scope that hold a reference, by reference (a bulk run's check reads
 * them once: single commands are few next to bulk rows).
 */
export function acceptedSingles(store: JournalStore, scope: ReferenceScope): Map<string, AcceptedReference[]> {
  const out = new Map<string, AcceptedReference[]>()
  if (!store.open()) return out
  for (const e of store.entriesAbout([`"endpoint":${JSON.stringify(scope.endpoint)}`])) {
    const {op} = e
    if (op.reference === undefined || op.endpoint !== scope.endpoint || op.base_url !== scope.baseUrl) continue
    if ((op.client_id ?? '') !== (scope.clientId ?? '') || (op.account_ref ?? '') !== (scope.accountRef ?? '') || e.outcome?.request !== 'accepted') continue
    const list = out.get(op.reference)
    if (list) list.push(acceptedOf(e))
    else out.set(op.reference, [acceptedOf(e)])
  }
  return out
}

/** Where an accepted request came from, for a message: `line 4 of pay.csv (bulk run 3f…)` or `a single command`. */
export function originOf(e: AcceptedReference): string {
  return e.run === undefined ? 'a single command' : `line ${e.line ?? '?'} of ${e.file ?? 'a bulk file'} (bulk run ${e.run})`
}

/** `accepted at T as ID (Idempotency-Key K), state S as seen at T2`: what a refusal says of the earlier request. */
export function describeAccepted(e: AcceptedReference): string {
  return `accepted at ${e.at}${e.id ? ` as ${e.id}` : ''} (Idempotency-Key ${e.key})${e.state ? `, state ${e.state} as seen at ${e.state_at ?? e.at}` : ''}`
}
