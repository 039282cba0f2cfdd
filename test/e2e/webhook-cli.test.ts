/**
 * The built `pay webhook …` commands as processes (run `npm run build` first): listen (direct and through the
 * real localtunnel client to the loopback test server, forwarding to a test app), trigger, verify, events.
 * Loopback only.
 */
import {spawnSync} from 'node:child_process'
import {mkdtempSync, writeFileSync} from 'node:fs'
import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {EVENT_TYPES} from '../../src/webhooks/events.js'
import {json, runCli} from '../helpers/cli.js'
import {closedPort, freePort, startLocaltunnelServer} from '../helpers/localtunnel-server.js'
import {runInPty} from '../helpers/command-harness.js'
import {parseSchemeId, sign} from '../../src/webhooks/signature.js'
import {eventBody, nowSeconds, opensslHeader, opensslSign, post, startListen, startTestApp, type ListenProcess, waitFor} from '../helpers/webhooks.js'

const SECRET = 'whsec_cli_test_9d1'
const cleanup: {close(): Promise<void>}[] = []
const running: ListenProcess[] = []
afterEach(async () => {
  while (running.length) await running.pop()!.stop()
  while (cleanup.length) await cleanup.pop()!.close()
})

async function listen(args: string[], env: Record<string, string> = {}) {
  const p = await startListen(args, env)
  running.push(p)
  return p
}
const stopped = async (p: ListenProcess) => {
  running.splice(running.indexOf(p), 1)
  return p.stop()
}

describe('pay webhook listen (built CLI)', () => {
  it('refuses to start without a secret (exit 2), and names where a secret can come from', async () => {
    const r = await runCli(['webhook', 'listen', '--tunnel', 'none'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/--secret is required.*PAY_WEBHOOK_SECRET/)
  })

  it('ngrok without NGROK_AUTHTOKEN: exit 2 before any traffic', async () => {
    const r = await runCli(['webhook', 'listen', '--tunnel', 'ngrok', '--secret', SECRET], {env: {NGROK_AUTHTOKEN: undefined}})
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/NGROK_AUTHTOKEN must be set/)
  })

  it('a tunnel server that hangs: exit 7 after --tunnel-timeout with the reason', async () => {
    const server = await startLocaltunnelServer({mode: 'hang'})
    cleanup.push(server)
    const started = Date.now()
    const r = await runCli(['webhook', 'listen', '--secret', SECRET, '--tunnel-host', server.url, '--tunnel-timeout', '2'])
    expect(r.code).toBe(7)
    expect(r.stderr).toMatch(/no tunnel from http:\/\/127\.0\.0\.1:\d+ within 2 s: .*no answer/)
    expect(Date.now() - started).toBeLessThan(15_000) // bounded (the library alone would retry forever); generous for a loaded machine
  })

  it('Ctrl-C while the tunnel is still opening: stops at once with the summary, exit 0', async () => {
    const server = await startLocaltunnelServer({mode: 'hang'})
    cleanup.push(server)
    const {spawn} = await import('node:child_process')
    const {BIN, cleanEnv} = await import('../helpers/cli.js')
    const child = spawn(process.execPath, [BIN, 'webhook', 'listen', '--secret', SECRET, '--tunnel-host', server.url, '--tunnel-timeout', '30'], {env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe']})
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    await waitFor(() => stderr.includes('Listening on'), 15_000)
    const started = Date.now()
    child.kill('SIGINT')
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    expect(code).toBe(0)
    expect(Date.now() - started).toBeLessThan(5000)
    expect(stderr).toContain('stopped while the tunnel was opening')
    expect(stderr).toMatch(/received\s+0/)
  })

  it('a refused tunnel server: exit 7 with "connection refused"', async () => {
    const port = await closedPort()
    const r = await runCli(['webhook', 'listen', '--secret', SECRET, '--tunnel-host', `http://127.0.0.1:${port}`, '--tunnel-timeout', '1', '--json'])
    expect(r.code).toBe(7)
    expect(r.stderr).toMatch(/connection refused/)
    expect(json(r).error.code).toBe('network_error')
  })

  it('--tunnel none --json: one JSON line per delivery on stdout, logs and the summary on stderr', async () => {
    const p = await listen(['--tunnel', 'none', '--json'], {PAY_WEBHOOK_SECRET: SECRET})
    expect(p.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhooks$/)
    const trig = await runCli(['webhook', 'trigger', 'collection.succeeded', '--to', p.url, '--json', '-F', 'merchant_reference=order-77'], {env: {PAY_WEBHOOK_SECRET: SECRET}})
    expect(trig.code).toBe(0)
    expect(json(trig)).toMatchObject({status: 200, body: {received: true}, event: {type: 'collection.succeeded', data: {merchant_reference: 'order-77'}}})
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
    const bad = await runCli(['webhook', 'listen', '--tunnel', 'none', '--secret', SECRET], {env: {PAY_WEBHOOK_SIGNATURE: 'hmac-sha1'}})
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

  it.skipIf(spawnSync('script', ['--version']).status !== 0)('--json on a terminal: the delivery JSON and the NOT verified warning are shown printable', async () => {
    const port = await freePort()
    const url = `http://127.0.0.1:${port}/webhooks`
    const event = {id: 'e\u001b]0;PWNED\u0007\u009b1m', object: 'event', type: 'collection.succeeded', created_at: '2026-01-01T00:00:00Z', data: {note: '\u009b31m\u202eevil'}}
    const run = runInPty(['webhook', 'listen', '--json', '--tunnel', 'none', '--port', String(port), '--secret', 'whsec_x', '--no-verify', '--no-register'], {}, [{expect: /"note"/, send: '\u0003'}])
    // post until the listener is up (refused before), once
    for (let posted = false; !posted; ) {
      posted = await post(url, JSON.stringify(event), {}).then((r) => r.status === 200, () => false)
      if (!posted) await new Promise((r) => setTimeout(r, 50))
    }
    const r = await run
    const bytes = Buffer.from(r.screen)
    expect(bytes.includes(0x1b), r.screen).toBe(false)
    expect(bytes.includes(Buffer.from([0xc2, 0x9b])), r.screen).toBe(false)
    expect(bytes.includes(Buffer.from([0xe2, 0x80, 0xae])), r.screen).toBe(false)
    const line = r.screen.split(/\r?\n/).find((l) => l.includes('"note"'))!
    expect(JSON.parse(line).event).toEqual(event)
    expect(r.screen).toContain('event e\\u001b]0;PWNED\\u0007\\u009b1m was NOT verified')
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

describe('pay webhook trigger', () => {
  // every type of the spec is covered in-process by samples.test.ts; here one of each resource, as processes
  const TYPES = ['checkout_session.failed', 'mandate_debit.succeeded', 'subscription.charge_failed']
  it.skipIf(spawnSync('script', ['--version']).status !== 0)('the receiver\'s answer is shown printable on a terminal (text and --json), byte for byte when piped', async () => {
    const hostile = 'line1 \u001b]0;PWNED\u0007\u001b[2J\u009b31m\u202eevil\nline2'
    let answer = {type: 'text/plain', body: hostile}
    const server = createServer((req, res) => {
      req.resume().on('end', () => {
        res.writeHead(200, {'content-type': answer.type})
        res.end(answer.body)
      })
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
    cleanup.push({close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r())))})
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`
    const args = ['webhook', 'trigger', 'collection.succeeded', '--to', url, '--secret', SECRET]
    for (const [extra, type, body] of [[[], 'text/plain', hostile], [['--json'], 'application/json', JSON.stringify({note: hostile})]] as const) {
      answer = {type, body}
      const r = await runInPty([...args, ...extra], {}, [])
      expect(r.code, r.screen).toBe(0)
      const bytes = Buffer.from(r.screen)
      expect(bytes.includes(0x1b), r.screen).toBe(false)
      expect(bytes.includes(Buffer.from([0xc2, 0x9b])), r.screen).toBe(false)
      expect(bytes.includes(Buffer.from([0xe2, 0x80, 0xae])), r.screen).toBe(false)
      expect(r.screen).toContain('\\u001b]0;PWNED\\u0007')
    }
    answer = {type: 'text/plain', body: hostile}
    const piped = await runCli(args)
    expect(piped.code, piped.stderr).toBe(0)
    expect(piped.stdout).toBe(`HTTP 200\n${hostile}\n`)
  })

  it('sends samples signed so that openssl agrees, and prints the receiver status and body', async () => {
    const app = await startTestApp()
    cleanup.push(app)
    const results = await Promise.all(TYPES.map((type) => runCli(['webhook', 'trigger', type, '--to', app.url, '--secret', SECRET])))
    for (const r of results) {
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout).toContain('HTTP 200')
      expect(r.stdout).toContain('"app":"got it"')
    }
    expect(app.received).toHaveLength(TYPES.length)
    for (const got of app.received) {
      const event = JSON.parse(got.body.toString())
      expect(event).toMatchObject({object: 'event'})
      expect(TYPES).toContain(event.type)
      expect(event.id).toMatch(/^EVT_[A-Z0-9]{24}$/)
      expect(event.data.status ?? event.data.object).toBeTruthy()
      const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(got.headers['service-signature']))!
      expect(v1).toBe(opensslSign(SECRET, Number(t), got.body))
    }
  })

  it('exit 1 on a non-2xx answer (body printed), 7 when unreachable, 2 on an unknown type', async () => {
    const app = await startTestApp()
    cleanup.push(app)
    app.status = 422
    const r = await runCli(['webhook', 'trigger', 'payout.succeeded', '--to', app.url, '--secret', SECRET])
    expect(r.code).toBe(1)
    expect(r.stdout).toContain('HTTP 422')
    const port = await closedPort()
    expect((await runCli(['webhook', 'trigger', 'payout.succeeded', '--to', `http://127.0.0.1:${port}/x`, '--secret', SECRET])).code).toBe(7)
    const bad = await runCli(['webhook', 'trigger', 'payment.done', '--to', app.url, '--secret', SECRET])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/Expected payment\.done to be one of: collection\.processing, /) // the TYPE argument's choices (completion offers them)
  })

  it('--dry-run prints the signed request and sends nothing; the secret itself is never printed', async () => {
    const r = await runCli(['webhook', 'trigger', 'mandate.cancelled', '--to', 'http://127.0.0.1:9/x', '--secret', SECRET, '--dry-run', '--json'])
    expect(r.code).toBe(0)
    const out = json(r)
    expect(out.headers['Service-Signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/)
    expect(r.stdout).not.toContain(SECRET)
  })
})

describe('pay webhook verify', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pay-verify-'))
  const {body} = eventBody('collection.failed')
  const file = join(dir, 'body.json')
  writeFileSync(file, body)

  it('exit 0 and the event for an openssl-signed body (file and stdin)', async () => {
    const sig = opensslHeader([SECRET], nowSeconds(), body)
    const a = await runCli(['webhook', 'verify', '--secret', SECRET, '--signature', sig, '--file', file, '--json'])
    expect(a.code).toBe(0)
    expect(json(a)).toMatchObject({valid: true, event: {type: 'collection.failed'}})
    const b = await runCli(['webhook', 'verify', '--signature', `Service-Signature: ${sig}`], {input: body, env: {PAY_WEBHOOK_SECRET: SECRET}})
    expect(b.code).toBe(0)
    expect(b.stderr).toMatch(/valid/)
  })

  it('exit 1 with the exact reason: wrong secret, tampered, stale, malformed, trailing newline', async () => {
    const t = nowSeconds()
    const cases: [string[], string | undefined, RegExp][] = [
      [['--secret', 'whsec_other', '--signature', opensslHeader([SECRET], t, body), '--file', file], undefined, /no_matching_signature/],
      [['--secret', SECRET, '--signature', opensslHeader([SECRET], t, body)], body.replace('collection', 'c0llection'), /no_matching_signature/],
      [['--secret', SECRET, '--signature', opensslHeader([SECRET], t - 301, body), '--file', file], undefined, /timestamp_outside_tolerance: timestamp is 30\d s old/],
      [['--secret', SECRET, '--signature', 'v1=abc', '--file', file], undefined, /malformed_header/],
      [['--secret', SECRET, '--signature', opensslHeader([SECRET], t, body)], `${body}\n`, /WOULD match without the trailing newline/],
    ]
    const results = await Promise.all(cases.map(([args, input]) => runCli(['webhook', 'verify', ...args], {input})))
    for (const [i, r] of results.entries()) {
      expect(r.code, r.stderr).toBe(1)
      expect(r.stderr).toMatch(cases[i][2])
    }
    const old = await runCli(['webhook', 'verify', '--secret', SECRET, '--signature', opensslHeader([SECRET], t - 86_400, body), '--file', file, '--ignore-timestamp'])
    expect(old.code).toBe(0)
  })
})

describe('pay webhook events', () => {
  it('lists every event type of the spec', async () => {
    const r = await runCli(['webhook', 'events', '--json'])
    expect(r.code).toBe(0)
    expect(json(r).map((e: {type: string}) => e.type)).toEqual([...EVENT_TYPES])
    const human = await runCli(['webhook', 'events'])
    for (const t of EVENT_TYPES) expect(human.stdout).toContain(t)
  })
})
