/**
 * One writer to the terminal: no module of src/ but those of src/output/ names process.stdout, process.stderr or
 * console.*; everything else writes through an Output (its messages, data, prompts and progress bars: the
 * `errorStream` it hands out). Read from the source text, comments left out.
 */
import {readFileSync, readdirSync} from 'node:fs'
import {join, relative} from 'node:path'
import {describe, expect, it} from 'vitest'

const ROOT = join(import.meta.dirname, '..', '..')
const WRITERS = 'src/output/'
/** Another engineer's room for now (issue 32: the bulk report). Remove the entry when it writes through Output. */
const LATER: Record<string, string> = {'src/bulk/': 'the bulk report is being moved to Output by its owner'}

const DIRECT = /\bprocess\.(?:stdout|stderr)\b|\bconsole\.(?:log|error|warn|info|debug|trace|dir|table)\b/

function sources(dir: string): string[] {
  const out: string[] = []
  for (const entry of readdirSync(dir, {withFileTypes: true})) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...sources(path))
    else if (entry.name.endsWith('.ts')) out.push(path)
  }
  return out
}

/** The lines of `text` that name a process stream or the console, comments left out. */
export function directWrites(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' '))
  const found: string[] = []
  code.split('\n').forEach((line, i) => {
    const bare = line.replace(/(^|[^:'"`])\/\/.*$/, '$1')
    if (DIRECT.test(bare)) found.push(`line ${i + 1}: ${line.trim()}`)
  })
  return found
}

describe('one writer to the terminal', () => {
  it('no module of src/ outside src/output/ writes to process.stdout, process.stderr or the console', () => {
    const problems: string[] = []
    for (const file of sources(join(ROOT, 'src'))) {
      const name = relative(ROOT, file).split('\\').join('/')
      if (name.startsWith(WRITERS) || Object.keys(LATER).some((p) => name.startsWith(p))) continue
      for (const w of directWrites(readFileSync(file, 'utf8'))) problems.push(`${name} ${w}`)
    }
    expect(problems).toEqual([])
  })

  it('catches the forms it is about, and not comments', () => {
    expect(directWrites("process.stderr.write('x')")).toHaveLength(1)
    expect(directWrites('const o = {output: process.stdout}')).toHaveLength(1)
    expect(directWrites("console.error('bug', err)")).toHaveLength(1)
    expect(directWrites("// process.stderr.write('x')\n/* console.log() */\nout.info('x')")).toEqual([])
  })
})
