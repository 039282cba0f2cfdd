/**
 * The listener's bounds: no request can end it (a body nested 200,000 levels deep, unsigned, against the built
 * `pay webhook listen --json`), a flood of valid senders over the connection cap is answered 503 with Retry-After
 * (never reset) and every event is forwarded once after the senders' retries, and an app's endless answer is read
 * up to a bound, then answered 502.
 */
import {createHmac} from 'node:crypto'
import {createServer, request} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterEach, describe, expect, it} from 'vitest'
import {MAX_FORWARD_ANSWER_BYTES} from '../../src/webhooks/forward.js'
import {startListener} from '../../src/webhooks/listener.js'
import {eventBody, nowSeconds, opensslHeader, post, startListen, startTestApp} from '../helpers/webhooks.js'

const SECRET = 'whsec_limits_test'
const cleanup: (() => unknown)[] = []
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!()
})

/** A body nested `depth` levels deep inside `data`, with string id and type: an event, were it not so deep. */
function deepEvent(depth: number): string {
  return `{"id":"EVT_DEEP","type":"collection.succeeded","data":${'['.repeat(depth)}${']'.repeat(depth)}}`
}

describe('listener: no request ends it', () => {
  it('the built `pay webhook listen --json` answers an unsigned 200,000-deep event 401 and keeps serving', async () => {
    const p = await startListen(['--json', '--tunnel', 'none', '--secret', SECRET])
    cleanup.push(() => p.stop())
    const deep = await post(p.url, deepEvent(200_000))
    expect(deep.status).toBe(400) // no signature header: judged like any unsigned delivery
    const forged = await post(p.url, deepEvent(200_000), {'service-signature': `t=${nowSeconds()},v1=${'0'.repeat(64)}`})
    expect(forged.status).toBe(401)
    await new Promise((r) => setTimeout(r, 100)) // the renderer's batch (15 ms) has run
    const {id, body} = eventBody()
    const ok = await post(p.url, body, {'service-signature': opensslHeader([SECRET], nowSeconds(), body)})
    expect(ok.status).toBe(200)
    const r = await p.stop()
    cleanup.pop()
    expect(r.code).toBe(0)
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l))
    expect(lines).toHaveLength(3)
    expect(lines[1].verdict).toMatchObject({ok: false, status: 401})
    expect(lines[2].event.id).toBe(id)
  })

  it('a body nested deeper than the bound is never parsed: 400 invalid_json when unsigned checks are off', async () => {
    const seen: unknown[] = []
    const l = await startListener({verify: false, onDelivery: (d) => seen.push(d.event)})
    cleanup.push(() => l.close())
    const res = await post(`${l.url}${l.path}`, deepEvent(200_000))
    expect(res.status).toBe(400)
    expect(JSON.parse(res.body).error).toEqual({code: 'invalid_json', message: 'the body nests deeper than 32 levels'})
    expect(seen).toEqual([null])
    // a shallow event still passes
    expect((await post(`${l.url}${l.path}`, deepEvent(20))).status).toBe(200)
  })
})

describe('listener: the connection cap', () => {
  it('1,000 valid deliveries on 1,000 connections at once (the built listener): each answered 2xx or 503 with Retry-After, none reset; each event forwarded once', async () => {
    const app = await startTestApp()
    cleanup.push(() => app.close())
    // the built listener, a process of its own: its accepts and reads interleave as they do for real senders
    const p = await startListen(['--tunnel', 'none', '--secret', SECRET, '--forward-to', app.url, '--json'])
    cleanup.push(() => p.stop())
    const port = Number(new URL(p.url).port)
    const events = Array.from({length: 1000}, () => eventBody())
    // signed here (openssl once per delivery would take longer than the burst); the scheme is tested with openssl elsewhere
    const sign = (body: string, t = nowSeconds()) => `t=${t},v1=${createHmac('sha256', SECRET).update(`${t}.${body}`).digest('hex')}`
    const statuses: number[] = []
    const errors: string[] = []
    let retryAfterMissing = 0
    /** One delivery on a connection of its own: the status, or the error that ended it. */
    const once = (body: string) =>
      new Promise<number>((resolve) => {
        const req = request({host: '127.0.0.1', port, path: '/webhooks', method: 'POST', agent: false, headers: {'content-type': 'application/json', 'service-signature': sign(body), connection: 'close'}}, (res) => {
          if (res.statusCode === 503 && res.headers['retry-after'] === undefined) retryAfterMissing++
          res.resume()
          res.on('end', () => resolve(res.statusCode ?? 0))
        })
        req.on('error', (err: NodeJS.ErrnoException) => {
          errors.push(err.code ?? err.message)
          resolve(-1)
        })
        req.end(body)
      })
    // the service's retries: a 503 is sent again after Retry-After, until it is answered 2xx
    await Promise.all(
      events.map(async ({body}) => {
        for (let attempt = 0; attempt < 30; attempt++) {
          const status = await once(body)
          statuses.push(status)
          if (status >= 200 && status < 300) return
          if (status !== 503) return
          await new Promise((r) => setTimeout(r, 1000))
        }
      }),
    )
    expect(errors).toEqual([])
    expect(statuses.filter((s) => !((s >= 200 && s < 300) || s === 503))).toEqual([])
    expect(retryAfterMissing).toBe(0)
    const forwarded = app.received.map((r) => JSON.parse(r.body.toString()).id as string)
    expect(forwarded.length).toBe(1000)
    expect(new Set(forwarded)).toEqual(new Set(events.map((e) => e.id)))
  }, 120_000)
})

describe('listener: the --forward-to answer', () => {
  it('an app that streams an endless answer is read up to the bound, then answered 502', async () => {
    const endless = createServer((req, res) => {
      req.resume()
      res.writeHead(200, {'content-type': 'text/plain'})
      const chunk = Buffer.alloc(64 * 1024, 'x')
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump)
      }
      pump()
    })
    await new Promise<void>((r) => endless.listen(0, '127.0.0.1', () => r()))
    cleanup.push(() => new Promise<void>((r) => (endless.closeAllConnections(), endless.close(() => r()))))
    const l = await startListener({verify: false, forwardTo: `http://127.0.0.1:${(endless.address() as AddressInfo).port}/`, forwardTimeoutMs: 20_000})
    cleanup.push(() => l.close())
    const started = Date.now()
    const res = await post(`${l.url}${l.path}`, eventBody().body)
    expect(res.status).toBe(502)
    expect(JSON.parse(res.body).error.code).toBe('forward_too_large')
    expect(JSON.parse(res.body).error.message).toContain(`more than ${MAX_FORWARD_ANSWER_BYTES} bytes`)
    expect(Date.now() - started).toBeLessThan(10_000) // not the forward timeout
    expect(l.stats.forward_failed).toBe(1)
  })
})
