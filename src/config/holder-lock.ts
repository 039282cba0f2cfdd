/**
 * A lock file that records its holder (pid, the process's start time, and until when it may hold the lock), created
 * with O_EXCL. Another process waits while the holder may legitimately hold it, and takes over at once a lock whose
 * holder is gone (kill -9), whose pid now names another process, or which ran past its time. Used by the token
 * cache (one token request at a time) and the operation journal (one sender per request).
 */
import {closeSync, linkSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync} from 'node:fs'
import {randomUUID} from '../base/digest.js'
import {SECRET_FILE_MODE} from './paths.js'

/** A lock file without a readable holder record (an old version's, or one caught mid-write) is abandoned after this. */
const LOCK_UNREADABLE_STALE_MS = 10_000

/** What the lock file records about its holder. */
export interface LockHolder {
  pid: number
  /** The holder's process start time as the OS reports it (Linux: /proc starttime), to tell a reused pid. */
  started?: string
  /** Unix ms until which the holder may legitimately keep the lock (its whole time budget). */
  until: number
  /** A nonce of this holding: the holder checks that the file still holds its own record (HolderLock.holds). */
  token?: string
}

/**
 * A lock judged stale (its holder gone or overdue) that cannot be removed: renaming it aside failed with something
 * other than "someone else took it over first" (EACCES, EPERM, EROFS: a state dir made read-only). Waiting for it
 * would never end; the caller says so instead.
 */
export class StaleLockError extends Error {
  constructor(
    readonly file: string,
    readonly code: string,
    /** Why the lock is stale (staleReason). */
    readonly reason: string,
  ) {
    super(`a stale lock cannot be removed: ${file} (${code}; ${reason})`)
    this.name = 'StaleLockError'
  }
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

/** This process's start time, read once: a create takes two locks (its request's and its service's reference lock). */
let ownStart: {value: string | undefined} | undefined
function ownStartTime(): string | undefined {
  ownStart ??= {value: processStartTime(process.pid)}
  return ownStart.value
}

/** Whether process `pid` still runs (EPERM: it does, under another user). */
export function processAlive(pid: number): boolean {
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

export class HolderLock {
  constructor(
    readonly file: string,
    /** node:fs's renameSync (tests make it fail, as a read-only directory does for a user). */
    private readonly rename: typeof renameSync = renameSync,
  ) {}

  /** Creates the lock file with our holder record and returns that record; throws EEXIST while another holds it. */
  lock(holdMs: number): string {
    const fd = openSync(this.file, 'wx', SECRET_FILE_MODE)
    const holder: LockHolder = {pid: process.pid, started: ownStartTime(), until: Date.now() + holdMs, token: randomUUID()}
    const text = JSON.stringify(holder)
    try {
      writeSync(fd, text)
    } finally {
      closeSync(fd)
    }
    return text
  }

  /** Removes the lock if it is still ours (an overdue holder's lock may have been taken over meanwhile). */
  unlock(mine: string): void {
    try {
      if (readFileSync(this.file, 'utf8') === mine) unlinkSync(this.file)
    } catch {
      // already gone
    }
  }

  /**
   * Whether the lock file still holds `mine` (lock's record): false once another process took it over (this one ran
   * past its lease, e.g. stopped by SIGSTOP or a sleeping laptop), or it is gone. The fence a holder checks before it
   * acts on what it decided under the lock.
   */
  holds(mine: string): boolean {
    try {
      return readFileSync(this.file, 'utf8') === mine
    } catch {
      return false
    }
  }

  /** The holder's pid as its record says (for a message), or undefined. */
  holderPid(): number | undefined {
    try {
      const pid = (JSON.parse(readFileSync(this.file, 'utf8')) as Partial<LockHolder>).pid
      return typeof pid === 'number' ? pid : undefined
    } catch {
      return undefined
    }
  }

  /** Whether the lock file exists (held, or not yet taken over). */
  exists(): boolean {
    try {
      statSync(this.file)
      return true
    } catch {
      return false
    }
  }

  /**
   * Removes a lock whose holder is gone or overdue. The lock is first renamed aside and checked to be the very
   * one judged stale, so two waiters taking over at once never remove a live lock the other has just made. A stale
   * lock that cannot be renamed (EACCES, EROFS: not ENOENT, which means another waiter took it first) throws
   * StaleLockError: it would otherwise look held forever.
   */
  takeOverIfStale(): void {
    let text: string
    let mtimeMs: number
    try {
      text = readFileSync(this.file, 'utf8')
      mtimeMs = statSync(this.file).mtimeMs
    } catch {
      return // released meanwhile
    }
    const reason = staleReason(text, mtimeMs)
    if (reason === undefined) return
    const aside = `${this.file}.${process.pid}.${randomUUID()}.stale`
    try {
      this.rename(this.file, aside)
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message
      if (code === 'ENOENT') return // someone else took it over first
      throw new StaleLockError(this.file, code, reason)
    }
    try {
      if (readFileSync(aside, 'utf8') !== text) linkSync(aside, this.file) // not the stale one: put it back
    } catch {
      // a new lock exists already; nothing to restore
    }
    try {
      unlinkSync(aside)
    } catch {
      // already gone
    }
  }
}
