/** `pay sandbox start` as a real process through the built CLI (npm run build first). */
import {type ChildProcess, spawn} from 'node:child_process'
import {existsSync, mkdtempSync, readFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {BIN, ROOT, cleanEnv, runCli, tempConfigDir} from '../helpers/cli.js'
import {ACME, Client, collectionBody, tokenFor} from '../helpers/sandbox-http.js'

const built = existsSync(join(ROOT, 'dist', 'commands', 'sandbox', 'start.js'))
if (!built) console.warn('sandbox CLI tests skipped: run `npm run build` first (dist/commands/sandbox/start.js is missing)')

interface Running {
  child: ChildProcess
  stdout: () => string
  stderr: () => string
  exited: Promise<number | null>
}

let running: Running | undefined
afterEach(() => {
  if (running && running.child.exitCode === null) running.child.kill('SIGKILL')
  running = undefined
})

function launch(args: string[], env: Record<string, string>): Running {
  const child = spawn(process.execPath, [BIN, 'sandbox', 'start', ...args], {cwd: ROOT, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe']})
  let out = ''
  let err = ''
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d))
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return {child, stdout: () => out, stderr: () => err, exited}
}

async function waitFor(r: Running, pattern: RegExp, timeoutMs = 15_000): Promise<RegExpMatchArray> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const m = r.stdout().match(pattern)
    if (m) return m
    if (r.child.exitCode !== null || Date.now() > deadline) throw new Error(`no ${pattern} in output\nstdout: ${r.stdout()}\nstderr: ${r.stderr()}`)
    await new Promise((res) => setTimeout(res, 10))
  }
}

describe.skipIf(!built)('pay sandbox start (built CLI)', () => {
  it('prints the URL and credentials, saves the "sandbox" profile, serves the API, and stops on SIGTERM', async () => {
    const config = tempConfigDir()
    const started = Date.now()
    running = launch(['--port', '0', '--settle-ms', '50'], {PAY_CONFIG_DIR: config})
    const [, url] = await waitFor(running, /Sandbox listening on (http:\/\/127\.0\.0\.1:\d+)/)
    const startupMs = Date.now() - started
    await waitFor(running, /Press Ctrl-C/)
    expect(running.stdout()).toContain(ACME.client_id)
    expect(running.stdout()).toContain(ACME.client_secret)
    expect(running.stdout()).toContain('sb_globex_client')
    // start-up of the process (node + oclif + sandbox) well under a few seconds; the sandbox itself is a few ms
    expect(startupMs).toBeLessThan(5000)

    const profiles = JSON.parse(readFileSync(join(config, 'profiles.json'), 'utf8'))
    expect(profiles.profiles.sandbox).toEqual({base_url: url, client_id: ACME.client_id, client_secret: ACME.client_secret, webhook_secret: ACME.webhook_secret})

    const c = new Client(url, await tokenFor(url, ACME))
    expect((await c.post('/v1/collections', collectionBody())).status).toBe(201)

    // the CLI's own commands work against it through the saved profile
    const balance = await runCli(['balance', '--profile', 'sandbox', '--json'], {env: {PAY_CONFIG_DIR: config}})
    expect(balance.code).toBe(0)
    expect(JSON.parse(balance.stdout)).toMatchObject({object: 'balance', data: expect.arrayContaining([expect.objectContaining({currency: 'KES', payout_wallet: '100000.00'})])})

    running.child.kill('SIGTERM')
    expect(await running.exited).toBe(0)
    expect(running.stdout()).toContain('Sandbox stopped.')
  })

  it('--json prints one JSON object; --no-profile writes nothing; --log and --state files are written', async () => {
    const config = tempConfigDir()
    const dir = mkdtempSync(join(tmpdir(), 'sb-cli-'))
    running = launch(['--port', '0', '--json', '--no-profile', '--log', join(dir, 'log.jsonl'), '--state', join(dir, 'state.json'), '--token-ttl', '30'], {PAY_CONFIG_DIR: config})
    const [line] = await waitFor(running, /^\{.*\}\n/)
    const info = JSON.parse(line)
    expect(info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(info.profile).toBeNull()
    expect(info.merchants[0]).toMatchObject({client_id: ACME.client_id, client_secret: ACME.client_secret, webhook_secret: ACME.webhook_secret, account_refs: ['acme-main']})
    expect(info.merchants[1]).toMatchObject({client_id: 'sb_globex_client', sub_accounts_enabled: true, account_refs: ['globex-east', 'globex-west']})
    const token = await new Client(info.url).post('/v1/oauth/token', {client_id: ACME.client_id, client_secret: ACME.client_secret})
    expect(token.body.expires_in).toBe(30)
    running.child.kill('SIGINT')
    expect(await running.exited).toBe(0)
    expect(existsSync(join(config, 'profiles.json'))).toBe(false)
    const log = readFileSync(join(dir, 'log.jsonl'), 'utf8').trim().split('\n')
    expect(log).toHaveLength(1)
    expect(log[0]).not.toContain(ACME.client_secret)
    const state = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8'))
    expect(state.version).toBe(1)
    expect(Object.keys(state.tokens)).toHaveLength(1)
  })

  it('a sandbox bug, in a request or outside any, is logged; the process keeps serving (the process guard)', async () => {
    running = launch(['--port', '0', '--json', '--no-profile'], {PAY_CONFIG_DIR: tempConfigDir()})
    const [line] = await waitFor(running, /^\{.*\}\n/)
    const {url} = JSON.parse(line)
    const c = new Client(url, await tokenFor(url, ACME))
    await new Client(url).call('PUT', '/_sandbox/faults', {body: {bug_next: 2}})
    for (let i = 0; i < 2; i++) {
      const r = await c.get('/v1/balance')
      expect(r.status).toBe(500)
      expect(r.body.error.code).toBe('internal_error')
    }
    // each simulated bug also threw outside any request (only the process-level guard can survive that)
    await new Promise((res) => setTimeout(res, 200))
    expect(running.child.exitCode).toBeNull()
    expect((await c.get('/v1/balance')).status).toBe(200)
    expect(running.stderr()).toMatch(/sandbox bug \(the sandbox keeps running\)[\s\S]*outside a request/)
    running.child.kill('SIGTERM')
    expect(await running.exited).toBe(0)
  })

  it('SIGTERM in the middle of a load stops it promptly and saves --state with every committed collection', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-cli-'))
    const statePath = join(dir, 'state.json')
    running = launch(['--port', '0', '--json', '--no-profile', '--state', statePath, '--rate-write-per-minute', '0'], {PAY_CONFIG_DIR: tempConfigDir()})
    const [line] = await waitFor(running, /^\{.*\}\n/)
    const {url} = JSON.parse(line)
    const c = new Client(url, await tokenFor(url, ACME))
    const created = new Set<string>()
    let stop = false
    const worker = async () => {
      while (!stop) {
        try {
          const r = await c.post('/v1/collections', collectionBody())
          if (r.status === 201) created.add(r.body.id)
        } catch {
          return // the connection closed under us: the sandbox is stopping
        }
      }
    }
    const workers = Array.from({length: 8}, worker)
    while (created.size < 300) await new Promise((res) => setTimeout(res, 20))
    const signalled = Date.now()
    running.child.kill('SIGTERM')
    const code = await running.exited
    const stopMs = Date.now() - signalled
    stop = true
    await Promise.all(workers)
    expect(code).toBe(0)
    // generous for a loaded 2-core machine: the bench measures the real figure (goal 2 s)
    expect(stopMs).toBeLessThan(10_000)
    const saved = JSON.parse(readFileSync(statePath, 'utf8'))
    for (const id of created) expect(saved.collections[id], id).toBeDefined()
  })

  it('reports a port in use clearly', async () => {
    const config = tempConfigDir()
    running = launch(['--port', '0', '--json', '--no-profile'], {PAY_CONFIG_DIR: config})
    const [line] = await waitFor(running, /^\{.*\}\n/)
    const port = new URL(JSON.parse(line).url).port
    const second = await runCli(['sandbox', 'start', '--port', port, '--no-profile'], {env: {PAY_CONFIG_DIR: config}})
    expect(second.code).not.toBe(0)
    expect(second.stderr).toMatch(/already in use/)
  })
})

describe.skipIf(!built)('pay sandbox control commands (built CLI)', () => {
  it('succeed, fail, approve, transfer, advance, webhook, events and reset drive a running sandbox', async () => {
    const {start, acmeClient, mandateBody, until} = await import('../helpers/sandbox-http.js')
    const sb = await start({settleMs: 20, tokenTtlSeconds: 10 * 86_400})
    try {
      const env = {PAY_CONFIG_DIR: tempConfigDir()}
      const pay = (...args: string[]) => runCli(['sandbox', ...args, '--url', sb.url], {env})
      const acme = await acmeClient(sb)
      const held = (await acme.post('/v1/collections', collectionBody({mobile: '254700000008'}))).body
      const ok = await pay('succeed', held.id)
      expect(ok.code).toBe(0)
      expect(ok.stdout.trim()).toBe(`${held.id} succeeded`)
      const again = await pay('fail', held.id)
      expect(again.code).toBe(5) // 409: the shared base class's exit code (test/commands/sandbox.test.ts)
      expect(again.stderr).toMatch(/invalid_state/)

      await acme.post('/v1/mandates', mandateBody({mobile: '254700000018', merchant_reference: 'cli-md'}))
      const md = (await acme.get('/v1/mandates?merchant_reference=cli-md')).body.mandate_id
      expect((await pay('approve', md)).stdout).toContain('succeeded')

      const bank = (await acme.post('/v1/collections', collectionBody({payment_rail: 'bank_transfer', mobile: undefined, provider: undefined, amount: '10.00'}))).body
      const t = await pay('transfer', bank.virtual_account.account_number, '--amount', '10.00', '--json')
      expect(JSON.parse(t.stdout).collection.status).toBe('succeeded')

      expect((await acme.get('/v1/balance?currency=KES')).body.data[0].collection_wallet_held).not.toBe('0.00')
      expect((await pay('advance', '1d')).stdout).toMatch(/\+86400 s/)
      expect((await acme.get('/v1/balance?currency=KES')).body.data[0].collection_wallet_held).toBe('0.00')

      const hook = await pay('webhook', '--client', 'sb_acme_client', '--target', 'http://127.0.0.1:9/x')
      expect(hook.stdout).toContain('events go to http://127.0.0.1:9/x')
      expect(sb.state.clients.sb_acme_client.webhook_url).toBe('http://127.0.0.1:9/x')
      await until(() => sb.events.length > 0, 2000)
      const events = await pay('events', '--type', 'collection.succeeded')
      expect(events.stdout).toMatch(/EVT_[A-Z0-9]{24}\s+collection\.succeeded/)

      expect((await pay('reset')).stdout).toContain('reset')
      expect(sb.state.clients.sb_acme_client.webhook_url).toBeNull()
      const down = await runCli(['sandbox', 'reset', '--url', 'http://127.0.0.1:9'], {env})
      expect(down.code).toBe(7)
      expect(down.stderr).toMatch(/cannot reach the sandbox/)
    } finally {
      await sb.close()
    }
  })
})

describe.skipIf(!built)('the CLI against sandbox faults', () => {
  it('a dropped answer after commit: pay retries with the same Idempotency-Key and gets the replay; one collection exists', async () => {
    const {start} = await import('../helpers/sandbox-http.js')
    const sb = await start()
    try {
      await new Client(sb.url).call('PUT', '/_sandbox/faults', {body: {drop_next: 1}})
      const env = {PAY_CONFIG_DIR: tempConfigDir(), PAY_BASE_URL: sb.url, PAY_CLIENT_ID: ACME.client_id, PAY_CLIENT_SECRET: ACME.client_secret}
      const r = await runCli(['collections', 'create', '--amount', '10.00', '--currency', 'KES', '--mobile', '254700000008', '--provider', 'mpesa', '--reference', 'cli-drop', '--json'], {env})
      expect(r.code, r.stderr).toBe(0)
      const created = JSON.parse(r.stdout)
      const all = Object.values(sb.state.collections).filter((c) => c.merchant_reference === 'cli-drop')
      expect(all).toHaveLength(1)
      expect(created.id).toBe(all[0].id)
      const posts = sb.requests.filter((e) => e.path === '/v1/collections' && e.method === 'POST')
      expect(posts.length).toBe(2)
      expect(posts[0].dropped).toBe(true)
      expect(posts[1].headers['idempotency-key']).toBe(posts[0].headers['idempotency-key'])
    } finally {
      await sb.close()
    }
  })
})
