/**
 * The client core against the sandbox (real emulator, real HTTP on loopback), proven through its request log:
 * one token for many commands, the sub-account header rule with a merchant that requires it, the 401 refresh
 * after the sandbox forgets its tokens, and a write whose answer is lost being retried with the same
 * Idempotency-Key so that exactly one collection exists. In-process (the same client, real HTTP).
 */
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'
import {type Sandbox, startSandbox} from '../../src/sandbox/index.js'
import {json, tempConfigDir} from '../helpers/cli.js'
import {pay, runCommand} from '../helpers/in-process.js'

let sb: Sandbox
beforeAll(async () => {
  sb = await startSandbox({port: 0, settleMs: 100})
})
afterAll(async () => {
  await sb.close()
})
beforeEach(() => {
  sb.requests.length = 0
})

const acme = () => sb.seed.merchants.find((m) => !m.sub_accounts_enabled)!
const globex = () => sb.seed.merchants.find((m) => m.sub_accounts_enabled)!
const envOf = (m: {client_id: string; client_secret: string}, extra: Record<string, string> = {}) => ({
  PAY_CONFIG_DIR: tempConfigDir(),
  PAY_BASE_URL: sb.url,
  PAY_CLIENT_ID: m.client_id,
  PAY_CLIENT_SECRET: m.client_secret,
  ...extra,
})
const paths = () => sb.requests.map((r) => `${r.method} ${r.path} ${r.status}`)

describe('against the sandbox', () => {
  it('spends one token request on several commands', async () => {
    const env = envOf(acme())
    for (const args of [['account'], ['balance'], ['metadata', 'providers'], ['metadata', 'banks']]) {
      const r = await pay([...args, '--json'], {env})
      expect(r.code, r.stderr).toBe(0)
    }
    expect(sb.requests.filter((r) => r.path === '/v1/oauth/token')).toHaveLength(1)
  })

  it('sends the sub-account header where it applies, and the service requires it', async () => {
    const g = globex()
    const without = await pay(['account', '--json'], {env: envOf(g)})
    expect(without.code).toBe(1)
    expect(json(without)).toMatchObject({status: 400, error: {code: 'invalid_parameter'}})

    sb.requests.length = 0
    const env = envOf(g, {PAY_ACCOUNT_REF: g.account_refs[1]})
    const acct = await pay(['account', '--json'], {env})
    expect(acct.code, acct.stderr).toBe(0)
    expect(json(acct).account.account_ref).toBe(g.account_refs[1])
    expect((await pay(['balance', '--json'], {env})).code).toBe(0)
    const header = (path: string) => sb.requests.find((r) => r.path === path)?.headers['x-service-account-ref']
    expect(header('/v1/account')).toBe(g.account_refs[1])
    expect(header('/v1/balance')).toBeUndefined()
    expect(header('/v1/oauth/token')).toBeUndefined()

    const foreign = await pay(['account', '--json'], {env: envOf(g, {PAY_ACCOUNT_REF: acme().account_refs[0]})})
    expect(foreign.code).toBe(4)
  })

  it('refreshes a cached token the sandbox no longer knows, once', async () => {
    const env = envOf(acme())
    expect((await pay(['balance'], {env})).code).toBe(0)
    sb.reset()
    sb.requests.length = 0
    const r = await pay(['balance', '--json'], {env})
    expect(r.code, r.stderr).toBe(0)
    expect(paths()).toEqual(['GET /v1/balance 401', 'POST /v1/oauth/token 200', 'GET /v1/balance 200'])
  })

  it('retries a write whose answer was lost with the same key, and the service keeps one collection', async () => {
    const control = await fetch(`${sb.url}/_sandbox/faults`, {method: 'PUT', headers: {'content-type': 'application/json'}, body: JSON.stringify({drop_next: 1})})
    expect(control.status).toBe(200)
    const body = {amount: '120.00', currency: 'KES', merchant_reference: 'found-drop-1', mobile: '254700000001', provider: 'mpesa'}
    const r = await runCommand(['api', 'POST', '/v1/collections', '--data', JSON.stringify(body), '--json'], {env: envOf(acme())})
    expect(r.code, r.stderr).toBe(0)
    const posts = sb.requests.filter((q) => q.path === '/v1/collections' && q.method === 'POST')
    expect(posts).toHaveLength(2)
    expect(posts[0].headers['idempotency-key']).toBe(posts[1].headers['idempotency-key'])
    expect(posts[0].body).toEqual(posts[1].body)
    const created = json(r)
    const lookup = await runCommand(['api', 'GET', `/v1/collections?merchant_reference=found-drop-1`, '--json'], {env: envOf(acme())})
    expect(json(lookup).id).toBe(created.id)
  })
})
