/**
 * A reference is a promise across bulk runs and single commands: the index of the merchant references that bulk rows
 * were sent with (accepted, unknown: they may have paid, or refused), so that a single command (src/journal/gate.ts)
 * and a later bulk run (src/bulk/engine.ts) find them without reading every run file; and the one rule that weighs
 * the earlier requests holding a reference (referenceVerdict).
 *
 *   journal/references/<service id>/<bucket>-<YYYY-MM-DD>.ndjson
 *
 * A reference is a promise to a service: an endpoint id and a base URL (as the journal shows it), whatever the client
 * id, and whatever the account ref unless two requests name two different ones (sharesPromise, the one test of it).
 * The service names the directory; each line names the client id and account ref it was sent with. A directory exists
 * only once a bulk row of that service was sent, so a command of a service no bulk run touched pays one failed readdir
 * of the index. An older pay wrote a directory per exact scope (`journal/references/<scope id>/`, a hash of endpoint,
 * base URL, client id and account ref); after an upgrade they are read by every scope of their service, for the
 * retention (legacyDirsOf: which service a directory is, found once from its run's header and kept in
 * `journal/references-legacy.json`; its lines taken as of their run's sender when it recorded one, else of the reader's
 * scope when the hash is its own, else of an unknown sender, who may be any). A reference falls in one of 16 buckets (a cheap hash of its text): a lookup
 * reads the bucket's files of the retention (one a day, in chunks), never the run files; a bulk run's check streams
 * every bucket (src/bulk/reference-join.ts), both through one reader (ReferenceIndex.entries: a file pruned meanwhile
 * is skipped, one that cannot be read stops the check, naming it). A line: the reference, the row's key,
 * when it was answered, its run, line and file; accepted: its id and state then; else its outcome (and for an unknown
 * one the SHA-256 of its body). Lines are appended by the run journal's flushes, fsync'd, before the row records they
 * cover (src/journal/run-journal.ts FlushedFirst): a row recorded there is never missing here; a run whose file's
 * last run did not end with its rows indexed adds them again first (src/bulk/references.ts reindexRun). Files are
 * pruned with the journal (their day past the retention).
 *
 * Single commands are not indexed here: their accepted requests are in the operation journal, which the gate reads
 * already, and a bulk run reads once. This module is the format, its reader and the scope test (loaded with every
 * command); the bulk run's check and writer are src/bulk/references.ts (loaded with the bulk engine).
 */
import {closeSync, openSync, readFileSync, readSync, readdirSync, renameSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {operationList} from '../api/operations.js'
import {PayError} from '../base/errors.js'
import {ExitCode} from '../base/exit-codes.js'
import {type JournalEntry, type JournalStore, latestState, unresolved} from './store.js'

/** Who sends a request with a reference: the service (endpoint, base URL), and the client id and account ref it is sent with. */
export interface ReferenceScope {
  endpoint: string
  /** The base URL as the journal records it (redactUrl). */
  baseUrl: string
  clientId?: string
  accountRef?: string
}

/**
 * Whether two account refs may name one account: equal, or either unset (spec: X-Service-Account-Ref is "optional
 * otherwise", so no header and the merchant's only account ref are the same account). Only two different ones are two
 * sub-accounts.
 */
export function mayBeOneAccount(a: string | undefined, b: string | undefined): boolean {
  return !a || !b || a === b
}

/**
 * Whether an earlier request (journaled with its endpoint, base URL and account ref) holds its reference against a new
 * request of `scope`: the one test, for a single command's check (src/journal/gate.ts), a bulk run's (its singles, and
 * the index's lines) and what `pay find` shows. The same service and accounts that may be one; the client id is no part
 * of it: a merchant may have two API clients, and pay cannot tell them from two merchants (a refusal with --force-new
 * as the way on beats a second charge).
 */
export function sharesPromise(scope: ReferenceScope, op: {endpoint: string; base_url: string; account_ref?: string}): boolean {
  return op.endpoint === scope.endpoint && op.base_url === scope.baseUrl && mayBeOneAccount(op.account_ref, scope.accountRef)
}

/** Whether a holder was sent by the very client and account ref of `scope` (only then may a new request take its key). */
function sameSender(scope: ReferenceScope, e: AcceptedReference): boolean {
  return (e.client_id ?? '') === (scope.clientId ?? '') && (e.account_ref ?? '') === (scope.accountRef ?? '')
}

/**
 * A request that holds a reference: a bulk row (run, line, file) or a single command (neither). Accepted when it has
 * no `outcome`; else what it came to: unknown (it may have paid: its `body_sha256` tells whether a new request is the
 * same one), or refused (it holds nothing: a line that settles an earlier unknown one of its key).
 */
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
  outcome?: 'unknown' | 'refused'
  body_sha256?: string
  /** The client id and account ref it was sent with (none: unset). */
  client_id?: string
  account_ref?: string
}

/** What a request that holds a reference came to, as the rule reads it. */
export type HeldAs = 'accepted' | 'unknown' | 'refused'

/** What a reference's entry says its request came to. */
export const heldAs = (e: AcceptedReference): HeldAs => e.outcome ?? 'accepted'

/**
 * A key's state from two of its records, the newer second: an accepted request stays accepted (its key only replays
 * that answer); otherwise the newer record says it (an unknown one resent and refused, or refused for now and resent).
 */
const merged = (older: HeldAs, newer: HeldAs): HeldAs => (older === 'accepted' ? older : newer)

/**
 * Adds a line about a key to the holders of one reference, read oldest first: one holder per key, its state merged
 * (accepted stays; a later unknown or refused line replaces an earlier one), with the entry of the line that says it.
 */
export function hold<T>(holders: Map<string, Holder<T>>, key: string, as: HeldAs, sameBody: boolean, entry: T): void {
  const held = holders.get(key)
  const now = held ? merged(held.as, as) : as
  if (!held || now === as) holders.set(key, {key, as: now, sameBody, entry})
}

/**
 * Adds an earlier request of the reference (`sharesPromise` with `scope`: the caller's test) to its holders. `bodySha`:
 * the new request's body hash, when a holder with the same body may be resumed under its key (a bulk row's unknown
 * one): only one sent by the same client and account ref, whose key the service knows as this sender's.
 */
export function holdFor(holders: Map<string, Holder<AcceptedReference>>, scope: ReferenceScope, e: AcceptedReference, bodySha?: string): void {
  hold(holders, e.key, heldAs(e), bodySha !== undefined && e.body_sha256 === bodySha && sameSender(scope, e), e)
}

/** An earlier request with the reference, as the rule weighs it: its key, state, and whether its body is the new one's. */
export interface Holder<T> {
  key: string
  as: HeldAs
  /** The same body bytes as the new request (known only for some: false when not). */
  sameBody: boolean
  entry: T
}

type ReferenceVerdict<T> = {do: 'send'} | {do: 'reuse' | 'refuse'; holder: Holder<T>}

/**
 * A reference names one payment: the one rule for a new request (a single command, src/journal/gate.ts, or a bulk
 * row, src/bulk/reference-join.ts) whose reference earlier requests of its scope hold (each key once, its state
 * merged). A holder under the new request's own key: it is that request (send: its key resumes it). Else an accepted
 * one (the newest is named): refuse (exit 5). Else one whose outcome is unknown (it may have paid): with the same body and `canReuse` (a
 * single command without a key of its own), reuse its key, so the service answers that request once; otherwise
 * refuse, naming it. Refused requests hold nothing. --force-new is the caller's way past it.
 */
export function referenceVerdict<T>(holders: Iterable<Holder<T>>, ownKey: string | undefined, canReuse: boolean): ReferenceVerdict<T> {
  let accepted: Holder<T> | undefined
  let unknown: Holder<T> | undefined
  let reusable: Holder<T> | undefined
  for (const h of holders) {
    if (ownKey !== undefined && h.key === ownKey) return {do: 'send'}
    if (h.as === 'accepted') accepted = h
    else if (h.as === 'unknown') {
      unknown = h
      if (h.sameBody) reusable = h
    }
  }
  if (accepted) return {do: 'refuse', holder: accepted}
  if (reusable && canReuse) return {do: 'reuse', holder: reusable}
  return unknown ? {do: 'refuse', holder: unknown} : {do: 'send'}
}

/**
 * What a single command's journal entry holds of its reference, as the index's lines say it of a bulk row: accepted
 * (with its latest known state), or unknown (its outcome unresolved; with its body's hash); undefined when it holds
 * none (refused, or no reference). `entries`: the journal's, oldest first (a later entry may resolve it).
 */
export function heldByEntry(entries: JournalEntry[], i: number): AcceptedReference | undefined {
  const e = entries[i]
  const {op} = e
  if (op.reference === undefined) return undefined
  if (e.outcome?.request === 'accepted') {
    const seen = latestState(e)
    return {ref: op.reference, key: op.key, at: e.outcome.at, id: e.outcome.id, state: seen?.state, state_at: seen?.at, client_id: op.client_id, account_ref: op.account_ref}
  }
  return unresolved(entries, i) ? {ref: op.reference, key: op.key, at: op.at, outcome: 'unknown', body_sha256: op.body_sha256, client_id: op.client_id, account_ref: op.account_ref} : undefined
}

/**
 * The index lines of one run's rows, the one source of a line's shape: a run's writer (src/bulk/references.ts
 * ReferenceWriter) and a rebuild (reference-rebuild.ts) both write through it. A line is exactly the text
 * JSON.stringify gives of the AcceptedReference {ref, key, at, id, state, run, line, file, outcome, body_sha256,
 * client_id, account_ref} (the keys in that order, an undefined one left out; test/bulk/references.test.ts holds them
 * equal), built from the fields every line of the run shares, stringified once per run, not per row.
 */
export class RunLines {
  private readonly runText: string
  private readonly fileText: string
  private readonly senderText: string

  constructor(scope: ReferenceScope, run: string, file: string) {
    this.runText = `,"run":${JSON.stringify(run)},"line":`
    this.fileText = `,"file":${JSON.stringify(file)}`
    // the sender: the service's index holds every client's and account's lines (unset: left out, as JSON.stringify does)
    const {clientId: client_id, accountRef: account_ref} = scope
    const sender = JSON.stringify({client_id, account_ref})
    this.senderText = sender === '{}' ? '' : `,${sender.slice(1, -1)}`
  }

  /**
   * The line (with its line break) of a row as its run recorded it: accepted (its id and state then), unknown (with
   * `bodySha`, its body's hash, when known: a rebuild does not know it, run files do not hold it) or refused; at the
   * time of its answer (none: now).
   */
  of(ref: string, key: string, line: number, o: {outcome: HeldAs; id?: string | null; state?: string | null; state_at?: string | null}, bodySha?: string): string {
    let text = `{"ref":${JSON.stringify(ref)},"key":${JSON.stringify(key)},"at":${JSON.stringify(o.state_at ?? new Date().toISOString())}`
    if (o.outcome === 'accepted') {
      if (typeof o.id === 'string') text += `,"id":${JSON.stringify(o.id)}`
      if (typeof o.state === 'string') text += `,"state":${JSON.stringify(o.state)}`
      text += `${this.runText}${line}${this.fileText}`
    } else {
      text += `${this.runText}${line}${this.fileText},"outcome":"${o.outcome}"`
      if (o.outcome === 'unknown' && bodySha !== undefined) text += `,"body_sha256":${JSON.stringify(bodySha)}`
    }
    return `${text}${this.senderText}}\n`
  }
}

/** The file a rebuild leaves in `journal/references/` (an index rebuilt with no line is not lost). */
export const REBUILT_MARKER = '.rebuilt'

/**
 * The file a rebuild writes first and removes last, once every line is fsync'd (reference-rebuild.ts): while it is
 * there the index is partial (a rebuild under way, or one cut off), read as lost.
 */
export const REBUILDING_MARKER = '.rebuilding'

/** The markers of the index's directory (no service's directory). */
const MARKERS = new Set([REBUILT_MARKER, REBUILDING_MARKER])

/**
 * The one lock a rebuild of the index is made under, whatever the service (not a service's reference lock): a command
 * that finds the index lost or mid-rebuild waits for the one rebuild, then reads it whole.
 */
export const REBUILD_LOCK = 'refs-rebuild'

/** How many files a scope's references are spread over (a day each). */
export const BUCKETS = 16

/**
 * A wait for a service's reference lock is told only past this: it is held for a check and a record (milliseconds),
 * so two commands started together wait for each other briefly, without a line about it.
 */
export const PROMISE_WAIT_TOLD_MS = 500

/**
 * The name of the lock under which a reference of a service is checked and taken (store.holdSender): a bulk run's
 * check and the reservation of its rows (src/bulk/references.ts reserveRows), a single command's check and its
 * durable operation record (src/journal/gate.ts). Held briefly, never around a request: no check passes between
 * another's check and its reservation.
 */
export function promiseLockName(scope: Pick<ReferenceScope, 'endpoint' | 'baseUrl'>): string {
  return `refs-${serviceId(scope)}`
}

/** The directory name of a service: two FNV-1a hashes of its endpoint and base URL (no SHA-256 on every command's path). */
function serviceId(scope: Pick<ReferenceScope, 'endpoint' | 'baseUrl'>): string {
  return dirId(JSON.stringify(['service', scope.endpoint, scope.baseUrl]))
}

/** The directory pay wrote a scope's lines to before they named their client id and account ref (all four parts). */
function legacyScopeId(scope: ReferenceScope): string {
  return dirId(JSON.stringify([scope.endpoint, scope.baseUrl, scope.clientId ?? '', scope.accountRef ?? '']))
}

function dirId(text: string): string {
  return fnv1a(text, 0x811c9dc5).toString(16).padStart(8, '0') + fnv1a(text, 0x050c5d1f).toString(16).padStart(8, '0')
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

/**
 * A directory an older pay wrote per exact scope (endpoint, base URL, client id, account ref: a hash of the four, which
 * cannot be matched to a service without them), as found out once from the header of the run that wrote its first
 * line (the run journal, src/journal/run-journal.ts: operation and base URL; the client id and account ref only when
 * that run recorded them): its service, and its sender when known. Kept in `references-legacy.json` next to the
 * directory, so that a command reads that small file, not the run journals; null: not a legacy directory (a service's,
 * or one no run header explains).
 */
interface LegacyDir {
  service: string
  endpoint: string
  base_url: string
  client_id?: string
  account_ref?: string
  /** Whether client_id and account_ref were recorded by its run (else: the sender is unknown unless its hash says it). */
  sender?: true
}

/** The directory of a legacy scope as a reader sees it: its lines and the sender they are read with. */
interface LegacyRead {
  dir: string
  sender: Pick<AcceptedReference, 'client_id' | 'account_ref'>
}

const LEGACY_MAP = 'references-legacy.json'

/**
 * The legacy directories of a scope's service (any client id, any account ref): one readdir of the index when it holds
 * only the service's own directory; else the small map (classifying, once, a directory it does not name yet).
 */
function legacyDirsOf(store: JournalStore, scope: ReferenceScope, own: string): LegacyRead[] | undefined {
  const root = join(store.dir, 'references')
  let names: string[] | undefined
  try {
    names = namesIn(root)
  } catch (err) {
    // none (or a file in its place: nothing was ever indexed there, and a write will say so)
    if (['ENOENT', 'ENOTDIR'].includes((err as NodeJS.ErrnoException).code ?? '')) return undefined
    throw unreadable(root, err)
  }
  if (names === undefined) return undefined
  const others = names.filter((n) => n !== own && !MARKERS.has(n))
  if (others.length === 0) return names.length > 0 ? [] : undefined
  const mapFile = join(store.dir, LEGACY_MAP)
  let map: Record<string, LegacyDir | null> = {}
  try {
    map = JSON.parse(readFileSync(mapFile, 'utf8')) as Record<string, LegacyDir | null>
  } catch {
    map = {} // none yet, or torn: classified again
  }
  let added = false
  for (const name of others) {
    if (map[name] !== undefined) continue
    map[name] = classify(store, join(root, name), name)
    added = true
  }
  if (added) {
    // best effort, atomic: a reader that cannot write it classifies again next time
    try {
      const tmp = `${mapFile}.${process.pid}.tmp`
      writeFileSync(tmp, JSON.stringify(map), {mode: 0o600})
      renameSync(tmp, mapFile)
    } catch {
      /* read-only state: classified again next time */
    }
  }
  const service = serviceId(scope)
  const out: LegacyRead[] = []
  for (const name of others) {
    const d = map[name]
    if (d ? d.service === service : name === legacyScopeId(scope)) out.push({dir: join(root, name), sender: d ? senderOf(d, name, scope) : {client_id: scope.clientId, account_ref: scope.accountRef}})
    // (a directory no run header explains is still read by its exact scope, as before)
  }
  return out
}

/** Who sent a legacy directory's rows: its run's record, else the reading scope's when the hash is its, else unknown (may be any). */
function senderOf(d: LegacyDir, name: string, scope: ReferenceScope): LegacyRead['sender'] {
  if (d.sender) return {client_id: d.client_id, account_ref: d.account_ref}
  for (const accountRef of [scope.accountRef, undefined]) {
    if (legacyScopeId({...scope, accountRef}) === name) return {client_id: scope.clientId, account_ref: accountRef}
  }
  return {}
}

/** What a directory of the index is, from the header of the run of its first line that names one. */
function classify(store: JournalStore, dir: string, name: string): LegacyDir | null {
  let files: string[]
  try {
    files = readdirSync(dir).sort()
  } catch {
    return null
  }
  for (const file of files) {
    for (const line of linesOf(join(dir, file))) {
      const e = parseLine(line)
      if (e?.run === undefined || !/^[\w-]+$/.test(e.run)) continue
      const header = runHeader(join(store.dir, 'runs', `${e.run}.ndjson`))
      if (header === undefined) continue
      const endpoint = operationList.find((o) => o.command === header.operation)?.endpoint
      if (endpoint === undefined) return null
      const scope: ReferenceScope = {endpoint, baseUrl: header.base_url, clientId: header.client_id, accountRef: header.account_ref}
      if (serviceId(scope) === name) return null // a service's own directory
      const sender = 'client_id' in header || 'account_ref' in header
      return {service: serviceId(scope), endpoint, base_url: header.base_url, ...(sender ? {client_id: header.client_id, account_ref: header.account_ref, sender: true} : {})}
    }
  }
  return null
}

/** The header line of a run journal (its first line), or undefined when it is gone or unreadable. */
export function runHeader(file: string): {operation: string; base_url: string; client_id?: string; account_ref?: string; file?: string} | undefined {
  try {
    const fd = openSync(file, 'r')
    try {
      const buf = Buffer.alloc(64 * 1024)
      const n = readSync(fd, buf, 0, buf.length, 0)
      // its first line that is not empty (a file may start with a line break, or NULs a crash left)
      const first = buf.toString('utf8', 0, n).split('\n').map((l) => l.replace(/\0+/g, '')).find((l) => l.trim() !== '') ?? ''
      const h = JSON.parse(first) as {t?: string; operation?: unknown; base_url?: unknown}
      return h.t === 'run' && typeof h.operation === 'string' && typeof h.base_url === 'string' ? (h as {operation: string; base_url: string}) : undefined
    } finally {
      closeSync(fd)
    }
  } catch {
    return undefined
  }
}

/**
 * The reference index of one service as a scope sees it: its lines written by this scope's bulk rows go to `dir`, and
 * its reads yield the lines of the service whose account ref may be this scope's (sharesPromise), each naming the
 * client id and account ref it was sent with, from the service's directory and from every directory an older pay
 * wrote for the service (any client id, any account ref: legacyDirsOf).
 */
export class ReferenceIndex {
  /** Where this scope's rows are written: the service's directory. */
  readonly dir: string
  /** The service's legacy directories (read only), found at the first read; undefined: the index has no directory. */
  private legacy?: LegacyRead[]

  constructor(
    readonly store: JournalStore,
    readonly scope: ReferenceScope,
  ) {
    this.dir = join(store.dir, 'references', serviceId(scope))
  }

  private legacyDirs(): LegacyRead[] | undefined {
    // once the index exists, for this reader's life (a command's); before, looked at again (a run may make it)
    if (this.legacy === undefined) this.legacy = legacyDirsOf(this.store, this.scope, serviceId(this.scope))
    return this.legacy
  }

  /** Whether any bulk row of this service was indexed (within the retention): no exception when not, as on most commands. */
  exists(): boolean {
    const legacy = this.legacyDirs()
    return legacy !== undefined && (legacy.length > 0 || isDir(this.dir))
  }

  /**
   * The requests with this reference that hold it against this scope, oldest first (a single command's check): only
   * its bucket's lines that hold the reference's text are decoded.
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
    const {scope} = this
    // the older directories first (their lines are older); each line with the sender of its directory
    const dirs: Array<[string, LegacyRead['sender'] | undefined]> = [...(this.legacyDirs() ?? []).map((l) => [l.dir, l.sender] as [string, LegacyRead['sender']]), [this.dir, undefined]]
    for (const [dir, sender] of dirs) {
      for (const file of bucketFiles(dir, bucket)) {
        for (const line of linesOf(file, needle)) {
          const e = parseLine(line)
          if (!e || (ref !== undefined && e.ref !== ref)) continue
          const read = sender === undefined ? e : {...e, ...sender}
          if (mayBeOneAccount(read.account_ref, scope.accountRef)) yield read
        }
      }
    }
  }

  /** Today's file of a bucket (where a writer appends). */
  fileOf(bucket: number, day = new Date().toISOString().slice(0, 10)): string {
    return join(this.dir, `${bucket.toString(16)}-${day}.ndjson`)
  }
}

/** Whether a directory exists (a stat). */
function isDir(dir: string): boolean {
  try {
    return statSync(dir, {throwIfNoEntry: false})?.isDirectory() ?? false
  } catch {
    return false
  }
}

/**
 * The names in a directory, or undefined when there is none. Asked with a stat first: a readdir of a missing
 * directory throws an error that costs a command's start more than the stat (the index is missing on most machines).
 */
export function namesIn(dir: string): string[] | undefined {
  return statSync(dir, {throwIfNoEntry: false}) === undefined ? undefined : readdirSync(dir)
}

/** The files of a bucket in a directory (one a day), oldest first; none when there is no directory. */
function bucketFiles(dir: string, bucket: number): string[] {
  let names: string[] | undefined
  try {
    names = namesIn(dir)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [] // none, or pruned meanwhile
    throw unreadable(dir, err)
  }
  if (names === undefined) return []
  const prefix = `${bucket.toString(16)}-`
  return names
    .filter((n) => n.startsWith(prefix))
    .sort()
    .map((n) => join(dir, n))
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
    // read into one buffer again and again (grown for a longer line), kept for the next file: a new one per read or
    // per file would wait in V8's old space for a full collection
    let space = spareSpace ?? Buffer.allocUnsafeSlow(256 * 1024)
    spareSpace = undefined
    let held = 0 // an unfinished line's bytes, at the start of `space`
    for (;;) {
      if (held === space.length) {
        const grown = Buffer.allocUnsafeSlow(space.length * 2)
        space.copy(grown, 0, 0, held)
        space = grown
      }
      let n: number
      try {
        n = readSync(fd, space, held, space.length - held, null)
      } catch (err) {
        throw unreadable(file, err)
      }
      const buf = space.subarray(0, held + n)
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
      if (n === 0) {
        spareSpace = space
        return
      }
      space.copyWithin(0, end, buf.length)
      held = buf.length - end
    }
  } finally {
    closeSync(fd)
  }
}

/** The buffer the last linesOf to end read through, for the next one (two reading at once: the second makes its own). */
let spareSpace: Buffer | undefined

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

/**
 * `accepted at T as ID (Idempotency-Key K), state S as seen at T2`, or `sent at T with its outcome unknown (…)`: what
 * a refusal says of the earlier request.
 */
export function describeAccepted(e: AcceptedReference): string {
  // no client id: a line an older pay wrote, which did not record who sent it (it may have been anyone)
  const sender = e.client_id === undefined ? 'sender not recorded: an older pay wrote it' : `client ${e.client_id}, ${e.account_ref ? `account ref ${e.account_ref}` : 'no account ref'}`
  if (heldAs(e) !== 'accepted') return `sent at ${e.at} and its outcome is unknown: it may have paid (Idempotency-Key ${e.key}; ${sender})`
  return `accepted at ${e.at}${e.id ? ` as ${e.id}` : ''} (Idempotency-Key ${e.key}; ${sender})${e.state ? `, state ${e.state} as seen at ${e.state_at ?? e.at}` : ''}`
}
