/**
 * The endpoint table (src/api/endpoints.ts) against the spec summary: its endpoints, the sub-account header rule,
 * the idempotent endpoints, matching and path parameters, and that loading it makes no zod schema.
 */
import {describe, expect, it, vi} from 'vitest'
import * as z from 'zod'
import {matchEndpoint, endpointList, fillPath} from '../../src/api/endpoints.js'

describe('endpoint table', () => {
  it('makes no zod schema when it loads, and a schema only when it is first read', async () => {
    // zod copies every enumerable member of z.ZodType.prototype onto each schema it makes (its way to add methods to
    // all schemas): a getter there counts the schemas made
    let made = 0
    const counter = {configurable: true, enumerable: true, get: () => (made++, () => undefined)}
    Object.defineProperty(z.ZodType.prototype, 'countedByEndpointsTest', counter)
    try {
      vi.resetModules() // a fresh table and schemas module, whatever other files loaded before
      const {endpoints, endpointList: list} = await import('../../src/api/endpoints.js')
      expect(list).toHaveLength(29)
      expect(made).toBe(0)
      // nor does checking a usual request by its stored plan (src/api/validate.ts)
      const {requestProblems} = await import('../../src/api/validate.js')
      expect(requestProblems(endpoints['balance.get'], 'query', {currency: 'KES'})).toEqual([])
      const body = {amount: '10.00', currency: 'KES', merchant_reference: 'ORDER-1', mobile: '254700000010', provider: 'mpesa'}
      expect(requestProblems(endpoints['collections.create'], 'body', body)).toEqual([])
      expect(requestProblems(endpoints['collections.get'], 'body', undefined)).toEqual([])
      expect(made).toBe(0)
      const row = endpoints['collections.create']
      expect(typeof Object.getOwnPropertyDescriptor(row, 'body')?.get).toBe('function')
      expect(made).toBe(0)
      const schema = row.body
      expect(made).toBe(1) // its z.lazy: the object schema inside is built on the first parse
      expect(row.body).toBe(schema)
      expect(made).toBe(1)
      expect(schema.safeParse({}).success).toBe(false)
      expect(made).toBeGreaterThan(1)
      expect({...row}).toMatchObject({id: 'collections.create', body: schema, response: row.response}) // a copy has them too
      expect('query' in row).toBe(false)
    } finally {
      delete (z.ZodType.prototype as {countedByEndpointsTest?: unknown}).countedByEndpointsTest
    }
  })
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

  it('a reference spelled %2e%2e stays one segment (its % encoded); "." and ".." are never filled in', () => {
    const path = fillPath('/v1/payouts/{merchant_reference}', {merchant_reference: '%2e%2e'})
    expect(path).toBe('/v1/payouts/%252e%252e')
    expect(new URL(`http://127.0.0.1:4010${path}`).pathname).toBe('/v1/payouts/%252e%252e')
    for (const dots of ['.', '..']) expect(() => fillPath('/v1/transactions/verify/{merchant_reference}', {merchant_reference: dots})).toThrow(/must not be "\." or "\.\."/)
  })
})
