/**
 * The access-token cache: one 0600 JSON file `tokens.json` in the config dir, keyed by base URL and client id
 * (so it also serves credentials that come only from the environment).
 * Writes go to a temporary file that is renamed over the old one, so a reader never sees half a file and two
 * processes refreshing at once cannot corrupt it; a short-lived lock file keeps them from both asking for a token.
 */
import {createHash, randomUUID} from 'node:crypto'
import {mkdirSync, openSync, closeSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'
import {CONFIG_DIR_MODE, SECRET_FILE_MODE} from './paths.js'

export interface CachedToken {
  access_token: string
  token_type: string
  /** Unix milliseconds when the service says the token expires. */
  expires_at: number
}

/** A cached token is reused until this long before it expires. */
export const REFRESH_MARGIN_MS = 60_000
const LOCK_STALE_MS = 10_000

export function cacheKey(baseUrl: string, clientId: string): string {
  return createHash('sha256').update(`${baseUrl.replace(/\/+$/, '')}\n${clientId}`).digest('hex').slice(0, 32)
}

export class TokenCache {
  readonly file: string
  private readonly lockFile: string

  constructor(private readonly dir: string) {
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

  private update(change: (all: Record<string, CachedToken>) => void): void {
    mkdirSync(this.dir, {recursive: true, mode: CONFIG_DIR_MODE})
    const all = this.readAll()
    const now = Date.now()
    for (const [k, v] of Object.entries(all)) if (!v || v.expires_at < now) delete all[k]
    change(all)
    const tmp = `${this.file}.${process.pid}.${randomUUID()}.tmp`
    writeFileSync(tmp, JSON.stringify(all), {mode: SECRET_FILE_MODE})
    renameSync(tmp, this.file)
  }

  /**
   * Runs `fn` holding the refresh lock (a file created with O_EXCL). Waits up to `waitMs` for another process
   * to finish; a lock older than 10 s is considered abandoned. Runs `fn` anyway if the lock cannot be had.
   */
  async withLock<T>(fn: () => Promise<T>, waitMs = 5000): Promise<T> {
    mkdirSync(this.dir, {recursive: true, mode: CONFIG_DIR_MODE})
    const deadline = Date.now() + waitMs
    let held = false
    while (!held) {
      try {
        closeSync(openSync(this.lockFile, 'wx', SECRET_FILE_MODE))
        held = true
      } catch {
        try {
          if (Date.now() - statSync(this.lockFile).mtimeMs > LOCK_STALE_MS) unlinkSync(this.lockFile)
        } catch {
          // the other process released it meanwhile
        }
        if (Date.now() > deadline) break
        await sleep(25 + Math.random() * 25)
      }
    }
    try {
      return await fn()
    } finally {
      if (held) {
        try {
          unlinkSync(this.lockFile)
        } catch {
          // already gone
        }
      }
    }
  }
}
