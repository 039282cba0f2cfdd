/**
 * One writer to the terminal: no module of src/ but those of src/output/ names process.stdout, process.stderr or
 * console.*; everything else writes through an Output (its messages, data, prompts and progress bars: the
 * `errorStream` it hands out). Read from the source text, comments left out.
 */
import {describe, expect, it} from 'vitest'
import {codeLines, srcModules} from '../helpers/source-scan.js'

const WRITERS = 'src/output/'
/** Another engineer's room for now (issue 32: the bulk report). Remove the entry when it writes through Output. */
const LATER: Record<string, string> = {'src/bulk/': 'the bulk report is being moved to Output by its owner'}

const DIRECT = /\bprocess\.(?:stdout|stderr)\b|\bconsole\.(?:log|error|warn|info|debug|trace|dir|table)\b/

/** The lines of `text` that name a process stream or the console, comments left out. */
export function directWrites(text: string): string[] {
  return codeLines(text)
    .filter(({code}) => DIRECT.test(code))
    .map(({n, line}) => `line ${n}: ${line.trim()}`)
}

describe('one writer to the terminal', () => {
  it('no module of src/ outside src/output/ writes to process.stdout, process.stderr or the console', () => {
    const problems: string[] = []
    for (const {name, text} of srcModules()) {
      if (name.startsWith(WRITERS) || Object.keys(LATER).some((p) => name.startsWith(p))) continue
      for (const w of directWrites(text)) problems.push(`${name} ${w}`)
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
