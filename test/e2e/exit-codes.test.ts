/**
 * What only the process shows, against a scripted HTTP server on loopback: its exit status on each way out, login
 * (a 0600 profile file), and `pay api`. The exit-code table, --json, --debug and the profile commands are tested
 * in-process (test/base/exit-codes.test.ts, test/commands/profiles.test.ts).
 */
import {statSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {json, runCli, tempConfigDir} from '../helpers/cli.js'
import {TEST_CLIENT_ID, TEST_CLIENT_SECRET, scriptedEnv, serviceError, useScriptedServer} from '../helpers/scripted-server.js'
import {closedPort} from '../helpers/localtunnel-server.js'

const server = useScriptedServer()

const env = (extra: Record<string, string> = {}) => scriptedEnv(server, extra)
const err = serviceError

describe('the exit status of the process', () => {
  // the table of codes is proven in-process (test/base/exit-codes.test.ts); here, that the process exits with the
  // code the command came to, on each way out: success, a service error, oclif's parse error, the network
  it('success: exit 0, and stdout is exactly the service body under --json', async () => {
    const r = await runCli(['balance', '--json'], {env: env()})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe(JSON.stringify({object: 'balance', data: [{currency: 'KES', collection_wallet: '100.00', collection_wallet_actual: '150.00', collection_wallet_held: '50.00', payout_wallet: '500.00'}]}) + '\n')
  })

  it('a 404: exit 4, the error on stderr', async () => {
    server.script('GET /v1/balance', {status: 404, body: err('not_found', 'no such thing')})
    const r = await runCli(['balance'], {env: env()})
    expect(r.code, r.stderr).toBe(4)
    expect(r.stderr).toContain('no such thing')
  })

  it('an unknown flag: exit 2', async () => {
    const r = await runCli(['balance', '--nope'], {env: env()})
    expect(r.code).toBe(2)
    expect(server.requests).toHaveLength(0)
  })

  it('an unreachable service: exit 7', async () => {
    const r = await runCli(['balance', '--retries', '1'], {env: env({PAY_BASE_URL: `http://127.0.0.1:${await closedPort()}`})})
    expect(r.code).toBe(7)
    expect(r.stderr).toContain('ECONNREFUSED')
  })
})

describe('login', () => {
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
