/**
 * The localtunnel provider (the real `localtunnel` client library) against the loopback test server of the
 * protocol: a working tunnel, and a server that refuses, hangs, answers a web page, hands out a dead port,
 * drops the tunnel sockets, or stops accepting them.
 */
import {afterEach, describe, expect, it} from 'vitest'
import {startListener} from '../../../src/webhooks/listener.js'
import {openTunnel} from '../../../src/webhooks/tunnels/registry.js'
import type {Tunnel} from '../../../src/webhooks/tunnels/tunnel.js'
import {closedPort, startLocaltunnelServer} from '../../helpers/localtunnel-server.js'
import {eventBody, nowSeconds, opensslHeader, post, waitFor} from '../../helpers/webhooks.js'

const SECRET = 'whsec_tunnel_test'
const cleanup: {close(): Promise<void>}[] = []
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!.close()
})

async function setup(mode?: Parameters<typeof startLocaltunnelServer>[0]) {
  const server = await startLocaltunnelServer(mode)
  cleanup.push(server)
  const listener = await startListener({secrets: [SECRET]})
  cleanup.push(listener)
  return {server, listener}
}

function start(server: {url: string}, port: number, logs: string[], timeoutMs = 5000): Promise<Tunnel> {
  return openTunnel('localtunnel', {host: server.url, localPort: port, localHost: '127.0.0.1', startTimeoutMs: timeoutMs, log: (level, m) => logs.push(`${level}: ${m}`)})
}

async function deliver(tunnelUrl: string): Promise<number> {
  const {body} = eventBody()
  return (await post(`${tunnelUrl}/webhooks`, body, {'service-signature': opensslHeader([SECRET], nowSeconds(), body)})).status
}

describe('localtunnel provider', () => {
  it('opens a tunnel (GET /?new), and deliveries through it reach the listener verified', async () => {
    const {server, listener} = await setup()
    const logs: string[] = []
    const tunnel = await start(server, listener.port, logs)
    cleanup.push(tunnel)
    expect(server.handshakes).toEqual(['/?new'])
    expect(tunnel.url).toMatch(/^http:\/\/[a-z0-9]+\.localhost:\d+$/)
    for (let i = 0; i < 5; i++) expect(await deliver(tunnel.url)).toBe(200)
    expect(listener.stats.verified).toBe(5)
    expect(server.proxied).toBe(5)
  })

  it('refused: bounded by the timeout, with the reason', async () => {
    const port = await closedPort()
    const started = Date.now()
    await expect(start({url: `http://127.0.0.1:${port}`}, 1, [], 1500)).rejects.toThrow(/no tunnel from .* within 2 s: GET .*\?new: connection refused/)
    expect(Date.now() - started).toBeLessThan(6000)
  })

  it('hanging handshake: bounded by the timeout ("no answer")', async () => {
    const {server, listener} = await setup({mode: 'hang'})
    const started = Date.now()
    await expect(start(server, listener.port, [], 1500)).rejects.toThrow(/no answer within/)
    expect(Date.now() - started).toBeLessThan(6000)
  })

  it('a server that answers a web page (the incompatible npm fork) fails at once with a clear error', async () => {
    const {server, listener} = await setup({mode: 'html'})
    const started = Date.now()
    await expect(start(server, listener.port, [], 5000)).rejects.toThrow(/does not speak the localtunnel protocol.*text\/html/)
    expect(Date.now() - started).toBeLessThan(3000)
  })

  it('5xx answers are retried until the timeout, with the status in the error', async () => {
    const {server, listener} = await setup({mode: 'error'})
    // retried: wait for the second handshake itself (a 1.5 s deadline raced the 1 s pause between attempts)
    const stop = new AbortController()
    const retrying = openTunnel('localtunnel', {host: server.url, localPort: listener.port, localHost: '127.0.0.1', startTimeoutMs: 60_000, signal: stop.signal, log: () => {}})
    await waitFor(() => server.handshakes.length >= 2, 10_000, 'a second handshake')
    stop.abort()
    await expect(retrying).rejects.toThrow(/cancelled/)
    // until the timeout, with the status in the error
    await expect(start(server, listener.port, [], 1500)).rejects.toThrow(/HTTP 503/)
  })

  it('a tunnel port that refuses connections fails the start with the reason', async () => {
    const {server, listener} = await setup({mode: 'bad-port'})
    await expect(start(server, listener.port, [], 3000)).rejects.toThrow(/refused the tunnel connection/)
  })

  it('dropped sockets: says so, the library re-opens them, deliveries go on', async () => {
    const {server, listener} = await setup({maxConn: 2})
    const logs: string[] = []
    const tunnel = await start(server, listener.port, logs)
    cleanup.push(tunnel)
    expect(await deliver(tunnel.url)).toBe(200)
    await waitFor(() => server.socketCount() === 2, 5000, 'two tunnel sockets')
    expect(server.dropSockets()).toBe(2)
    await waitFor(() => logs.some((l) => /re-opened/.test(l)), 5000, 're-open log')
    expect(logs.some((l) => /dropped every connection/.test(l))).toBe(true)
    expect(await deliver(tunnel.url)).toBe(200)
    expect(listener.stats.verified).toBe(2)
  })

  it('tunnel ports refusing after a drop: reconnects with a new handshake for the same id, and says so', async () => {
    const {server, listener} = await setup({maxConn: 2})
    const logs: string[] = []
    const tunnel = await start(server, listener.port, logs)
    cleanup.push(tunnel)
    const id = new URL(tunnel.url).hostname.split('.')[0]
    await waitFor(() => server.socketCount() === 2, 5000, 'two tunnel sockets')
    await server.refuseTunnels()
    await waitFor(() => logs.some((l) => /tunnel reconnected/.test(l)), 15_000, 'reconnect')
    expect(logs.some((l) => /tunnel lost/.test(l))).toBe(true)
    expect(server.handshakes).toEqual(['/?new', `/${id}`])
    expect(tunnel.reconnects).toBe(1)
    expect(await deliver(tunnel.url)).toBe(200)
  })

  it('a server that forgot the id after a drop: reconnects with a NEW URL, says so and reports it', async () => {
    const {server, listener} = await setup({maxConn: 1})
    const logs: string[] = []
    const urls: string[] = []
    const tunnel = await openTunnel('localtunnel', {host: server.url, localPort: listener.port, startTimeoutMs: 5000, log: (level, m) => logs.push(`${level}: ${m}`), onUrlChange: (u) => urls.push(u)})
    cleanup.push(tunnel)
    const first = tunnel.url
    await waitFor(() => server.socketCount() === 1, 5000, 'a tunnel socket')
    server.forgetIds = true
    await server.refuseTunnels()
    await waitFor(() => urls.length === 1, 15_000, 'a new URL')
    expect(urls[0]).not.toBe(first)
    expect(tunnel.url).toBe(urls[0])
    expect(logs.some((l) => /NEW public URL/.test(l))).toBe(true)
    expect(await deliver(tunnel.url)).toBe(200)
  })
})
