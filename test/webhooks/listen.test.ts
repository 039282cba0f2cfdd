/**
 * `pay webhook listen`'s run function in-process (src/webhooks/listen.ts): flags checked, secrets and the pinned
 * format, deliveries printed (human, --json, --jq, yaml), the tunnel (none, or pay's localtunnel client against the
 * loopback test server) and the summary. Real HTTP on loopback; no process (test/e2e/ has the signals and the TTY).
 */
import {mkdtempSync, readdirSync, readFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it, afterEach} from 'vitest'
import {memoryOutput} from '../helpers/in-process.js'
import {historyDir} from '../../src/webhooks/history.js'
import {runWebhookReplay, runWebhookShow} from '../../src/webhooks/history-commands.js'
import {closedPort, startLocaltunnelServer} from '../helpers/localtunnel-server.js'
import {parseSchemeId, sign} from '../../src/webhooks/signature.js'
import {eventBody, listenCommand, listenInProcess, nowSeconds, opensslHeader, post, startTestApp, type ListenProcess, waitFor} from '../helpers/webhooks.js'

const SECRET = 'whsec_cli_test_9d1'
const cleanup: {close(): Promise<void>}[] = []
const running: ListenProcess[] = []
afterEach(async () => {
  while (running.length) await running.pop()!.stop()
  while (cleanup.length) await cleanup.pop()!.close()
})

async function listen(args: string[], env: Record<string, string> = {}) {
  const p = await listenInProcess(args, env)
  running.push(p)
  return p
}
const stopped = async (p: ListenProcess) => {
  running.splice(running.indexOf(p), 1)
  return p.stop()
}
/** A listen that fails to start: its exit code and output. */
const failed = async (args: string[], env: Record<string, string | undefined> = {}) => (await listenCommand(args, env)).done
const json = (r: {stdout: string}) => JSON.parse(r.stdout)

describe('pay webhook listen (run function)', () => {
  it('refuses to start without a secret (exit 2), and names where a secret can come from', async () => {
    const r = await failed(['--tunnel', 'none'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/--secret is required.*PAY_WEBHOOK_SECRET/)
  })

  it('ngrok without NGROK_AUTHTOKEN: exit 2 before any traffic', async () => {
    const r = await failed(['--tunnel', 'ngrok', '--secret', SECRET], {NGROK_AUTHTOKEN: undefined})
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/NGROK_AUTHTOKEN must be set/)
  })

  it('a tunnel server that hangs: exit 7 after --tunnel-timeout with the reason', async () => {
    const server = await startLocaltunnelServer({mode: 'hang'})
    cleanup.push(server)
    const started = Date.now()
    const r = await failed(['--secret', SECRET, '--tunnel-host', server.url, '--tunnel-timeout', '2'])
    expect(r.code).toBe(7)
    expect(r.stderr).toMatch(/no tunnel from http:\/\/127\.0\.0\.1:\d+ within 2 s: .*no answer/)
    expect(Date.now() - started).toBeLessThan(15_000) // bounded (the library alone would retry forever); generous for a loaded machine
  })

  it('a refused tunnel server: exit 7 with "connection refused"', async () => {
    const port = await closedPort()
    const r = await failed(['--secret', SECRET, '--tunnel-host', `http://127.0.0.1:${port}`, '--tunnel-timeout', '1', '--json'])
    expect(r.code).toBe(7)
    expect(r.stderr).toMatch(/connection refused/)
    expect(json(r).error.code).toBe('network_error')
  })

  it('--tunnel none --json: one JSON line per delivery on stdout, logs and the summary on stderr', async () => {
    const p = await listen(['--tunnel', 'none', '--json'], {PAY_WEBHOOK_SECRET: SECRET})
    expect(p.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhooks$/)
    const sent = eventBody('collection.succeeded', {merchant_reference: 'order-77'})
    const answer = await post(p.url, sent.body, {'service-signature': opensslHeader([SECRET], nowSeconds(), sent.body)})
    expect({status: answer.status, body: JSON.parse(answer.body)}).toEqual({status: 200, body: {received: true}})
    const {body} = eventBody()
    expect((await post(p.url, body, {'service-signature': opensslHeader(['nope'], nowSeconds(), body)})).status).toBe(401)
    const r = await stopped(p)
    expect(r.code).toBe(0)
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l))
    expect(lines).toHaveLength(2)
    expect(lines[0]).toMatchObject({event: {type: 'collection.succeeded'}, verdict: {ok: true, status: 200, verified: true}, duplicate: false})
    expect(lines[1]).toMatchObject({verdict: {ok: false, status: 401, reason: 'no_matching_signature'}, duplicate: false})
    const summary = JSON.parse(r.stderr.trim().split('\n').pop()!).summary
    expect(summary).toMatchObject({received: 2, verified: 1, rejected: {no_matching_signature: 1}})
    expect(r.stderr).toMatch(/signatures match as inline-hex-sha256 \(t=…,v1=<hex HMAC-SHA-256> in Service-Signature\); pin it with webhook_signature=inline-hex-sha256/)
    expect(r.stdout + r.stderr).not.toContain(SECRET)
  })

  it('PAY_WEBHOOK_SIGNATURE pins one signature format: it is accepted, another is refused; an unknown name is exit 2', async () => {
    const bad = await failed(['--tunnel', 'none', '--secret', SECRET], {PAY_WEBHOOK_SIGNATURE: 'hmac-sha1'})
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/webhook_signature must be one of inline-hex-sha256/)
    const p = await listen(['--tunnel', 'none', '--no-register', '--secret', SECRET], {PAY_WEBHOOK_SIGNATURE: 'header-base64-sha512'})
    const {body} = eventBody()
    const h = sign(SECRET, body, {scheme: parseSchemeId('header-base64-sha512')})
    expect((await post(p.url, body, {'service-signature': h.signature, 'service-timestamp': h.timestamp!})).status).toBe(200)
    expect((await post(p.url, body, {'service-signature': opensslHeader([SECRET], nowSeconds(), body)})).status).toBe(400)
    const r = await stopped(p)
    expect(r.stderr).toMatch(/signatures match as header-base64-sha512 .*\(pinned\)/)
    expect(r.stdout).toMatch(/REJECTED 400 malformed_header.*not in the pinned format header-base64-sha512/)
  })

  it('--no-verify --json piped: the delivery JSON byte for byte; the warning names the sender\'s id made printable', async () => {
    const p = await listen(['--tunnel', 'none', '--json', '--no-verify', '--no-register'])
    const event = {id: 'e\u009b1m\n', object: 'event', type: 'collection.succeeded', created_at: '2026-01-01T00:00:00Z', data: {note: '\u009b31m\u202eevil'}}
    expect((await post(p.url, JSON.stringify(event), {})).status).toBe(200)
    const r = await stopped(p)
    const line = r.stdout.trim().split('\n')
    expect(line).toHaveLength(1)
    // piped: the JSON as JSON.stringify wrote it, C1 and the direction mark unescaped
    expect(line[0]).toContain('"note":"\u009b31m\u202eevil"')
    expect(JSON.parse(line[0]).event).toEqual(event)
    // eslint-disable-next-line no-control-regex -- finding raw control characters is the point
    expect(r.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/)
    expect(r.stderr).toContain('e\\u009b1m\\u000a')
  })

  it('human output: one line per delivery with id, type, resource, state, amount, reference; duplicates marked', async () => {
    const p = await listen(['--tunnel', 'none', '--secret', SECRET])
    const {id, body} = eventBody('payout.failed', {id: 'PO_HUMAN1', merchant_reference: 'po-42', amount: '75.00'})
    const headers = {'service-signature': opensslHeader([SECRET], nowSeconds(), body)}
    await post(p.url, body, headers)
    await post(p.url, body, headers)
    await post(p.url, 'not json', {'service-signature': opensslHeader([SECRET], nowSeconds(), 'not json')})
    const r = await stopped(p)
    const lines = r.stdout.trim().split('\n')
    expect(lines[0]).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d  ${id}  payout.failed  PO_HUMAN1  failed  75.00 KES  ref po-42$`))
    expect(lines[1]).toContain('(duplicate, not forwarded)')
    expect(lines[2]).toMatch(/REJECTED 400 invalid_json/)
    expect(r.stderr).toMatch(/received\s+3/)
    expect(r.stderr).toMatch(/duplicates\s+1/)
    expect(r.stderr).toMatch(/rejected\s+1\s+\(invalid_json: 1\)/)
  })

  it('--jq and -o yaml: every delivery is a document of its own, also when several arrive together', async () => {
    for (const [args, check] of [
      [['--jq', '.event.id'], (out: string, ids: string[]) => expect(out.trim().split('\n').sort()).toEqual([...ids].sort())],
      [['-o', 'yaml'], (out: string, ids: string[]) => {
        expect(out).not.toContain('{"time"')
        for (const id of ids) expect(out).toContain(`  id: ${id}\n`)
      }],
    ] as const) {
      const p = await listen(['--tunnel', 'none', '--secret', SECRET, ...args])
      const events = Array.from({length: 6}, () => eventBody())
      const signed = events.map(({body}) => ({body, headers: {'service-signature': opensslHeader([SECRET], nowSeconds(), body)}}))
      // sent at once, so that their lines are written in one batch
      const statuses = await Promise.all(signed.map(({body, headers}) => post(p.url, body, headers)))
      expect(statuses.map((r) => r.status)).toEqual(events.map(() => 200))
      const r = await stopped(p)
      expect(r.code).toBe(0)
      check(r.stdout, events.map((e) => e.id))
    }
  })

  it('human output: a field of an unverified body cannot print a line of its own', async () => {
    const p = await listen(['--tunnel', 'none', '--secret', SECRET])
    const forged = '\n12:00:00  EVT_FORGED  collection.succeeded  CL_1  succeeded  9999.00 KES'
    const body = JSON.stringify({id: `EVT_X${forged}`, object: 'event', type: `collection.succeeded${forged}`, data: {}})
    expect((await post(p.url, body, {'service-signature': opensslHeader(['not-the-secret'], nowSeconds(), body)})).status).toBe(401)
    const {body: good} = eventBody('collection.succeeded', {merchant_reference: `ref${forged}`})
    expect((await post(p.url, good, {'service-signature': opensslHeader([SECRET], nowSeconds(), good)})).status).toBe(200)
    const r = await stopped(p)
    const lines = r.stdout.trim().split('\n')
    expect(lines).toHaveLength(2)
    expect(lines[0]).toMatch(/REJECTED 401 no_matching_signature EVT_X\\u000a12:00:00/)
    expect(lines[1]).toContain('ref ref\\u000a12:00:00')
    expect(lines.some((l) => l.startsWith('12:00:00'))).toBe(false)
  })

  it('--no-verify warns at start and on every event', async () => {
    const p = await listen(['--tunnel', 'none', '--no-verify'])
    for (let i = 0; i < 2; i++) {
      const {body} = eventBody()
      expect((await post(p.url, body)).status).toBe(200)
    }
    const r = await stopped(p)
    expect(r.stderr).toMatch(/verification is OFF/)
    expect(r.stderr.match(/was NOT verified/g)).toHaveLength(2)
    expect(r.stdout.match(/UNVERIFIED/g)).toHaveLength(2)
  })

  it('end to end through the real localtunnel client and the loopback tunnel server to --forward-to', async () => {
    const server = await startLocaltunnelServer({maxConn: 3})
    const app = await startTestApp()
    cleanup.push(server, app)
    const p = await listen(['--tunnel', 'localtunnel', '--tunnel-host', server.url, '--forward-to', app.url, '--secret', 'whsec_new', '--secret', SECRET, '--max-body', '4KiB', '--json'])
    expect(p.url).toMatch(/^http:\/\/[a-z0-9]+\.localhost:\d+\/webhooks$/)
    expect(server.handshakes).toEqual(['/?new'])
    const t = nowSeconds()
    const sign = (b: string, secrets = [SECRET], ts = t) => ({'service-signature': opensslHeader(secrets, ts, b)})
    const sent: {name: string; status: number}[] = []
    const send = async (name: string, b: string, h: Record<string, string>) => sent.push({name, status: (await post(p.url, b, h)).status})
    const valid = [eventBody('collection.succeeded'), eventBody('payout.failed'), eventBody('mandate.succeeded')]
    for (const v of valid) await send('valid', v.body, sign(v.body))
    await send('duplicate', valid[0].body, sign(valid[0].body))
    const rot = eventBody('subscription.active')
    await send('rotation', rot.body, sign(rot.body, ['whsec_old', SECRET]))
    const x = eventBody()
    await send('tampered', x.body.replace('1500.00', '15.00'), sign(x.body))
    await send('wrong secret', x.body, sign(x.body, ['whsec_wrong']))
    await send('stale', x.body, sign(x.body, [SECRET], t - 600))
    await send('future', x.body, sign(x.body, [SECRET], t + 600))
    await send('not json', '<xml/>', sign('<xml/>'))
    const big = JSON.stringify({id: 'EVT_BIG', type: 'collection.succeeded', pad: 'x'.repeat(8000)})
    await send('oversized', big, sign(big))
    await send('no header', x.body, {})
    expect(sent.map((s) => `${s.name}:${s.status}`)).toEqual([
      'valid:200', 'valid:200', 'valid:200', 'duplicate:200', 'rotation:200',
      'tampered:401', 'wrong secret:401', 'stale:401', 'future:401', 'not json:400', 'oversized:413', 'no header:400',
    ])
    // forwarded once each, raw body and signature intact
    expect(app.received).toHaveLength(4)
    expect(app.received[0].body.toString()).toBe(valid[0].body)
    expect(app.received[0].headers['service-signature']).toBe(sign(valid[0].body)['service-signature'])
    // the tunnel server drops every tunnel socket: the listener says so, the tunnel re-opens, deliveries go on
    await waitFor(() => server.socketCount() === 3, 5000, 'three tunnel sockets')
    server.dropSockets()
    await waitFor(() => /re-opened/.test(p.stderr()), 10_000, 're-open message')
    expect(p.stderr()).toMatch(/dropped every connection/)
    const after = eventBody('checkout_session.succeeded')
    await send('after drop', after.body, sign(after.body))
    expect(sent.at(-1)).toEqual({name: 'after drop', status: 200})
    const r = await stopped(p)
    expect(r.code).toBe(0)
    const summary = JSON.parse(r.stderr.trim().split('\n').pop()!).summary
    expect(summary).toMatchObject({
      received: 13,
      verified: 6,
      duplicates: 1,
      forwarded: 5,
      forward_failed: 0,
      rejected: {no_matching_signature: 2, timestamp_outside_tolerance: 2, invalid_json: 1, body_too_large: 1, missing_header: 1},
    })
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l))
    expect(lines).toHaveLength(13)
    expect(lines.filter((l) => l.duplicate)).toHaveLength(1)
    expect(app.received).toHaveLength(5)
  })
})

describe('a URL\'s password and secret-named query values are never shown', () => {
  const SECRETS = ['S3CRETPW', 'QTOKEN123', 'TUNPW', 'QTOK']
  const leaks = (text: string) => SECRETS.filter((x) => text.includes(x))

  it('listen --forward-to and --route, the forward failures, replay --to, show, and the history on disk', async () => {
    const port = await closedPort()
    const target = `http://bob:S3CRETPW@127.0.0.1:${port}/hook?api_key=QTOKEN123`
    const shown = `http://[REDACTED]@127.0.0.1:${port}/hook?api_key=[REDACTED]`
    const env = {PAY_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'pay-listen-urls-'))}
    const p = await listen(['--tunnel', 'none', '--forward-to', target, '--route', `payout.*=${target}`, '--secret', SECRET], env)
    const e = eventBody('payout.failed')
    const answer = await post(p.url, e.body, {'service-signature': opensslHeader([SECRET], nowSeconds(), e.body)})
    expect(answer.status).toBe(502)
    expect(answer.body).toContain(`${shown} is unreachable`)
    const r = await stopped(p)
    expect(r.stderr).toContain(`Forwarding accepted events to ${shown}`)
    expect(r.stderr).toContain(`Forwarding payout.* to ${shown}`)
    const replay = memoryOutput(false)
    const replayed = await runWebhookReplay({ids: [e.id], failed: false, to: target, includeRejected: false, originalHeaders: false, secret: [SECRET], timeoutMs: 2000, concurrency: 1, userAgent: 'pay-test', env}, replay.out)
    expect(replayed.exitCode).toBe(1)
    expect(replay.stderr()).toContain(`Replaying 1 delivery to ${shown}`)
    const show = memoryOutput(false)
    runWebhookShow({id: e.id, env}, show.out)
    expect(show.stdout()).toContain(`→ ${shown}`)
    const kept = readdirSync(historyDir(env)).map((name) => readFileSync(join(historyDir(env), name), 'utf8')).join('')
    expect(kept).toContain(shown)
    expect(leaks([answer.body, r.stdout, r.stderr, replay.stdout(), replay.stderr(), show.stdout(), show.stderr(), kept].join('\n'))).toEqual([])
  })

  it('listen --tunnel-host: the error of a tunnel that does not open', async () => {
    const port = await closedPort()
    const r = await failed(['--secret', SECRET, '--tunnel-host', `http://u:TUNPW@127.0.0.1:${port}/?token=QTOK`, '--tunnel-timeout', '1'])
    expect(r.code).toBe(7)
    expect(r.stderr).toContain(`no tunnel from http://[REDACTED]@127.0.0.1:${port}/?token=[REDACTED] within 1 s`)
    expect(leaks(r.stdout + r.stderr)).toEqual([])
  })
})
