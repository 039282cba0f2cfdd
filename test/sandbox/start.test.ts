/**
 * `pay sandbox start` in-process (its run function, src/sandbox/start.ts, with the command line its class parses):
 * what it prints, the "sandbox" profile it saves, --json, --no-profile, --log, --state, a port in use, bad flags.
 * Stopped by settling its `until` instead of a signal. Signals, start-up time and the process guard stay with the
 * built CLI (test/e2e/sandbox-cli.test.ts).
 */
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {createServer} from 'node:net'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import type {Sandbox} from '../../src/sandbox/index.js'
import {startSandbox} from '../../src/sandbox/index.js'
import {runSandboxStart} from '../../src/sandbox/start.js'
import {type CliResult, tempConfigDir} from '../helpers/cli.js'
import {runCommand, runInProcess, startCommand} from '../helpers/in-process.js'
import {ACME, Client, collectionBody, tokenFor} from '../helpers/sandbox-http.js'
import {waitFor} from '../helpers/wait-for.js'

interface Started {
  sandbox: Sandbox
  stdout(): string
  /** Settles `until`, as Ctrl-C does for the command; the run's exit code and output. */
  stop(): Promise<CliResult>
}

const running: Started[] = []
afterEach(async () => {
  while (running.length) await running.pop()!.stop()
})

/** `pay sandbox start ARGS` in-process until it serves (or fails: then its result). */
async function sandboxStart(args: string[], env: Record<string, string> = {}): Promise<Started> {
  let stop!: () => void
  const until = new Promise<void>((resolve) => (stop = resolve))
  let sandbox: Sandbox | undefined
  const run = startCommand(['sandbox', 'start', ...args], ({flags, out, env}) => runSandboxStart(flags, out, {until, env, started: (s) => (sandbox = s), processGuard: false}), {env})
  let ended: CliResult | undefined
  void run.done.then((r) => (ended = r))
  await waitFor(() => sandbox ?? ended, 15_000, 'the sandbox serving')
  if (!sandbox) throw Object.assign(new Error(`pay sandbox start ended: ${ended?.code}\n${ended?.stderr}`), {result: ended})
  const started = {sandbox, stdout: run.stdout, stop: () => (stop(), run.done)}
  running.push(started)
  return started
}

/** `pay sandbox start ARGS` in-process, stopped as soon as it serves: for what happens before. */
const startOnce = (args: string[]) => runCommand(['sandbox', 'start', ...args], {run: ({flags, out, env}) => runSandboxStart(flags, out, {until: Promise.resolve(), env, processGuard: false})})

describe('pay sandbox start', () => {
  it('prints the URL and every merchant\'s credentials, saves the "sandbox" profile, serves the API; stopping says so, exit 0', async () => {
    const config = tempConfigDir()
    const sb = await sandboxStart(['--port', '0', '--settle-ms', '50'], {PAY_CONFIG_DIR: config})
    await waitFor(() => /Press Ctrl-C/.test(sb.stdout()), 5000, 'the last line')
    const url = /Sandbox listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(sb.stdout())![1]
    expect(url).toBe(sb.sandbox.url)
    for (const text of [ACME.client_id, ACME.client_secret, 'sb_globex_client', `Dashboard at ${url}/_dashboard/ (pay sandbox open)`]) expect(sb.stdout()).toContain(text)
    const profiles = JSON.parse(readFileSync(join(config, 'profiles.json'), 'utf8'))
    expect(profiles.profiles.sandbox).toEqual({base_url: url, client_id: ACME.client_id, client_secret: ACME.client_secret, webhook_secret: ACME.webhook_secret})
    const c = new Client(url, await tokenFor(url, ACME))
    expect((await c.post('/v1/collections', collectionBody())).status).toBe(201)
    // the CLI's own commands work against it through the saved profile
    const balance = await runInProcess(['balance', '--profile', 'sandbox', '--json'], {env: {PAY_CONFIG_DIR: config}})
    expect(balance.code, balance.stderr).toBe(0)
    expect(JSON.parse(balance.stdout)).toMatchObject({object: 'balance', data: expect.arrayContaining([expect.objectContaining({currency: 'KES', payout_wallet: '100000.00'})])})
    running.pop()
    const end = await sb.stop()
    expect(end.code).toBe(0)
    expect(end.stdout).toMatch(/Sandbox stopped\.\n$/)
  })

  it('--json prints one JSON object; --no-profile writes nothing; --log and --state files are written; --token-ttl', async () => {
    const config = tempConfigDir()
    const dir = tempConfigDir()
    const sb = await sandboxStart(['--port', '0', '--json', '--no-profile', '--log', join(dir, 'log.jsonl'), '--state', join(dir, 'state.json'), '--token-ttl', '30'], {PAY_CONFIG_DIR: config})
    await waitFor(() => sb.stdout().endsWith('}\n'), 5000, 'the JSON line')
    const info = JSON.parse(sb.stdout())
    expect(info.url).toBe(sb.sandbox.url)
    expect(info.profile).toBeNull()
    expect(info.merchants[0]).toMatchObject({client_id: ACME.client_id, client_secret: ACME.client_secret, webhook_secret: ACME.webhook_secret, account_refs: ['acme-main']})
    expect(info.merchants[1]).toMatchObject({client_id: 'sb_globex_client', sub_accounts_enabled: true, account_refs: ['globex-east', 'globex-west']})
    const token = await new Client(info.url).post('/v1/oauth/token', {client_id: ACME.client_id, client_secret: ACME.client_secret})
    expect(token.body.expires_in).toBe(30)
    running.pop()
    const end = await sb.stop()
    expect(end.code).toBe(0)
    expect(end.stdout.trim().split('\n')).toHaveLength(1) // nothing but the JSON, also on stopping
    expect(existsSync(join(config, 'profiles.json'))).toBe(false)
    const log = readFileSync(join(dir, 'log.jsonl'), 'utf8').trim().split('\n')
    expect(log).toHaveLength(1)
    expect(log[0]).not.toContain(ACME.client_secret)
    const state = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8'))
    expect(state.version).toBe(1)
    expect(Object.keys(state.tokens)).toHaveLength(1)
  })

  it('the dashboard\'s URL: printed (text and --json), and null with --no-dashboard', async () => {
    const json = await sandboxStart(['--port', '0', '--no-profile', '--json'])
    await waitFor(() => json.stdout().endsWith('}\n'), 5000, 'the JSON line')
    expect(JSON.parse(json.stdout()).dashboard).toBe(`${json.sandbox.url}/_dashboard/`)
    const off = await sandboxStart(['--port', '0', '--no-profile', '--json', '--no-dashboard'])
    await waitFor(() => off.stdout().endsWith('}\n'), 5000, 'the JSON line')
    expect(JSON.parse(off.stdout()).dashboard).toBeNull()
    const text = await sandboxStart(['--port', '0', '--no-profile', '--no-dashboard'])
    await waitFor(() => /Press Ctrl-C/.test(text.stdout()), 5000, 'the last line')
    expect(text.stdout()).not.toContain('Dashboard at')
  })

  it('a port in use: exit 1 naming the port and what to do', async () => {
    const held = createServer()
    await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve))
    const port = (held.address() as {port: number}).port
    try {
      const r = await startOnce(['--port', String(port), '--no-profile'])
      expect(r.code).toBe(1)
      expect(r.stderr).toMatch(new RegExp(`port ${port} is already in use`))
      expect(r.stderr).toMatch(/--port \(0 = any free port\)/)
    } finally {
      held.close()
    }
  })

  it('a --state file that is not one: exit 2 naming the file and the first bad path, left as it was; a good one loads', async () => {
    const file = join(tempConfigDir(), 'bad.json')
    writeFileSync(file, JSON.stringify({version: 1, merchants: {}}))
    const start = (state: string) => startOnce(['--port', '0', '--no-profile', '--state', state])
    const r = await start(file)
    expect(r.code, r.stderr).toBe(2)
    expect(r.stderr).toContain(file)
    expect(r.stderr).toMatch(/at clock_offset_ms/)
    expect(readFileSync(file, 'utf8')).toBe(JSON.stringify({version: 1, merchants: {}}))
    const good = join(tempConfigDir(), 'good.json')
    await (await startSandbox({statePath: good, quiet: true})).close()
    expect((await start(good)).code).toBe(0)
  })

  it('bad flags: a rate out of 0..1 names its flag (exit 2) and starts nothing', async () => {
    const r = await startOnce(['--port', '0', '--no-profile', '--fault-rate', '2', '--duplicate-rate', 'x'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/--fault-rate must be a number from 0 to 1/)
    expect(r.stderr).toMatch(/--duplicate-rate must be a number from 0 to 1/)
    expect(r.stdout).toBe('')
  })
})
