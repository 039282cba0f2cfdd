import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import type {Sandbox} from '../../src/sandbox/index.js'
import {EVENT_ID_PATTERN} from '../../src/webhooks/events.js'
import {verifySignature} from '../../src/webhooks/signature.js'
import {closedPort} from '../helpers/localtunnel-server.js'
import {ACME, type Client, acmeClient, checkoutBody, collectionBody, start, until} from '../helpers/sandbox-http.js'

interface Received {
  headers: Record<string, string | string[] | undefined>
  raw: string
  body: any
}

/** A small local receiver: answers the statuses of `plan` in turn (then 200). */
async function receiver(plan: number[] = []) {
  const received: Received[] = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8')
      received.push({headers: req.headers, raw, body: JSON.parse(raw)})
      res.writeHead(plan.shift() ?? 200).end()
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {received, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, close: () => new Promise<void>((r) => server.close(() => r()))}
}

let sb: Sandbox
let acme: Client
let rx: Awaited<ReturnType<typeof receiver>> | undefined
beforeAll(async () => {
  sb = await start({settleMs: 20, webhookRetryBaseMs: 20})
  acme = await acmeClient(sb)
})
afterAll(() => sb.close())
afterEach(async () => {
  await rx?.close()
  rx = undefined
  sb.setWebhookUrl(ACME.client_id, null)
  await acme.call('PUT', '/_sandbox/faults', {body: {duplicate_rate: 0}})
})

describe('webhooks', () => {
  it('delivers each state change, signed with Service-Signature over <timestamp>.<raw body>, to the creating client', async () => {
    rx = await receiver()
    const set = await acme.call('PUT', `/_sandbox/clients/${ACME.client_id}/webhook`, {body: {url: rx.url}})
    expect(set.body).toMatchObject({client_id: ACME.client_id, url: rx.url})
    const col = (await acme.post('/v1/collections', collectionBody({merchant_reference: 'wh-1'}))).body
    await until(() => rx!.received.length >= 2, 3000, 'two deliveries')
    // deliveries run concurrently: find each by type rather than by arrival order
    const processing = rx.received.find((d) => d.body.type === 'collection.processing')!
    const succeeded = rx.received.find((d) => d.body.type === 'collection.succeeded')!
    expect(processing.body).toMatchObject({object: 'event', type: 'collection.processing', data: {id: col.id, status: 'processing', object: 'collection'}})
    expect(succeeded.body).toMatchObject({type: 'collection.succeeded', data: {id: col.id, status: 'succeeded'}})
    for (const d of rx.received) {
      expect(d.body.id).toMatch(EVENT_ID_PATTERN)
      expect(Date.parse(d.body.created_at)).not.toBeNaN()
      const sig = d.headers['service-signature'] as string
      expect(sig).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/)
      expect(verifySignature(sig, d.raw, ACME.webhook_secret)).toMatchObject({ok: true, timestamp: expect.any(Number)})
      expect(verifySignature(sig, d.raw, 'wrong-secret').ok).toBe(false)
      expect(verifySignature(sig, d.raw.replace('wh-1', 'wh-2'), ACME.webhook_secret).ok).toBe(false)
    }
  })

  it('redelivers after a non-2xx answer (at-least-once), and records attempts in GET /_sandbox/events', async () => {
    rx = await receiver([500, 503])
    sb.setWebhookUrl(ACME.client_id, rx.url)
    const cs = (await acme.post('/v1/checkout/sessions', checkoutBody({merchant_reference: 'wh-retry'}))).body
    await until(() => rx!.received.length >= 3, 5000, 'three attempts')
    const ids = new Set(rx.received.map((d) => d.body.id))
    expect(ids.size).toBe(1)
    const events = await acme.get(`/_sandbox/events?type=checkout_session.processing`)
    const ev = events.body.data.find((e: any) => e.payload.data.id === cs.id)
    await until(async () => (await acme.get('/_sandbox/events')).body.data.find((e: any) => e.id === ev.id).state === 'delivered', 3000, 'delivered state')
    const final = (await acme.get('/_sandbox/events')).body.data.find((e: any) => e.id === ev.id)
    expect(final.deliveries.map((d: any) => d.status)).toEqual([500, 503, 200])
    expect(final.client_id).toBe(ACME.client_id)
  })

  it('retries an unreachable endpoint', async () => {
    sb.setWebhookUrl(ACME.client_id, `http://127.0.0.1:${await closedPort()}/unreachable`)
    await acme.post('/v1/payouts', {amount: '1.00', currency: 'KES', merchant_reference: 'wh-unreach', mobile: '254712345678', provider: 'mpesa'})
    const ev = await until(() => sb.events.find((e) => e.type === 'payout.processing' && e.body.includes('wh-unreach') && e.deliveries.length >= 2), 5000, 'two failed attempts')
    expect(ev.deliveries[0].status).toBeNull()
    expect(ev.deliveries[0].error).toBeTruthy()
  })

  it('gives up after webhookMaxAttempts (state failed)', async () => {
    const other = await start({webhookRetryBaseMs: 5, webhookMaxAttempts: 3})
    try {
      rx = await receiver([500, 500, 500, 500])
      other.setWebhookUrl(ACME.client_id, rx.url)
      const c = await acmeClient(other)
      await c.post('/v1/collections', collectionBody({mobile: '254712345678'}))
      const ev = await until(() => other.events.find((e) => e.state === 'failed'), 3000, 'failed state')
      expect(ev.deliveries.map((d) => d.status)).toEqual([500, 500, 500])
    } finally {
      await other.close()
    }
  })

  it('--duplicate-rate 1 sends each event twice with the same id', async () => {
    rx = await receiver()
    sb.setWebhookUrl(ACME.client_id, rx.url)
    await acme.call('PUT', '/_sandbox/faults', {body: {duplicate_rate: 1}})
    await acme.post('/v1/collections', collectionBody({merchant_reference: 'wh-dup', mobile: '254712345678'}))
    // deliveries run concurrently, the collection may emit more than one event, and a retry of an earlier
    // test's event may reach this receiver: group this collection's deliveries by event id rather than
    // assume the two copies of one event are the first two to arrive
    const copiesOf = (id: string) => rx!.received.filter((d) => d.body.id === id)
    const evs = await until(() => {
      const es = sb.events.filter((e) => e.body.includes('wh-dup'))
      return es.length > 0 && es.every((e) => copiesOf(e.id).length >= 2) ? es : undefined
    }, 5000, 'each event twice')
    for (const e of evs) {
      const copies = copiesOf(e.id)
      expect(copies).toHaveLength(2)
      expect(copies[0].body.id).toBe(e.id)
      expect(copies[0].raw).toBe(copies[1].raw)
    }
  })

  it('pay links created in the portal emit no events, even when paid', async () => {
    rx = await receiver()
    sb.setWebhookUrl(ACME.client_id, rx.url)
    const r = await acme.post('/_sandbox/portal/checkout-sessions', {merchant: 'acme', ...checkoutBody({merchant_reference: 'portal-1'})})
    expect(r.status).toBe(201)
    expect(r.body.url).toBe(`${sb.url}/pay/${r.body.id}`)
    await acme.post(`/_sandbox/transactions/${r.body.id}/succeed`)
    await new Promise((res) => setTimeout(res, 100))
    expect(sb.events.filter((e) => e.body.includes(r.body.id))).toHaveLength(0)
    expect(rx.received.filter((d) => d.raw.includes(r.body.id))).toHaveLength(0)
    // it is still the merchant's session
    expect((await acme.get(`/v1/checkout/sessions/${r.body.id}`)).body.status).toBe('succeeded')
  })

  it('events of the other merchant go to its own client only', async () => {
    rx = await receiver()
    sb.setWebhookUrl(ACME.client_id, rx.url)
    const {globexClient} = await import('../helpers/sandbox-http.js')
    const globex = await globexClient(sb)
    await globex.post('/v1/collections', collectionBody({merchant_reference: 'gx-wh'}))
    await new Promise((res) => setTimeout(res, 100))
    expect(rx.received.filter((d) => d.raw.includes('gx-wh'))).toHaveLength(0)
    expect(sb.events.some((e) => e.client_id === 'sb_globex_client' && e.state === 'no_endpoint')).toBe(true)
  })
})
