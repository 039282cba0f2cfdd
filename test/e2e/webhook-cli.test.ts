/**
 * The built `pay webhook …` commands as processes (run `npm run build` first), for what only a process shows:
 * listen's exit code, Ctrl-C and a terminal (its logic: test/webhooks/listen.test.ts, in-process); trigger,
 * verify, events. Loopback only.
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
import {eventBody, nowSeconds, opensslHeader, opensslSign, post, startTestApp, waitFor} from '../helpers/webhooks.js'

const SECRET = 'whsec_cli_test_9d1'
const cleanup: {close(): Promise<void>}[] = []
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!.close()
})

describe('pay webhook listen (built CLI)', () => {
  it('refuses to start without a secret (exit 2), and names where a secret can come from', async () => {
    const r = await runCli(['webhook', 'listen', '--tunnel', 'none'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/--secret is required.*PAY_WEBHOOK_SECRET/)
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
