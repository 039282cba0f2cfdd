/**
 * A lock file next to a file that several `pay` processes may rewrite at once (profiles.json): created with O_EXCL,
 * held for one read-change-write, removed after. Synchronous, because the stores that use it are.
 * A lock older than STALE_MS is taken to be left by a killed process and is removed.
 */
import {closeSync, openSync, statSync, unlinkSync} from 'node:fs'
import {SECRET_FILE_MODE} from './paths.js'

const STALE_MS = 10_000
const WAIT_MS = 15_000
const pause = new Int32Array(new SharedArrayBuffer(4))

export function withFileLockSync<T>(lockFile: string, fn: () => T): T {
  const deadline = Date.now() + WAIT_MS
  for (;;) {
    try {
      closeSync(openSync(lockFile, 'wx', SECRET_FILE_MODE))
      break
    } catch (err) {
      if ((err as {code?: string}).code !== 'EEXIST') throw err
      removeIfStale(lockFile)
      if (Date.now() > deadline) throw new Error(`${lockFile} is held by another pay process; remove it if none is running`)
      Atomics.wait(pause, 0, 0, 10 + Math.floor(Math.random() * 20))
    }
  }
  try {
    return fn()
  } finally {
    try {
      unlinkSync(lockFile)
    } catch {
      // removed as stale by another process: nothing to release
    }
  }
}

function removeIfStale(lockFile: string): void {
  try {
    if (Date.now() - statSync(lockFile).mtimeMs > STALE_MS) unlinkSync(lockFile)
  } catch {
    // released meanwhile
  }
}
