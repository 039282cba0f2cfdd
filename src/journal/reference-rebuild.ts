/**
 * The reference index (src/journal/references.ts) made again from the run files, when it was lost beside them
 * (rebuildReferenceIndex: one readdir decides; the run journal's reader is loaded only then). All or nothing: under
 * one lock for every service (REBUILD_LOCK), a marker (REBUILDING_MARKER) is made durable first, so that an index a
 * rebuild has only begun (under way in another process, or cut off by a kill or a failed write) reads as lost, never as
 * complete; then every row record of every run file, of every run and salt, is added to the index of its run's service
 * as the run wrote it (RunLines), into today's bucket files, fsync'd; then the `.rebuilt` marker (so that runs which
 * indexed nothing are not read again), and only then the first marker is removed. A command finding the index lost
 * waits for the lock, and rebuilds only when the index is still lost then. Lines already there (a rebuild cut off, or
 * one whose lock was taken over past its lease) are written again: harmless, a key's lines agree. What the run files
 * never held is not rebuilt: the references a killed run had reserved but not yet recorded (README: the journal's
 * limits), and the body hash of a row whose outcome is unknown (a rebuilt line has none: a single command with that
 * body is refused, naming the row's key, instead of resuming it).
 */
import {closeSync, fsyncSync, mkdirSync, openSync, readdirSync, unlinkSync} from 'node:fs'
import {join} from 'node:path'
import {operationList} from '../api/operations.js'
import {PayError} from '../base/errors.js'
import {ExitCode} from '../base/exit-codes.js'
import {CONFIG_DIR_MODE, SECRET_FILE_MODE} from '../config/paths.js'
import {BUCKETS, PROMISE_WAIT_TOLD_MS, REBUILDING_MARKER, REBUILD_LOCK, REBUILT_MARKER, ReferenceIndex, RunLines, bucketOf, namesIn, runHeader} from './references.js'
import type {JournalStore} from './store.js'

/**
 * The index lost beside the run files it was written with (a cleanup, a partial restore): before a lookup reads it,
 * every row record of every run file is added to it again (reference-rebuild.ts), so that a lost index never reads
 * as "no promise". Costs one readdir of `journal/references/` on a command with a reference (and one of `runs/` while
 * there is no index); the rebuild leaves a marker there, so a journal whose runs indexed nothing is rebuilt once.
 */
export async function rebuildReferenceIndex(store: JournalStore, notice: (text: string) => void = () => undefined): Promise<void> {
  if (!store.open() || !indexLost(join(store.dir, 'references'))) return
  await rebuild(store, notice)
}

/** Whether the index's directory is missing or empty (nothing, not even the rebuild's marker), or a rebuild's begun and not ended. */
function indexLost(root: string): boolean {
  try {
    const names = namesIn(root)
    return names === undefined || names.length === 0 || names.includes(REBUILDING_MARKER)
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT'
  }
}

/** Rows buffered per run file before a write. */
const BATCH = 4096

async function rebuild(store: JournalStore, notice: (text: string) => void): Promise<void> {
  const runs = join(store.dir, 'runs')
  let names: string[]
  try {
    names = readdirSync(runs).filter((n) => n.endsWith('.ndjson'))
  } catch {
    return // no run files: nothing was ever indexed
  }
  if (names.length === 0) return // the common case without an index: no import, no module loader (a command's start-up)
  const root = join(store.dir, 'references')
  // one rebuild at a time, whatever the service: the others wait for it, then find the index whole (no lock: a state
  // dir whose locks cannot be made; the marker still keeps a partial index lost)
  const release = await store.holdSender(REBUILD_LOCK, REBUILD_LEASE_MS, (pid) =>
    notice(`waiting: another pay process${pid === undefined ? '' : ` (pid ${pid})`} is rebuilding the reference index of earlier bulk runs; nothing is sent before it is whole`), PROMISE_WAIT_TOLD_MS)
  try {
    if (indexLost(root)) {
      notice(`the reference index of earlier bulk runs is missing: rebuilding it from their run files before anything is sent`)
      await rebuildUnderLock(store, root, runs, names)
    }
  } finally {
    release?.()
  }
}

/** Every service's lines from every run file, between the markers (see the top of this file). */
async function rebuildUnderLock(store: JournalStore, root: string, runs: string, names: string[]): Promise<void> {
  attempt(root, () => {
    mkdirSync(root, {recursive: true, mode: CONFIG_DIR_MODE})
    durableFile(join(root, REBUILDING_MARKER))
    durableDir(root)
  })
  const written = new Set<string>()
  // the run journal's reader, loaded only when an index was lost beside run files
  const {RUN_FILE, RunJournal} = await import('./run-journal.js')
  names = names.filter((n) => RUN_FILE.test(n)).sort()
  for (const name of names) {
    const header = runHeader(join(runs, name))
    const endpoint = header && operationList.find((o) => o.command === header.operation)?.endpoint
    if (!header || endpoint === undefined) continue
    const index = new ReferenceIndex(store, {endpoint, baseUrl: header.base_url, clientId: header.client_id, accountRef: header.account_ref})
    const run = name.slice(0, 32)
    const lines = new RunLines(index.scope, run, header.file ?? 'a bulk file')
    let buffers: string[] = Array.from({length: BUCKETS}, () => '')
    let n = 0
    const flush = () => {
      if (n === 0) return
      attempt(index.dir, () => mkdirSync(index.dir, {recursive: true, mode: CONFIG_DIR_MODE}))
      written.add(index.dir)
      buffers.forEach((text, b) => {
        if (text === '') return
        const failed = store.appendLine(index.fileOf(b), text, true)
        if (failed !== undefined) throw cannotRebuild(failed)
      })
      buffers = Array.from({length: BUCKETS}, () => '')
      n = 0
    }
    for await (const o of new RunJournal(store, run).rowRecords()) {
      if (o.reference === null) continue
      buffers[bucketOf(o.reference)] += lines.of(o.reference, o.idempotency_key, o.line, o)
      if (++n >= BATCH) flush()
    }
    flush()
  }
  // every line's file made durable in its directory, and the marker of an ended rebuild, before the first marker goes
  attempt(root, () => {
    for (const dir of written) durableDir(dir)
    durableFile(join(root, REBUILT_MARKER))
    durableDir(root)
    try {
      unlinkSync(join(root, REBUILDING_MARKER))
    } catch (err) {
      // removed already by a rebuild that ended first (this one's lock taken over past its lease): the index is whole
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
    }
    durableDir(root)
  })
}

/** How long a rebuild holds its lock before another process may take it over (one stopped meanwhile: SIGSTOP). */
const REBUILD_LEASE_MS = 10 * 60_000

/** Creates a file (kept when there) and fsyncs it. */
function durableFile(file: string): void {
  const fd = openSync(file, 'a', SECRET_FILE_MODE)
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/** Fsyncs a directory: the names made or removed in it are on disk. */
function durableDir(dir: string): void {
  const fd = openSync(dir, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

function attempt(where: string, fn: () => void): void {
  try {
    fn()
  } catch (err) {
    throw cannotRebuild(`${(err as NodeJS.ErrnoException).code ?? (err as Error).message}: ${where}`)
  }
}

/** The index cannot be made again: nothing is sent (a lookup without it would read "no promise"). */
function cannotRebuild(why: string): PayError {
  return new PayError(
    `the reference index of earlier bulk runs is missing and could not be rebuilt from their run files (${why}); nothing was sent`,
    ExitCode.OTHER,
    "make pay's state dir writable by this user again (its permissions, or free space on its disk), then run the same command again: it rebuilds the index first",
  )
}
