/**
 * `pay webhook listen` over its life, in-process (its run function): --tunnel auto's choice as the user sees it,
 * the sandbox registration (set at start, set again after a reconnect gave a new URL, removed on Ctrl-C), and
 * the loud message when the public URL changed. Sandbox and tunnel server on loopback.
 */
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import {type Sandbox, startSandbox} from '../../src/sandbox/index.js'
import {SandboxRegistration, sandboxWebhookControl} from '../../src/webhooks/sandbox-link.js'
import {startLocaltunnelServer} from '../helpers/localtunnel-server.js'
import {TEST_CLIENT_ID, TEST_CLIENT_SECRET, useScriptedServer} from '../helpers/scripted-server.js'
import {type ListenProcess, listenInProcess, waitFor} from '../helpers/webhooks.js'

/** How the registration reaches the sandbox's webhook URL, and what it reports (SandboxRegistration's parameters). */
type WebhookControl = ReturnType<typeof sandboxWebhookControl>
type RegistrationEvent = Parameters<ConstructorParameters<typeof SandboxRegistration>[1]>[0]

let sb: Sandbox
const server = useScriptedServer()
const running: ListenProcess[] = []
const cleanup: {close(): Promise<void>}[] = []
beforeAll(async () => {
  sb = await startSandbox({settleMs: 50})
})
afterEach(async () => {
  while (running.length) await running.pop()!.stop()
  while (cleanup.length) await cleanup.pop()!.close()
})
afterAll(async () => {
  await sb?.close()
})

const sandboxEnv = () => ({PAY_BASE_URL: sb.url, PAY_CLIENT_ID: sb.seed.client_id, PAY_CLIENT_SECRET: sb.seed.client_secret, PAY_WEBHOOK_SECRET: sb.seed.webhook_secret})
const webhookUrl = () => sb.state.clients[sb.seed.client_id].webhook_url

async function listen(args: string[], env: Record<string, string>) {
  const p = await listenInProcess(args, env)
  running.push(p)
  return p
}
async function stop(p: ListenProcess) {
  running.splice(running.indexOf(p), 1)
  return p.stop()
}

describe('pay webhook listen: tunnel choice and the sandbox registration', () => {
  it('--tunnel auto against the sandbox: no tunnel; the local URL is registered, and removed on Ctrl-C', async () => {
    const p = await listen([], sandboxEnv())
    expect(p.stderr()).toMatch(/Tunnel: none \(--tunnel auto: the profile is a local sandbox/)
    expect(p.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhooks$/)
    expect(webhookUrl()).toBe(p.url)
    const r = await stop(p)
    expect(r.code).toBe(0)
    expect(r.stderr).toContain(`Sandbox: webhook URL of client ${sb.seed.client_id} removed (was ${p.url})`)
    expect(webhookUrl()).toBeNull()
  })

  it('two listeners on the same profile: stopping the first leaves the second\'s URL registered; stopping the second removes it', async () => {
    const a = await listen([], sandboxEnv())
    const b = await listen([], sandboxEnv())
    expect(b.url).not.toBe(a.url)
    expect(webhookUrl()).toBe(b.url)
    const ra = await stop(a)
    expect(ra.code).toBe(0)
    expect(webhookUrl()).toBe(b.url)
    expect(ra.stderr).toContain(`Sandbox: webhook URL of client ${sb.seed.client_id} left as ${b.url}`)
    const rb = await stop(b)
    expect(rb.code).toBe(0)
    expect(webhookUrl()).toBeNull()
  })

  it('a URL already removed when the listener stops is reported as removed already, not "left as null"', async () => {
    const p = await listen([], sandboxEnv())
    expect(webhookUrl()).toBe(p.url)
    sb.state.clients[sb.seed.client_id].webhook_url = null
    const r = await stop(p)
    expect(r.code).toBe(0)
    expect(r.stderr).toContain(`Sandbox: webhook URL of client ${sb.seed.client_id} already removed`)
    expect(r.stderr).not.toContain('left as null')
  })

  it('what answers on the sandbox\'s port is quoted printable in "sandbox not updated"', async () => {
    const answer = {status: 400, body: {error: {code: 'invalid_parameter', message: 'no \u001b]0;PWNED\u0007 here', request_id: 'REQ_1'}}}
    server.script(`PUT /_sandbox/clients/${TEST_CLIENT_ID}/webhook`, answer, answer)
    const p = await listen([], {PAY_BASE_URL: server.url, PAY_CLIENT_ID: TEST_CLIENT_ID, PAY_CLIENT_SECRET: TEST_CLIENT_SECRET, PAY_WEBHOOK_SECRET: 'whsec_test'})
    const r = await stop(p)
    expect(r.code).toBe(0)
    expect(r.stderr).toContain('sandbox not updated: no \\u001b]0;PWNED\\u0007 here')
    expect(r.stderr).not.toContain('\u001b')
  })

  describe('the registration on exit removes any URL this listener set, in one conditional request', () => {
    const A = 'http://127.0.0.1:9/a'
    const B = 'http://127.0.0.1:9/b'
    const registration = (control: WebhookControl = sandboxWebhookControl(sb.url, sb.seed.client_id)) => {
      const events: RegistrationEvent[] = []
      return {reg: new SandboxRegistration(control, (e) => events.push(e)), events}
    }
    afterEach(() => {
      sb.state.clients[sb.seed.client_id].webhook_url = null
    })

    it('the clear waits for a set still in flight (Ctrl-C during a reconnect) and removes what it set', async () => {
      const {reg, events} = registration()
      void reg.set(A)
      await reg.clear()
      expect(webhookUrl()).toBeNull()
      expect(events).toEqual([{kind: 'set', url: A}, {kind: 'removed', was: A}])
    })

    it('a set whose answer was lost here (client-side timeout) but that the sandbox applied is removed too', async () => {
      const real = sandboxWebhookControl(sb.url, sb.seed.client_id)
      const lossy: WebhookControl = {
        set: async (url) => (url === B ? real.set(url).then(() => ({ok: false, reason: 'timed out'})) : real.set(url)),
        clearIf: (ours) => real.clearIf(ours),
      }
      const {reg, events} = registration(lossy)
      await reg.set(A)
      await reg.set(B)
      expect(webhookUrl()).toBe(B)
      await reg.clear()
      expect(webhookUrl()).toBeNull()
      expect(events).toEqual([{kind: 'set', url: A}, {kind: 'failed', reason: 'timed out'}, {kind: 'removed', was: B}])
    })

    it('a URL set since by someone else is kept, and a URL already removed is reported as such', async () => {
      const other = registration()
      const {reg, events} = registration()
      await reg.set(A)
      await other.reg.set(B)
      await reg.clear()
      expect(webhookUrl()).toBe(B)
      await other.reg.clear()
      await reg.clear()
      expect(webhookUrl()).toBeNull()
      expect(events).toEqual([{kind: 'set', url: A}, {kind: 'kept', url: B}, {kind: 'kept', url: null}])
    })

    it('after clear(), a set does nothing (a tunnel reconnecting while the listener stops registers no dead URL)', async () => {
      const real = sandboxWebhookControl(sb.url, sb.seed.client_id)
      const sent: string[] = []
      const counted: WebhookControl = {set: (url) => (sent.push(url), real.set(url)), clearIf: (ours) => real.clearIf(ours)}
      const {reg, events} = registration(counted)
      await reg.set(A)
      await reg.clear()
      await reg.set(B)
      expect(sent).toEqual([A])
      expect(webhookUrl()).toBeNull()
      expect(events).toEqual([{kind: 'set', url: A}, {kind: 'removed', was: A}])
    })

    it('sets queued behind a hung one when clear() comes are never sent: the exit waits for the one in flight only', async () => {
      const sent: string[] = []
      const cleared: string[][] = []
      let release!: () => void
      const hung = new Promise<void>((resolve) => (release = resolve))
      const slow: WebhookControl = {
        set: async (url) => (sent.push(url), await hung, {ok: false, reason: 'timed out'}),
        clearIf: async (ours) => (cleared.push(ours), {ok: true, removed: ours[0]}),
      }
      const {reg, events} = registration(slow)
      void reg.set(A)
      void reg.set(B)
      void reg.set('http://127.0.0.1:9/c')
      const done = reg.clear()
      release()
      await done
      expect(sent).toEqual([A])
      expect(cleared).toEqual([[A]])
      expect(events).toEqual([{kind: 'failed', reason: 'timed out'}, {kind: 'removed', was: A}])
    })

    it('the sandbox: if_url must be a list of URLs', async () => {
      const r = await fetch(`${sb.url}/_sandbox/clients/${sb.seed.client_id}/webhook`, {method: 'PUT', headers: {'content-type': 'application/json'}, body: JSON.stringify({url: null, if_url: A})})
      expect(r.status).toBe(400)
      expect(((await r.json()) as {error: {message: string}}).error.message).toContain('if_url')
    })
  })

  it('--tunnel auto elsewhere without NGROK_AUTHTOKEN: localtunnel, with the warning and the advice', async () => {
    const lt = await startLocaltunnelServer({urlStyle: 'port'})
    cleanup.push(lt)
    const p = await listen(['--tunnel-host', lt.url], {PAY_WEBHOOK_SECRET: 'whsec_auto_test', NGROK_AUTHTOKEN: ''})
    expect(p.stderr()).toMatch(/Tunnel: localtunnel \(--tunnel auto: NGROK_AUTHTOKEN is not set\)/)
    expect(p.stderr()).toMatch(/warning: using localtunnel: its public server is often down.*NGROK_AUTHTOKEN.*--domain/)
    expect(p.url.startsWith('http://127.0.0.1:')).toBe(true)
  })

  it('a tunnel that dies behind the library: the health check reconnects, the NEW URL is announced loudly and re-registered; Ctrl-C unregisters it', async () => {
    const lt = await startLocaltunnelServer({maxConn: 2, urlStyle: 'port'})
    cleanup.push(lt)
    const p = await listen(['--tunnel', 'localtunnel', '--tunnel-host', lt.url, '--health-interval', '1'], sandboxEnv())
    const first = p.url
    expect(webhookUrl()).toBe(first)
    lt.forgetIds = true
    lt.forgetClients()
    await waitFor(() => /RE-REGISTERED/.test(p.stderr()), 30_000, 're-registration after the reconnect')
    const now = /THE PUBLIC URL CHANGED: (\S+)/.exec(p.stderr())?.[1]
    expect(now).toBeDefined()
    expect(now).not.toBe(first)
    expect(p.stderr()).toContain(`(was ${first}; the tunnel reconnected with a new address)`)
    expect(p.stderr()).toMatch(/Update the webhook URL in the merchant portal now/)
    expect(p.stderr()).toContain(`RE-REGISTERED to ${now} (was ${first})`)
    expect(webhookUrl()).toBe(now)
    const r = await stop(p)
    expect(r.code).toBe(0)
    expect(r.stderr).toMatch(/tunnel reconnects 1/)
    expect(webhookUrl()).toBeNull()
  })
})
