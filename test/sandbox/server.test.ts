import {mkdtempSync, readFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import type {Sandbox} from '../../src/sandbox/index.js'
import {ACME, Client, GLOBEX, acmeClient, collectionBody, expectError, globexClient, sandboxPerTest, tokenFor} from '../helpers/sandbox-http.js'
import {closedPort} from '../helpers/localtunnel-server.js'
import {waitFor} from '../helpers/wait-for.js'

const each = sandboxPerTest()
let sb: Sandbox

describe('rate limits', () => {
  it('per merchant write cap: 429 rate_limited with Retry-After, X-RateLimit-* and retry_after; other merchants unaffected', async () => {
    sb = await each.start({rateLimits: {writePerMinute: 3}})
    const acme = await acmeClient(sb)
    const first = await acme.post('/v1/collections', collectionBody())
    expect(first.headers['x-ratelimit-limit']).toBe('3')
    expect(first.headers['x-ratelimit-remaining']).toBe('2')
    await acme.post('/v1/collections', collectionBody())
    await acme.post('/v1/collections', collectionBody())
    const r = await acme.post('/v1/collections', collectionBody())
    const e = expectError(r, 429, 'rate_limited')
    expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1)
    expect(Number(r.headers['retry-after'])).toBeLessThanOrEqual(60)
    expect(e.retry_after).toBe(Number(r.headers['retry-after']))
    expect(r.headers['x-ratelimit-remaining']).toBe('0')
    expect(e.message).toMatch(/retry after/)
    // reads are a separate class; another merchant has its own budget
    expect((await acme.get('/v1/account')).status).toBe(200)
    const globex = await globexClient(sb)
    expect((await globex.post('/v1/collections', collectionBody())).status).toBe(201)
  })

  it('read, metadata and verification classes', async () => {
    sb = await each.start({rateLimits: {readPerMinute: 2, metadataPerMinute: 1, verificationPerMinute: 1}})
    const acme = await acmeClient(sb)
    await acme.get('/v1/account')
    await acme.get('/v1/balance')
    expectError(await acme.get('/v1/account'), 429, 'rate_limited')
    await acme.get('/v1/metadata/banks')
    expectError(await acme.get('/v1/metadata/mobile_providers'), 429, 'rate_limited')
    await acme.post('/v1/verifications/msisdn', {mobile: '254712345670'})
    expectError(await acme.post('/v1/verifications/msisdn', {mobile: '254712345670'}), 429, 'rate_limited')
  })

  it('token endpoint: per IP and per client_id', async () => {
    sb = await each.start({rateLimits: {tokenPerMinutePerClient: 2, tokenPerMinutePerIp: 4}})
    await tokenFor(sb.url, ACME)
    await tokenFor(sb.url, ACME)
    const anon = new Client(sb.url)
    const r = await anon.post('/v1/oauth/token', {client_id: ACME.client_id, client_secret: ACME.client_secret})
    expectError(r, 429, 'rate_limited')
    expect(r.headers['retry-after']).toBeDefined()
    await tokenFor(sb.url, GLOBEX) // another client still has budget (IP: 4th)
    expectError(await anon.post('/v1/oauth/token', {client_id: GLOBEX.client_id, client_secret: GLOBEX.client_secret}), 429, 'rate_limited') // IP cap
  })
})

describe('faults', () => {
  it('--fault-rate 1: every /v1 request answers 503 and nothing is created', async () => {
    sb = await each.start()
    const acme = await acmeClient(sb)
    await acme.call('PUT', '/_sandbox/faults', {body: {fault_rate: 1}})
    const r = await acme.post('/v1/collections', collectionBody({merchant_reference: 'fault-1'}))
    expectError(r, 503, 'service_unavailable')
    expect(r.headers['retry-after']).toBe('1')
    expect(Object.values(sb.state.collections).some((c) => c.merchant_reference === 'fault-1')).toBe(false)
    await acme.call('PUT', '/_sandbox/faults', {body: {fault_rate: 0}})
    expect((await acme.get('/v1/account')).status).toBe(200)
  })

  it('--latency delays every /v1 answer', async () => {
    sb = await each.start({latencyMs: 150})
    const acme = await acmeClient(sb)
    const t = Date.now()
    await acme.get('/v1/account')
    expect(Date.now() - t).toBeGreaterThanOrEqual(140)
  })

})

describe('request log', () => {
  it('writes one JSON line per request to --log with secrets redacted; GET /_sandbox/requests has the same entries', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-log-'))
    const file = join(dir, 'requests.jsonl')
    sb = await each.start({logFile: file})
    const acme = await acmeClient(sb)
    await acme.post('/v1/collections', collectionBody({merchant_reference: 'logged-1'}), {key: 'log-key-1'})
    const control = await acme.get('/_sandbox/requests')
    expect(control.body.data).toHaveLength(2)
    await sb.close()
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
    sb = undefined
    expect(lines).toHaveLength(2)
    const [token, create] = lines
    expect(token).toMatchObject({method: 'POST', path: '/v1/oauth/token', status: 200})
    expect(token.body.client_secret).toBe('[REDACTED]')
    expect(JSON.stringify(lines)).not.toContain(ACME.client_secret)
    expect(JSON.stringify(lines)).not.toContain(acme.token!)
    expect(create).toMatchObject({method: 'POST', path: '/v1/collections', status: 201, body: {merchant_reference: 'logged-1'}})
    expect(create.headers.authorization).toBe('Bearer [REDACTED]')
    expect(create.headers['idempotency-key']).toBe('log-key-1')
    expect(create.request_id).toMatch(/^REQ_[A-Z0-9]{12}$/)
    expect(typeof create.time).toBe('string')
    expect(typeof create.duration_ms).toBe('number')
    expect(control.body.data[1].path).toBe('/v1/collections')
  })
})

describe('--state persistence', () => {
  it('keeps state (resources, tokens, wallets, clock) across restarts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-state-'))
    const statePath = join(dir, 'state.json')
    sb = await each.start({statePath})
    const acme = await acmeClient(sb)
    const created = await acme.post('/v1/collections', collectionBody({merchant_reference: 'persist-1', mobile: '254700000008'}))
    await sb.close()
    sb = await each.start({statePath})
    const again = new Client(sb.url, acme.token)
    const r = await again.get(`/v1/collections/${created.body.id}`)
    expect(r.status).toBe(200)
    expect(r.body.merchant_reference).toBe('persist-1')
  })
})

describe('--state and webhooks', () => {
  it('events still pending when the sandbox stopped are delivered after a restart', async () => {
    const {createServer} = await import('node:http')
    const dir = mkdtempSync(join(tmpdir(), 'sb-state-wh-'))
    const statePath = join(dir, 'state.json')
    sb = await each.start({statePath, webhookRetryBaseMs: 60_000})
    sb.setWebhookUrl(ACME.client_id, `http://127.0.0.1:${await closedPort()}/down`)
    const acme = await acmeClient(sb)
    await acme.post('/v1/collections', collectionBody({merchant_reference: 'pending-wh', mobile: '254700000008'}))
    const pendingId = sb.events.find((e) => e.type === 'collection.processing')!.id
    await new Promise((r) => setTimeout(r, 100))
    await sb.close()
    const got: string[] = []
    const rx = createServer((req, res) => {
      let body = ''
      req.on('data', (c) => (body += c))
      req.on('end', () => {
        got.push(JSON.parse(body).id)
        res.end()
      })
    })
    await new Promise<void>((r) => rx.listen(0, '127.0.0.1', r))
    const state = JSON.parse(readFileSync(statePath, 'utf8'))
    state.clients[ACME.client_id].webhook_url = `http://127.0.0.1:${(rx.address() as {port: number}).port}/`
    const {writeFileSync} = await import('node:fs')
    writeFileSync(statePath, JSON.stringify(state))
    sb = await each.start({statePath})
    await waitFor(() => got.includes(pendingId), 20_000, 'the pending event to be delivered after the restart')
    rx.close()
  })
})
