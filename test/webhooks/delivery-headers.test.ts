/**
 * `pay webhook trigger` sends the delivery headers the sandbox sends (issue 12): the same Service-* names,
 * with the event's id and type and attempt 1, so an app tested with trigger can tell the type from the headers.
 */
import {randomUUID} from 'node:crypto'
import {afterAll, beforeAll, expect, it} from 'vitest'
import {type Sandbox, startSandbox} from '../../src/sandbox/index.js'
import {runCli} from '../helpers/cli.js'
import {startTestApp, type TestApp, waitFor} from '../helpers/webhooks.js'

let sb: Sandbox
let app: TestApp
beforeAll(async () => {
  sb = await startSandbox({settleMs: 20})
  app = await startTestApp()
})
afterAll(async () => {
  await app?.close()
  await sb?.close()
})

const serviceHeaders = (h: Record<string, unknown>) => Object.keys(h).filter((k) => k.startsWith('service-')).sort()

it('trigger sends Service-Event-Id, Service-Event-Type and Service-Delivery-Attempt, the same set as a sandbox delivery', async () => {
  const seed = sb.seed
  await fetch(`${sb.url}/_sandbox/clients/${seed.client_id}/webhook`, {method: 'PUT', headers: {'content-type': 'application/json'}, body: JSON.stringify({url: app.url})})
  const token = (await (await fetch(`${sb.url}/v1/oauth/token`, {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify({grant_type: 'client_credentials', client_id: seed.client_id, client_secret: seed.client_secret})})).json()).access_token
  const created = await fetch(`${sb.url}/v1/collections`, {
    method: 'POST',
    headers: {'content-type': 'application/json', authorization: `Bearer ${token}`, 'idempotency-key': randomUUID()},
    body: JSON.stringify({amount: '100.00', currency: 'KES', merchant_reference: 'hdr-1', mobile: '254712345671', provider: 'mpesa'}),
  })
  expect(created.status).toBe(201)
  await waitFor(() => app.received.length >= 1, 15_000, 'a sandbox delivery')
  const fromSandbox = app.received[0].headers

  const r = await runCli(['webhook', 'trigger', 'payout.failed', '--to', app.url, '--secret', 'whsec_trigger_headers'])
  expect(r.code, r.stderr).toBe(0)
  const fromTrigger = app.received.at(-1)!
  const event = JSON.parse(fromTrigger.body.toString())
  expect(fromTrigger.headers['service-event-id']).toBe(event.id)
  expect(fromTrigger.headers['service-event-type']).toBe('payout.failed')
  expect(fromTrigger.headers['service-delivery-attempt']).toBe('1')
  expect(serviceHeaders(fromTrigger.headers)).toEqual(serviceHeaders(fromSandbox))
  expect(serviceHeaders(fromSandbox)).toEqual(['service-delivery-attempt', 'service-event-id', 'service-event-type', 'service-signature'])
})
