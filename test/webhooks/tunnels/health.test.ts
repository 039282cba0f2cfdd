/**
 * `--tunnel auto`'s choice, and the health check through the public URL: against the loopback localtunnel
 * server (test/helpers/localtunnel-server.ts) that forgets its tunnels while their sockets stay open, the check
 * notices, the tunnel reconnects, and the new URL is reported. In-process; loopback only.
 */
import {afterEach, describe, expect, it} from 'vitest'
import {startListener} from '../../../src/webhooks/listener.js'
import {createPingKey} from '../../../src/webhooks/ping.js'
import {watchHealth} from '../../../src/webhooks/tunnels/health.js'
import {chooseTunnel, openTunnel} from '../../../src/webhooks/tunnels/registry.js'
import type {Tunnel} from '../../../src/webhooks/tunnels/tunnel.js'
import {closedPort, startLocaltunnelServer} from '../../helpers/localtunnel-server.js'
import {eventBody, nowSeconds, opensslHeader, post, waitFor} from '../../helpers/webhooks.js'

const SECRET = 'whsec_health_test'
const cleanup: {close(): Promise<void> | void}[] = []
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!.close()
})

describe('--tunnel auto', () => {
  const none = {sandbox: false, ngrokToken: false}
  it('no tunnel against a local sandbox, even with an ngrok token', () => {
    expect(chooseTunnel('auto', {sandbox: true, ngrokToken: true})).toMatchObject({provider: 'none', reason: expect.stringContaining('local sandbox')})
    expect(chooseTunnel('auto', {sandbox: true, ngrokToken: false}).warning).toBeUndefined()
  })
  it('ngrok when NGROK_AUTHTOKEN is set, with the reserved domain named', () => {
    expect(chooseTunnel('auto', {...none, ngrokToken: true})).toEqual({provider: 'ngrok', reason: 'NGROK_AUTHTOKEN is set'})
    expect(chooseTunnel('auto', {...none, ngrokToken: true, domain: 'shop.ngrok.app'}).reason).toContain('reserved domain shop.ngrok.app')
  })
  it('else localtunnel, with a warning that says why and what to do', () => {
    const c = chooseTunnel('auto', none)
    expect(c.provider).toBe('localtunnel')
    expect(c.warning).toMatch(/often down.*URL changes.*NGROK_AUTHTOKEN.*--domain/)
  })
  it('an explicit choice is honoured silently; --domain without ngrok is refused (exit 2)', () => {
    expect(chooseTunnel('localtunnel', {sandbox: true, ngrokToken: true})).toEqual({provider: 'localtunnel'})
    expect(chooseTunnel('none', none)).toEqual({provider: 'none'})
    expect(() => chooseTunnel('auto', {...none, domain: 'x.ngrok.app'})).toThrow(expect.objectContaining({exitCode: 2, message: expect.stringContaining('--domain needs ngrok')}))
    expect(() => chooseTunnel('localtunnel', {...none, ngrokToken: true, domain: 'x.ngrok.app'})).toThrow(/--domain/)
    expect(chooseTunnel('ngrok', {...none, ngrokToken: true, domain: 'x.ngrok.app'})).toEqual({provider: 'ngrok'})
  })
})

describe('health check through the public URL', () => {
  it('a tunnel the server forgot (sockets still open): the check fails, the tunnel reconnects, the NEW URL is reported and works', async () => {
    const server = await startLocaltunnelServer({maxConn: 2, urlStyle: 'port'})
    cleanup.push(server)
    const key = createPingKey()
    const listener = await startListener({secrets: [SECRET], pingKey: key})
    cleanup.push(listener)
    const urls: string[] = []
    const logs: string[] = []
    const tunnel = await openTunnel('localtunnel', {host: server.url, localPort: listener.port, startTimeoutMs: 5000, log: (l, m) => logs.push(`${l}: ${m}`), onUrlChange: (u) => urls.push(u)})
    cleanup.push(tunnel)
    const first = tunnel.url
    const health = watchHealth({tunnel, path: '/webhooks', key, intervalMs: 300, failures: 2, timeoutMs: 3000, log: (l, m) => logs.push(`${l}: ${m}`)})
    cleanup.push({close: () => health.stop()})
    await waitFor(() => health.checks >= 2, 10_000, 'two health checks')
    expect(health.failed).toBe(0)
    expect(listener.stats.received).toBe(0) // pings are neither counted nor shown

    server.forgetIds = true
    server.forgetClients() // the library still sees its sockets open: only the check can tell
    await waitFor(() => urls.length === 1, 20_000, 'a reconnect with a new URL')
    expect(urls[0]).not.toBe(first)
    expect(tunnel.url).toBe(urls[0])
    expect(tunnel.reconnects).toBe(1)
    expect(logs.some((l) => /tunnel lost: the health check through the public URL failed 2 times in a row: the public URL answered HTTP 404/.test(l))).toBe(true)
    const {body} = eventBody()
    expect((await post(`${tunnel.url}/webhooks`, body, {'service-signature': opensslHeader([SECRET], nowSeconds(), body)})).status).toBe(200)
    const failedAfter = health.failed
    await waitFor(() => health.checks >= failedAfter + 4, 10_000, 'more health checks')
    expect(health.failed).toBe(failedAfter) // healthy again through the new URL
  })

  it('checks that keep failing after a reconnect (a network that cannot reach its public URL): reconnects back off, with a warning', async () => {
    const port = await closedPort()
    let reconnects = 0
    const tunnel: Tunnel = {provider: 'localtunnel', url: `http://127.0.0.1:${port}`, reconnects: 0, reconnect: async () => void reconnects++, close: async () => {}}
    const logs: string[] = []
    const health = watchHealth({tunnel, path: '/webhooks', key: createPingKey(), intervalMs: 20, failures: 2, timeoutMs: 2000, log: (l, m) => logs.push(`${l}: ${m}`)})
    cleanup.push({close: () => health.stop()})
    await waitFor(() => health.checks >= 29, 30_000, '29 failed checks')
    health.stop()
    // after 2, 4 more, 8 more, 16 more failures: at checks 2, 6, 14 and 30 (not every 2nd check)
    expect(reconnects).toBeGreaterThanOrEqual(3)
    expect(reconnects).toBeLessThanOrEqual(4)
    expect(health.reconnects).toBe(reconnects)
    expect(logs.some((l) => /^warn: health checks through the public URL still fail after a reconnect.*--health-interval 0/.test(l))).toBe(true)
  })

  it('an answer that is not this listener\'s pong is a failure (a tunnel server page, another listener)', async () => {
    const other = await startListener({secrets: [SECRET], pingKey: createPingKey()})
    cleanup.push(other)
    // a tunnel whose public URL is the other listener: the checks fail, and the reconnect says why
    const reasons: string[] = []
    const tunnel: Tunnel = {provider: 'localtunnel', url: other.url, reconnects: 0, reconnect: async (reason) => void reasons.push(reason), close: async () => {}}
    const health = watchHealth({tunnel, path: '/webhooks', key: createPingKey(), intervalMs: 50, failures: 1, timeoutMs: 3000})
    cleanup.push({close: () => health.stop()})
    await waitFor(() => reasons.length >= 1, 10_000, 'a failed check')
    expect(reasons[0]).toMatch(/failed 1 times in a row: the public URL answered (HTTP 400|, but not with this listener's pong)/)
  })
})
