/**
 * `pay smoke` (issue 11): in-process for the checks and the report (runSmoke against the sandbox, JUnit, the
 * checklist), and the built CLI as a process for what only a process shows: env-only runs with an unwritable
 * home, exit codes, the --junit file, --money refused against a real service.
 */
import {PassThrough} from 'node:stream'
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {XMLParser} from 'fast-xml-parser'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {ApiClient} from '../../src/client/api-client.js'
import {Output} from '../../src/output/output.js'
import type {Terminal} from '../../src/output/terminal.js'
import {runSmoke} from '../../src/smoke/checks.js'
import {printStep, writeJUnitAfter, type StepResult} from '../../src/flows/report.js'
import type {Sandbox} from '../../src/sandbox/index.js'
import type {ApiContext} from '../../src/runtime.js'
import {json, runCli, tempConfigDir} from '../helpers/cli.js'
import {runCommand, runInProcess} from '../helpers/in-process.js'
import {ACME, GLOBEX, start} from '../helpers/sandbox-http.js'
import {scriptedEnv, useScriptedServer} from '../helpers/scripted-server.js'

let sb: Sandbox
beforeAll(async () => {
  sb = await start()
})
afterAll(async () => {
  await sb?.close()
})

const term = (tty: boolean): Terminal => ({stdoutIsTTY: tty, stderrIsTTY: tty, stdinIsTTY: false, color: tty, colorErr: tty, interactive: false, columns: 100})

function context(creds: {client_id: string; client_secret: string}, accountRef?: string, tty = false): {ctx: ApiContext; stdout: () => string} {
  const out = new PassThrough()
  let text = ''
  out.on('data', (d: Buffer) => (text += d.toString()))
  const settings = {baseUrl: sb.url, clientId: creds.client_id, clientSecret: creds.client_secret, accountRef}
  const client = new ApiClient({settings, userAgent: 'pay-test'})
  const ctx = {client, out: new Output(term(tty), false, out, new PassThrough()), settings: {...settings, profileName: 'test', profileFound: false, sources: {}, configDir: ''}} as ApiContext
  return {ctx, stdout: () => text}
}

const parser = new XMLParser({ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => name === 'testcase' || name === 'testsuite'})

describe('runSmoke (in-process, against the sandbox)', () => {
  it('merchant A is healthy: every step passes, each with a time', async () => {
    const {ctx} = context(ACME)
    const report = await runSmoke(ctx)
    expect(report.steps.filter((s) => s.outcome !== 'passed')).toEqual([])
    expect(report.ok).toBe(true)
    expect(report.steps.map((s) => s.name)).toEqual(expect.arrayContaining(['token (fresh)', 'account context', 'metadata: banks', 'balance', 'product: subscriptions']))
    for (const s of report.steps) expect(typeof s.ms).toBe('number')
  })

  it('merchant B (no subscriptions) reports the product as not enabled, not failed, and confirms its sub-account', async () => {
    const {ctx} = context(GLOBEX, GLOBEX.east)
    const report = await runSmoke(ctx)
    const subs = report.steps.find((s) => s.name === 'product: subscriptions')!
    expect(subs.outcome).toBe('not_enabled')
    expect(subs.detail).toMatch(/not enabled/i)
    expect(report.exit_code).toBe(0)
    expect(report.steps.find((s) => s.name === 'account context')!.detail).toContain('globex-east')
  })

  it('always asks for a fresh token, even with one in hand', async () => {
    const {ctx} = context(ACME)
    await ctx.client.token()
    const before = sb.requests.filter((r) => r.path === '/v1/oauth/token').length
    await runSmoke(ctx)
    expect(sb.requests.filter((r) => r.path === '/v1/oauth/token').length).toBe(before + 1)
  })

  it('--money: a collection waited to success, a pay link, a lookup by reference', async () => {
    const {ctx} = context(ACME)
    const report = await runSmoke(ctx, {money: {amount: '10.00', currency: 'KES', mobile: '254712345670', provider: 'mpesa', waitTimeoutSec: 30}, runId: 'money1'})
    const money = report.steps.filter((s) => s.name.startsWith('money:'))
    expect(money.map((s) => [s.name, s.outcome])).toEqual([['money: collection', 'passed'], ['money: pay link', 'passed'], ['money: lookup by reference', 'passed']])
    expect(money[0].detail).toContain('succeeded')
  })

  it('a failed collection fails the run with exit 8, naming it', async () => {
    const {ctx} = context(ACME)
    const report = await runSmoke(ctx, {money: {amount: '10.00', currency: 'KES', mobile: '254712345679', provider: 'mpesa', waitTimeoutSec: 30}, runId: 'money2'})
    expect(report.exit_code).toBe(8)
    expect(report.steps.find((s) => s.name === 'money: collection')!.detail).toMatch(/ended failed/)
    // nothing to look up: skipped, not a second failure
    expect(report.steps.find((s) => s.name === 'money: lookup by reference')).toMatchObject({outcome: 'skipped', detail: expect.stringMatching(/collection did not succeed/)})
    expect(report.steps.filter((s) => s.outcome === 'failed').map((s) => s.name)).toEqual(['money: collection'])
  })

  it('merchant B without a sub-account ref: said once at the account context, the steps that need it skipped', async () => {
    const {ctx} = context(GLOBEX)
    const report = await runSmoke(ctx, {money: {amount: '10.00', currency: 'KES', mobile: '254712345670', provider: 'mpesa', waitTimeoutSec: 30}, runId: 'noref'})
    const failed = report.steps.filter((s) => s.outcome === 'failed')
    expect(failed.map((s) => s.name)).toEqual(['account context'])
    expect(failed[0].detail).toMatch(/set PAY_ACCOUNT_REF or --account-ref .* once/)
    expect(report.exit_code).toBe(2)
    // metadata and balance never need the header: run; the rest skipped, naming why
    expect(report.steps.filter((s) => s.outcome === 'passed').map((s) => s.name)).toEqual(['token (fresh)', 'metadata: banks', 'metadata: mobile providers', 'balance'])
    const skipped = report.steps.filter((s) => s.outcome === 'skipped')
    expect(skipped.map((s) => s.name)).toEqual(expect.arrayContaining(['product: collections', 'money: collection', 'money: lookup by reference']))
    for (const s of skipped) expect(s.detail).toBe('needs a sub-account ref (see account context)')
  })

  it('a wrong secret fails the token step with exit 3 and skips the rest', async () => {
    const {ctx} = context({client_id: ACME.client_id, client_secret: 'wrong'})
    const report = await runSmoke(ctx)
    expect(report.exit_code).toBe(3)
    expect(report.steps[0]).toMatchObject({outcome: 'failed', error: {code: 'invalid_client', status: 401}})
    expect(report.steps.slice(1).every((s) => s.outcome === 'skipped')).toBe(true)
  })
})

describe('the report', () => {
  const steps: StepResult[] = [
    {suite: 'smoke', name: 'token', outcome: 'passed', ms: 12, detail: 'ok'},
    {suite: 'smoke', name: 'a <b> & "c"', outcome: 'failed', ms: 3, detail: 'bad \u001b[31m thing', exit_code: 3, error: {code: 'invalid_client', message: 'nope <x>', status: 401, request_id: 'REQ_1'}},
    {suite: 'smoke', name: 'subs', outcome: 'not_enabled', ms: 1, detail: 'Subscriptions is not enabled'},
    {suite: 'other', name: 'later', outcome: 'skipped', ms: 0},
  ]

  it('JUnit XML is well-formed, escaped, and counts every outcome', () => {
    const file = join(tempConfigDir(), 'junit.xml')
    expect(writeJUnitAfter(new Output(term(false), false, new PassThrough(), new PassThrough()), file, 'pay smoke', steps, 0)).toBe(0)
    const xml = readFileSync(file, 'utf8')
    const doc = parser.parse(xml)
    expect(doc.testsuites).toMatchObject({tests: '4', failures: '1', skipped: '2'})
    const cases = doc.testsuites.testsuite.flatMap((s: {testcase: unknown[]}) => s.testcase)
    expect(cases.map((c: {name: string}) => c.name)).toEqual(['token', 'a <b> & "c"', 'subs', 'later'])
    expect(cases[1].failure).toMatchObject({type: 'invalid_client', message: 'nope <x>'})
    expect(xml).not.toContain('\u001b')
  })

  it('a checklist with marks on a terminal, tab-separated lines off one', () => {
    for (const tty of [true, false]) {
      const sink = new PassThrough()
      let text = ''
      sink.on('data', (d: Buffer) => (text += d.toString()))
      const out = new Output({...term(tty), color: false}, false, sink, new PassThrough())
      for (const s of steps) printStep(out, s)
      const lines = text.trimEnd().split('\n')
      expect(lines).toHaveLength(4)
      if (tty) expect(lines.map((l) => l[0])).toEqual(['✓', '✗', '–', '·'])
      else expect(lines.map((l) => l.split('\t')[0])).toEqual(['ok', 'FAIL', 'not-enabled', 'skipped'])
      expect(text).not.toContain('\u001b')
    }
  })
})

describe('pay smoke (the built CLI)', () => {
  const env = (extra: Record<string, string | undefined> = {}) => ({PAY_BASE_URL: sb.url, PAY_CLIENT_ID: ACME.client_id, PAY_CLIENT_SECRET: ACME.client_secret, ...extra})

  it('passes from env vars alone with an unwritable home, one line per step', async () => {
    const home = join(tempConfigDir(), 'home-is-a-file')
    writeFileSync(home, '')
    const r = await runCli(['smoke'], {env: env({HOME: home, XDG_CONFIG_HOME: undefined, PAY_CONFIG_DIR: undefined})})
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.trimEnd().split('\n')
    expect(lines.every((l) => l.startsWith('ok\t'))).toBe(true)
    expect(lines.length).toBeGreaterThanOrEqual(12)
    expect(r.stderr).toContain('pay smoke: healthy')
  })

  it('fails with exit 3 with a wrong secret while a token for the right one is cached', async () => {
    const dir = tempConfigDir()
    expect((await runInProcess(['account'], {env: env({PAY_CONFIG_DIR: dir})})).code).toBe(0)
    const r = await runCommand(['smoke', '--json'], {env: env({PAY_CONFIG_DIR: dir, PAY_CLIENT_SECRET: 'wrong-secret'})})
    expect(r.code).toBe(3)
    const report = json(r)
    expect(report).toMatchObject({ok: false, exit_code: 3})
    expect(report.steps[0]).toMatchObject({name: 'token (fresh)', outcome: 'failed', error: {code: 'invalid_client'}})
  })

  it('never shows a password in the base URL: not in --json (base_url), the summary, the --junit file or --contract', async () => {
    const url = sb.url.replace('http://', 'http://user:Pw5ecretXyz@')
    const file = join(tempConfigDir(), 'smoke.xml')
    const r = await runCommand(['smoke', '--json', '--junit', file], {env: env({PAY_BASE_URL: url, PAY_CONFIG_DIR: tempConfigDir()})})
    expect(r.code, r.stderr).toBe(0)
    expect(json(r).base_url).toBe(sb.url.replace('http://', 'http://[REDACTED]@'))
    const human = await runCommand(['smoke'], {env: env({PAY_BASE_URL: url, PAY_CONFIG_DIR: tempConfigDir()})})
    const contract = await runCommand(['smoke', '--contract', '--json'], {env: env({PAY_BASE_URL: url, PAY_CONFIG_DIR: tempConfigDir()})})
    expect(json(contract).base_url).toBe(sb.url.replace('http://', 'http://[REDACTED]@'))
    for (const text of [r.stdout, r.stderr, readFileSync(file, 'utf8'), human.stdout, human.stderr, contract.stdout, contract.stderr]) expect(text).not.toContain('Pw5ecretXyz')
  })

  it('--money whose collection answer is lost: outcome unknown with its key and reference, never "did not succeed"', async () => {
    expect((await fetch(`${sb.url}/_sandbox/faults`, {method: 'PUT', headers: {'content-type': 'application/json'}, body: JSON.stringify({drop_next: 1})})).status).toBe(200)
    const r = await runCommand(['smoke', '--json', '--money', '--retries', '0'], {env: env({PAY_CONFIG_DIR: tempConfigDir()})})
    expect(r.code).toBe(7)
    const report = json(r) as {ok: boolean; steps: StepResult[]}
    const collection = report.steps.find((s) => s.name === 'money: collection')!
    expect(collection).toMatchObject({outcome: 'unknown', exit_code: 7, reference: expect.stringMatching(/^pay-smoke-/), idempotency_key: expect.stringMatching(/^[0-9a-f-]{36}$/)})
    // the collection was made: the sandbox committed it under that key before the answer was dropped
    const sent = sb.requests.filter((q) => q.method === 'POST' && q.path === '/v1/collections' && (q.body as {merchant_reference?: string})?.merchant_reference === collection.reference)
    expect(sent.map((q) => q.headers['idempotency-key'])).toEqual([collection.idempotency_key])
    expect(collection.error?.hint).toMatch(new RegExp(`^check it with \`pay collections get --reference ${collection.reference}\` \\(or \`pay journal ${collection.idempotency_key}\`\\) before running again: pay smoke --money again sends a new collection`))
    const lookup = report.steps.find((s) => s.name === 'money: lookup by reference')!
    expect(lookup).toMatchObject({outcome: 'skipped'})
    expect(lookup.detail).toMatch(/outcome of the collection is unknown/)
    expect(JSON.stringify(report)).not.toMatch(/did not succeed/)
  })

  it('--junit writes well-formed XML listing every step of the run', async () => {
    const file = join(tempConfigDir(), 'smoke.xml')
    const r = await runCommand(['smoke', '--json', '--money', '--junit', file], {env: env({PAY_CONFIG_DIR: tempConfigDir()})})
    expect(r.code, r.stderr).toBe(0)
    const steps = json(r).steps as StepResult[]
    const doc = parser.parse(readFileSync(file, 'utf8'))
    const names = doc.testsuites.testsuite.flatMap((s: {testcase: {name: string}[]}) => s.testcase.map((c) => c.name))
    expect(names).toEqual(steps.map((s) => s.name))
    expect(names).toContain('money: lookup by reference')
    expect(doc.testsuites.failures).toBe('0')
  })

  it('the --junit file is 0600 under umask 0, also when it was there before with a wider mode', async () => {
    const {spawn} = await import('node:child_process')
    const {chmodSync, statSync} = await import('node:fs')
    const {BIN, cleanEnv} = await import('../helpers/cli.js')
    const dir = tempConfigDir()
    const fresh = join(dir, 'fresh.xml')
    const old = join(dir, 'old.xml')
    writeFileSync(old, 'stale')
    chmodSync(old, 0o666)
    for (const file of [fresh, old]) {
      // the sandbox answers in this process: the child is awaited, never waited for synchronously
      const child = spawn('sh', ['-c', 'umask 0 && exec "$@"', 'sh', process.execPath, BIN, 'smoke', '--junit', file], {env: cleanEnv(env({PAY_CONFIG_DIR: dir}))})
      let stderr = ''
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
      const code = await new Promise((resolve) => child.on('close', resolve))
      expect(code, stderr).toBe(0)
      expect(statSync(file).mode & 0o777).toBe(0o600)
      expect(readFileSync(file, 'utf8')).toMatch(/^<\?xml/)
    }
  })

  it('merchant B: subscriptions reported as not enabled, exit 0', async () => {
    const r = await runCommand(['smoke', '--account-ref', GLOBEX.east], {env: env({PAY_CONFIG_DIR: tempConfigDir(), PAY_CLIENT_ID: GLOBEX.client_id, PAY_CLIENT_SECRET: GLOBEX.client_secret})})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^not-enabled\tproduct: subscriptions\t/m)
  })

  it('a --junit file that cannot be written is refused before anything is sent (exit 2, naming --junit)', async () => {
    const before = sb.requests.length
    const r = await runCommand(['smoke', '--money', '--json', '--junit', join(tempConfigDir(), 'no-such-folder', 'smoke.xml')], {env: env({PAY_CONFIG_DIR: tempConfigDir()})})
    expect(r.code).toBe(2)
    expect(json(r)).toMatchObject({error: {code: 'invalid_input'}})
    expect(r.stderr).toMatch(/--junit cannot be written/)
    expect(sb.requests.length).toBe(before)
  })

  it('--money against a loopback service that is not a sandbox (a port-forward) needs --yes', async () => {
    const {createServer} = await import('node:http')
    const other = createServer((_req, res) => res.writeHead(404).end('{}'))
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve))
    try {
      const port = (other.address() as {port: number}).port
      const r = await runCommand(['smoke', '--money'], {env: env({PAY_BASE_URL: `http://127.0.0.1:${port}`, PAY_CONFIG_DIR: tempConfigDir()})})
      expect(r.code).toBe(2)
      expect(r.stderr).toMatch(/--money .*not the local sandbox: add --yes/)
    } finally {
      other.close()
    }
  })

  it('--money is refused (exit 2, nothing sent) against a service that is not the sandbox, unless --yes', async () => {
    const r = await runCommand(['smoke', '--money'], {env: env({PAY_BASE_URL: 'https://payments.example.invalid', PAY_CONFIG_DIR: tempConfigDir()})})
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/--money .*not the local sandbox: add --yes/)
    expect(r.stdout).toBe('')
  })
})

describe('runSmoke against a gateway that lacks a route (a scripted service)', () => {
  const server = useScriptedServer()

  it("a product probe answered by the gateway's HTML 404 fails (it never reached the service); the service's own not_found passes", async () => {
    server.script('GET /v1/metadata/mobile_providers', {status: 200, body: {object: 'list', data: []}})
    server.script('GET /v1/collections', {handle: (_req: unknown, res: import('node:http').ServerResponse) => res.writeHead(404, {'content-type': 'text/html'}).end('<html><body><h1>404 Not Found</h1><hr>nginx</body></html>')})
    const r = await runCommand(['smoke', '--json', '--retries', '0'], {env: scriptedEnv(server)})
    const report = json(r) as {ok: boolean; steps: {name: string; outcome: string; detail?: string}[]}
    expect(report.ok).toBe(false)
    expect(r.code).toBe(7)
    expect(report.steps.find((s) => s.name === 'product: collections')).toMatchObject({outcome: 'failed'})
    expect(report.steps.find((s) => s.name === 'product: payouts')).toMatchObject({outcome: 'passed', detail: expect.stringMatching(/reachable/)})
    // a list never answers 404 for what it holds: even the service's own not_found there is no "reachable"
    expect(report.steps.find((s) => s.name === 'product: subscriptions')).toMatchObject({outcome: 'failed'})
  })
})
