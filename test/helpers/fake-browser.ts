/** A stand-in browser for `--open` and `pay sandbox open`: a script writing the URL it was started with into a file. */
import {chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

/** `command` to start as the browser; `opened()` the URL it was given, once written whole (undefined before). */
export function fakeBrowser(): {command: string; opened: () => string | undefined} {
  const dir = mkdtempSync(join(tmpdir(), 'pay-browser-'))
  const file = join(dir, 'opened.txt')
  const command = join(dir, 'browser.sh')
  // written whole, then renamed: a reader never sees the file between its creation and its bytes
  writeFileSync(command, `#!/bin/sh\nprintf '%s' "$1" > '${file}.part' && mv '${file}.part' '${file}'\n`)
  chmodSync(command, 0o755)
  return {command, opened: () => (existsSync(file) ? readFileSync(file, 'utf8') : undefined)}
}
