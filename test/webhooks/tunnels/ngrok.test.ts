/** The ngrok provider with the @ngrok/ngrok module replaced by a fake: no traffic to ngrok. */
import {afterAll, afterEach, beforeEach, describe, expect, it, vi} from 'vitest'

const fake = vi.hoisted(() => ({
  config: undefined as Record<string, unknown> | undefined,
  closed: 0,
  hang: false,
  fail: undefined as string | undefined,
  forwards: 0,
}))

vi.mock('@ngrok/ngrok', () => ({
  forward: async (config: Record<string, unknown>) => {
    fake.config = config
    if (fake.fail) throw new Error(fake.fail)
    if (fake.hang) return new Promise(() => {})
    fake.forwards++
    const url = config.domain ? `https://${String(config.domain)}` : `https://abc12${fake.forwards}.ngrok-free.app`
    return {url: () => (fake.forwards === 1 && !config.domain ? 'https://abc123.ngrok-free.app' : url), close: async () => void fake.closed++}
  },
}))

const {openTunnel} = await import('../../../src/webhooks/tunnels/registry.js')
// the worker process serves other test files after this one (vitest.config.ts: isolate false): they get the real module
afterAll(() => {
  vi.doUnmock('@ngrok/ngrok')
})

describe('ngrok provider', () => {
  const saved = process.env.NGROK_AUTHTOKEN
  beforeEach(() => {
    process.env.NGROK_AUTHTOKEN = 'test-token'
    Object.assign(fake, {config: undefined, closed: 0, hang: false, fail: undefined, forwards: 0})
  })
  afterEach(() => {
    if (saved === undefined) delete process.env.NGROK_AUTHTOKEN
    else process.env.NGROK_AUTHTOKEN = saved
  })

  it('forwards to the local listener with the token from the environment, and reports drops and reconnects', async () => {
    const logs: string[] = []
    const tunnel = await openTunnel('ngrok', {localPort: 4242, log: (level, m) => logs.push(`${level}: ${m}`)})
    expect(tunnel.url).toBe('https://abc123.ngrok-free.app')
    expect(fake.config).toMatchObject({addr: '127.0.0.1:4242', authtoken_from_env: true})
    const onStatus = fake.config!.onStatusChange as (s: string) => void
    onStatus('closed')
    onStatus('connected')
    expect(logs).toEqual(['warn: tunnel lost: the ngrok session closed; ngrok is reconnecting…', 'info: tunnel reconnected (ngrok)'])
    expect(tunnel.reconnects).toBe(1)
    await tunnel.close()
    expect(fake.closed).toBe(1)
  })

  it('reconnect() (health check failed) opens a new listener: a new URL is reported; a reserved --domain keeps it', async () => {
    const urls: string[] = []
    const tunnel = await openTunnel('ngrok', {localPort: 4242, onUrlChange: (u) => urls.push(u)})
    await tunnel.reconnect('the health check failed')
    expect(fake.closed).toBe(1)
    expect(tunnel.url).toBe('https://abc122.ngrok-free.app')
    expect(urls).toEqual(['https://abc122.ngrok-free.app'])
    expect(tunnel.reconnects).toBe(1)
    await tunnel.close()

    const reserved = await openTunnel('ngrok', {localPort: 4242, domain: 'shop-dev.ngrok.app', onUrlChange: (u) => urls.push(u)})
    expect(fake.config).toMatchObject({domain: 'shop-dev.ngrok.app'})
    expect(reserved.url).toBe('https://shop-dev.ngrok.app')
    await reserved.reconnect('the health check failed')
    expect(reserved.url).toBe('https://shop-dev.ngrok.app')
    expect(urls).toHaveLength(1) // same URL: nothing to update
    await reserved.close()
  })

  it('refuses without NGROK_AUTHTOKEN (exit 2), before loading ngrok', async () => {
    delete process.env.NGROK_AUTHTOKEN
    await expect(openTunnel('ngrok', {localPort: 1})).rejects.toMatchObject({exitCode: 2, message: expect.stringContaining('NGROK_AUTHTOKEN must be set')})
    expect(fake.config).toBeUndefined()
  })

  it('bounds the start with the timeout, and names ngrok errors (exit 7)', async () => {
    fake.hang = true
    await expect(openTunnel('ngrok', {localPort: 1, startTimeoutMs: 300})).rejects.toMatchObject({exitCode: 7, message: expect.stringContaining('did not open a tunnel within')})
    fake.hang = false
    fake.fail = 'authentication failed: bad token'
    await expect(openTunnel('ngrok', {localPort: 1})).rejects.toMatchObject({exitCode: 7, message: expect.stringContaining('authentication failed')})
  })
})
