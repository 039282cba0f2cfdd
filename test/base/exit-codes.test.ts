/**
 * The exit-code table (README: Exit codes), the --json contract and --debug redaction: resource commands
 * in-process (test/helpers/in-process.ts) against a scripted HTTP server on loopback. That the process exits with
 * these codes is test/e2e/exit-codes.test.ts.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {InMemoryTransport} from '@modelcontextprotocol/sdk/inMemory.js'
import {describe, expect, it} from 'vitest'
import {exitCodeOfSignal} from '../../src/base/exit-codes.js'
import journal from '../../src/commands/journal.js'
import webhookHistory from '../../src/commands/webhook/history.js'
import {connectMcp} from '../../src/mcp/server.js'
import {json, tempConfigDir} from '../helpers/cli.js'
import {commandEnv, runCommand, runInProcess} from '../helpers/in-process.js'
import {TEST_CLIENT_SECRET, scriptedEnv, serviceError, useScriptedServer} from '../helpers/scripted-server.js'

const server = useScriptedServer()

const env = (extra: Record<string, string> = {}) => scriptedEnv(server, {NO_COLOR: '1', ...extra})
const err = serviceError

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
      const r = await runInProcess(args, {env: env()})
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
    const r = await runInProcess(['balance'], {env: env({PAY_CLIENT_SECRET: 'wrong-secret'})})
    expect(r.code).toBe(3)
    expect(r.stderr).toContain('invalid_client')
    expect(r.stderr).toContain('pay login')
    expect(r.stderr).not.toContain('wrong-secret')
  })

  it('bad input: exit 2 and no request', async () => {
    const r = await runInProcess(['balance', '--currency', 'KESH'], {env: env()})
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('--currency')
    expect(server.requests).toHaveLength(0)
  })

  it('credentials over plain http to a non-loopback host: exit 2, nothing sent', async () => {
    const r = await runInProcess(['balance'], {env: env({PAY_BASE_URL: 'http://api.example.com'})})
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/https:\/\//)
    expect(r.stderr).toContain('loopback')
  })

  it('no credentials at all: exit 2 naming what is missing', async () => {
    const r = await runInProcess(['balance'], {env: {NO_COLOR: '1', PAY_CONFIG_DIR: tempConfigDir()}})
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('--base-url')
  })
})

/**
 * A request whose first attempt may have reached the service (its connection cut, a 502) and whose retry under the
 * same key met a 4xx: the 4xx says nothing about the first attempt, so the outcome is unknown, and every way of
 * sending it exits 7 (README: Exit codes), never the 4xx's own code, which a script would take for a certain failure.
 */
describe('a command a signal ended (exitCodeOfSignal)', () => {
  it('exits as shells report it: SIGTERM 143, SIGINT 130, and 130 when the signal is not known', () => {
    expect([exitCodeOfSignal('SIGTERM'), exitCodeOfSignal('SIGINT'), exitCodeOfSignal(undefined)]).toEqual([143, 130, 130])
  })
})

describe('an unknown outcome exits 7, whatever the retry met', () => {
  const refusals: [string, {status: number; body: unknown}][] = [
    ['400 invalid_parameter', {status: 400, body: err('invalid_parameter', 'amount is invalid')}],
    ['403 forbidden', {status: 403, body: err('forbidden', 'product not enabled')}],
    ['404 not_found', {status: 404, body: err('not_found', 'no such thing')}],
    ['409 idempotency_key_mismatch', {status: 409, body: err('idempotency_key_mismatch', 'key reused')}],
    ['422 validation_error', {status: 422, body: err('validation_error', 'insufficient balance')}],
  ]
  const create = ['collections', 'create', '--amount', '10', '--currency', 'KES', '--mobile', '254700000001', '--provider', 'mpesa']
  const keysSent = () => new Set(server.apiRequests().filter((r) => r.method === 'POST').map((r) => r.headers['idempotency-key']))

  for (const [what, refusal] of refusals) {
    it(`a single command: a cut connection, then ${what}: exit 7, the key named`, async () => {
      server.script('POST /v1/collections', {drop: true}, refusal)
      const r = await runInProcess([...create, '-r', `unk-${refusal.status}`], {env: env()})
      expect(r.code, r.stderr).toBe(7)
      expect(r.stderr).toMatch(/outcome is unknown/)
      const [key] = keysSent()
      expect(keysSent().size).toBe(1)
      expect(r.stderr).toContain(key)
    })
  }

  it('a 502, then a 400: exit 7 under --json too, the envelope naming the key', async () => {
    server.script('POST /v1/collections', {status: 502, body: err('gateway_error', 'upstream failed')}, refusals[0][1])
    const r = await runInProcess([...create, '-r', 'unk-json', '--json'], {env: env()})
    expect(r.code, r.stderr).toBe(7)
    expect(json(r).error.idempotency_key).toBe([...keysSent()][0])
  })

  it('pay api: a cut connection, then a 422: exit 7', async () => {
    server.script('POST /v1/collections', {drop: true}, refusals[4][1])
    const body = JSON.stringify({amount: '10.00', currency: 'KES', mobile: '254700000001', provider: 'mpesa', merchant_reference: 'unk-api'})
    const r = await runCommand(['api', 'POST', '/v1/collections', '--data', body], {env: env()})
    expect(r.code, r.stderr).toBe(7)
    expect(r.stderr).toMatch(/outcome is unknown/)
  })

  it("a flow step: the step's exit_code and the run's are 7", async () => {
    server.script('POST /v1/collections', {drop: true}, refusals[0][1])
    const dir = tempConfigDir()
    const file = join(dir, 'collect.yaml')
    writeFileSync(file, ['name: collect', 'steps:', '  - id: collect', '    call: collections.create', '    body: {amount: "10.00", currency: KES, mobile: "254700000001", provider: mpesa, merchant_reference: unk-flow}', ''].join('\n'))
    const r = await runCommand(['flow', 'run', file, '--json'], {env: env()})
    expect(r.code, r.stderr).toBe(7)
    const report = JSON.parse(r.stdout) as {exit_code: number; steps: {name: string; outcome: string; exit_code: number}[]}
    expect(report.exit_code).toBe(7)
    expect(report.steps.find((s) => s.name === 'collect')).toMatchObject({outcome: 'unknown', exit_code: 7})
  })

  it("an MCP tool: the error's exit_code is 7, with outcome unknown", async () => {
    server.script('POST /v1/collections', {drop: true}, refusals[1][1])
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    const mcp = await connectMcp(
      {flags: {}, allowMoney: true, allowLiveMoney: false, userAgent: 'pay-test', version: '0.0.0', info: () => undefined, env: commandEnv(env()), commands: {journal, webhookHistory}},
      () => serverSide,
    )
    const client = new Client({name: 'pay-test', version: '1.0.0'})
    await client.connect(clientSide)
    try {
      const result = (await client.callTool({name: 'collections_create', arguments: {amount: '10.00', currency: 'KES', reference: 'unk-mcp', mobile: '254700000001', provider: 'mpesa'}})) as {isError?: boolean; structuredContent?: {error?: Record<string, unknown>}}
      expect(result.isError).toBe(true)
      expect(result.structuredContent?.error).toMatchObject({outcome: 'unknown', exit_code: 7})
    } finally {
      await client.close()
      await mcp.close()
    }
  })
})

describe('--json', () => {
  it('prints exactly the service body on stdout', async () => {
    const r = await runInProcess(['balance', '--json'], {env: env()})
    expect(r.code).toBe(0)
    const last = server.requests.at(-1)!
    expect(last.path).toBe('/v1/balance')
    expect(r.stdout).toBe(JSON.stringify({object: 'balance', data: [{currency: 'KES', collection_wallet: '100.00', collection_wallet_actual: '150.00', collection_wallet_held: '50.00', payout_wallet: '500.00'}]}) + '\n')
  })

  it('prints the error envelope as sent plus status on failure', async () => {
    server.script('GET /v1/balance', {status: 404, body: {error: {code: 'not_found', message: 'gone', request_id: 'REQ_ZZZZZZZZZZZZ', doc_url: 'https://docs.example/errors#not_found'}}})
    const r = await runInProcess(['balance', '--json'], {env: env()})
    expect(r.code).toBe(4)
    expect(json(r)).toEqual({error: {code: 'not_found', message: 'gone', request_id: 'REQ_ZZZZZZZZZZZZ', doc_url: 'https://docs.example/errors#not_found'}, status: 404})
  })

  it('prints a JSON error for bad input too', async () => {
    const r = await runInProcess(['balance', '--currency', 'x', '--json'], {env: env()})
    expect(r.code).toBe(2)
    expect(json(r).error.code).toBe('invalid_input')
  })

  it('human output is a key/value table on stdout, tab-separated when piped', async () => {
    const r = await runInProcess(['account'], {env: env()})
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('merchant.name\tTest Shop')
    expect(r.stdout).toContain('account.status\tactive')
  })
})

describe('--debug', () => {
  it('traces requests and responses on stderr with every secret redacted', async () => {
    const e = env({PAY_WEBHOOK_SECRET: 'whsec_supersecretvalue'})
    const r = await runInProcess(['balance', '--debug'], {env: e})
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
