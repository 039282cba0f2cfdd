/**
 * No import circles in src/: every `import … from`, `export … from` (type-only ones too: a circle through
 * types still ties the modules' meaning together) and `import('…')` is followed, and each strongly connected group
 * of more than one module is a circle. Issue 13 removed the one between src/runtime.ts and src/cli/* (through ApiContext).
 */
import {readFileSync, readdirSync, statSync} from 'node:fs'
import {join, relative} from 'node:path'
import {expect, it} from 'vitest'
import {ROOT} from '../helpers/cli.js'

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : []
  })
}

/** module → the local modules it imports (paths relative to the repository). */
export function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>()
  for (const file of sources(join(ROOT, 'src'))) {
    const text = readFileSync(file, 'utf8')
    const specs = [
      ...[...text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/gm)].map((m) => m[1]),
      // a lazy import('./x.js') is still an edge: the modules need each other
      ...[...text.matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g)].map((m) => m[1]),
    ]
    graph.set(
      relative(ROOT, file),
      [...new Set(specs.map((s) => relative(ROOT, join(file, '..', s)).replace(/\.js$/, '.ts')))],
    )
  }
  return graph
}

/** Strongly connected groups of more than one module (Tarjan), each sorted. */
export function circles(graph: Map<string, string[]>): string[][] {
  let index = 0
  const idx = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const out: string[][] = []
  const visit = (v: string): void => {
    idx.set(v, index)
    low.set(v, index++)
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue
      if (!idx.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!))
    }
    if (low.get(v) === idx.get(v)) {
      const group: string[] = []
      let w: string
      do {
        w = stack.pop()!
        onStack.delete(w)
        group.push(w)
      } while (w !== v)
      if (group.length > 1) out.push(group.sort())
    }
  }
  for (const v of graph.keys()) if (!idx.has(v)) visit(v)
  return out.sort((a, b) => a[0].localeCompare(b[0]))
}

it('finds a circle when there is one (the check itself works)', () => {
  const g = new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]])
  expect(circles(g)).toEqual([['a', 'b', 'c']])
})

it('src/ has no import circle', () => {
  expect(circles(importGraph())).toEqual([])
})

it('src/runtime.ts and src/cli/* are not in a circle', () => {
  expect(circles(importGraph()).flat().filter((m) => m === 'src/runtime.ts' || m.startsWith('src/cli/'))).toEqual([])
})
