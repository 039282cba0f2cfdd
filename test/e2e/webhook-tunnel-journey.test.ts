/**
 * The whole path on loopback: the sandbox emits real signed events → the loopback localtunnel-protocol server
 * → the real localtunnel client inside the built `pay webhook listen` → --forward-to a test app. The listener
 * sets the sandbox webhook URL itself (profile = the sandbox's base URL). The sandbox delivers every event
 * twice (duplicate rate 1) and retries what the app failed. Forged deliveries are mixed in through the same
 * tunnel. Afterwards the listener's counts must match what the sandbox recorded, with nothing valid lost.
 */
import {randomUUID} from 'node:crypto'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type Sandbox, startSandbox} from '../../src/sandbox/index.js'
import {type LocaltunnelTestServer, startLocaltunnelServer} from '../helpers/localtunnel-server.js'
import {type ListenProcess, nowSeconds, opensslHeader, post, startListen, startTestApp, type TestApp, waitFor} from '../helpers/webhooks.js'

let sb: Sandbox
let lt: LocaltunnelTestServer
let app: TestApp
let listener: ListenProcess | undefined

beforeAll(async () => {
  sb = await startSandbox({settleMs: 50, duplicateRate: 1, webhookRetryBaseMs: 200, webhookMaxAttempts: 6})
  lt = await startLocaltunnelServer({maxConn: 3, urlStyle: 'port'})
  app = await startTestApp()
})
afterAll(async () => {
  await listener?.stop()
  await app?.close()
  await lt?.close()
  await sb?.close()
})

async function api(path: string, body: unknown, token?: string): Promise<any> {
  const res = await fetch(`${sb.url}${path}`, {
    method: 'POST',
    headers: {'content-type': 'application/json', accept: 'application/json', ...(token ? {authorization: `Bearer ${token}`, 'idempotency-key': randomUUID()} : {})},
    body: JSON.stringify(body),
  })
  const json = await res.json()
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status} ${JSON.stringify(json)}`)
  return json
}

describe('sandbox → tunnel → pay webhook listen → app', () => {
  it('delivers every sandbox event once to the app, drops duplicates, rejects forgeries, and counts match', async () => {
    const seed = sb.seed
    app.failNext = 1 // the first forward fails: the listener answers 500, the sandbox retries
    listener = await startListen(['--tunnel', 'localtunnel', '--tunnel-host', lt.url, '--forward-to', app.url, '--max-body', '16KiB', '--json'], {
      PAY_BASE_URL: sb.url,
      PAY_CLIENT_ID: seed.client_id,
      PAY_CLIENT_SECRET: seed.client_secret,
      PAY_WEBHOOK_SECRET: seed.webhook_secret,
    })
    expect(listener.stderr()).toContain(`Sandbox: webhook URL of client ${seed.client_id} set to ${listener.url}`)
    expect(sb.state.clients[seed.client_id].webhook_url).toBe(listener.url)

    const {access_token: token} = await api('/v1/oauth/token', {grant_type: 'client_credentials', client_id: seed.client_id, client_secret: seed.client_secret})
    const create = (mobile: string, ref: string) => api('/v1/collections', {amount: '100.00', currency: 'KES', merchant_reference: ref, mobile, provider: 'mpesa'}, token)
    await create('254712345671', 'e2e-ok') // succeeds after settle
    await create('254712345679', 'e2e-fail') // fails after settle
    const held = await create('254712345678', 'e2e-held') // stays processing until forced
    await api(`/_sandbox/transactions/${held.id}/succeed`, {})

    // forgeries through the same public URL
    const other = seed.merchants.find((m) => m.client_id !== seed.client_id)!.webhook_secret
    const forged = JSON.stringify({id: 'EVT_FORGEDFORGEDFORGEDFORGED', object: 'event', type: 'collection.succeeded', created_at: new Date().toISOString(), data: {id: 'CL_X', status: 'succeeded', amount: '999.00', currency: 'KES'}})
    const t = nowSeconds()
    const forgeries: [Record<string, string>, string, number][] = [
      [{'service-signature': opensslHeader([other], t, forged)}, forged, 401], // another merchant's secret
      [{'service-signature': opensslHeader([seed.webhook_secret], t, forged)}, forged.replace('999.00', '9999.00'), 401], // tampered
      [{'service-signature': opensslHeader([seed.webhook_secret], t - 3600, forged)}, forged, 401], // replayed an hour later
      [{'service-signature': opensslHeader([seed.webhook_secret], t, 'oops')}, 'oops', 400], // not JSON
      [{'service-signature': opensslHeader([seed.webhook_secret], t, 'x'.repeat(20_000))}, 'x'.repeat(20_000), 413],
    ]
    for (const [headers, body, status] of forgeries) expect((await post(listener.url, body, headers)).status).toBe(status)

    // 3 collections × (processing + outcome) = 6 events, each delivered, then duplicated
    await waitFor(
      () => sb.events.length === 6 && sb.events.every((e) => e.state === 'delivered' && e.deliveries.some((d) => d.duplicate && d.status !== null)),
      20_000,
      'all sandbox events delivered and duplicated',
    ).catch((err: Error) => {
      throw new Error(`${err.message}\nsandbox events: ${JSON.stringify(sb.events.map((e) => ({type: e.type, state: e.state, deliveries: e.deliveries})), null, 1)}\nlistener stderr: ${listener?.stderr()}`)
    })
    const r = await listener.stop()
    listener = undefined
    expect(r.code).toBe(0)

    const events = sb.events
    const deliveries = events.flatMap((e) => e.deliveries)
    const duplicates = deliveries.filter((d) => d.duplicate).length
    const failedAttempts = deliveries.filter((d) => !d.duplicate && d.status !== 200).length
    expect(failedAttempts).toBe(1)
    expect(deliveries.every((d) => d.status !== null)).toBe(true)

    const summary = JSON.parse(r.stderr.trim().split('\n').pop()!).summary
    expect(summary).toMatchObject({
      received: deliveries.length + forgeries.length,
      verified: deliveries.length,
      duplicates,
      forwarded: events.length,
      forward_failed: 1,
      rejected: {no_matching_signature: 2, timestamp_outside_tolerance: 1, invalid_json: 1, body_too_large: 1},
    })
    // nothing valid lost: every sandbox event reached the app with its exact bytes and signature header
    const accepted = app.received.filter((_, i) => i !== 0)
    expect(app.received).toHaveLength(events.length + 1)
    expect(new Set(accepted.map((a) => JSON.parse(a.body.toString()).id))).toEqual(new Set(events.map((e) => e.id)))
    for (const e of events) {
      const got = accepted.find((a) => JSON.parse(a.body.toString()).id === e.id)!
      expect(got.body.toString()).toBe(e.body)
      expect(String(got.headers['service-signature'])).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/)
    }
    expect(events.map((e) => e.type).sort()).toEqual(['collection.failed', 'collection.processing', 'collection.processing', 'collection.processing', 'collection.succeeded', 'collection.succeeded'])
    // the JSON lines: one per delivery, the forged ones rejected
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l))
    expect(lines).toHaveLength(deliveries.length + forgeries.length)
    expect(lines.filter((l) => l.duplicate)).toHaveLength(duplicates)
    expect(lines.filter((l) => !l.verdict.ok)).toHaveLength(forgeries.length)
  })
})
