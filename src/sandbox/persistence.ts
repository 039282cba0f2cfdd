/** --state FILE: load at start, save (debounced, async, atomic rename) after changes and at close. */
import {existsSync} from 'node:fs'
import {readFile, rename, unlink, writeFile} from 'node:fs/promises'
import {InputError} from '../base/errors.js'
import {reportBug} from './faults.js'
import type {State} from './state.js'

/**
 * The state saved in `path`, or undefined when there is no such file (it is created by the first save). A file
 * that is not a state file (not JSON, cut short, of another shape) is refused, naming the file and the first bad
 * path (exit 2), and never rewritten: nothing is saved unless the file was loaded or did not exist.
 */
export async function loadState(path: string): Promise<State | undefined> {
  if (!existsSync(path)) return undefined
  const refuse = (rule: string) => InputError.one('--state', `${path} ${rule}`, 'give the file a sandbox saved, or a path that does not exist yet (a new state is saved there); the file was left as it is')
  let raw: unknown
  try {
    raw = JSON.parse(await readFile(path, 'utf8'))
  } catch (err) {
    throw refuse(`is not a sandbox state file: ${(err as Error).message}`)
  }
  const {stateSchema} = await import('./state-schema.js')
  const parsed = stateSchema.safeParse(raw)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw refuse(`is not a sandbox state file (version 1): at ${issue.path.map(String).join('.') || '(top)'}: ${issue.message}`)
  }
  return raw as State
}

export class Persister {
  private timer?: NodeJS.Timeout
  private writing: Promise<void> = Promise.resolve()
  private renames: Promise<void> = Promise.resolve()
  private generation = 0
  private dirty = false
  /** How long the last save took: saves are spaced at least ten times that apart, so a large state costs at most ~10% of the time. */
  private lastWriteMs = 0

  constructor(
    private readonly path: string,
    private readonly state: () => State,
    private readonly delayMs = 100,
  ) {}

  schedule = (): void => {
    this.dirty = true
    if (this.timer) return
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.flush().catch((err: Error) => reportBug('could not save the sandbox state:', err.message))
    }, Math.max(this.delayMs, 10 * this.lastWriteMs))
    this.timer.unref()
  }

  /**
   * Saves now if anything changed. Each save takes a snapshot (JSON.stringify, synchronous) and writes it to its
   * own temporary file, then renames it over the state file unless a newer save has started meanwhile: the
   * final save at close never waits for an older write still on its way to the disk.
   */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer)
      this.timer = undefined
    }
    if (!this.dirty) return this.writing
    this.dirty = false
    const generation = ++this.generation
    const started = Date.now()
    const text = JSON.stringify(this.state())
    const tmp = `${this.path}.${process.pid}.${generation}.tmp`
    const write = (async () => {
      await writeFile(tmp, text, {mode: 0o600})
      // renames run one at a time, as writes finish; each renames only if its snapshot is still the newest
      // (an older write finishing later removes its file): the newest snapshot is the one left in place
      const step = this.renames.then(async () => {
        if (generation === this.generation) await rename(tmp, this.path)
        else await unlink(tmp).catch(() => {})
      })
      this.renames = step.catch(() => {})
      await step
      this.lastWriteMs = Date.now() - started
    })()
    this.writing = write
    return write
  }
}
