/**
 * The access-token cache: one 0600 JSON file `tokens.json` in the config dir, keyed by a hash of base URL, client
 * id and a hash of the client secret (so it also serves credentials that come only from the environment, and a
 * token fetched with one secret is never handed to a run with another). The secret itself is never stored.
 * Writes go to a temporary file that is renamed over the old one, so a reader never sees half a file and two
 * processes refreshing at once cannot corrupt it; a lock file keeps them from both asking for a token.
 *
 * When the directory cannot be created or written (a read-only home, PAY_CONFIG_DIR naming a file), the cache
 * degrades to nothing: the caller keeps its token in memory for the process and is told once (`onUnwritable`).
 */
// sha256 and randomUUID without node:crypto (~3.5 ms of start-up to load): src/client/digest.ts
import {randomUUID, sha256Hex} from '../client/digest.js'
import {closeSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync, writeSync} from 'node:fs'
import {join} from 'node:path'
import {CONFIG_DIR_MODE, SECRET_FILE_MODE} from './paths.js'

export interface CachedToken {
  access_token: string
  token_type: string
  /** Unix milliseconds when the service says the token expires. */
  expires_at: number
}

/** A cached token is reused until this long before it expires. */
export const REFRESH_MARGIN_MS = 60_000

/** A lock file without a readable holder record (an old version's, or one caught mid-write) is abandoned after this. */
const LOCK_UNREADABLE_STALE_MS = 10_000

/** The cache's key; `secretSha256` stands in for a secret not at hand (kept in the OS keyring: only its hash is). */
export function cacheKey(baseUrl: string, clientId: string, clientSecret: string | undefined, secretSha256?: string): string {
  const secretHash = clientSecret === undefined && secretSha256 ? secretSha256 : sha256Hex(clientSecret ?? '')
  return sha256Hex(`${baseUrl.replace(/\/+$/, '')}\n${clientId}\n${secretHash}`).slice(0, 32)
}

/** What the lock file records about its holder. */
export interface LockHolder {
  pid: number
  /** The holder's process start time as the OS reports it (Linux: /proc starttime), to tell a reused pid. */
  started?: string
  /** Unix ms until which the holder may legitimately keep the lock (its token request's whole time budget). */
  until: number
}

/** Start time of a process as the OS records it, or undefined where that cannot be read (non-Linux). */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // fields after the command name (which may hold spaces and parentheses): state is field 3, starttime field 22
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
  } catch {
    return undefined
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Why a lock file no longer protects anything, or undefined while its holder may still legitimately hold it. */
export function staleReason(text: string, mtimeMs: number, now = Date.now()): string | undefined {
  let holder: Partial<LockHolder> | undefined
  try {
    holder = JSON.parse(text) as Partial<LockHolder>
  } catch {
    holder = undefined
  }
  if (!holder || typeof holder.pid !== 'number' || typeof holder.until !== 'number') {
    return now - mtimeMs > LOCK_UNREADABLE_STALE_MS ? 'unreadable and old' : undefined
  }
  if (!processAlive(holder.pid)) return `holder ${holder.pid} is gone`
  if (holder.started !== undefined) {
    const started = processStartTime(holder.pid)
    if (started !== undefined && started !== holder.started) return `pid ${holder.pid} now belongs to another process`
  }
  if (now > holder.until) return `holder ${holder.pid} ran past its time`
  return undefined
}

/** Errors that say the directory cannot hold our files (as opposed to a race with another process). */
function isUnwritable(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code
  return code === 'EACCES' || code === 'EPERM' || code === 'EROFS' || code === 'ENOTDIR' || code === 'EEXIST' || code === 'ENOSPC' || code === 'EDQUOT' || code === 'ENOENT'
}

let warnedUnwritable = false

export class TokenCache {
  readonly file: string
  private readonly lockFile: string
  private writable = true

  constructor(
    private readonly dir: string,
    /** Told (once per process) that the directory cannot be written and tokens stay in memory. */
    private readonly onUnwritable?: (message: string) => void,
  ) {
    this.file = join(dir, 'tokens.json')
    this.lockFile = join(dir, 'tokens.lock')
  }

  private readAll(): Record<string, CachedToken> {
    try {
      const parsed: unknown = JSON.parse(readFileSync(this.file, 'utf8'))
      return parsed && typeof parsed === 'object' ? (parsed as Record<string, CachedToken>) : {}
    } catch {
      return {}
    }
  }

  /** A token still usable at `now` (more than the margin before expiry), or undefined. */
  get(key: string, now = Date.now()): CachedToken | undefined {
    const entry = this.readAll()[key]
    if (!entry || typeof entry.access_token !== 'string' || typeof entry.expires_at !== 'number') return undefined
    return entry.expires_at - REFRESH_MARGIN_MS > now ? entry : undefined
  }

  set(key: string, token: CachedToken): void {
    this.update((all) => {
      all[key] = token
    })
  }

  delete(key?: string): void {
    this.update((all) => {
      if (key === undefined) for (const k of Object.keys(all)) delete all[k]
      else delete all[key]
    })
  }

  /** False once the directory proved unwritable in this process. */
  get usable(): boolean {
    return this.writable
  }

  private unwritable(err: unknown): void {
    this.writable = false
    if (warnedUnwritable) return
    warnedUnwritable = true
    const code = (err as NodeJS.ErrnoException).code ?? 'error'
    this.onUnwritable?.(`cannot write the config dir ${this.dir} (${code}); the access token is kept in memory for this run only (set PAY_CONFIG_DIR to a writable directory to cache it)`)
  }

  private ensureDir(): boolean {
    if (!this.writable) return false
    try {
      mkdirSync(this.dir, {recursive: true, mode: CONFIG_DIR_MODE})
      return true
    } catch (err) {
      this.unwritable(err)
      return false
    }
  }

  private update(change: (all: Record<string, CachedToken>) => void): void {
    if (!this.ensureDir()) return
    const all = this.readAll()
    const now = Date.now()
    for (const [k, v] of Object.entries(all)) if (!v || v.expires_at < now) delete all[k]
    change(all)
    const tmp = `${this.file}.${process.pid}.${randomUUID()}.tmp`
    try {
      writeFileSync(tmp, JSON.stringify(all), {mode: SECRET_FILE_MODE})
      renameSync(tmp, this.file)
    } catch (err) {
      if (!isUnwritable(err)) throw err
      this.unwritable(err)
    }
  }

  /** Creates the lock file with our holder record and returns that record; throws EEXIST while another holds it. */
  private lock(holdMs: number): string {
    const fd = openSync(this.lockFile, 'wx', SECRET_FILE_MODE)
    const holder: LockHolder = {pid: process.pid, started: processStartTime(process.pid), until: Date.now() + holdMs}
    const text = JSON.stringify(holder)
    try {
      writeSync(fd, text)
    } finally {
      closeSync(fd)
    }
    return text
  }

  /** Removes the lock if it is still ours (an overdue holder's lock may have been taken over meanwhile). */
  private unlock(mine: string): void {
    try {
      if (readFileSync(this.lockFile, 'utf8') === mine) unlinkSync(this.lockFile)
    } catch {
      // already gone
    }
  }

  /**
   * Removes a lock whose holder is gone or overdue. The lock is first renamed aside and checked to be the very
   * one judged stale, so two waiters taking over at once never remove a live lock the other has just made.
   */
  private takeOverIfStale(): void {
    let text: string
    let mtimeMs: number
    try {
      text = readFileSync(this.lockFile, 'utf8')
      mtimeMs = statSync(this.lockFile).mtimeMs
    } catch {
      return // released meanwhile
    }
    if (staleReason(text, mtimeMs) === undefined) return
    const aside = `${this.lockFile}.${process.pid}.${randomUUID()}.stale`
    try {
      renameSync(this.lockFile, aside)
    } catch {
      return // someone else took it over first
    }
    try {
      if (readFileSync(aside, 'utf8') !== text) linkSync(aside, this.lockFile) // not the stale one: put it back
    } catch {
      // a new lock exists already; nothing to restore
    }
    try {
      unlinkSync(aside)
    } catch {
      // already gone
    }
  }

  /**
   * Runs `fn` holding the refresh lock (a file created with O_EXCL that records our pid, start time and how long we
   * may hold it: `holdMs`, the whole time budget of a token request). A waiter waits as long as the holder may
   * legitimately take; a lock whose holder died (kill -9) or overran its budget is taken over at once.
   * Without a writable directory there is nothing to share, and `fn` runs unlocked.
   */
  async withLock<T>(fn: () => Promise<T>, holdMs = 60_000): Promise<T> {
    let held: string | undefined
    while (held === undefined && this.ensureDir()) {
      try {
        held = this.lock(holdMs)
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
          if (!isUnwritable(err)) throw err
          this.unwritable(err)
          break
        }
        this.takeOverIfStale()
        if (!existsLock(this.lockFile)) continue
        await process.getBuiltinModule('node:timers/promises').setTimeout(25 + Math.random() * 25) // loaded when waited on
      }
    }
    try {
      return await fn()
    } finally {
      if (held !== undefined) this.unlock(held)
    }
  }
}

function existsLock(path: string): boolean {
  try {
    statSync(path)
    return true
  } catch {
    return false
  }
}
