/**
 * The exit-code table (README), the --json contract, --debug redaction, profiles and login, against a scripted
 * HTTP server on loopback with the built CLI run as a process.
 */
import {statSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {json, runCli, tempConfigDir} from '../helpers/cli.js'
import {TEST_CLIENT_ID, TEST_CLIENT_SECRET, useScriptedServer} from '../helpers/scripted-server.js'

const server = useScriptedServer()

const env = (extra: Record<string, string> = {}) => ({
  PAY_CONFIG_DIR: tempConfigDir(),
  PAY_BASE_URL: server.url,
  PAY_CLIENT_ID: TEST_CLIENT_ID,
  PAY_CLIENT_SECRET: TEST_CLIENT_SECRET,
  ...extra,
})
const err = (code: string, message = code) => ({error: {code, message, request_id: 'REQ_0123456789AB'}})

describe('exit codes', () => {
  const cases: [string, number, {status: number; body: unknown} | undefined, string[]][] = [
    ['success', 0, undefined, ['balance']],
    ['400 invalid_parameter is "other"', 1, {status: 400, body: err('invalid_parameter', 'currency is invalid')}, ['balance']],
    ['403 forbidden is authentication or permission', 3, {status: 403, body: err('forbidden', 'product not enabled')}, ['balance']],
    ['404 is not found', 4, {status: 404, body: err('not_found', 'no such thing')}, ['balance']],
    ['409 is conflict', 5, {status: 409, body: err('idempotency_key_mismatch', 'key reused')}, ['balance']],
    ['422 is "other"', 1, {status: 422, body: err('validation_error', 'bad plan')}, ['balance']],
    ['502 gateway_error is a service failure', 7, {status: 502, body: err('gateway_error', 'upstream failed')}, ['balance', '--retries', '0']],
    ['500 is a service failure (retried like a 503: --retries 0 shows the first answer)', 7, {status: 500, body: err('internal_error', 'boom')}, ['balance', '--retries', '0']],
  ]
  for (const [name, code, scripted, args] of cases) {
    it(`${name}: exit ${code}`, async () => {
      if (scripted) server.script('GET /v1/balance', scripted)
      const r = await runCli(args, {env: env()})
      expect(r.code, r.stderr).toBe(code)
      if (scripted) {
        const e = (scripted.body as {error: {code: string; message: string}}).error
        expect(r.stderr).toContain(e.code)
        expect(r.stderr).toContain(e.message)
        expect(r.stderr).toContain('REQ_0123456789AB')
      }
    })
  }

  it('bad credentials on the token endpoint: exit 3 with a next step', async () => {
    const r = await runCli(['balance'], {env: env({PAY_CLIENT_SECRET: 'wrong-secret'})})
    expect(r.code).toBe(3)
    expect(r.stderr).toContain('invalid_client')
    expect(r.stderr).toContain('pay login')
    expect(r.stderr).not.toContain('wrong-secret')
  })

  it('an unreachable service: exit 7', async () => {
    const r = await runCli(['balance', '--retries', '1'], {env: env({PAY_BASE_URL: 'http://127.0.0.1:9'})})
    expect(r.code).toBe(7)
    expect(r.stderr).toContain('ECONNREFUSED')
  })

  it('bad input: exit 2 and no request', async () => {
    const r = await runCli(['balance', '--currency', 'KESH'], {env: env()})
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('--currency')
    expect(server.requests).toHaveLength(0)
  })

  it('an unknown flag: exit 2', async () => {
    const r = await runCli(['balance', '--nope'], {env: env()})
    expect(r.code).toBe(2)
    expect(server.requests).toHaveLength(0)
  })

  it('credentials over plain http to a non-loopback host: exit 2, nothing sent', async () => {
    const r = await runCli(['balance'], {env: env({PAY_BASE_URL: 'http://api.example.com'})})
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/https:\/\//)
    expect(r.stderr).toContain('loopback')
  })

  it('no credentials at all: exit 2 naming what is missing', async () => {
    const r = await runCli(['balance'], {env: {PAY_CONFIG_DIR: tempConfigDir()}})
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('--base-url')
  })
})

describe('--json', () => {
  it('prints exactly the service body on stdout', async () => {
    const r = await runCli(['balance', '--json'], {env: env()})
    expect(r.code).toBe(0)
    const last = server.requests.at(-1)!
    expect(last.path).toBe('/v1/balance')
    expect(r.stdout).toBe(JSON.stringify({object: 'balance', data: [{currency: 'KES', collection_wallet: '100.00', collection_wallet_actual: '150.00', collection_wallet_held: '50.00', payout_wallet: '500.00'}]}) + '\n')
  })

  it('prints the error envelope as sent plus status on failure', async () => {
    server.script('GET /v1/balance', {status: 404, body: {error: {code: 'not_found', message: 'gone', request_id: 'REQ_ZZZZZZZZZZZZ', doc_url: 'https://docs.example/errors#not_found'}}})
    const r = await runCli(['balance', '--json'], {env: env()})
    expect(r.code).toBe(4)
    expect(json(r)).toEqual({error: {code: 'not_found', message: 'gone', request_id: 'REQ_ZZZZZZZZZZZZ', doc_url: 'https://docs.example/errors#not_found'}, status: 404})
  })

  it('prints a JSON error for bad input too', async () => {
    const r = await runCli(['balance', '--currency', 'x', '--json'], {env: env()})
    expect(r.code).toBe(2)
    expect(json(r).error.code).toBe('invalid_input')
  })

  it('human output is a key/value table on stdout, tab-separated when piped', async () => {
    const r = await runCli(['account'], {env: env()})
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('merchant.name\tTest Shop')
    expect(r.stdout).toContain('account.status\tactive')
  })
})

describe('--debug', () => {
  it('traces requests and responses on stderr with every secret redacted', async () => {
    const e = env({PAY_WEBHOOK_SECRET: 'whsec_supersecretvalue'})
    const r = await runCli(['balance', '--debug'], {env: e})
    expect(r.code, r.stderr).toBe(0)
    const token = server.tokensIssued.at(-1)!
    expect(r.stderr).toContain('-> POST')
    expect(r.stderr).toContain('/v1/oauth/token')
    expect(r.stderr).toContain('-> GET')
    expect(r.stderr).toMatch(/<- 200 GET \/v1\/balance \(\d+ ms\)/)
    expect(r.stderr).toContain('[REDACTED]')
    for (const secret of [TEST_CLIENT_SECRET, token, 'whsec_supersecretvalue']) {
      expect(r.stderr).not.toContain(secret)
      expect(r.stdout).not.toContain(secret)
    }
  })
})

describe('profiles and login', () => {
  it('login proves the credentials, saves a 0600 profile, and later commands use it', async () => {
    const dir = tempConfigDir()
    const r = await runCli(['login', '--profile', 'work', '--base-url', server.url, '--client-id', TEST_CLIENT_ID], {env: {PAY_CONFIG_DIR: dir, PAY_CLIENT_SECRET: TEST_CLIENT_SECRET}})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain('Test Shop')
    expect(statSync(join(dir, 'profiles.json')).mode & 0o777).toBe(0o600)
    expect(server.requests.map((q) => q.path)).toEqual(['/v1/oauth/token', '/v1/account'])

    const list = await runCli(['profiles', 'list', '--json'], {env: {PAY_CONFIG_DIR: dir}})
    expect(json(list)).toEqual([expect.objectContaining({name: 'work', active: true, client_secret: '[REDACTED] (set)'})])
    expect(list.stdout).not.toContain(TEST_CLIENT_SECRET)

    const show = await runCli(['profiles', 'show'], {env: {PAY_CONFIG_DIR: dir}})
    expect(show.stdout).not.toContain(TEST_CLIENT_SECRET)
    expect(show.stdout).toContain('work')

    const bal = await runCli(['balance', '--json'], {env: {PAY_CONFIG_DIR: dir}})
    expect(bal.code, bal.stderr).toBe(0)
    expect(server.requests.filter((q) => q.path === '/v1/oauth/token')).toHaveLength(1)
  })

  it('login with bad credentials saves nothing and exits 3', async () => {
    const dir = tempConfigDir()
    const r = await runCli(['login', '--base-url', server.url, '--client-id', TEST_CLIENT_ID, '--client-secret', 'nope-nope'], {env: {PAY_CONFIG_DIR: dir}})
    expect(r.code).toBe(3)
    const list = await runCli(['profiles', 'list', '--json'], {env: {PAY_CONFIG_DIR: dir}})
    expect(json(list)).toEqual([])
  })

  it('login without a terminal never prompts and lists every missing value', async () => {
    const r = await runCli(['login'], {env: {PAY_CONFIG_DIR: tempConfigDir()}})
    expect(r.code).toBe(2)
    for (const f of ['--base-url', '--client-id', '--client-secret']) expect(r.stderr).toContain(f)
  })

  it('profiles use/remove, and logout forgets the token', async () => {
    const dir = tempConfigDir()
    const base = {PAY_CONFIG_DIR: dir}
    await runCli(['profiles', 'add', 'a', '--base-url', server.url, '--client-id', TEST_CLIENT_ID, '--client-secret', TEST_CLIENT_SECRET], {env: base})
    await runCli(['profiles', 'add', 'b', '--base-url', server.url, '--client-id', 'other'], {env: base})
    expect((await runCli(['profiles', 'use', 'b'], {env: base})).code).toBe(0)
    expect(json(await runCli(['profiles', 'list', '--json'], {env: base})).find((p: {active: boolean}) => p.active).name).toBe('b')
    expect((await runCli(['profiles', 'use', 'zzz'], {env: base})).code).toBe(4)
    await runCli(['profiles', 'use', 'a'], {env: base})
    expect((await runCli(['balance'], {env: base})).code).toBe(0)
    expect((await runCli(['logout'], {env: base})).code).toBe(0)
    expect((await runCli(['balance'], {env: base})).code).toBe(0)
    expect(server.requests.filter((q) => q.path === '/v1/oauth/token')).toHaveLength(2)
    expect((await runCli(['logout', '--all'], {env: base})).code).toBe(0)
    const shown = json(await runCli(['profiles', 'show', 'a', '--json'], {env: base}))
    expect(shown.client_secret).toBeNull()
    expect((await runCli(['profiles', 'remove', 'b'], {env: base})).code).toBe(0)
    expect(json(await runCli(['profiles', 'list', '--json'], {env: base})).map((p: {name: string}) => p.name)).toEqual(['a'])
  })
})

describe('pay api and --dry-run', () => {
  it('--dry-run prints the request and a curl line and sends nothing', async () => {
    const r = await runCli(['api', 'POST', '/v1/collections', '-F', 'amount=10.00', '-F', 'currency=KES', '--dry-run'], {env: env({PAY_ACCOUNT_REF: 'ACC_X'})})
    expect(r.code, r.stderr).toBe(0)
    expect(server.requests).toHaveLength(0)
    expect(r.stdout).toContain(`POST ${server.url}/v1/collections`)
    expect(r.stdout).toMatch(/idempotency-key: [0-9a-f-]{36}/)
    expect(r.stdout).toContain('x-service-account-ref: ACC_X')
    expect(r.stdout).toContain('{"amount":"10.00","currency":"KES"}')
    expect(r.stdout).toContain("curl -sS -X POST")
    expect(r.stdout).toContain('$(pay token)')
    expect(r.stdout).not.toContain(TEST_CLIENT_SECRET)
  })

  it('-F key:=json sends JSON values and key=value strings; -H adds headers', async () => {
    const r = await runCli(['api', 'POST', '/v1/collections', '-F', 'amount=10', '-F', 'meta:={"a":1}', '-F', 'x.y=z', '-H', 'X-Trace: t1'], {env: env()})
    expect(r.code, r.stderr).toBe(0)
    const sent = server.apiRequests()[0]
    expect(JSON.parse(sent.body)).toEqual({amount: '10', meta: {a: 1}, x: {y: 'z'}})
    expect(sent.headers['x-trace']).toBe('t1')
  })

  it('refuses to let -H override Authorization', async () => {
    const r = await runCli(['api', 'GET', '/v1/balance', '-H', 'Authorization: Bearer x'], {env: env()})
    expect(r.code).toBe(2)
    expect(server.requests).toHaveLength(0)
  })
})
