/**
 * Credentials that are really proven (issue 11): the token cache keyed by the secret too, `pay login` proving
 * with a fresh token before saving anything, env-only runs with no writable directory, a broken profiles file,
 * and the token lock (waiters wait for a slow holder; a killed holder's lock is taken over at once).
 * Pure logic in-process; what only a process shows (exit codes, files, kill -9) through the built CLI.
 */
import {spawn} from 'node:child_process'
import {mkdirSync, readFileSync, readdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it, vi} from 'vitest'
import {cacheKey, processStartTime, staleReason} from '../../src/config/token-cache.js'
import type {Sandbox} from '../../src/sandbox/index.js'
import {ROOT, json, runCli, tempConfigDir} from '../helpers/cli.js'
import {runInProcess} from '../helpers/in-process.js'
import {TEST_CLIENT_ID, TEST_CLIENT_SECRET, useScriptedServer} from '../helpers/scripted-server.js'
import {ACME, start} from '../helpers/sandbox-http.js'

const server = useScriptedServer()
let sb: Sandbox

beforeAll(async () => {
  sb = await start()
})
afterAll(async () => {
  await sb?.close()
})

const acmeEnv = (extra: Record<string, string> = {}) => ({
  PAY_BASE_URL: sb.url,
  PAY_CLIENT_ID: ACME.client_id,
  PAY_CLIENT_SECRET: ACME.client_secret,
  ...extra,
})

/** A path where no directory can be made: a regular file (works as root too, unlike chmod). */
function aFile(): string {
  const path = join(tempConfigDir(), 'not-a-dir')
  writeFileSync(path, 'x')
  return path
}

describe('the token cache key', () => {
  it('differs by secret and never contains it', () => {
    const a = cacheKey('https://x.example', 'cli_1', 'secret-one')
    expect(a).not.toBe(cacheKey('https://x.example', 'cli_1', 'secret-two'))
    expect(a).toBe(cacheKey('https://x.example/', 'cli_1', 'secret-one'))
    expect(a).not.toContain('secret')
  })

  it('keeps the secret out of the cache file', async () => {
    const dir = tempConfigDir()
    const r = await runInProcess(['account', '--json'], {env: acmeEnv({PAY_CONFIG_DIR: dir})})
    expect(r.code, r.stderr).toBe(0)
    expect(readFileSync(join(dir, 'tokens.json'), 'utf8')).not.toContain(ACME.client_secret)
  })
})

describe('a wrong secret is never covered by a cached token', () => {
  it('exits 3 while a token for the right secret is cached', async () => {
    const dir = tempConfigDir()
    const good = await runInProcess(['account', '--json'], {env: acmeEnv({PAY_CONFIG_DIR: dir})})
    expect(good.code, good.stderr).toBe(0)
    const wrong = await runInProcess(['account', '--json'], {env: acmeEnv({PAY_CONFIG_DIR: dir, PAY_CLIENT_SECRET: 'wrong-secret'})})
    expect(wrong.code).toBe(3)
    expect(json(wrong).error.code).toBe('invalid_client')
  })
})

describe('env-only runs need no writable directory', () => {
  it('works with a home that cannot hold a config dir, warning once on stderr', async () => {
    const home = aFile()
    const r = await runCli(['account', '--json'], {env: acmeEnv({HOME: home, XDG_CONFIG_HOME: undefined, PAY_CONFIG_DIR: undefined}) as Record<string, string>})
    expect(r.code, r.stderr).toBe(0)
    expect(json(r).object).toBe('account_context')
    expect(r.stderr.match(/warning: cannot write the config dir/g)).toHaveLength(1)
    expect(r.stderr).toContain('kept in memory')
  })

  it('works with PAY_CONFIG_DIR naming a file', async () => {
    const r = await runCli(['balance', '--json'], {env: acmeEnv({PAY_CONFIG_DIR: aFile()})})
    expect(r.code, r.stderr).toBe(0)
    expect(json(r).object).toBe('balance')
    expect(r.stderr.match(/warning:/g)).toHaveLength(1)
  })

  it.skipIf(process.getuid?.() === 0)('works with a read-only config dir (not as root: root writes anyway)', async () => {
    const dir = tempConfigDir()
    const {chmodSync} = await import('node:fs')
    chmodSync(dir, 0o500)
    const r = await runCli(['balance', '--json'], {env: acmeEnv({PAY_CONFIG_DIR: dir})})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain('kept in memory')
  })

  it('in-process: a cache on a file warns once per process and keeps working', async () => {
    vi.resetModules() // a fresh module: its once-per-process flag unset, whatever other tests of this file did
    const {TokenCache: FreshCache} = await import('../../src/config/token-cache.js')
    const warnings: string[] = []
    const cache = new FreshCache(aFile(), (m) => warnings.push(m))
    cache.set('k', {access_token: 't', token_type: 'Bearer', expires_at: Date.now() + 600_000})
    expect(cache.get('k')).toBeUndefined()
    expect(await cache.withLock(async () => 42)).toBe(42)
    expect(cache.usable).toBe(false)
    expect(warnings).toHaveLength(1)
    const again = new FreshCache(aFile(), (m) => warnings.push(m))
    again.set('k', {access_token: 't', token_type: 'Bearer', expires_at: Date.now() + 600_000})
    expect(again.usable).toBe(false)
    expect(warnings).toHaveLength(1)
  })
})

describe('a broken profiles file', () => {
  it('names its path and what to do', async () => {
    const dir = tempConfigDir()
    writeFileSync(join(dir, 'profiles.json'), '{"profiles": ')
    const r = await runInProcess(['balance'], {env: {PAY_CONFIG_DIR: dir}})
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(join(dir, 'profiles.json'))
    expect(r.stderr).toContain('is not a valid profiles file')
    expect(r.stderr).toMatch(/move it aside and run `pay login`/)
  })
})

describe('the token lock', () => {
  it('records holder pid and start time; judges a dead, reused or overdue holder stale', () => {
    const me = {pid: process.pid, started: processStartTime(process.pid), until: Date.now() + 60_000}
    expect(staleReason(JSON.stringify(me), Date.now())).toBeUndefined()
    expect(staleReason(JSON.stringify({...me, until: Date.now() - 1}), Date.now())).toMatch(/ran past its time/)
    expect(staleReason(JSON.stringify({...me, pid: 2 ** 22 + 12345}), Date.now())).toMatch(/is gone/)
    if (me.started !== undefined) expect(staleReason(JSON.stringify({...me, started: '1'}), Date.now())).toMatch(/another process/)
    // unreadable (an old version's lock, or caught mid-write): waited for a while, then abandoned
    expect(staleReason('', Date.now())).toBeUndefined()
    expect(staleReason('', Date.now() - 60_000)).toBe('unreadable and old')
  })

  it('20 parallel commands against a slow (6 s) token endpoint cost one token request', async () => {
    server.tokenDelayMs = 6000
    const dir = tempConfigDir()
    const env = {PAY_CONFIG_DIR: dir, PAY_BASE_URL: server.url, PAY_CLIENT_ID: TEST_CLIENT_ID, PAY_CLIENT_SECRET: TEST_CLIENT_SECRET}
    const runs = await Promise.all(Array.from({length: 20}, () => runCli(['balance', '--json'], {env, timeoutMs: 120_000})))
    for (const r of runs) expect(r.code, r.stderr).toBe(0)
    expect(server.requests.filter((q) => q.path === '/v1/oauth/token')).toHaveLength(1)
    expect(server.requests.filter((q) => q.path === '/v1/balance')).toHaveLength(20)
  }, 180_000)

  it('after kill -9 of the holder, the next command takes the lock over at once', async () => {
    const dir = tempConfigDir()
    mkdirSync(dir, {recursive: true})
    // A holder that claims it may keep the lock for 10 minutes, then dies without releasing it.
    const holder = spawn(process.execPath, ['--input-type=module', '-e', `
      const {TokenCache} = await import(${JSON.stringify(join(ROOT, 'dist/config/token-cache.js'))})
      await new TokenCache(${JSON.stringify(dir)}).withLock(() => { process.stdout.write('locked\\n'); return new Promise(() => {}) }, 600000)
    `], {stdio: ['ignore', 'pipe', 'inherit']})
    await new Promise<void>((resolve, reject) => {
      holder.stdout.on('data', (d: Buffer) => d.toString().includes('locked') && resolve())
      holder.on('exit', (code) => reject(new Error(`holder exited ${code}`)))
    })
    const record = JSON.parse(readFileSync(join(dir, 'tokens.lock'), 'utf8'))
    expect(record.pid).toBe(holder.pid)
    if (process.platform === 'linux') expect(record.started).toMatch(/^\d+$/)
    holder.kill('SIGKILL')
    await new Promise((resolve) => holder.once('exit', resolve))
    // Had the command waited for the dead holder's claimed 10 minutes, the 60 s run limit would fail it.
    const r = await runCli(['account', '--json'], {env: acmeEnv({PAY_CONFIG_DIR: dir}), timeoutMs: 60_000})
    expect(r.code, r.stderr).toBe(0)
    expect(readdirSync(dir).filter((f) => f.startsWith('tokens.lock'))).toEqual([])
  })
})
