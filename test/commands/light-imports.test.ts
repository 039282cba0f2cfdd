/**
 * The performance rule of the resource commands: a command file loads only @oclif/core and light local modules
 * at the top; zod, undici, cli-table3 and @inquirer/prompts come in through the lazy runtime inside run().
 * Checked on the sources (the built files mirror them one to one).
 */
import {readFileSync, readdirSync} from 'node:fs'
import {join, relative} from 'node:path'
import {expect, it} from 'vitest'
import {ROOT} from '../helpers/cli.js'

const TOPICS = ['collections', 'checkout', 'transactions', 'payouts', 'verifications', 'mandates', 'debits', 'plans', 'subscriptions', 'customers', 'virtual-accounts']
const ALLOWED = new Set(['@oclif/core', 'src/cli/base-command.ts', 'src/cli/flags.ts', 'src/cli/resource-flags.ts'])

function staticImports(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  return [...text.matchAll(/^import\s+(?!type\s)[^;]*?from\s+'([^']+)'/gm)].map((m) => m[1])
}

it('every resource command imports only @oclif/core and light modules statically', () => {
  const files = TOPICS.flatMap((t) => readdirSync(join(ROOT, 'src/commands', t)).map((f) => join(ROOT, 'src/commands', t, f)))
  expect(files.length).toBe(21)
  for (const file of files) {
    for (const spec of staticImports(file)) {
      const resolved = spec.startsWith('.') ? relative(ROOT, join(file, '..', spec)).replace(/\.js$/, '.ts') : spec
      expect(ALLOWED.has(resolved), `${relative(ROOT, file)} imports ${spec}`).toBe(true)
    }
  }
  // and those light modules import nothing heavy themselves
  for (const light of ['src/cli/flags.ts', 'src/cli/resource-flags.ts']) expect(staticImports(join(ROOT, light))).toEqual(['@oclif/core'])
})
