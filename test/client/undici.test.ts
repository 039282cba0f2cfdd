import {describe, expect, it} from 'vitest'
import {loadUndici} from '../../src/client/undici.js'

describe('loading undici', () => {
  it('gives the package itself (its Pool, Agent and EnvHttpProxyAgent)', async () => {
    const undici = await loadUndici()
    expect(undici).toBe(await import('undici'))
    expect(typeof undici.Pool).toBe('function')
    expect(typeof undici.EnvHttpProxyAgent).toBe('function')
  })
})
