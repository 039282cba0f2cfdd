/** `pay sandbox deliveries` and `pay sandbox resend` through their run functions, against an in-process sandbox. */
import {randomUUID} from 'node:crypto'
import {afterEach, describe, expect, it} from 'vitest'
import {ControlClient} from '../../src/client/control-client.js'
import {startSandbox, type Sandbox} from '../../src/sandbox/index.js'
import {runSandboxDeliveries, runSandboxResend} from '../../src/sandbox/deliveries.js'
import {verifySignature} from '../../src/webhooks/signature.js'
import {memoryOutput} from '../helpers/in-process.js'
import {startTestApp, type TestApp, waitFor} from '../helpers/webhooks.js'

let sb: Sandbox | undefined
let app: TestApp | undefined
let control: ControlClient | undefined
afterEach(async () => {
  await control?.close()
  await app?.close()
  await sb?.close()
})

/**
 * A sandbox whose client's webhook URL (`webhookUrl` of the test app's) fails the first attempt of the one event a
 * collection makes: the control API's call, and that event once failed.
 */
async function failedEvent(webhookUrl: (appUrl: string) => string) {
  sb = await startSandbox({webhookMaxAttempts: 1})
  app = await startTestApp()
  app.failNext = 1
  sb.setWebhookUrl(sb.seed.client_id, webhookUrl(app.url))
  control = new ControlClient({url: sb.url, userAgent: 'pay-test'})
  const call = control.call.bind(control)
  const token = ((await (await fetch(`${sb.url}/v1/oauth/token`, {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify({grant_type: 'client_credentials', client_id: sb.seed.client_id, client_secret: sb.seed.client_secret})})).json()) as {access_token: string}).access_token
  const res = await fetch(`${sb.url}/v1/collections`, {
    method: 'POST',
    headers: {'content-type': 'application/json', authorization: `Bearer ${token}`, 'idempotency-key': randomUUID()},
    body: JSON.stringify({amount: '100.00', currency: 'KES', merchant_reference: 'resend-1', mobile: '254712345678', provider: 'mpesa'}),
  })
  expect(res.status).toBe(201)
  await waitFor(() => sb!.events.length === 1 && sb!.events[0].state === 'failed', 10_000, 'the first attempt to fail')
  return {call, event: sb.events[0], sandbox: sb, receiver: app}
}

describe('pay sandbox deliveries and resend', () => {
  it('shows every attempt; a resend delivers the same body again, signed afresh, and makes a failed event delivered', async () => {
    // the sandbox and the app as this test's own (both are closed after each test)
    const {call, event, sandbox: sb, receiver: app} = await failedEvent((url) => url)

    const listed = memoryOutput(true)
    expect(await runSandboxDeliveries(call, {eventId: event.id}, listed.out)).toMatchObject([{event_id: event.id, attempt: 1, status: 500, kind: 'scheduled', event_state: 'failed'}])
    expect(JSON.parse(listed.stdout())).toHaveLength(1)

    const resent = memoryOutput(false)
    expect(await runSandboxResend(call, event.id, resent.out)).toBe(0)
    expect(resent.stdout()).toContain(`${event.id} delivered again to ${app.url} (attempt 2): 200`)
    expect(sb.events[0].state).toBe('delivered')
    const [firstTry, again] = app.received
    expect(again.body.toString()).toBe(firstTry.body.toString())
    expect(verifySignature(String(again.headers['service-signature']), again.body, sb.seed.webhook_secret)).toMatchObject({ok: true})

    const all = memoryOutput(false)
    const rows = await runSandboxDeliveries(call, {type: 'collection.processing'}, all.out)
    expect(rows.map((r) => [r.attempt, r.status, r.kind])).toEqual([
      [2, 200, 'resend'],
      [1, 500, 'scheduled'],
    ])
    expect(all.stdout()).toContain('resend')

    // the app failing again: exit 1; no webhook URL: 409 (exit 5); an unknown event: 404 (exit 4)
    app.status = 500
    expect(await runSandboxResend(call, event.id, memoryOutput(false).out)).toBe(1)
    sb.setWebhookUrl(sb.seed.client_id, null)
    await expect(runSandboxResend(call, event.id, memoryOutput(false).out)).rejects.toMatchObject({exitCode: 5})
    await expect(runSandboxResend(call, 'EVT_NOPE', memoryOutput(false).out)).rejects.toMatchObject({exitCode: 4})
    await expect(runSandboxDeliveries(call, {eventId: 'EVT_NOPE'}, memoryOutput(false).out)).rejects.toMatchObject({exitCode: 4})
  })

  it('a webhook URL\'s password and secret-named query values are never shown (the list, --json, a resend)', async () => {
    const {call, event, receiver} = await failedEvent((url) => `${url.replace('http://', 'http://bob:S3CRETPW@')}?api_key=QTOKEN123`)
    const runs = [memoryOutput(false), memoryOutput(true), memoryOutput(false)]
    await runSandboxDeliveries(call, {eventId: event.id}, runs[0].out)
    await runSandboxDeliveries(call, {eventId: event.id}, runs[1].out)
    await runSandboxResend(call, event.id, runs[2].out)
    expect(JSON.parse(runs[1].stdout())[0].url).toBe(`${receiver.url.replace('http://', 'http://[REDACTED]@')}?api_key=[REDACTED]`)
    const all = runs.map((r) => r.stdout() + r.stderr()).join('\n')
    expect(all).toContain('delivered again to http://[REDACTED]@127.0.0.1')
    expect(all).not.toMatch(/S3CRETPW|QTOKEN123/)
  })
})
