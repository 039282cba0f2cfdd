import {describe, expect, it} from 'vitest'
import {backoffMs, classifyNetworkError, isRetryable, retryAfterMs} from '../../src/client/retry-policy.js'

describe('retry policy', () => {
  it('retries 429/502/503/504, timeouts and network errors when safe to repeat', () => {
    for (const status of [429, 502, 503, 504]) expect(isRetryable({kind: 'status', status}, true)).toBe(true)
    for (const status of [400, 401, 404, 409, 422, 500]) expect(isRetryable({kind: 'status', status}, true)).toBe(false)
    expect(isRetryable({kind: 'timeout'}, true)).toBe(true)
    expect(isRetryable({kind: 'network', sent: true}, true)).toBe(true)
  })
  it('retries a non-idempotent POST only on 429 and on a connection that never sent', () => {
    expect(isRetryable({kind: 'status', status: 429}, false)).toBe(true)
    expect(isRetryable({kind: 'status', status: 503}, false)).toBe(false)
    expect(isRetryable({kind: 'timeout'}, false)).toBe(false)
    expect(isRetryable({kind: 'network', sent: true}, false)).toBe(false)
    expect(isRetryable({kind: 'network', sent: false}, false)).toBe(true)
  })
  it('backs off exponentially with jitter, capped', () => {
    expect(backoffMs(1, () => 0)).toBe(125)
    expect(backoffMs(1, () => 1)).toBe(250)
    expect(backoffMs(3, () => 1)).toBe(1000)
    expect(backoffMs(20, () => 1)).toBe(8000)
  })
  it('reads Retry-After as seconds or a date, else the body retry_after', () => {
    expect(retryAfterMs({'retry-after': '3'}, undefined)).toBe(3000)
    expect(retryAfterMs({'retry-after': new Date(10_000).toUTCString()}, undefined, 5000)).toBe(5000)
    expect(retryAfterMs({}, {error: {retry_after: 2}})).toBe(2000)
    expect(retryAfterMs({}, {error: {}})).toBeUndefined()
  })
  it('classifies refused connections as not sent and resets as maybe sent', () => {
    expect(classifyNetworkError(Object.assign(new Error('x'), {code: 'ECONNREFUSED'}))).toEqual({kind: 'network', sent: false})
    expect(classifyNetworkError(Object.assign(new Error('x'), {code: 'UND_ERR_SOCKET', cause: {code: 'ECONNRESET'}}))).toEqual({kind: 'network', sent: true})
    expect(classifyNetworkError(Object.assign(new Error('x'), {code: 'UND_ERR_HEADERS_TIMEOUT'}))).toEqual({kind: 'timeout'})
  })
})
