/**
 * The profile commands (pay profiles add|use|list|show|remove, pay logout, pay token: src/profiles/manage.ts)
 * in-process, through their command classes (runCommand, test/helpers/in-process.ts) or their run functions, against
 * a scripted HTTP server on loopback, in a temporary config dir.
 */
import {readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {Readable} from 'node:stream'
import {describe, expect, it} from 'vitest'
import {runProfilesAdd, runToken} from '../../src/profiles/manage.js'
import {json, tempConfigDir} from '../helpers/cli.js'
import {commandEnv, memoryOutput, runCommand, runInProcess, runWithContext} from '../helpers/in-process.js'
import {scriptedEnv, TEST_CLIENT_ID, TEST_CLIENT_SECRET, useScriptedServer} from '../helpers/scripted-server.js'

const server = useScriptedServer()

describe('profiles', () => {
  it('profiles use/remove, and logout forgets the token', async () => {
    const dir = tempConfigDir()
    const base = {PAY_CONFIG_DIR: dir}
    await runCommand(['profiles', 'add', 'a', '--base-url', server.url, '--client-id', TEST_CLIENT_ID, '--client-secret', TEST_CLIENT_SECRET], {env: base})
    await runCommand(['profiles', 'add', 'b', '--base-url', server.url, '--client-id', 'other'], {env: base})
    expect((await runCommand(['profiles', 'use', 'b'], {env: base})).code).toBe(0)
    expect(json(await runCommand(['profiles', 'list', '--json'], {env: base})).find((p: {active: boolean}) => p.active).name).toBe('b')
    expect((await runCommand(['profiles', 'use', 'zzz'], {env: base})).code).toBe(4)
    await runCommand(['profiles', 'use', 'a'], {env: base})
    expect((await runInProcess(['balance'], {env: base})).code).toBe(0)
    expect((await runCommand(['logout'], {env: base})).code).toBe(0)
    expect((await runInProcess(['balance'], {env: base})).code).toBe(0)
    expect(server.requests.filter((q) => q.path === '/v1/oauth/token')).toHaveLength(2)
    expect((await runCommand(['logout', '--all'], {env: base})).code).toBe(0)
    const shown = json(await runCommand(['profiles', 'show', 'a', '--json'], {env: base}))
    expect(shown.client_secret).toBeNull()
    expect((await runCommand(['profiles', 'remove', 'b'], {env: base})).code).toBe(0)
    expect(json(await runCommand(['profiles', 'list', '--json'], {env: base})).map((p: {name: string}) => p.name)).toEqual(['a'])
  })

  it('profiles add: checks every flag before storing anything (exit 2, naming the flag)', async () => {
    const env = {PAY_CONFIG_DIR: tempConfigDir()}
    const add = (...args: string[]) => runCommand(['profiles', 'add', ...args], {env})
    const cases: [string[], RegExp][] = [
      [['bad name!'], /NAME must be letters, digits/],
      [['a', '--base-url', 'ftp://x'], /--base-url/],
      [['a', '--webhook-signature', 'inline-rot13'], /--webhook-signature must be one of inline-hex-sha256/],
      [['sandbox', '--live'], /--live cannot mark the "sandbox" profile live/],
    ]
    for (const [args, rule] of cases) {
      const r = await add(...args)
      expect(r.code, r.stderr).toBe(2)
      expect(r.stderr).toMatch(rule)
    }
    expect(json(await runCommand(['profiles', 'list', '--json'], {env}))).toEqual([])
  })

  it('profiles add: secrets from the environment or stdin (never printed), the base URL without its trailing slash, --use', async () => {
    const env = commandEnv({PAY_SECRET_STORE: 'file', PAY_CLIENT_SECRET: 'env-secret-1', PAY_WEBHOOK_SECRET: 'whsec_env_1'})
    const io = memoryOutput(true)
    const saved = await runProfilesAdd({name: 'shop', 'base-url': `${server.url}//`, 'client-id': TEST_CLIENT_ID, 'account-ref': 'ACC_1', use: true}, io.out, {env})
    expect(saved).toMatchObject({name: 'shop', base_url: server.url, client_id: TEST_CLIENT_ID, account_ref: 'ACC_1', client_secret: '[REDACTED] (set)', webhook_secret: '[REDACTED] (set)'})
    expect(io.stdout()).not.toContain('env-secret-1')
    const file = join(env.PAY_CONFIG_DIR!, 'profiles.json')
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({active: 'shop', profiles: {shop: {client_secret: 'env-secret-1', webhook_secret: 'whsec_env_1'}}})
    expect(statSync(file).mode & 0o777).toBe(0o600)
    const text = memoryOutput(false)
    await runProfilesAdd({name: 'other', 'client-secret': '-'}, text.out, {env, stdin: Readable.from([Buffer.from('from-stdin-2\n')])})
    expect(text.stderr()).toMatch(/^Saved profile "other" in .*profiles\.json/)
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.other.client_secret).toBe('from-stdin-2')
    await expect(runProfilesAdd({name: 'empty', 'client-secret': '-'}, text.out, {env, stdin: Readable.from([])})).rejects.toThrow(/--client-secret - reads the secret from stdin, which was empty/)
  })

  it('profiles add: a config dir that is a file names the path and what to do, exit 1, no raw EEXIST', async () => {
    const file = join(tempConfigDir(), 'not-a-dir')
    writeFileSync(file, '')
    const r = await runCommand(['profiles', 'add', 'x', '--base-url', 'http://127.0.0.1:9', '--client-id', 'id_x'], {env: {PAY_CONFIG_DIR: file}})
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(`cannot create the config dir ${file} to save profiles (EEXIST: a file is in the way)`)
    expect(r.stderr).toMatch(/PAY_CONFIG_DIR/)
  })

  it('profiles show: flag > environment > profile with the source of each, secrets as where they live; an unknown NAME exits 4', async () => {
    const dir = tempConfigDir()
    await runCommand(['profiles', 'add', 'a', '--base-url', server.url, '--client-id', TEST_CLIENT_ID, '--client-secret', TEST_CLIENT_SECRET, '--account-ref', 'ACC_P', '--use'], {env: {PAY_CONFIG_DIR: dir, PAY_SECRET_STORE: 'file'}})
    const shown = json(await runCommand(['profiles', 'show', '--json', '--account-ref', 'ACC_FLAG'], {env: {PAY_CONFIG_DIR: dir, PAY_WEBHOOK_SECRET: 'whsec_env'}}))
    expect(shown).toMatchObject({profile: 'a', profile_found: true, base_url: server.url, account_ref: 'ACC_FLAG', client_secret: '[REDACTED] (set)', webhook_secret: '[REDACTED] (set)', config_dir: dir})
    expect(shown.sources).toMatchObject({baseUrl: 'profile', accountRef: 'flag', clientSecret: 'profile', webhookSecret: 'env'})
    expect(JSON.stringify(shown)).not.toContain(TEST_CLIENT_SECRET)
    const missing = await runCommand(['profiles', 'show', 'nope'], {env: {PAY_CONFIG_DIR: dir}})
    expect(missing.code).toBe(4)
    expect(missing.stderr).toContain('no profile named "nope"')
  })

  it('logout --all forgets the secrets of every profile and says how many; without a profiles file, none', async () => {
    const dir = tempConfigDir()
    const env = {PAY_CONFIG_DIR: dir, PAY_SECRET_STORE: 'file'}
    expect(json(await runCommand(['logout', '--all', '--json'], {env}))).toEqual({tokens_forgotten: 'all', profiles_cleared: 0})
    for (const name of ['a', 'b']) await runCommand(['profiles', 'add', name, '--client-id', 'c', '--client-secret', 's', '--webhook-secret', 'w'], {env})
    const r = await runCommand(['logout', '--all'], {env})
    expect(r.stderr).toContain('Forgot every cached token and the secrets of 2 profile(s).')
    const stored = JSON.parse(readFileSync(join(dir, 'profiles.json'), 'utf8')).profiles
    expect([stored.a.client_secret, stored.b.webhook_secret, stored.a.client_id]).toEqual([undefined, undefined, 'c'])
  })

  it('token: a new token, then the cached one (one token request); text prints the token alone on stdout', async () => {
    const env = scriptedEnv(server)
    const first = await runWithContext((ctx) => runToken(ctx).then(() => 0), {env, json: true})
    expect(json(first)).toMatchObject({token_type: 'Bearer', cached: false, access_token: expect.any(String), expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/)})
    const again = await runWithContext((ctx) => runToken(ctx).then(() => 0), {env})
    expect(again.stdout).toBe(`${json(first).access_token}\n`)
    expect(again.stderr).toMatch(/cached token, expires /)
    expect(server.requests.filter((q) => q.path === '/v1/oauth/token')).toHaveLength(1)
  })
})
