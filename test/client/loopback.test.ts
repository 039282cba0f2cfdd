/**
 * What pay counts as this machine (src/client/loopback.ts): the only hosts credentials may reach over plain http://,
 * where a local sandbox may be, and what `pay mcp` does not count as live. Literal loopback addresses and the name
 * `localhost` only: `*.localhost` resolves to loopback only where the resolver keeps RFC 6761, so it is a remote host.
 */
import {describe, expect, it} from 'vitest'
import {isLoopbackHost, isLoopbackUrl} from '../../src/client/loopback.js'
import {checkBaseUrl} from '../../src/client/transport.js'
import {policyOf} from '../../src/mcp/policy.js'
import type {Settings} from '../../src/config/settings.js'
import {tempConfigDir} from '../helpers/cli.js'
import {runInProcess} from '../helpers/in-process.js'

describe('this machine (loopback)', () => {
  it('is 127.0.0.0/8, ::1 and the name localhost; not *.localhost, nor names that only look local', () => {
    for (const host of ['127.0.0.1', '127.255.0.9', '::1', '[::1]', 'localhost', 'LOCALHOST']) expect(isLoopbackHost(host), host).toBe(true)
    for (const host of ['pay.localhost', 'a.b.localhost', 'localhost.', 'localhost.example.com', 'mylocalhost', '128.0.0.1', '0.0.0.0', '10.0.0.1', 'api.example.com']) expect(isLoopbackHost(host), host).toBe(false)
    expect(isLoopbackUrl('http://127.0.0.1:4010')).toBe(true)
    expect(isLoopbackUrl('http://sandbox.localhost:4010')).toBe(false)
  })

  it('plain http:// to *.localhost is refused before anything is sent (the client secret would travel in clear)', async () => {
    expect(() => checkBaseUrl('http://pay.localhost:4010')).toThrow(/must use https:\/\/ for pay\.localhost/)
    expect(checkBaseUrl('https://pay.localhost:4010').hostname).toBe('pay.localhost')
    expect(checkBaseUrl('http://localhost:4010').hostname).toBe('localhost')
    const r = await runInProcess(['balance'], {env: {NO_COLOR: '1', PAY_CONFIG_DIR: tempConfigDir(), PAY_BASE_URL: 'http://pay.localhost:9', PAY_CLIENT_ID: 'c', PAY_CLIENT_SECRET: 'secret-1234'}})
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('--base-url must use https:// for pay.localhost')
  })

  it('a service at *.localhost is live for pay mcp (money tools need --allow-live-money)', () => {
    const settings: Settings = {profileName: 'default', profileFound: true, sources: {baseUrl: 'profile'}, configDir: '/tmp/x', baseUrl: 'https://pay.localhost:4010'}
    expect(policyOf(settings, {allowMoney: true, allowLiveMoney: false})).toMatchObject({live: true, moneyListed: false})
  })
})
