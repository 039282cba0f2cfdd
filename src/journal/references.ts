/**
 * A reference is a promise across bulk runs and single commands: the index of the merchant references that bulk rows
 * had accepted, so that a single command (src/journal/gate.ts) and a later bulk run (src/bulk/engine.ts) find them
 * without reading every run file.
 *
 *   journal/references/<scope id>/<bucket>-<YYYY-MM-DD>.ndjson
 *
 * The scope is what makes two requests "of the same kind" (inScope, the one test of it): endpoint id, base URL (as the
 * journal shows it), client id and account ref. Its directory exists only once a bulk row of that scope was accepted, so a command of a scope no
 * bulk run touched pays one failed stat. A reference falls in one of 16 buckets (a cheap hash of its text): a lookup
 * reads the bucket's files of the retention (one a day, in chunks), never the run files; a bulk run's check streams
 * every bucket (src/bulk/reference-join.ts), both through one reader (ReferenceIndex.entries: a file pruned meanwhile
 * is skipped, one that cannot be read stops the check, naming it). A line: the reference, the row's key,
 * when it was accepted, its id and state then, its run, line and file. Lines are appended in batches with one write
 * each (O_APPEND, a line break first, as every journal write), not fsync'd: an index line lost with the machine only
 * loses that row's promise check, never a key (a re-run still resends an unknown row with its key). Files are pruned
 * with the journal (their day past the retention).
 *
 * Single commands are not indexed here: their accepted requests are in the operation journal, which the gate reads
 * already, and a bulk run reads once. This module is the format, its reader and the scope test (loaded with every
 * command); the bulk run's check and writer are src/bulk/references.ts (loaded with the bulk engine).
 */
import {closeSync, existsSync, openSync, readSync, readdirSync} from 'node:fs'
import {join} from 'node:path'
import {PayError} from '../base/errors.js'
import {ExitCode} from '../base/exit-codes.js'
import type {JournalStore, OpRecord} from './store.js'

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

/** How many files a scope's references are spread over (a day each). */
export const BUCKETS = 16

/** The directory name of a scope: two FNV-1a hashes of its four parts (no SHA-256 on every command's path). */
function scopeId(scope: ReferenceScope): string {
  const text = JSON.stringify([scope.endpoint, scope.baseUrl, scope.clientId ?? '', scope.accountRef ?? ''])
  return fnv1a(text, 0x811c9dc5).toString(16).padStart(8, '0') + fnv1a(text, 0x050c5d1f).toString(16).padStart(8, '0')
}

/**
 * Whether a journaled request is of this scope (endpoint, base URL as journaled, client id, account ref): the one test
 * of "a request of the same kind", for a single command's check (src/journal/gate.ts) and a bulk run's.
 */
export function inScope(scope: ReferenceScope, op: Pick<OpRecord, 'endpoint' | 'base_url' | 'client_id' | 'account_ref'>): boolean {
  return op.endpoint === scope.endpoint && op.base_url === scope.baseUrl && (op.client_id ?? '') === (scope.clientId ?? '') && (op.account_ref ?? '') === (scope.accountRef ?? '')
}

/** The bucket (0-15) of a reference: a cheap hash of its text, so a bulk row pays no SHA-256 for it. */
export function bucketOf(ref: string): number {
  return fnv1a(ref, 0x811c9dc5) % BUCKETS
}

/** FNV-1a over UTF-16 code units, unsigned 32 bits. */
function fnv1a(text: string, seed: number): number {
  let h = seed
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  return h >>> 0
}

/** The reference index of one scope. */
export class ReferenceIndex {
  readonly dir: string

  constructor(
    readonly store: JournalStore,
    scope: ReferenceScope,
  ) {
    this.dir = join(store.dir, 'references', scopeId(scope))
  }

  /** Whether any bulk row of this scope was indexed (within the retention): no exception when not, as on most commands. */
  exists(): boolean {
    return existsSync(this.dir)
  }

  /**
   * The accepted requests with this reference, oldest first (a single command's check): only its bucket's lines that
   * hold the reference's text are decoded.
   */
  lookup(ref: string): AcceptedReference[] {
    return this.exists() ? [...this.entries(bucketOf(ref), ref)] : []
  }

  /**
   * The entries of a bucket, its files oldest first, each read 256 KiB at a time; with `ref`, only those of that
   * reference (only the lines holding its text are decoded). The one reader of the index: a single command's lookup
   * and a bulk run's check (src/bulk/reference-join.ts). A file pruned meanwhile is skipped; any other failure to read
   * throws an error naming the file: a check that cannot read its index must not pass.
   */
  *entries(bucket: number, ref?: string): Generator<AcceptedReference> {
    const needle = ref === undefined ? undefined : Buffer.from(`"ref":${JSON.stringify(ref)}`)
    for (const file of this.bucketFiles(bucket)) {
      for (const line of linesOf(file, needle)) {
        const e = parseLine(line)
        if (e && (ref === undefined || e.ref === ref)) yield e
      }
    }
  }

  /** The files of a bucket (one a day), oldest first. */
  private bucketFiles(bucket: number): string[] {
    let names: string[]
    try {
      names = readdirSync(this.dir)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [] // pruned meanwhile
      throw unreadable(this.dir, err)
    }
    const prefix = `${bucket.toString(16)}-`
    return names
      .filter((n) => n.startsWith(prefix))
      .sort()
      .map((n) => join(this.dir, n))
  }

  /** Today's file of a bucket (where a writer appends). */
  fileOf(bucket: number, day = new Date().toISOString().slice(0, 10)): string {
    return join(this.dir, `${bucket.toString(16)}-${day}.ndjson`)
  }
}

/**
 * The lines of a file (with `needle`, only those that hold it: a line is decoded only then), read a chunk at a time.
 * A file that is gone yields nothing; any other failure throws, naming the file.
 */
function* linesOf(file: string, needle?: Buffer): Generator<string> {
  let fd: number
  try {
    fd = openSync(file, 'r')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return // pruned meanwhile
    throw unreadable(file, err)
  }
  try {
    const chunk = Buffer.allocUnsafe(256 * 1024)
    let rest = Buffer.alloc(0)
    for (;;) {
      let n: number
      try {
        n = readSync(fd, chunk, 0, chunk.length, null)
      } catch (err) {
        throw unreadable(file, err)
      }
      const buf = rest.length > 0 ? Buffer.concat([rest, chunk.subarray(0, n)]) : chunk.subarray(0, n)
      // whole lines only, but the last line of the file when it has no line break
      const end = n === 0 ? buf.length : buf.lastIndexOf(10) + 1
      if (needle === undefined) {
        for (let from = 0; from < end; ) {
          const nl = buf.indexOf(10, from)
          const stop = nl < 0 || nl >= end ? end : nl
          if (stop > from) yield buf.toString('utf8', from, stop)
          from = stop + 1
        }
      } else {
        // after a line that holds it, the search goes on from that line's end: the next line may hold it too
        for (let at = buf.indexOf(needle); at >= 0 && at < end; ) {
          const start = buf.lastIndexOf(10, at) + 1
          const stop = buf.indexOf(10, at)
          yield buf.toString('utf8', start, stop < 0 ? buf.length : stop)
          if (stop < 0) break
          at = buf.indexOf(needle, stop + 1)
        }
      }
      if (n === 0) return
      rest = Buffer.from(buf.subarray(end))
    }
  } finally {
    closeSync(fd)
  }
}

/** A file of the index that cannot be read (not one that is gone): the check that needs it stops, naming it. */
function unreadable(file: string, err: unknown): PayError {
  const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message
  return new PayError(
    `the reference index cannot be read: ${file} (${why}); nothing was sent`,
    ExitCode.OTHER,
    'make it readable by this user (it holds the references earlier bulk runs had accepted), then run the same command again',
  )
}

function parseLine(line: string): AcceptedReference | undefined {
  try {
    const e = JSON.parse(line.replace(/^\0+|\0+$/g, '')) as Partial<AcceptedReference> | null
    return e && typeof e.ref === 'string' && typeof e.key === 'string' && typeof e.at === 'string' ? (e as AcceptedReference) : undefined
  } catch {
    return undefined // a torn line
  }
}

/** Where an accepted request came from, for a message: `line 4 of pay.csv (bulk run 3f…)` or `a single command`. */
export function originOf(e: AcceptedReference): string {
  return e.run === undefined ? 'a single command' : `line ${e.line ?? '?'} of ${e.file ?? 'a bulk file'} (bulk run ${e.run})`
}

/** `accepted at T as ID (Idempotency-Key K), state S as seen at T2`: what a refusal says of the earlier request. */
export function describeAccepted(e: AcceptedReference): string {
  return `accepted at ${e.at}${e.id ? ` as ${e.id}` : ''} (Idempotency-Key ${e.key})${e.state ? `, state ${e.state} as seen at ${e.state_at ?? e.at}` : ''}`
}
