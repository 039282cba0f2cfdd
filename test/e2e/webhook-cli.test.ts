/**
 * The built `pay webhook …` commands as processes (run `npm run build` first), for what only a process shows:
 * listen's exit code, Ctrl-C and a terminal (its logic: test/webhooks/listen.test.ts, in-process); trigger's
 * answer on a terminal (its logic: test/webhooks/trigger.test.ts; verify's and events': verify-delivery.test.ts and
 * samples.test.ts). Loopback only.
 */
import {spawnSync} from 'node:child_process'
import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterEach, describe, expect, it} from 'vitest'
import {runCli} from '../helpers/cli.js'
import {freePort, startLocaltunnelServer} from '../helpers/localtunnel-server.js'
import {runInPty} from '../helpers/command-harness.js'
import {post, waitFor} from '../helpers/webhooks.js'

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
  // the rest in-process: test/webhooks/trigger.test.ts
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
})
