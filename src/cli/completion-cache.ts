/**
 * The short-lived local cache of the lists completion offers (providers, banks, plans): one small JSON file in
 * the config directory, each list kept for 10 minutes. A miss costs one request (3 s timeout, no retries), never
 * one per keystroke; a failed request completes nothing. Profiles are read from the profiles file itself.
 */
import {readFileSync, renameSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import type {ValueSource} from './surface.js'

/** How long a list is kept (the completion command's help says it). */
export const CACHE_TTL_MS = 10 * 60_000
const CACHE_FILE = 'completion-cache.json'

type Cache = Partial<Record<ValueSource, {at: number; values: string[]}>>

function read(dir: string): Cache {
  try {
    return JSON.parse(readFileSync(join(dir, CACHE_FILE), 'utf8')) as Cache
  } catch {
    return {}
  }
}

/** The cached values of a list while fresh; else `fetch` once, and the answer stored. */
export async function cachedValues(dir: string, source: ValueSource, fetch: () => Promise<string[] | undefined>, now = Date.now()): Promise<string[]> {
  const cache = read(dir)
  const hit = cache[source]
  if (hit && now - hit.at < CACHE_TTL_MS && now >= hit.at) return hit.values
  const values = await fetch().catch(() => undefined)
  if (!values) return hit?.values ?? []
  cache[source] = {at: now, values}
  try {
    const tmp = join(dir, `${CACHE_FILE}.${process.pid}.tmp`)
    writeFileSync(tmp, JSON.stringify(cache), {mode: 0o600})
    renameSync(tmp, join(dir, CACHE_FILE))
  } catch {
    // an unwritable config dir: complete without caching
  }
  return values
}
