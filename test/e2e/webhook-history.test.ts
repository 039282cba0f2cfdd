/**
 * The built CLI over the webhook history, as a user runs it: `pay webhook listen` killed with SIGKILL in the
 * middle of a stream of deliveries loses none it answered 2xx, a restarted listener adds to the same history,
 * `pay webhook history` and `show` read it, `pay webhook replay` re-signs (accepted by `pay webhook verify`) and
 * exits 1 when the app fails.
 */
import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {historyDir, readHistory} from '../../src/webhooks/history.js'
import {runCommand} from '../helpers/in-process.js'
import {eventBody, type ListenProcess, nowSeconds, opensslHeader, post, startListen, startTestApp, type TestApp} from '../helpers/webhooks.js'

const SECRET = 'whsec_e2e_history_secret'
const running: ListenProcess[] = []
const apps: TestApp[] = []
afterEach(async () => {
  while (running.length) await running.pop()!.stop()
  for (const app of apps.splice(0)) await app.close()
})

async function listen(env: Record<string, string>, args: string[] = []): Promise<ListenProcess> {
  const p = await startListen(['--tunnel', 'none', ...args], {PAY_WEBHOOK_SECRET: SECRET, ...env})
  running.push(p)
  return p
}

describe('the webhook history of the built CLI', () => {
  it('survives kill -9 mid-delivery and a restart; history, show, replay and verify read it', {timeout: 90_000}, async () => {
    const env = {PAY_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'pay-e2e-history-'))}
    const first = await listen(env)
    // eight senders post until the listener is killed under them
    const answered: string[] = []
    let stop = false
    const sender = async () => {
      while (!stop) {
        const e = eventBody('collection.succeeded', {merchant_reference: 'order-e2e'})
        try {
          const r = await post(first.url, e.body, {'service-signature': opensslHeader([SECRET], nowSeconds(), e.body)})
          if (r.status === 200) answered.push(e.id)
        } catch {
          // the listener is gone: this delivery was never answered
        }
      }
    }
    const senders = Promise.all(Array.from({length: 8}, sender))
    while (answered.length < 150) await new Promise((r) => setTimeout(r, 10))
    await first.kill()
    running.splice(running.indexOf(first), 1)
    stop = true
    await senders
    const kept = new Set(readHistory(historyDir(env)).map((d) => d.event_id))
    const missing = answered.filter((id) => !kept.has(id))
    expect(missing).toEqual([])

    // a restarted listener adds to the same history; its app fails the first delivery
    const app = await startTestApp()
    apps.push(app)
    app.failNext = 1
    const second = await listen(env, ['--forward-to', app.url])
    const late = eventBody('payout.failed', {merchant_reference: 'order-late'})
    expect((await post(second.url, late.body, {'service-signature': opensslHeader([SECRET], nowSeconds(), late.body)})).status).toBe(500)
    expect((await second.stop()).code).toBe(0)
    running.splice(running.indexOf(second), 1)

    const history = await runCommand(['webhook', 'history', '--json', '--limit', '100000'], {env})
    expect(history.code).toBe(0)
    const rows = JSON.parse(history.stdout) as {event_id: string; forward: string}[]
    expect(rows[0]).toMatchObject({event_id: late.id, forward: 'failed'})
    const ids = new Set(rows.map((r) => r.event_id))
    for (const id of answered) expect(ids.has(id)).toBe(true)
    const failed = await runCommand(['webhook', 'history', '--forward', 'failed', '-o', 'csv', '--fields', 'event_id,type'], {env})
    expect(failed.stdout.trim().split(/\r?\n/)).toEqual(['event_id,type', `${late.id},payout.failed`])

    const show = await runCommand(['webhook', 'show', late.id], {env})
    expect(show.code).toBe(0)
    expect(show.stdout).toContain('"merchant_reference": "order-late"')
    expect((await runCommand(['webhook', 'show', 'EVT_NOT_KEPT'], {env})).code).toBe(4)

    // replay: the app still fails (exit 1), then works; what it got verifies with `pay webhook verify`
    app.status = 503
    const failing = await runCommand(['webhook', 'replay', '--failed', '--to', app.url], {env: {...env, PAY_WEBHOOK_SECRET: SECRET}})
    expect(failing.code).toBe(1)
    expect(failing.stderr).toContain('Replayed 1: 0 answered 2xx, 1 not')
    app.status = 200
    const replay = await runCommand(['webhook', 'replay', '--failed', '--since', '1h', '--to', app.url], {env: {...env, PAY_WEBHOOK_SECRET: SECRET}})
    expect(replay.code).toBe(0)
    const got = app.received[app.received.length - 1]
    expect(got.headers['service-delivery-replay']).toBe('true')
    expect(got.body.toString()).toBe(late.body)
    const file = join(env.PAY_CONFIG_DIR, 'replayed.json')
    writeFileSync(file, got.body)
    const verify = await runCommand(['webhook', 'verify', '--signature', String(got.headers['service-signature']), '--file', file], {env: {...env, PAY_WEBHOOK_SECRET: SECRET}})
    expect(verify.code).toBe(0)
    // nothing is left failed
    const none = await runCommand(['webhook', 'replay', '--failed', '--to', app.url], {env: {...env, PAY_WEBHOOK_SECRET: SECRET}})
    expect(none.code).toBe(0)
    expect(none.stderr).toContain('Nothing to replay')
  })
})
