/**
 * `pay completion complete -- WORDS` and `pay completion SHELL` in-process (src/cli/complete.ts, src/cli/completion.ts):
 * the candidates printed one a line, a list's values from the service once and then the cache, profiles from the
 * profiles file, and nothing a shell would run. The scripts in real shells: test/cli/completion.test.ts.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {Config} from '@oclif/core'
import {beforeAll, describe, expect, it} from 'vitest'
import {runCompletionComplete} from '../../src/cli/complete.js'
import {runCompletion} from '../../src/cli/completion.js'
import {ROOT, tempConfigDir} from '../helpers/cli.js'
import {useSandbox} from '../helpers/command-harness.js'
import {commandEnv, memoryOutput, runCommand} from '../helpers/in-process.js'

const h = useSandbox()
let commands: Awaited<ReturnType<typeof Config.load>>['commands']
beforeAll(async () => {
  commands = (await Config.load(ROOT)).commands
})

/** The candidates printed for the words, with the environment given. */
async function candidates(words: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const io = memoryOutput(false)
  await runCompletionComplete(words, io.out, {commands, userAgent: 'pay-test', env})
  return io.stdout()
}

describe('pay completion complete', () => {
  it('commands and flags from the surface; the service\'s providers: one request, then the cache', async () => {
    const env = commandEnv(h.env)
    expect(await candidates(['collections', 'cr'], env)).toBe('create\n')
    expect(await candidates(['plans', 'list', '-o', 'y'], env)).toBe('yaml\n')
    const asked = () => h.requests((e) => e.path === '/v1/metadata/mobile_providers').length
    const before = asked()
    expect(await candidates(['collections', 'create', '--provider', ''], env)).toBe('mpesa\nairtel\nmtn\n')
    expect(await candidates(['collections', 'create', '--provider', 'm'], env)).toBe('mpesa\nmtn\n')
    expect(asked()).toBe(before + 1)
  })

  it('profiles from the profiles file of the --profile given; nothing at all when the service cannot be asked', async () => {
    const dir = tempConfigDir()
    for (const name of ['alpha', 'beta']) expect((await runCommand(['profiles', 'add', name, '--base-url', 'https://api.example.com'], {env: {PAY_CONFIG_DIR: dir}})).code).toBe(0)
    expect(await candidates(['balance', '--profile', ''], commandEnv({PAY_CONFIG_DIR: dir}))).toBe('alpha\nbeta\n')
    expect(await candidates(['payouts', 'create', '--bank-code', ''], commandEnv({PAY_CONFIG_DIR: tempConfigDir(), PAY_BASE_URL: 'http://127.0.0.1:1'}))).toBe('')
  })

  it('values of a list that hold ESC sequences, $(…), quotes, spaces or line breaks are not offered', async () => {
    const dir = tempConfigDir()
    const hostile = ['mpesa', 'mtn\u001b]0;PWNED\u0007', '$(touch /tmp/pwned)', 'a b', "it's", 'x\ny', '`id`', 'airtel', 'a;b', '*']
    writeFileSync(join(dir, 'completion-cache.json'), JSON.stringify({providers: {at: Date.now(), values: hostile}}))
    const r = await runCommand(['completion', 'complete', '--', 'collections', 'create', '--provider', ''], {env: {PAY_CONFIG_DIR: dir}})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe('mpesa\nairtel\n')
  })
})

describe('pay completion SHELL', () => {
  it('prints the script of each shell, calling `pay completion complete`; another shell is exit 2', async () => {
    for (const shell of ['bash', 'zsh', 'fish'] as const) {
      const io = memoryOutput(false)
      const script = runCompletion(shell, io.out, 'pay')
      expect(io.stdout()).toBe(script)
      expect(script).toContain('completion complete')
    }
    const bad = await runCommand(['completion', 'tcsh'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/Expected tcsh to be one of: bash, zsh, fish/)
  })
})
