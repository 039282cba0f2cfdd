/**
 * Shell completion: the candidates engine in-process (over the real manifest's command surface), the cache of
 * the service's lists, and the generated scripts exercised in bash and zsh through a `pay` on PATH.
 */
import {execFile, spawnSync} from 'node:child_process'
import {mkdtempSync, writeFileSync, chmodSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {Config} from '@oclif/core'
import {beforeAll, describe, expect, it} from 'vitest'
import {cachedValues, CACHE_TTL_MS} from '../../src/cli/completion-cache.js'
import {complete, profileOf} from '../../src/cli/completion.js'
import {surfaceOf, type CommandSurface} from '../../src/cli/surface.js'
import {BIN, ROOT, tempConfigDir} from '../helpers/cli.js'
import {runCommand} from '../helpers/in-process.js'
import {useSandbox} from '../helpers/command-harness.js'

const h = useSandbox()
let surface: CommandSurface[]
beforeAll(async () => {
  surface = surfaceOf((await Config.load(ROOT)).commands)
})

describe('candidates (src/cli/completion.ts)', () => {
  it('commands, topics, flags, fixed values and list sources', () => {
    expect(complete(surface, [''])).toMatchObject({words: expect.arrayContaining(['collections', 'payouts', 'api', 'completion'])})
    expect(complete(surface, ['collections', ''])).toEqual({words: ['create', 'get']})
    expect(complete(surface, ['payouts', 'create', '--am'])).toEqual({words: ['--amount']})
    expect(complete(surface, ['payouts', 'create', '--amount', '5', '--a'])).toEqual({words: ['--account-name', '--account-number', '--account-ref', '--all'].filter((w) => surface.find((c) => c.id === 'payouts:create')!.flags.some((f) => `--${f.name}` === w))})
    expect(complete(surface, ['customers', 'get', '-o', 'c'])).toEqual({words: ['csv']})
    expect(complete(surface, ['collections', 'create', '--provider', 'mp'])).toEqual({source: 'providers', prefix: 'mp'})
    expect(complete(surface, ['payouts', 'create', '--bank-code', ''])).toEqual({source: 'banks', prefix: ''})
    expect(complete(surface, ['subscriptions', 'create', '--plan', ''])).toEqual({source: 'plans', prefix: ''})
    expect(complete(surface, ['balance', '-p', ''])).toEqual({source: 'profiles', prefix: ''})
    expect(profileOf(['balance', '--profile', 'live', '--currency', ''])).toBe('live')
  })

  it('an argument with choices: pay webhook trigger <TAB> offers the event types, after flags too; -o wide is offered', () => {
    const all = complete(surface, ['webhook', 'trigger', ''])
    expect(all).toEqual({words: expect.arrayContaining(['collection.succeeded', 'payout.failed', 'subscription.charge_failed'])})
    expect((all as {words: string[]}).words).toHaveLength(20)
    expect(complete(surface, ['webhook', 'trigger', 'payout.'])).toEqual({words: ['payout.processing', 'payout.succeeded', 'payout.failed']})
    expect(complete(surface, ['webhook', 'trigger', '--to', 'http://x', 'mandate.s'])).toEqual({words: ['mandate.succeeded']})
    // its one argument given: nothing more to offer; an argument without choices: nothing (ids, files)
    expect(complete(surface, ['webhook', 'trigger', 'payout.failed', ''])).toEqual({words: []})
    expect(complete(surface, ['collections', 'get', ''])).toEqual({words: []})
    expect(complete(surface, ['customers', 'get', '-o', 'w'])).toEqual({words: ['wide']})
  })

  it('values a flag\'s help lists as a|b|c, checked by its run function or the schema, are offered too', () => {
    expect(complete(surface, ['journal', '--outcome', ''])).toEqual({words: ['accepted', 'refused', 'unknown']})
    expect(complete(surface, ['mandates', 'create', '--frequency', 'M'])).toEqual({words: ['MONTHLY']})
    expect(complete(surface, ['checkout', 'create', '--rail', ''])).toEqual({words: ['mobile_money', 'card', 'bank_transfer']})
    // a help value that is no list offers nothing
    expect(complete(surface, ['journal', '--state', ''])).toEqual({words: []})
  })

  it('pay commands --json describes the same surface: types, required, choices, list sources, examples', async () => {
    const r = await runCommand(['commands', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const all = JSON.parse(r.stdout) as CommandSurface[]
    const payout = all.find((c) => c.id === 'payouts:create')!
    const flag = (n: string) => payout.flags.find((f) => f.name === n)!
    expect(flag('amount')).toMatchObject({type: 'string', required: true})
    expect(flag('provider')).toMatchObject({values: 'providers', required: false})
    expect(flag('retries')).toMatchObject({type: 'integer', default: 3, global: true})
    expect(flag('output').choices).toEqual(['table', 'json', 'ndjson', 'csv', 'tsv', 'yaml', 'wide'])
    expect(flag('yes')).toMatchObject({type: 'boolean', char: 'y'})
    expect(payout.examples[0].command).toMatch(/^pay payouts create /)
    expect(all.some((c) => c.id === 'completion:complete')).toBe(false) // hidden
  })
})

describe('the list cache (src/cli/completion-cache.ts)', () => {
  it('fetches once, then serves from the cache until it is 10 minutes old', async () => {
    const dir = tempConfigDir()
    let calls = 0
    const fetch = async () => (calls++, ['mpesa', 'airtel'])
    expect(await cachedValues(dir, 'providers', fetch, 1000)).toEqual(['mpesa', 'airtel'])
    expect(await cachedValues(dir, 'providers', fetch, 1000 + CACHE_TTL_MS - 1)).toEqual(['mpesa', 'airtel'])
    expect(calls).toBe(1)
    await cachedValues(dir, 'providers', fetch, 1000 + CACHE_TTL_MS)
    expect(calls).toBe(2)
    // a failed refresh keeps what was known
    expect(await cachedValues(dir, 'providers', async () => undefined, 1000 + 3 * CACHE_TTL_MS)).toEqual(['mpesa', 'airtel'])
  })
})

const has = (shell: string) => spawnSync(shell, ['-c', 'true']).status === 0

describe('the generated scripts in real shells', () => {
  function pathWithPay(): string {
    const bin = mkdtempSync(join(tmpdir(), 'pay-bin-'))
    writeFileSync(join(bin, 'pay'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`)
    chmodSync(join(bin, 'pay'), 0o755)
    return `${bin}:${process.env.PATH}`
  }
  // asynchronous: the sandbox answers from this process, so a blocking spawnSync would starve it
  const run = (shell: string, script: string, env: Record<string, string> = {}) =>
    new Promise<{code: number | null; lines: string[]; stderr: string}>((resolve, reject) => {
      execFile(shell, ['-c', script], {encoding: 'utf8', env: {...process.env, PATH: pathWithPay(), ...h.env, ...env}, timeout: 60_000}, (err, stdout, stderr) => {
        if (err && err.killed) reject(err)
        else resolve({code: err ? (err.code as number) : 0, lines: stdout.split('\n').filter(Boolean), stderr})
      })
    })

  it('bash: commands, flags, -o values and the service\'s providers (one request, then the cache)', async () => {
    const bash = (words: string) => run('bash', `source <(pay completion bash); COMP_WORDS=(pay ${words}); COMP_CWORD=$((\${#COMP_WORDS[@]}-1)); _pay_completion; printf '%s\\n' "\${COMPREPLY[@]}"`)
    expect((await bash('collections cr')).lines).toEqual(['create'])
    expect((await bash('customers collections MC_ACME0001 --li')).lines).toEqual(['--limit'])
    expect((await bash('plans list -o y')).lines).toEqual(['yaml'])
    const before = h.requests((e) => e.path === '/v1/metadata/mobile_providers').length
    expect((await bash("collections create --provider ''")).lines).toEqual(['mpesa', 'airtel', 'mtn'])
    expect((await bash('collections create --provider m')).lines).toEqual(['mpesa', 'mtn'])
    expect(h.requests((e) => e.path === '/v1/metadata/mobile_providers').length).toBe(before + 1)
  })

  it.skipIf(!has('zsh'))('zsh: the same through compadd; profiles from the profiles file', async () => {
    const dir = tempConfigDir()
    for (const name of ['alpha', 'beta']) await runCommand(['profiles', 'add', name, '--base-url', 'https://api.example.com'], {env: {PAY_CONFIG_DIR: dir}})
    const zsh = (words: string, env: Record<string, string> = {}) =>
      run('zsh', `compadd() { while [[ $1 != -- ]]; do shift; done; shift; print -l -- "$@" }; _files() { print FILES }; source <(pay completion zsh); words=(pay ${words}); CURRENT=\${#words}; _pay`, env)
    expect((await zsh("payouts ''")).lines).toEqual(['create', 'get'])
    expect((await zsh('payouts create --curr')).lines).toEqual(['--currency'])
    expect((await zsh("balance --profile ''", {PAY_CONFIG_DIR: dir})).lines).toEqual(['alpha', 'beta'])
    expect((await zsh("customers get MC_ACME0001 ''")).lines).toEqual(['FILES']) // an argument: the shell's own completion
  })
})
