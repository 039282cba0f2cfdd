/** The listener in-process: every verdict, duplicates, filtering, forwarding, limits, and that it never crashes. */
import {connect} from 'node:net'
import {afterEach, describe, expect, it} from 'vitest'
import type {Delivery} from '../../src/webhooks/deliveries.js'
import {type Listener, startListener} from '../../src/webhooks/listener.js'
import {parseSchemeId, SCHEME_IDS, sign, TIMESTAMP_HEADER} from '../../src/webhooks/signature.js'
import {deliveryLine} from '../../src/webhooks/render.js'
import {eventBody, nowSeconds, opensslHeader, post, startTestApp} from '../helpers/webhooks.js'

const SECRET = 'whsec_listener_test'
const open: {close(): Promise<void>}[] = []
afterEach(async () => {
  while (open.length) await open.pop()!.close()
})

async function listen(options: Parameters<typeof startListener>[0] = {}): Promise<{l: Listener; deliveries: Delivery[]; url: string}> {
  const deliveries: Delivery[] = []
  const l = await startListener({secrets: [SECRET], onDelivery: (d) => deliveries.push(d), ...options})
  open.push(l)
  return {l, deliveries, url: `${l.url}${l.path}`}
}

const signed = (body: string, secrets = [SECRET], t = nowSeconds()) => ({'service-signature': opensslHeader(secrets, t, body)})

describe('webhook listener', () => {
  it('accepts a valid delivery (openssl-signed) and reports it', async () => {
    const {l, deliveries, url} = await listen()
    const {id, body} = eventBody()
    const res = await post(url, body, signed(body))
    expect(res.status).toBe(200)
    expect(JSON.parse(res.body)).toEqual({received: true})
    expect(l.stats).toMatchObject({received: 1, verified: 1, duplicates: 0})
    expect(deliveries[0]).toMatchObject({event: {id}, verdict: {ok: true, status: 200, verified: true}, duplicate: false})
  })

  it('rejects each kind of bad delivery with its status and reason, and counts them', async () => {
    const {l, deliveries, url} = await listen({maxBodyBytes: 2048})
    const t = nowSeconds()
    const {body} = eventBody()
    const cases: [string, Promise<{status: number; body: string}>, number, string][] = [
      ['no header', post(url, body), 400, 'missing_header'],
      ['malformed', post(url, body, {'service-signature': 'v1=nothex'}), 400, 'malformed_header'],
      ['wrong secret', post(url, body, signed(body, ['whsec_wrong'])), 401, 'no_matching_signature'],
      ['tampered', post(url, body.replace('1500.00', '1.00'), signed(body)), 401, 'no_matching_signature'],
      ['stale', post(url, body, signed(body, [SECRET], t - 301)), 401, 'timestamp_outside_tolerance'],
      ['future', post(url, body, signed(body, [SECRET], t + 400)), 401, 'timestamp_outside_tolerance'],
      ['not JSON', post(url, 'hello, world', signed('hello, world')), 400, 'invalid_json'],
      ['not an event', post(url, '[1,2]', signed('[1,2]')), 400, 'invalid_event'],
      ['too large', post(url, 'x'.repeat(4096), signed('x'.repeat(4096))), 413, 'body_too_large'],
      ['GET', post(url, '', {}, 'GET'), 405, 'method_not_allowed'],
    ]
    for (const [name, p, status, reason] of cases) {
      const res = await p
      expect(res.status, name).toBe(status)
      expect(JSON.parse(res.body).error.code, name).toBe(reason)
    }
    expect(l.stats.received).toBe(cases.length)
    expect(l.stats.verified).toBe(0)
    expect(l.stats.rejected).toEqual({
      missing_header: 1,
      malformed_header: 1,
      no_matching_signature: 2,
      timestamp_outside_tolerance: 2,
      invalid_json: 1,
      invalid_event: 1,
      body_too_large: 1,
      method_not_allowed: 1,
    })
    expect(deliveries.every((d) => !d.verdict.ok && d.verdict.detail)).toBe(true)
    // other paths: 404, not counted as deliveries
    expect((await post(`${l.url}/other`, body, signed(body))).status).toBe(404)
    expect(l.stats.not_found).toBe(1)
  })

  it('rotation: a header with two v1 passes with either configured secret', async () => {
    const {l, url} = await listen({secrets: ['new-secret']})
    const {body} = eventBody()
    expect((await post(url, body, signed(body, ['old-secret', 'new-secret']))).status).toBe(200)
    expect(l.stats.verified).toBe(1)
  })

  it('answers a duplicate event id 200, marks it, does not forward it again', async () => {
    const app = await startTestApp()
    open.push(app)
    const {l, deliveries, url} = await listen({forwardTo: app.url})
    const {body} = eventBody()
    expect((await post(url, body, signed(body))).status).toBe(200)
    const again = await post(url, body, signed(body))
    expect(again.status).toBe(200)
    expect(JSON.parse(again.body)).toEqual({received: true, duplicate: true})
    expect(app.received).toHaveLength(1)
    expect(l.stats).toMatchObject({verified: 2, duplicates: 1, forwarded: 1})
    expect(deliveries.map((d) => d.duplicate)).toEqual([false, true])
  })

  it('remembers the newest ids up to its limit: over it, the oldest tenth is forgotten at once', async () => {
    const {l, url} = await listen({seenLimit: 20})
    const events = Array.from({length: 21}, () => eventBody())
    const send = async (body: string) => JSON.parse((await post(url, body, signed(body))).body)
    for (const {body} of events) expect(await send(body)).toEqual({received: true})
    // the 21st made it 21 ids: the oldest two went
    expect(await send(events[2].body)).toEqual({received: true, duplicate: true})
    expect(await send(events[20].body)).toEqual({received: true, duplicate: true})
    expect(await send(events[0].body)).toEqual({received: true})
    expect(await send(events[1].body)).toEqual({received: true})
    expect(l.stats.duplicates).toBe(2)
  })

  it('forwards the raw body and original headers, passes the app status back; a failed forward is retried, not a duplicate', async () => {
    const app = await startTestApp()
    open.push(app)
    const {l, url} = await listen({forwardTo: app.url})
    const {body} = eventBody('payout.failed')
    const headers = {...signed(body), 'x-custom': 'kept'}
    app.status = 500
    const first = await post(url, body, headers)
    expect(first.status).toBe(500)
    expect(JSON.parse(first.body)).toEqual({app: 'got it', status: 500})
    app.status = 200
    const retry = await post(url, body, headers)
    expect(retry.status).toBe(200)
    expect(app.received).toHaveLength(2)
    expect(app.received[1].body.toString()).toBe(body)
    expect(app.received[1].headers['service-signature']).toBe(headers['service-signature'])
    expect(app.received[1].headers['x-custom']).toBe('kept')
    expect(l.stats).toMatchObject({forwarded: 1, forward_failed: 1, duplicates: 0})
  })

  it('answers 502 when the app is unreachable, and never marks the event seen', async () => {
    const app = await startTestApp()
    const appUrl = app.url
    await app.close()
    const {l, deliveries, url} = await listen({forwardTo: appUrl})
    const {body} = eventBody()
    const res = await post(url, body, signed(body))
    expect(res.status).toBe(502)
    expect(JSON.parse(res.body).error.code).toBe('forward_unreachable')
    expect(deliveries[0].forward?.error).toBe('unreachable')
    expect((await post(url, body, signed(body))).status).toBe(502)
    expect(l.stats).toMatchObject({forward_failed: 2, duplicates: 0})
  })

  it('--events: filtered types are answered 200, counted, not forwarded or shown', async () => {
    const app = await startTestApp()
    open.push(app)
    const {l, deliveries, url} = await listen({forwardTo: app.url, events: ['collection.*', 'payout.failed']})
    for (const type of ['collection.succeeded', 'payout.failed', 'payout.succeeded', 'mandate.cancelled']) {
      const {body} = eventBody(type)
      expect((await post(url, body, signed(body))).status).toBe(200)
    }
    expect(app.received.map((r) => JSON.parse(r.body.toString()).type)).toEqual(['collection.succeeded', 'payout.failed'])
    expect(l.stats).toMatchObject({verified: 4, filtered: 2, forwarded: 2})
    expect(deliveries.filter((d) => !d.filtered)).toHaveLength(2)
  })

  it('--no-verify accepts unsigned events, marked unverified', async () => {
    const {l, deliveries, url} = await listen({verify: false, secrets: []})
    const {body} = eventBody()
    expect((await post(url, body)).status).toBe(200)
    expect(l.stats).toMatchObject({verified: 0, unverified: 1})
    expect(deliveries[0].verdict).toMatchObject({ok: true, verified: false})
  })

  it('deliveries read in the same turn (pipelined in one write) are judged together: each its own verdict, in order, a repeated id within them a duplicate', async () => {
    const {l, deliveries} = await listen()
    const a = eventBody()
    const b = eventBody()
    const request = (body: string, headers: Record<string, string>) =>
      `POST /webhooks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${Object.entries(headers)
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('')}\r\n${body}`
    const sent = [
      request(a.body, signed(a.body)),
      request(b.body, signed(b.body, ['whsec_wrong'])),
      request(a.body, signed(a.body)),
      request('not json', signed('not json')),
      request(b.body, signed(b.body)),
    ]
    const answers = await new Promise<string>((resolve, reject) => {
      const s = connect(l.port, '127.0.0.1')
      let got = ''
      s.on('data', (d) => {
        got += d.toString()
        if ((got.match(/HTTP\/1\.1 /g) ?? []).length === sent.length) s.end()
      })
      s.on('close', () => resolve(got))
      s.on('error', reject)
      s.write(sent.join(''))
    })
    expect([...answers.matchAll(/HTTP\/1\.1 (\d+)/g)].map((m) => Number(m[1]))).toEqual([200, 401, 200, 400, 200])
    expect([...answers.matchAll(/\r\n\r\n(\{[^\n]*?\})(?=HTTP|$)/g)].map((m) => m[1])).toEqual([
      '{"received":true}',
      '{"error":{"code":"no_matching_signature","message":"no signature matches the body with the configured secret (tried inline-hex-sha256)"}}',
      '{"received":true,"duplicate":true}',
      '{"error":{"code":"invalid_json","message":"the body is not JSON"}}',
      '{"received":true}',
    ])
    expect(deliveries.map((d) => [d.event?.id ?? null, d.verdict.status, d.duplicate])).toEqual([
      [a.id, 200, false],
      [b.id, 401, false],
      [a.id, 200, true],
      [null, 400, false],
      [b.id, 200, false],
    ])
    expect(l.stats).toMatchObject({received: 5, verified: 3, duplicates: 1})
  })

  it('never crashes: garbage HTTP, a body cut short, a declared huge body; still serves afterwards', async () => {
    const {l, url} = await listen({maxBodyBytes: 1024})
    const raw = (text: string, end = true) =>
      new Promise<string>((resolve) => {
        const s = connect(l.port, '127.0.0.1')
        let got = ''
        s.on('data', (d) => (got += d.toString()))
        s.on('close', () => resolve(got))
        s.on('error', () => resolve(got))
        s.write(text)
        if (end) setTimeout(() => s.end(), 100)
        else setTimeout(() => s.destroy(), 100)
      })
    expect(await raw('NOT HTTP AT ALL\r\n\r\n')).toContain('400')
    await raw('POST /webhooks HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\n{"id":', false)
    expect(await raw('POST /webhooks HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999\r\n\r\n')).toContain('413')
    const chunk = 'x'.repeat(600)
    const chunked = `POST /webhooks HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${(600).toString(16)}\r\n${chunk}\r\n${(600).toString(16)}\r\n${chunk}\r\n0\r\n\r\n`
    expect(await raw(chunked)).toContain('413')
    expect(l.stats.rejected.body_too_large).toBe(2)
    const {body} = eventBody()
    expect((await post(url, body, signed(body))).status).toBe(200)
    expect(l.stats.verified).toBe(1)
  })
})

describe('webhook listener: signature variants of a service whose format is not shown', () => {
  /** The delivery headers of a body signed in a scheme (the timestamp in its own header when the scheme says so). */
  const headersOf = (id: string, body: string, secret = SECRET, t = nowSeconds()) => {
    const h = sign([secret], body, {timestamp: t, scheme: parseSchemeId(id)})
    return {'service-signature': h.signature, ...(h.timestamp ? {[TIMESTAMP_HEADER.toLowerCase()]: h.timestamp} : {})}
  }

  it('accepts each recognised variant and says which matched; a wrong secret or a replayed timestamp is rejected in each', async () => {
    const {deliveries, url} = await listen()
    for (const id of SCHEME_IDS) {
      const {body} = eventBody()
      const ok = await post(url, body, headersOf(id, body))
      expect(ok.status, id).toBe(200)
      expect(deliveries.at(-1)!.verdict, id).toMatchObject({ok: true, verified: true, scheme: id})
      const wrong = await post(url, body, headersOf(id, body, 'whsec_wrong'))
      expect([wrong.status, JSON.parse(wrong.body).error.code], id).toEqual([401, 'no_matching_signature'])
      const replayed = await post(url, body, headersOf(id, body, SECRET, nowSeconds() - 600))
      expect([replayed.status, JSON.parse(replayed.body).error.code], id).toEqual([401, 'timestamp_outside_tolerance'])
    }
  })

  it('an unrecognised Service-Signature shape: 400 with the clear message and the shape masked', async () => {
    const {url} = await listen()
    const {body} = eventBody()
    const res = await post(url, body, {'service-signature': `ts:${nowSeconds()};hmac:deadbeef`})
    expect(res.status).toBe(400)
    const error = JSON.parse(res.body).error
    expect(error.code).toBe('malformed_header')
    expect(error.message).toContain('unrecognised Service-Signature format: xx:0000000000;xxxx:xxxxxxxx')
  })

  it('a pinned scheme accepts only that one', async () => {
    const {url} = await listen({pinnedScheme: parseSchemeId('header-base64-sha512')})
    const {body} = eventBody()
    expect((await post(url, body, headersOf('header-base64-sha512', body))).status).toBe(200)
    const other = await post(url, body, headersOf('inline-hex-sha256', body))
    expect(other.status).toBe(400)
    expect(JSON.parse(other.body).error.message).toMatch(/pinned format header-base64-sha512/)
  })
})

describe('webhook listener: an event payload of another shape (the shape is not shown)', () => {
  it('a signed JSON object without id/type is accepted, shown generically (line and --json), deduplicated by Service-Event-Id or its digest', async () => {
    const {l, deliveries, url} = await listen()
    const body = JSON.stringify({event: 'payment.completed', payload: {ref: 'order-9', amount: '10.00', currency: 'GHS'}})
    const res = await post(url, body, {...signed(body), 'service-event-id': 'evt-77', 'service-event-type': 'payment.completed'})
    expect(res.status).toBe(200)
    const d = deliveries.at(-1)!
    expect(d).toMatchObject({otherShape: true, event: {id: 'evt-77', type: 'payment.completed', data: JSON.parse(body)}, verdict: {ok: true, verified: true}})
    const line = deliveryLine(d, {json: false, color: false, tty: false})
    expect(line).toContain('evt-77  payment.completed  (payload of another shape)  event=payment.completed payload.ref=order-9 payload.amount=10.00 payload.currency=GHS')
    const json = JSON.parse(deliveryLine(d, {json: true, color: false, tty: false}))
    expect(json).toMatchObject({other_shape: true, event: {data: JSON.parse(body)}})
    // the same delivery again: a duplicate by its header id
    const again = await post(url, body, {...signed(body), 'service-event-id': 'evt-77'})
    expect(JSON.parse(again.body)).toEqual({received: true, duplicate: true})

    // no id header: the body's digest is its id, so a redelivery is still a duplicate
    const bare = JSON.stringify({kind: 'payout', state: 'done'})
    expect((await post(url, bare, signed(bare))).status).toBe(200)
    expect(deliveries.at(-1)!.event!.id).toMatch(/^sha256:[0-9a-f]{24}$/)
    expect(JSON.parse((await post(url, bare, signed(bare))).body)).toEqual({received: true, duplicate: true})
    expect(l.stats.duplicates).toBe(2)
    // unsigned or wrongly signed, it is still rejected: tolerance of the shape never weakens the signature
    expect((await post(url, bare, signed(bare, ['whsec_wrong']))).status).toBe(401)
  })
})

