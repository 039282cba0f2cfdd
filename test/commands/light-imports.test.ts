/**
 * The performance rule of the commands: loading a command file (for --help, or before run()) loads only
 * @oclif/core and light local modules; zod, undici, conf, cli-table3 and @inquirer/prompts come in through the
 * lazy runtime inside run(). Checked on the sources (the built files mirror them one to one) by following every
 * static, non-type import from each resource command file.
 */
import {readFileSync, readdirSync} from 'node:fs'
import {join, relative} from 'node:path'
import {expect, it} from 'vitest'
import {ROOT} from '../helpers/cli.js'

const TOPICS = ['collections', 'checkout', 'transactions', 'payouts', 'verifications', 'mandates', 'debits', 'plans', 'subscriptions', 'customers', 'virtual-accounts', 'metadata']
const SINGLE = ['account.ts', 'balance.ts']
/** Packages a command may load at the top; everything else (zod, undici, conf, …) only inside run(). */
const PACKAGES = new Set(['@oclif/core'])
/** Local modules that must never be on that path: they load zod or the client. */
const HEAVY = ['src/runtime.ts', 'src/api/endpoints.ts', 'src/api/schemas.ts', 'src/api/operation-rules.ts', 'src/client/', 'src/config/']

function staticImports(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  return [...text.matchAll(/^(?:import|export)\s+(?!type\s)[^;]*?from\s+'([^']+)'/gm)].map((m) => m[1])
}

function loadedBy(file: string, seen = new Set<string>()): Set<string> {
  for (const spec of staticImports(file)) {
    const resolved = spec.startsWith('.') ? relative(ROOT, join(file, '..', spec)).replace(/\.js$/, '.ts') : spec
    if (seen.has(resolved)) continue
    seen.add(resolved)
    if (spec.startsWith('.')) loadedBy(join(ROOT, resolved), seen)
  }
  return seen
}

it('every resource command loads only @oclif/core and light local modules at the top', () => {
  const files = [...TOPICS.flatMap((t) => readdirSync(join(ROOT, 'src/commands', t)).map((f) => join(ROOT, 'src/commands', t, f))), ...SINGLE.map((f) => join(ROOT, 'src/commands', f))]
  expect(files.length).toBe(25)
  for (const file of files) {
    const loaded = [...loadedBy(file)]
    for (const mod of loaded) {
      if (mod.startsWith('src/')) expect(HEAVY.some((h) => mod.startsWith(h)), `${relative(ROOT, file)} loads ${mod}`).toBe(false)
      else expect(PACKAGES.has(mod) || mod.startsWith('@oclif/core/') || mod.startsWith('node:'), `${relative(ROOT, file)} loads ${mod}`).toBe(true)
    }
  }
})

it('the MCP SDK loads only when `pay mcp` serves: not at the top of its command, never through the runtime or its bundle', () => {
  const top = [...loadedBy(join(ROOT, 'src/commands/mcp.ts'))]
  for (const mod of top) {
    if (mod.startsWith('src/')) expect(HEAVY.some((h) => mod.startsWith(h)) || mod.startsWith('src/mcp/'), `src/commands/mcp.ts loads ${mod}`).toBe(false)
    else expect(PACKAGES.has(mod) || mod.startsWith('@oclif/core/') || mod.startsWith('node:'), `src/commands/mcp.ts loads ${mod}`).toBe(true)
  }
  const runtime = [...loadedBy(join(ROOT, 'src/runtime.ts'))]
  expect(runtime.filter((m) => m.startsWith('src/mcp/') || m.startsWith('@modelcontextprotocol/'))).toEqual([])
  // the --print-config path: no SDK either
  expect([...loadedBy(join(ROOT, 'src/mcp/config.ts'))]).toEqual([])
  expect(readFileSync(join(ROOT, 'dist/runtime.cjs'), 'latin1')).not.toContain('@modelcontextprotocol')
})
