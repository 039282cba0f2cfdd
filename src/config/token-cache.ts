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
// sha256 and randomUUID without node:crypto (~3.5 ms of start-up to load): src/base/digest.ts
import {randomUUID, sha256Hex} from '../base/digest.js'
import {mkdirSync, readFileSync, renameSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {CONFIG_DIR_MODE, SECRET_FILE_MODE} from './paths.js'
import {HolderLock} from './holder-lock.js'

export interface CachedToken {
  access_token: string
  token_type: string
  /** Unix milliseconds when the service says the token expires. */
  expires_at: number
}

/** A cached token is reused until this long before it expires. */
export const REFRESH_MARGIN_MS = 60_000

/** The cache's key; `secretSha256` stands in for a secret not at hand (kept in the OS keyring: only its hash is). */
export function cacheKey(baseUrl: string, clientId: string, clientSecret: string | undefined, secretSha256?: string): string {
  const secretHash = clientSecret === undefined && secretSha256 ? secretSha256 : sha256Hex(clientSecret ?? '')
  return sha256Hex(`${baseUrl.replace(/\/+$/, '')}\n${clientId}\n${secretHash}`).slice(0, 32)
}

export {type LockHolder, processStartTime, staleReason} from './holder-lock.js'

/** Errors that say the directory cannot hold our files (as opposed to a race with another process). */
function isUnwritable(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code
  return code === 'EACCES' || code === 'EPERM' || code === 'EROFS' || code === 'ENOTDIR' || code === 'EEXIST' || code === 'ENOSPC' || code === 'EDQUOT' || code === 'ENOENT'
}

let warnedUnwritable = false

export class TokenCache {
  readonly file: string
  private readonly holder: HolderLock
  private writable = true

  constructor(
    private readonly dir: string,
    /** Told (once per process) that the directory cannot be written and tokens stay in memory. */
    private readonly onUnwritable?: (message: string) => void,
  ) {
    this.file = join(dir, 'tokens.json')
    this.holder = new HolderLock(join(dir, 'tokens.lock'))
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
        held = this.holder.lock(holdMs)
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
          if (!isUnwritable(err)) throw err
          this.unwritable(err)
          break
        }
        try {
          this.holder.takeOverIfStale()
        } catch (stuck) {
          // a dead holder's lock in a directory that turned read-only: nothing to share, as when it cannot be made
          this.unwritable(stuck)
          break
        }
        if (!this.holder.exists()) continue
        await process.getBuiltinModule('node:timers/promises').setTimeout(25 + Math.random() * 25) // loaded when waited on
      }
    }
    try {
      return await fn()
    } finally {
      if (held !== undefined) this.holder.unlock(held)
    }
  }
}
