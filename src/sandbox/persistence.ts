/** --state FILE: load at start, save (debounced, async, atomic rename) after changes and at close. */
import {existsSync} from 'node:fs'
import {readFile, rename, writeFile} from 'node:fs/promises'
import type {State} from './state.js'

export async function loadState(path: string): Promise<State | undefined> {
  if (!existsSync(path)) return undefined
  const parsed = JSON.parse(await readFile(path, 'utf8')) as State
  if (parsed?.version !== 1 || typeof parsed.merchants !== 'object') throw new Error(`${path} is not a sandbox state file (version 1)`)
  return parsed
}

export class Persister {
  private timer?: NodeJS.Timeout
  private writing: Promise<void> = Promise.resolve()
  private dirty = false

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
      void this.flush()
    }, this.delayMs)
    this.timer.unref()
  }

  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer)
      this.timer = undefined
    }
    this.writing = this.writing.then(async () => {
      if (!this.dirty) return
      this.dirty = false
      const tmp = `${this.path}.${process.pid}.tmp`
      await writeFile(tmp, JSON.stringify(this.state()), {mode: 0o600})
      await rename(tmp, this.path)
    })
    return this.writing
  }
}
