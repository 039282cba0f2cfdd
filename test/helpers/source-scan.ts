/** For the tests that read src/ as text (one request policy, one writer to the terminal): its files and code lines. */
import {readFileSync, readdirSync} from 'node:fs'
import {join, relative} from 'node:path'

export const ROOT = join(import.meta.dirname, '..', '..')

/** Every .ts file under `dir`. */
export function sources(dir: string): string[] {
  const out: string[] = []
  for (const entry of readdirSync(dir, {withFileTypes: true})) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...sources(path))
    else if (entry.name.endsWith('.ts')) out.push(path)
  }
  return out
}

/** Each module of src/: its path from the repository root (with /) and its text. */
export function srcModules(): {name: string; text: string}[] {
  return sources(join(ROOT, 'src')).map((file) => ({name: relative(ROOT, file).split('\\').join('/'), text: readFileSync(file, 'utf8')}))
}

/** The lines of `text` (numbered from 1) without their comments, and each line as written. */
export function codeLines(text: string): {n: number; code: string; line: string}[] {
  const lines = text.split('\n')
  const code = text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' '))
  return code.split('\n').map((l, i) => ({n: i + 1, code: l.replace(/(^|[^:'"`])\/\/.*$/, '$1'), line: lines[i]}))
}
