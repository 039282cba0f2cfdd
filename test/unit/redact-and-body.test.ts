import {describe, expect, it} from 'vitest'
import {mergeBody, parseFieldFlags} from '../../src/operation/body-input.js'
import {redactBodyText, redactHeaders, redactValues} from '../../src/base/redact.js'
import {matchEndpoint, endpointList, fillPath} from '../../src/api/endpoints.js'

describe('redaction', () => {
  it('redacts the Authorization header and secret-named JSON keys at any depth', () => {
    expect(redactHeaders({authorization: 'Bearer abc', accept: 'application/json'})).toEqual({authorization: 'Bearer [REDACTED]', accept: 'application/json'})
    expect(JSON.parse(redactBodyText('{"client_id":"x","client_secret":"s","nested":{"access_token":"t"}}'))).toEqual({client_id: 'x', client_secret: '[REDACTED]', nested: {access_token: '[REDACTED]'}})
    expect(redactValues('the secret is hunter22', ['hunter22'])).toBe('the secret is [REDACTED]')
  })
})

describe('body input', () => {
  it('keeps key=value a string (amounts stay decimal strings) and parses key:=json', () => {
    expect(parseFieldFlags(['amount=10.50', 'count:=3', 'a.b=c'])).toEqual({amount: '10.50', count: 3, a: {b: 'c'}})
  })
  it('merges command fields, then --data, then -F', () => {
    expect(mergeBody({amount: '1.00', x: {a: 1}}, {x: {b: 2}}, {amount: '2.00'})).toEqual({amount: '2.00', x: {a: 1, b: 2}})
  })
})

describe('endpoint table', () => {
  it('holds the 29 endpoints of the spec summary', () => {
    expect(endpointList).toHaveLength(29)
    expect(new Set(endpointList.map((e) => `${e.method} ${e.path}`)).size).toBe(29)
  })
  it('applies the sub-account header to every authenticated endpoint except metadata and balance', () => {
    for (const e of endpointList) {
      const exempt = !e.auth || e.path.startsWith('/v1/metadata/') || e.path === '/v1/balance'
      expect(e.accountRef, e.id).toBe(!exempt)
    }
  })
  it('marks exactly the spec idempotent endpoints', () => {
    expect(endpointList.filter((e) => e.idempotent).map((e) => `${e.method} ${e.path}`).sort()).toEqual(
      [
        'POST /v1/checkout/sessions',
        'POST /v1/collections',
        'POST /v1/customers/{id}/virtual-account',
        'POST /v1/mandates',
        'POST /v1/mandates/{mandate_id}/cancel',
        'POST /v1/mandates/{mandate_id}/debits',
        'POST /v1/payouts',
        'POST /v1/subscriptions',
        'POST /v1/virtual-accounts/merchant',
      ].sort(),
    )
  })
  it('matches concrete paths and encodes path parameters', () => {
    expect(matchEndpoint('GET', '/v1/collections/CL_1')?.endpoint.id).toBe('collections.get')
    expect(matchEndpoint('GET', '/v1/collections')?.endpoint.id).toBe('collections.getByReference')
    expect(matchEndpoint('POST', '/v1/mandates/MD_9/cancel')?.params).toEqual({mandate_id: 'MD_9'})
    expect(fillPath('/v1/payouts/{merchant_reference}', {merchant_reference: 'a/b c'})).toBe('/v1/payouts/a%2Fb%20c')
  })
})

describe('an Idempotency-Key given as a header (pay api -H)', () => {
  it('is the key the request carries, journals and prints, in any case of the header name', async () => {
    const {ApiClient} = await import('../../src/client/api-client.js')
    const client = new ApiClient({settings: {baseUrl: 'http://127.0.0.1:9', clientId: 'c', clientSecret: 's'}, userAgent: 'test'})
    for (const name of ['Idempotency-Key', 'idempotency-key', 'IDEMPOTENCY-KEY']) {
      const req = client.prepare('collections.create', {body: {amount: '1.00'}, headers: {[name]: 'key-from-header-1'}})
      expect(req.idempotencyKey).toBe('key-from-header-1')
      expect(req.headers['idempotency-key']).toBe('key-from-header-1')
      expect(req.keyGiven).toBe(true)
    }
    // --idempotency-key wins over a header; no second, different key is sent
    const both = client.prepare('collections.create', {body: {amount: '1.00'}, idempotencyKey: 'flag-key', headers: {'Idempotency-Key': 'header-key'}})
    expect(both.idempotencyKey).toBe('flag-key')
    expect(both.headers['idempotency-key']).toBe('flag-key')
  })
})
