/**
 * The operation journal on disk: append-only NDJSON segments, one per UTC day (`journal/YYYY-MM-DD.ndjson`), in the
 * state dir (src/config/paths.ts stateDir). Files are 0600 in a 0700 directory. Every record is one line written
 * with one write(2) on a file opened O_APPEND, so several `pay` processes may append at once without tearing
 * lines. A record is either wholly readable or absent: each write starts with a line break, so a torn last line
 * (a crash mid-write) or a tail of NUL bytes (a crash after the file grew, before its data reached the disk) ends
 * there and never swallows the next record; a reader skips a line it cannot parse and ignores NULs around one.
 * An operation about to be sent is written whole (a short write is a failure) and fsync'd before any byte of it is
 * sent, or it is not sent at all (JournalWriteError); its outcome is only written (one lost with the machine reads
 * as unknown, and a re-run resends under the same key). Segments older than the retention are deleted.
 *
 * When the directory cannot be created, the journal warns once and turns itself off: the command still runs, with
 * a key derived from its request (src/journal/gate.ts), so that the same command run again resumes it (with the
 * journal on, a request it has no record of gets that key too).
 */
import {closeSync, fsync, fsyncSync, mkdirSync, openSync, readFileSync, readdirSync, type renameSync, statSync, unlinkSync, utimesSync, writeSync} from 'node:fs'
import type {FileHandle} from 'node:fs/promises'
import {join} from 'node:path'
import {CONFIG_DIR_MODE, SECRET_FILE_MODE} from '../config/paths.js'
import {HolderLock, StaleLockError} from '../config/holder-lock.js'
import {PayError} from '../base/errors.js'
import {ExitCode} from '../base/exit-codes.js'
import {otherResource} from '../api/resource.js'

const DEFAULT_RETENTION_DAYS = 7
/** How often a process waiting for another's lock on the same request looks again. */
const SENDER_POLL_MS = 25
const DAY_MS = 86_400_000
const PRUNE_EVERY_MS = 6 * 3_600_000
const SEGMENT = /^(\d{4}-\d{2}-\d{2})\.ndjson$/
/** Spool files bulk runs keep next to the journal while they run (stdin copied; rows ready to send): removed at the end, pruned with the journal when a run was killed. */
export const SPOOL_PREFIXES = {stdin: 'stdin-', rows: 'rows-', sorted: 'sorted-'} as const

/** An idempotent request, written (and fsync'd) before it is sent. */
export interface OpRecord {
  t: 'op'
  at: string
  key: string
  /** Hash of endpoint, URL, base URL, client id, account ref and body bytes: equal for a plain re-run. */
  match: string
  endpoint: string
  method: string
  url: string
  base_url: string
  client_id?: string
  account_ref?: string
  body_sha256: string
  /**
   * The exact body bytes sent, so that resuming the key sends them again (a service may compare a reused key's body
   * byte for byte); absent when the body held a secret the journal redacts, or in a journal of an older pay.
   */
  body?: string
  reference?: string
  /** The command that repeats this request with its key (secrets removed). */
  command?: string
  /** Where the request came from: `mcp` for a tool call of `pay mcp`; absent for the command line (`cli`). */
  origin?: string
  pid: number
  /** Only on a bulk row read from its run file (src/journal/view.ts): its run, the line of its file, the file. */
  run?: string
  line?: number
  file?: string
}

/** What a request came to: the request policy's class (src/client/request-policy.ts). */
export type RequestOutcome = 'accepted' | 'refused' | 'unknown'

/**
 * What became of an operation's request, when known. Two facts, never one word: `request` is what the request came
 * to; `resource_state` the state of the resource it made, as the answer showed it (later lookups: StateRecord).
 */
export interface OutcomeRecord {
  t: 'outcome'
  at: string
  key: string
  request: RequestOutcome
  status?: number
  id?: string
  /** The resource's state in the answer (processing, succeeded, failed, …), when it has one. */
  resource_state?: string
  /**
   * When that state was seen, when it is not this record's time: an answer to a key sent before may be the service's
   * first answer replayed, its state as it was when the key was first sent (src/journal/gate.ts, maybeReplayed).
   */
  state_at?: string
  error?: {code: string; message: string}
  /** The answer's body exactly as received (accepted only): a re-run prints it instead of sending again. */
  body?: string
  /** Written by pay before the two facts were kept apart (succeeded / failed / unknown); read as `request`. */
  state?: 'succeeded' | 'failed' | 'unknown'
  /**
   * The operation this answers (its `at` and `pid`): two processes may send one key (one took the other's lock over
   * after its lease), and the late one's outcome is its own operation's. Absent in a journal of an older pay: then
   * the key's newest operation at the time it was written.
   */
  op_at?: string
  op_pid?: number
}

/** A later look at the resource an accepted request made (a re-run's lookup): its state then, and the body seen. */
interface StateRecord {
  t: 'state'
  at: string
  key: string
  state: string
  body?: string
}

type JournalRecord = OpRecord | OutcomeRecord | StateRecord

/** Whether a recorded body (JSON text) is about another resource than `id`. */
function aboutOther(id: string | undefined, body: string | undefined): boolean {
  if (!id || !body) return false
  try {
    return otherResource(id, JSON.parse(body)) !== undefined
  } catch {
    return false
  }
}

/** One operation with its latest outcome (none: the process ended before it knew, e.g. killed) and latest look. */
export interface JournalEntry {
  op: OpRecord
  outcome?: OutcomeRecord
  seen?: StateRecord
}

/**
 * The resource's latest known state of an entry, and when it was seen (a later lookup, else the answer). A look
 * whose body is about another resource than the one accepted (a lookup by a shared reference, recorded by an
 * earlier version of pay) is not this entry's state: src/api/resource.ts.
 */
export function latestState(e: JournalEntry): {state: string; at: string; body?: string} | undefined {
  if (e.seen && !aboutOther(e.outcome?.id, e.seen.body)) return {state: e.seen.state, at: e.seen.at, body: e.seen.body}
  if (e.outcome?.resource_state !== undefined) return {state: e.outcome.resource_state, at: e.outcome.state_at ?? e.outcome.at, body: e.outcome.body}
  return undefined
}

interface JournalOptions {
  retentionDays?: number
  /** node:fs's writeSync (tests make it fail, or write short, as a full disk does). */
  write?: typeof writeSync
  /** Told once when the journal cannot be written. */
  warn?: (text: string) => void
  now?: () => number
  /** node:fs's fsync (tests hold it to see that nothing is sent before it completes). */
  fsync?: typeof fsync
  /** node:fs's renameSync for the locks (tests make it fail, as a read-only state dir does). */
  rename?: typeof renameSync
}

/** Retention in days from PAY_JOURNAL_RETENTION_DAYS (a positive integer), else the default. */
export function retentionDaysFrom(env: NodeJS.ProcessEnv = process.env): number {
  const v = env.PAY_JOURNAL_RETENTION_DAYS
  if (v && /^[1-9][0-9]{0,4}$/.test(v)) return Number(v)
  return DEFAULT_RETENTION_DAYS
}

/** The line break written before appended lines (appendLineAsync). */
const LINE_BREAK = Buffer.from('\n')

export class JournalStore {
  readonly dir: string
  private ready?: boolean
  private readonly retentionDays: number
  private readonly now: () => number

  constructor(
    stateDir: string,
    private readonly options: JournalOptions = {},
  ) {
    this.dir = join(stateDir, 'journal')
    this.retentionDays = options.retentionDays ?? DEFAULT_RETENTION_DAYS
    this.now = options.now ?? Date.now
  }

  /** False once the journal has turned itself off (unwritable state dir). */
  get enabled(): boolean {
    return this.ready !== false
  }

  /** Creates the directory and prunes old files, once per process. False (and one warning) when it cannot. */
  open(): boolean {
    if (this.ready !== undefined) return this.ready
    try {
      mkdirSync(this.dir, {recursive: true, mode: CONFIG_DIR_MODE})
      mkdirSync(join(this.dir, 'runs'), {recursive: true, mode: CONFIG_DIR_MODE})
      mkdirSync(join(this.dir, 'locks'), {recursive: true, mode: CONFIG_DIR_MODE})
      this.ready = true
    } catch (err) {
      this.disable(err)
      return false
    }
    // pruning is housekeeping: another process pruning at once, or a file that cannot be removed, never turns the journal off
    try {
      this.prune()
    } catch {
      // left for the next run
    }
    return true
  }

  /** Appends one record to today's segment, without fsync (an outcome: one lost with the machine reads as unknown). */
  append(record: JournalRecord): void {
    if (!this.open()) return
    this.appendLine(this.segmentFile(), JSON.stringify(record), false)
  }

  /**
   * Appends one record to today's segment and fsyncs it on libuv's thread pool (an operation about to be sent).
   * The write itself is synchronous: when it fails or writes short, JournalWriteError is thrown and the caller sends
   * nothing. The promise settles once the record is on disk: meanwhile the transport makes its request (node:http
   * loaded, the connection and a TLS handshake made: src/client/transport.ts, sendDirect; through a proxy, undici
   * loaded only) and writes no byte of it before then, so the fsync costs little time of its own; it rejects
   * (JournalWriteError) when the fsync fails. With the journal off it throws: the gate does not call it then.
   */
  appendDurable(record: JournalRecord): Promise<void> {
    const file = this.segmentFile()
    if (!this.open()) throw new JournalWriteError(file, {code: JOURNAL_OFF})
    let fd: number | undefined
    try {
      fd = openSync(file, 'a', SECRET_FILE_MODE)
      this.writeWhole(fd, JSON.stringify(record))
    } catch (err) {
      if (fd !== undefined) ignoreErrors(() => closeSync(fd!))
      throw new JournalWriteError(file, err)
    }
    const durable = new Promise<void>((resolve, reject) => {
      ;(this.options.fsync ?? fsync)(fd, (err) => {
        try {
          closeSync(fd)
        } catch (closeErr) {
          err ??= closeErr as NodeJS.ErrnoException
        }
        if (err) reject(new JournalWriteError(file, err))
        else resolve()
      })
    })
    durable.catch(() => undefined) // awaited by the transport later, after other awaits: never "unhandled" meanwhile
    return durable
  }

  /**
   * One sender per request: holds `locks/<name>.lock` (a HolderLock: pid, start time, `holdMs`, a nonce) and resolves
   * with its release, which also tells whether the lock is still this holder's (`held`: false once another process
   * took it over after this one ran past its lease, e.g. stopped by SIGSTOP: the holder's fence). While another live
   * process holds it, waits (telling `waiting` once, with the holder's pid, once it has waited `tellAfterMs`: a lock
   * held for a few milliseconds, as a service's reference lock is, is not worth a line); a lock whose holder died
   * (kill -9) or ran past its time is taken over. Undefined when the journal is off or the lock cannot be made: the
   * caller goes on without it. A stale lock that cannot be removed (a state dir turned read-only) throws
   * StuckLockError: waiting for it would never end.
   */
  async holdSender(name: string, holdMs: number, waiting: (pid: number | undefined) => void, tellAfterMs = 0): Promise<SenderLock | undefined> {
    if (!this.open()) return undefined
    const lock = new HolderLock(join(this.dir, 'locks', `${name}.lock`), this.options.rename)
    const since = Date.now()
    let told = false
    for (;;) {
      try {
        const mine = lock.lock(holdMs)
        return Object.assign(() => lock.unlock(mine), {held: () => lock.holds(mine)})
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return undefined
      }
      try {
        lock.takeOverIfStale()
      } catch (err) {
        if (err instanceof StaleLockError) throw new StuckLockError(err, this.dir)
        throw err
      }
      if (!lock.exists()) continue
      if (!told && Date.now() - since >= tellAfterMs) {
        waiting(lock.holderPid())
        told = true
      }
      await process.getBuiltinModule('node:timers/promises').setTimeout(SENDER_POLL_MS)
    }
  }

  /**
   * Appends lines to any file of the journal (bulk run files), in one write. Returns why they were not written (the
   * journal off, or the write or its fsync failed: the journal then turns itself off), or undefined once written.
   */
  appendLine(file: string, text: string, sync: boolean): string | undefined {
    if (!this.open()) return JOURNAL_OFF
    let fd: number | undefined
    try {
      fd = openSync(file, 'a', SECRET_FILE_MODE)
      this.writeWhole(fd, text)
      if (sync) fsyncSync(fd)
      return undefined
    } catch (err) {
      return this.failed(file, err)
    } finally {
      if (fd !== undefined) ignoreErrors(() => closeSync(fd!))
    }
  }

  /**
   * One write(2) of `text` as whole lines: a line break before (it ends a torn or NUL-padded tail another write
   * left) and after. Throws when the write fails or is short (a full disk): what was written is then a torn line,
   * which readers skip and the next write's first line break ends.
   */
  private writeWhole(fd: number, text: string): void {
    const data = Buffer.from(`\n${text}${text.endsWith('\n') ? '' : '\n'}`)
    const written = (this.options.write ?? writeSync)(fd, data)
    if (written !== data.length) throw Object.assign(new Error(`wrote ${written} of ${data.length} bytes`), {code: 'ENOSPC'})
  }

  private segmentFile(): string {
    return join(this.dir, `${day(this.now())}.ndjson`)
  }

  /**
   * appendLine without blocking the event loop (bulk runs), fsync'd; the same answer. `lines`: whole lines, as text or
   * as their UTF-8 bytes (src/journal/byte-lines.ts); none: only the fsync. `handles`: files kept open between calls
   * (a run's index buckets, written at every flush), for the caller to close; without it, closed here. `sync` false:
   * written, not fsync'd (a later call with `sync` on the same file makes both durable).
   */
  async appendLineAsync(file: string, lines: string | Buffer, handles?: Map<string, Promise<FileHandle>>, sync = true): Promise<string | undefined> {
    if (!this.open()) return JOURNAL_OFF
    let handle: FileHandle | undefined
    try {
      // node:fs/promises loaded on the first write, not with every command (~0.7 ms)
      const opening = handles?.get(file) ?? process.getBuiltinModule('node:fs/promises').open(file, 'a', SECRET_FILE_MODE)
      handles?.set(file, opening)
      handle = await opening
      // a leading line break, as writeWhole: a torn tail never swallows these lines (one write either way)
      if (lines.length > 0) {
        const data = typeof lines === 'string' ? [Buffer.from(`\n${lines}`)] : [LINE_BREAK, lines]
        const length = data.reduce((n, b) => n + b.length, 0)
        const {bytesWritten} = await handle.writev(data)
        if (bytesWritten !== length) throw Object.assign(new Error(`wrote ${bytesWritten} of ${length} bytes`), {code: 'ENOSPC'})
      }
      if (sync) await handle.sync()
      return undefined
    } catch (err) {
      if (handles?.delete(file)) await handle?.close().catch(() => undefined)
      return this.failed(file, err)
    } finally {
      if (!handles) await handle?.close().catch(() => undefined)
    }
  }

  /** A write of `file` failed: the journal turns itself off (one warning); what to say of it. */
  private failed(file: string, err: unknown): string {
    this.disable(err)
    return `${(err as {code?: string}).code ?? (err as Error).message}: ${file}`
  }

  /** Every record of the segments, oldest first. */
  records(names = this.segments()): JournalRecord[] {
    return this.parsed(names, () => true)
  }

  /**
   * What a request's lookup needs (src/journal/gate.ts), without parsing the whole journal: the operations whose
   * record line contains one of `needles` (JSON text as it is written: a key, a match hash, `"reference":"…"`),
   * every later operation under the same key, and their outcomes, oldest first. Other lines are skipped unparsed
   * (a journal of a busy week holds thousands), so callers still check the fields they match on.
   */
  entriesAbout(needles: string[]): JournalEntry[] {
    const keys = new Set<string>()
    const wanted = (line: string) => {
      const key = keyOfLine(line)
      return key === undefined || keys.has(key) || needles.some((n) => line.includes(n))
    }
    const records = this.parsed(this.segments(), wanted, (r) => {
      if (r.t === 'op') keys.add(r.key)
      return keys.has(r.key)
    })
    return this.entries(records)
  }

  /** The records of the segments whose line passes `wanted` and which pass `keep`, oldest first; torn lines skipped. */
  private parsed(names: string[], wanted: (line: string) => boolean, keep: (r: JournalRecord) => boolean = () => true): JournalRecord[] {
    const out: JournalRecord[] = []
    for (const name of names) {
      let text: string
      try {
        text = readFileSync(join(this.dir, name), 'utf8')
      } catch {
        continue
      }
      for (const line of text.split('\n')) {
        if (line === '' || !wanted(line)) continue
        const r = parseRecord(line)
        if (r && (r.t === 'op' || r.t === 'outcome' || r.t === 'state') && typeof r.key === 'string' && keep(r)) out.push(r)
      }
    }
    return out
  }

  /**
   * Operations with their latest outcome, oldest first. An outcome is its operation's (`op_at`/`op_pid`; one of an
   * older pay: the key's newest operation then), and an `unknown` never replaces an answer of the service (accepted
   * or refused) on it. An operation left unknown (or with no outcome: its process was suspended, killed, or wrote
   * its `unknown` late) whose key the service accepted for the same request, in another operation, reads as that
   * answer: the service does a key once.
   */
  entries(records = this.records()): JournalEntry[] {
    const byKey = new Map<string, JournalEntry[]>()
    const order: JournalEntry[] = []
    for (const r of records) {
      if (r.t === 'op') {
        const e = {op: r}
        const ops = byKey.get(r.key)
        if (ops) ops.push(e)
        else byKey.set(r.key, [e])
        order.push(e)
        continue
      }
      const ops = byKey.get(r.key)
      if (!ops) continue
      if (r.t === 'state') {
        ops[ops.length - 1].seen = r
        continue
      }
      if (r.t !== 'outcome') continue
      let e = ops[ops.length - 1]
      if (r.op_at !== undefined) for (const o of ops) if (o.op.at === r.op_at && o.op.pid === r.op_pid) e = o
      // the service does a key once: an answer is never overridden by a later unknown, nor an acceptance by anything
      if (r.request === 'unknown' && e.outcome !== undefined && e.outcome.request !== 'unknown') continue
      if (e.outcome?.request === 'accepted' && r.request !== 'accepted') continue
      e.outcome = r
    }
    for (const ops of byKey.values()) {
      if (ops.length < 2) continue
      let accepted: JournalEntry | undefined
      for (const e of ops) if (e.outcome?.request === 'accepted') accepted = e
      if (!accepted) continue
      for (const e of ops) {
        if (e.outcome?.request !== 'accepted' && e.op.match === accepted.op.match) {
          e.outcome = accepted.outcome
          e.seen ??= accepted.seen
        }
      }
    }
    return order
  }

  /** Every segment on disk (pruning removes those past the retention), oldest first. */
  private segments(): string[] {
    try {
      return readdirSync(this.dir).filter((n) => SEGMENT.test(n)).sort()
    } catch {
      return []
    }
  }

  /**
   * Deletes segments and run files older than the retention. An operation whose outcome is still unknown is never
   * dropped: its records are carried forward into today's segment first (and the old segment is kept when that
   * write fails). Errors on single files (another process pruned them already) are ignored.
   */
  private prune(): void {
    // at most every PRUNE_EVERY_MS (a marker's time): listing and stat-ing every file is not every command's work
    const marker = join(this.dir, '.pruned')
    let since = -1
    try {
      since = this.now() - statSync(marker).mtimeMs
    } catch {
      // never pruned here
    }
    if (since >= 0 && since < PRUNE_EVERY_MS) return
    closeSync(openSync(marker, 'w', SECRET_FILE_MODE))
    utimesSync(marker, this.now() / 1000, this.now() / 1000)
    const cutoff = this.now() - this.retentionDays * DAY_MS
    const oldest = day(cutoff)
    const all = this.segments()
    const old = all.filter((n) => n.slice(0, 10) < oldest)
    if (old.length > 0 && this.carryForward(old, all)) for (const name of old) ignoreErrors(() => unlinkSync(join(this.dir, name)))
    const runs = join(this.dir, 'runs')
    const locks = join(this.dir, 'locks')
    const spools = readdirSync(this.dir).filter((n) => Object.values(SPOOL_PREFIXES).some((p) => n.startsWith(p)))
    for (const file of [...readdirSync(runs).map((n) => join(runs, n)), ...readdirSync(locks).map((n) => join(locks, n)), ...spools.map((n) => join(this.dir, n))]) {
      ignoreErrors(() => statSync(file).mtimeMs < cutoff && unlinkSync(file))
    }
    // the reference index (src/journal/references.ts): one file a bucket and a day, dropped with its day; each service's
    // directory on its own (a marker file beside them, or one directory that cannot be read, stops none of the others)
    const references = join(this.dir, 'references')
    ignoreErrors(() => {
      for (const scope of readdirSync(references)) {
        ignoreErrors(() => {
          for (const name of readdirSync(join(references, scope))) if (name.slice(2, 12) < oldest) ignoreErrors(() => unlinkSync(join(references, scope, name)))
        })
      }
    })
  }

  /** Appends the unresolved operations of `old` segments (with their latest outcome) to today's; false when it cannot. */
  private carryForward(old: string[], all: string[]): boolean {
    // segments sort by day, so the first operations of all are those of the old segments
    const oldOps = this.records(old).filter((r) => r.t === 'op').length
    const entries = this.entries(this.records(all))
    const lines: string[] = []
    for (let i = 0; i < oldOps; i++) {
      if (!unresolved(entries, i)) continue
      lines.push(JSON.stringify(entries[i].op))
      if (entries[i].outcome) lines.push(JSON.stringify(entries[i].outcome))
    }
    if (lines.length === 0) return true
    let fd: number | undefined
    try {
      fd = openSync(this.segmentFile(), 'a', SECRET_FILE_MODE)
      this.writeWhole(fd, lines.join('\n'))
      fsyncSync(fd)
      return true
    } catch {
      return false
    } finally {
      if (fd !== undefined) closeSync(fd)
    }
  }

  private disable(err: unknown): void {
    if (this.ready === false) return
    this.ready = false
    const code = (err as {code?: string}).code ?? (err as Error).message
    this.options.warn?.(`the operation journal is off: cannot write ${this.dir} (${code}); pay cannot look requests up: each is sent under a key derived from its request, so only the very same command run again reuses it`)
  }
}

/** A held lock (store.holdSender): calling it releases it; `held()` whether the lock file is still this holder's. */
type SenderLock = (() => void) & {held: () => boolean}

/**
 * A lock left by a pay process that is gone (or overdue) cannot be removed (StaleLockError: the state dir turned
 * read-only, or its permissions changed): the command ends here, nothing sent, saying what to fix, instead of
 * waiting for ever. The gate adds the key of the request that process left unknown, when the journal holds one.
 */
export class StuckLockError extends PayError {
  constructor(
    readonly stale: StaleLockError,
    dir: string,
  ) {
    super(
      `a lock left by another pay process cannot be removed: ${stale.file} (${stale.code}; ${stale.reason}); nothing was sent`,
      ExitCode.OTHER,
      `make ${dir} writable by this user again (its permissions, or a disk mounted read-only), then run the same command again`,
    )
    this.name = 'StuckLockError'
  }
}

/** Why a write was not made when the journal is off. */
export const JOURNAL_OFF = 'the journal is off'

/**
 * The request record of an operation could not be written whole and made durable: the request is not sent (exit 1,
 * the reason and the file named).
 */
export class JournalWriteError extends PayError {
  constructor(
    readonly file: string,
    cause: unknown,
  ) {
    const code = (cause as {code?: string} | undefined)?.code ?? (cause instanceof Error ? cause.message : String(cause))
    super(
      `the operation journal could not record this request before sending it (${code}: ${file}): nothing was sent`,
      ExitCode.OTHER,
      'free space on that disk (or fix its permissions), then run the same command again; or pass --idempotency-key KEY with a key of your own and keep it',
    )
    this.name = 'JournalWriteError'
  }
}

/**
 * One record line, or undefined when it is torn; NULs around it (a NUL-padded tail before it was written) ignored.
 * An outcome written before the two facts were kept apart reads as its request's outcome (succeeded: accepted).
 */
function parseRecord(line: string): JournalRecord | undefined {
  let r: JournalRecord | undefined
  try {
    r = JSON.parse(line) as JournalRecord
  } catch {
    if (!line.includes('\0')) return undefined // a torn line (a crash mid-write)
    try {
      r = JSON.parse(line.replace(/^\0+|\0+$/g, '')) as JournalRecord
    } catch {
      return undefined
    }
  }
  if (r && r.t === 'outcome' && r.request === undefined) r.request = r.state === 'succeeded' ? 'accepted' : r.state === 'failed' ? 'refused' : 'unknown'
  return r ?? undefined
}

/** entries[i]'s outcome is unknown (or never written) and no later entry with the same key settled it. */
/**
 * The key of a record line as written (`{"t":…,"at":…,"key":"…"`), without parsing it; undefined when it holds an
 * escape (such a line is parsed: rare, and then its key decides).
 */
function keyOfLine(line: string): string | undefined {
  const at = line.indexOf('"key":"')
  if (at === -1) return undefined
  const end = line.indexOf('"', at + 7)
  const key = line.slice(at + 7, end)
  return end === -1 || key.includes('\\') ? undefined : key
}

export function unresolved(entries: JournalEntry[], i: number): boolean {
  const known = (e: JournalEntry) => e.outcome !== undefined && e.outcome.request !== 'unknown'
  if (known(entries[i])) return false
  for (let j = i + 1; j < entries.length; j++) if (entries[j].op.key === entries[i].op.key && known(entries[j])) return false
  return true
}

function ignoreErrors(fn: () => unknown): void {
  try {
    fn()
  } catch {
    // ENOENT: another process removed it first; anything else: left for the next run
  }
}

/** UTC day of a time, YYYY-MM-DD. */
function day(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10)
}
