/**
 * `pay webhook trigger` in-process (src/webhooks/trigger.ts through its command class): samples signed so that
 * openssl agrees, the receiver's answer and the exit codes, the input rules, --dry-run, the secret from the
 * environment or the profile. The receiver is a node:http app on port 0 (the command is for testing your own
 * endpoint). A terminal's view of the answer stays a process test (test/e2e/webhook-cli.test.ts).
 */
import {HTTP_URL_RULE} from '../../src/webhooks/filter.js'
import {afterEach, describe, expect, it} from 'vitest'
import {runWebhookTrigger} from '../../src/webhooks/trigger.js'
import {json} from '../helpers/cli.js'
import {commandEnv, memoryOutput, runCommand} from '../helpers/in-process.js'
import {closedPort} from '../helpers/localtunnel-server.js'
import {opensslDigest, opensslSign, startTestApp, type TestApp} from '../helpers/webhooks.js'

const SECRET = 'whsec_trigger_test_9d1'
const apps: TestApp[] = []
afterEach(async () => {
  while (apps.length) await apps.pop()!.close()
})
async function app(): Promise<TestApp> {
  const a = await startTestApp()
  apps.push(a)
  return a
}
const trigger = (args: string[], env: Record<string, string | undefined> = {}) => runCommand(['webhook', 'trigger', ...args], {env})

describe('pay webhook trigger', () => {
  // every type of the spec is covered by samples.test.ts; here one of each resource
  const TYPES = ['checkout_session.failed', 'mandate_debit.succeeded', 'subscription.charge_failed']

  it('sends samples signed so that openssl agrees, with the delivery headers, and prints the receiver status and body', async () => {
    const receiver = await app()
    for (const type of TYPES) {
      const r = await trigger([type, '--to', receiver.url, '--secret', SECRET])
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout).toContain('HTTP 200')
      expect(r.stdout).toContain('"app":"got it"')
      expect(r.stderr).toContain(`POST ${receiver.url}  ${type}  EVT_`)
    }
    expect(receiver.received).toHaveLength(TYPES.length)
    for (const [i, got] of receiver.received.entries()) {
      const event = JSON.parse(got.body.toString())
      expect(event).toMatchObject({object: 'event', type: TYPES[i]})
      expect(event.id).toMatch(/^EVT_[A-Z0-9]{24}$/)
      expect(got.headers).toMatchObject({'service-event-id': event.id, 'service-event-type': TYPES[i], 'service-delivery-attempt': '1'})
      expect(got.headers['user-agent']).toMatch(/^pay\/\S+ \(webhook trigger\)$/)
      const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(got.headers['service-signature']))!
      expect(v1).toBe(opensslSign(SECRET, Number(t), got.body))
    }
  })

  it('-F overrides fields of data, --id and --timestamp are used as given; --json shows event, status and parsed body', async () => {
    const receiver = await app()
    const id = 'EVT_ABCDEFGHIJKLMNOPQRSTUVWX'
    const r = await trigger(['payout.failed', '--to', receiver.url, '--secret', SECRET, '-F', 'merchant_reference=po-991', '-F', 'amount=75.00', '--id', id, '--timestamp', '1767225000', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(json(r)).toMatchObject({status: 200, body: {app: 'got it'}, event: {id, type: 'payout.failed', data: {merchant_reference: 'po-991', amount: '75.00'}}})
    expect(String(receiver.received[0].headers['service-signature'])).toMatch(/^t=1767225000,v1=/)
  })

  it('exit 1 on a non-2xx answer (body printed), 7 when unreachable', async () => {
    const receiver = await app()
    receiver.status = 422
    const r = await trigger(['payout.succeeded', '--to', receiver.url, '--secret', SECRET])
    expect(r.code).toBe(1)
    expect(r.stdout).toContain('HTTP 422')
    const port = await closedPort()
    const down = await trigger(['payout.succeeded', '--to', `http://127.0.0.1:${port}/x`, '--secret', SECRET])
    expect(down.code).toBe(7)
    expect(down.stderr).toMatch(new RegExp(`127\\.0\\.0\\.1:${port}/x could not be reached: ECONNREFUSED`))
    expect(down.stderr).toContain('check that the receiver is running')
  })

  it('bad input: exit 2 naming each flag and its rule, nothing sent', async () => {
    const receiver = await app()
    const bad = await trigger(['payment.done', '--to', receiver.url, '--secret', SECRET])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/Expected payment\.done to be one of: collection\.processing, /) // the TYPE argument's choices (completion offers them)
    const rules = await trigger(['payout.failed', '--to', 'ftp://x', '--secret', ' ', '--id', 'EVT_short'])
    expect(rules.code).toBe(2)
    expect(rules.stderr).toContain(`--to ${HTTP_URL_RULE}`) // the rule of isHttpUrl, as --forward-to and replay --to say it
    for (const to of ['/relative', 'localhost:4000', 'mailto:a@b']) expect((await trigger(['payout.failed', '--to', to, '--secret', SECRET])).stderr).toContain(`--to ${HTTP_URL_RULE}`)
    expect(rules.stderr).toMatch(/--id must be EVT_ followed by 24/)
    expect(rules.stderr).toMatch(/--secret must not be empty/)
    const none = await trigger(['payout.failed', '--to', receiver.url])
    expect(none.code).toBe(2)
    expect(none.stderr).toMatch(/--secret is required to sign \(or set PAY_WEBHOOK_SECRET/)
    expect(receiver.received).toHaveLength(0)
  })

  it('--dry-run prints the signed request and sends nothing; the secret itself is never printed', async () => {
    const receiver = await app()
    const r = await trigger(['mandate.cancelled', '--to', receiver.url, '--secret', SECRET, '--dry-run', '--json'])
    expect(r.code).toBe(0)
    expect(json(r)).toMatchObject({dry_run: true, method: 'POST', url: receiver.url, body: {type: 'mandate.cancelled'}})
    expect(json(r).headers['Service-Signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/)
    const text = await trigger(['mandate.cancelled', '--to', receiver.url, '--secret', SECRET, '--dry-run'])
    expect(text.stdout).toMatch(new RegExp(`^POST ${receiver.url}\\n(.+: .+\\n)+\\n\\{"id":"EVT_`))
    expect(r.stdout + text.stdout + r.stderr + text.stderr).not.toContain(SECRET)
    expect(receiver.received).toHaveLength(0)
  })

  it('signs with PAY_WEBHOOK_SECRET, or the profile\'s secret; several --secret give one v1 each (rotation)', async () => {
    const receiver = await app()
    const io = memoryOutput(false)
    expect(await runWebhookTrigger({type: 'collection.succeeded', to: receiver.url, timeout: 5}, io.out, {userAgent: 'pay-test', env: commandEnv({PAY_WEBHOOK_SECRET: SECRET})})).toBe(0)
    const env = commandEnv()
    expect((await runCommand(['profiles', 'add', 'shop', '--base-url', 'http://127.0.0.1:1', '--client-id', 'c', '--webhook-secret', 'whsec_profile_1'], {env: {PAY_CONFIG_DIR: env.PAY_CONFIG_DIR, PAY_SECRET_STORE: 'file'}})).code).toBe(0)
    expect(await runWebhookTrigger({type: 'collection.succeeded', to: receiver.url, profile: 'shop', timeout: 5}, io.out, {userAgent: 'pay-test', env})).toBe(0)
    expect(await runWebhookTrigger({type: 'collection.succeeded', to: receiver.url, secret: [SECRET, 'whsec_next'], timeout: 5}, io.out, {userAgent: 'pay-test', env})).toBe(0)
    const [fromEnv, fromProfile, rotated] = receiver.received
    const check = (got: (typeof receiver.received)[number], secrets: string[]) => {
      const header = String(got.headers['service-signature'])
      const t = Number(/t=(\d+)/.exec(header)![1])
      expect(header).toBe(`t=${t},${secrets.map((s) => `v1=${opensslSign(s, t, got.body)}`).join(',')}`)
    }
    check(fromEnv, [SECRET])
    check(fromProfile, ['whsec_profile_1'])
    check(rotated, [SECRET, 'whsec_next'])
    expect(fromEnv.headers['user-agent']).toBe('pay-test')
  })

  it('signs in the format webhook_signature / PAY_WEBHOOK_SIGNATURE pins (the timestamp apart when it says so); a bad pin is bad input', async () => {
    const receiver = await app()
    const io = memoryOutput(false)
    const env = commandEnv({PAY_WEBHOOK_SECRET: SECRET, PAY_WEBHOOK_SIGNATURE: 'header-base64-sha256'})
    expect(await runWebhookTrigger({type: 'collection.succeeded', to: receiver.url, timeout: 5}, io.out, {userAgent: 'pay-test', env})).toBe(0)
    const got = receiver.received[0]
    const t = Number(got.headers['service-timestamp'])
    expect(got.headers['service-signature']).toBe(opensslDigest('sha256', SECRET, t, got.body).toString('base64'))
    await expect(runWebhookTrigger({type: 'collection.succeeded', to: receiver.url, timeout: 5}, io.out, {userAgent: 'pay-test', env: {...env, PAY_WEBHOOK_SIGNATURE: 'rot13'}})).rejects.toThrow(/webhook_signature/)
    expect(receiver.received).toHaveLength(1)
  })

  it('a URL\'s password and secret-named query values are never shown: the POST line, --dry-run, and the error', async () => {
    const receiver = await app()
    const port = await closedPort()
    const secrets = ['S3CRETPW', 'QTOKEN123']
    const withSecrets = (url: string) => url.replace('http://', 'http://bob:S3CRETPW@') + '?api_key=QTOKEN123&page=2'
    const runs = [
      await trigger(['payout.succeeded', '--to', withSecrets(`http://127.0.0.1:${port}/x`), '--secret', SECRET]),
      await trigger(['payout.succeeded', '--to', withSecrets(receiver.url), '--secret', SECRET]),
      await trigger(['payout.succeeded', '--to', withSecrets(receiver.url), '--secret', SECRET, '--dry-run']),
      await trigger(['payout.succeeded', '--to', withSecrets(receiver.url), '--secret', SECRET, '--dry-run', '--json']),
    ]
    expect(runs[0].code).toBe(7)
    expect(runs[0].stderr).toContain(`http://[REDACTED]@127.0.0.1:${port}/x?api_key=[REDACTED]&page=2 could not be reached`)
    expect(runs[2].stdout).toContain(`POST ${receiver.url.replace('http://', 'http://[REDACTED]@')}?api_key=[REDACTED]&page=2`)
    for (const r of runs) for (const s of secrets) expect(r.stdout + r.stderr).not.toContain(s)
  })
})
