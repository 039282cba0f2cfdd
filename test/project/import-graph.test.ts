/**
 * The rooms of src/ and their floors. Every `import … from`, `export … from` (type-only ones too: a circle through
 * types still ties the modules' meaning together) and `import('…')` is followed:
 *   - no circle: no strongly connected group of more than one module;
 *   - no upward arrow: a room (a folder of src/, or a file at its top) imports only rooms below it in LAYERS.
 * docs/architecture.md shows the same order.
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

/**
 * The rooms of src/, from the top floor down. A room may import only the rooms after it. To add a room, put it
 * where what it imports is below it and what imports it is above.
 */
export const LAYERS = [
  'hooks', // oclif's command_not_found hook: imports only the Output it writes with
  'commands', // the oclif commands: parse flags, call a run function
  'mcp', // `pay mcp`: the operation specs and some commands as tools
  'cli', // the oclif shell the commands share: base classes, flags, completion, the direct path
  'smoke', // `pay smoke` and `pay smoke --contract`
  'flows', // `pay flow run`, and the step report smoke shares
  'reconcile', // `pay reconcile`
  'find', // `pay find`
  'profiles', // `pay profiles` run functions over config's store
  'runtime', // src/runtime.ts: what commands load at run time, in one lazily imported module
  'bulk', // --from-file runs
  'journal', // the operation journal: single requests and bulk runs
  'sandbox', // the local emulator of the service
  'webhooks', // signatures, events, the listener, tunnels, delivery history
  'operation', // running one operation: input, checks, prompts, confirmation, --wait
  'output', // the terminal: formats, tables, errors, progress
  'client', // requests to the service: transport, auth, the request policy
  'config', // settings, profiles, token cache, locks
  'api', // the contract: endpoints, schemas, operation specs, money
  'base', // what every room stands on: errors, exit codes, redaction, digests, text rules
]

/** The room of a module path (`src/cli/flags.ts` → `cli`, `src/runtime.ts` → `runtime`). */
export function roomOf(module: string): string {
  const parts = module.split('/')
  return parts.length === 2 ? parts[1].replace(/\.ts$/, '') : parts[1]
}

/** Arrows between rooms that do not point down the list: `from -> to (a module -> the module it imports)`. */
export function upwardArrows(graph: Map<string, string[]>, layers: string[]): string[] {
  const found: string[] = []
  for (const [from, targets] of graph) {
    for (const to of targets) {
      if (!to.startsWith('src/')) continue
      const a = roomOf(from)
      const b = roomOf(to)
      if (a === b) continue
      if (!layers.includes(a) || !layers.includes(b) || layers.indexOf(a) > layers.indexOf(b)) found.push(`${a} -> ${b} (${from} -> ${to})`)
    }
  }
  return found.sort()
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

it('finds an upward arrow when there is one (the check itself works)', () => {
  const g = new Map([['src/a/x.ts', ['src/b/y.ts']], ['src/b/y.ts', ['src/top.ts']], ['src/top.ts', []]])
  expect(upwardArrows(g, ['top', 'a', 'b'])).toEqual(['b -> top (src/b/y.ts -> src/top.ts)'])
  expect(upwardArrows(g, ['a', 'b', 'top'])).toEqual([])
  expect(upwardArrows(new Map([['src/new/z.ts', ['src/a/x.ts']]]), ['a'])).toEqual(['new -> a (src/new/z.ts -> src/a/x.ts)'])
})

it('every room of src/ is in LAYERS, and none is listed that is gone', () => {
  const rooms = new Set([...importGraph().keys()].map(roomOf))
  expect([...rooms].sort()).toEqual([...LAYERS].sort())
})

it('src/ has no upward arrow: each room imports only rooms below it in LAYERS', () => {
  expect(upwardArrows(importGraph(), LAYERS)).toEqual([])
})
