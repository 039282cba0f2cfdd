/**
 * Hardening (issue 12): `webhook listen --forward-to` with --forward-timeout bounds the whole exchange with the app,
 * a body that trickles one byte a second included (the listener itself is tested in test/webhooks).
 */
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterEach, describe, expect, it} from 'vitest'
import {startListener} from '../../src/webhooks/listener.js'
import {eventBody, nowSeconds, opensslHeader, post} from '../helpers/webhooks.js'

const SECRET = 'whsec_forward_test'
const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  while (closers.length) await closers.pop()!()
})

describe('forwarding to a slow app', () => {
  it('a response body trickling one space a second is cut at --forward-timeout and answered 504', {timeout: 30_000}, async () => {
    const app: Server = createServer((req, res) => {
      req.resume()
      res.writeHead(200, {'content-type': 'application/json'})
      res.write(' ')
      const timer = setInterval(() => res.write(' '), 1000)
      res.on('close', () => clearInterval(timer))
    })
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', () => resolve()))
    closers.push(async () => {
      app.closeAllConnections()
      await new Promise<void>((resolve) => app.close(() => resolve()))
    })
    const l = await startListener({secrets: [SECRET], forwardTo: `http://127.0.0.1:${(app.address() as AddressInfo).port}/hook`, forwardTimeoutMs: 1500})
    closers.push(() => l.close())
    const {body} = eventBody()
    // the answer comes (the test's own 60 s limit is the bound: before the fix it never came)
    const res = await post(`${l.url}${l.path}`, body, {'service-signature': opensslHeader([SECRET], nowSeconds(), body)})
    expect(res.status).toBe(504)
    expect(JSON.parse(res.body).error.code).toBe('forward_timeout')
    expect(l.stats.forward_failed).toBe(1)
  })
})
