import {randomUUID} from 'node:crypto'
import {request} from 'undici'
import {describe, expect, it} from 'vitest'
import {checkoutBody, collectionBody, expectError, useSandboxClients} from '../helpers/sandbox-http.js'

const t = useSandboxClients()

describe('tenant isolation', () => {
  it("another merchant's resources answer 404, never the data", async () => {
    const col = (await t.acme.post('/v1/collections', collectionBody({merchant_reference: 'iso-1'}))).body
    const cs = (await t.acme.post('/v1/checkout/sessions', checkoutBody({merchant_reference: 'iso-cs'}))).body
    await t.acme.post('/v1/payouts', {amount: '5.00', currency: 'KES', merchant_reference: 'iso-po', mobile: '254712345670', provider: 'mpesa'})
    for (const path of [`/v1/collections/${col.id}`, '/v1/collections?merchant_reference=iso-1', `/v1/checkout/sessions/${cs.id}`, '/v1/transactions/verify/iso-1', '/v1/payouts/iso-po', '/v1/customers/MC_ACME0001', '/v1/customers/MC_ACME0001/collections']) {
      const r = await t.globexEast.get(path)
      expectError(r, 404, 'not_found')
      expect(Object.keys(r.body)).toEqual(['error'])
      expect(r.text).not.toMatch(/"amount"|Jane|succeeded|processing/)
      expect((await t.acme.get(path)).status).toBe(200)
    }
  })

  it('isolates sub-accounts of one merchant too', async () => {
    const col = (await t.globexEast.post('/v1/collections', collectionBody({merchant_reference: 'east-1'}))).body
    expect((await t.globexEast.get(`/v1/collections/${col.id}`)).status).toBe(200)
    expectError(await t.globexWest.get(`/v1/collections/${col.id}`), 404, 'not_found')
  })

  it("idempotency keys are scoped per merchant: the same key at two merchants creates two resources", async () => {
    const key = randomUUID()
    const body = collectionBody({merchant_reference: 'shared-key'})
    const a = await t.acme.post('/v1/collections', body, {key})
    const b = await t.globexEast.post('/v1/collections', body, {key})
    expect(a.status).toBe(201)
    expect(b.status).toBe(201)
    expect(a.body.id).not.toBe(b.body.id)
  })
})

describe('X-Service-Account-Ref', () => {
  it('is required when sub-accounts are enabled (400 naming the header)', async () => {
    expectError(await t.globexEast.get('/v1/account', {headers: {'x-service-account-ref': undefined}}), 400, 'invalid_parameter', 'X-Service-Account-Ref')
    expectError(await t.globexEast.post('/v1/collections', collectionBody(), {headers: {'x-service-account-ref': undefined}}), 400, 'invalid_parameter', 'X-Service-Account-Ref')
  })

  it('is not needed for metadata and balance', async () => {
    expect((await t.globexEast.get('/v1/metadata/banks', {headers: {'x-service-account-ref': undefined}})).status).toBe(200)
    expect((await t.globexEast.get('/v1/metadata/mobile_providers', {headers: {'x-service-account-ref': undefined}})).status).toBe(200)
    expect((await t.globexEast.get('/v1/balance', {headers: {'x-service-account-ref': undefined}})).status).toBe(200)
    // and ignore it when sent
    expect((await t.globexEast.get('/v1/balance', {accountRef: 'not-a-ref'})).status).toBe(200)
  })

  it('selects the sub-account; a ref of another merchant is 404', async () => {
    const r = await t.globexWest.get('/v1/account')
    expect(r.body).toMatchObject({object: 'account_context', merchant: {id: 1002, sub_accounts_enabled: true}, account: {object: 'merchant_account', account_ref: 'globex-west', status: 'active'}})
    expect(r.body.account.id).toMatch(/^MAC_/)
    expectError(await t.globexEast.get('/v1/account', {accountRef: 'acme-main'}), 404, 'not_found')
    expectError(await t.acme.get('/v1/account', {accountRef: 'globex-east'}), 404, 'not_found')
  })

  it('is optional without sub-accounts', async () => {
    const r = await t.acme.get('/v1/account')
    expect(r.body.merchant).toEqual({id: 1001, name: 'Acme Stores Ltd', sub_accounts_enabled: false})
    expect((await t.acme.get('/v1/account', {accountRef: 'acme-main'})).status).toBe(200)
  })
})

describe('idempotency', () => {
  it('replays the first answer for the same key and body, with no second side effect', async () => {
    const key = randomUUID()
    const body = collectionBody({merchant_reference: 'idem-1'})
    const first = await t.acme.post('/v1/collections', body, {key})
    // same JSON, different key order and whitespace
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(body).reverse()), null, 2)
    const second = await t.acme.call('POST', '/v1/collections', {raw: reordered, key})
    expect(first.status).toBe(201)
    expect(second.status).toBe(201)
    expect(second.body).toEqual(first.body)
    expect(second.headers['idempotent-replayed']).toBe('true')
    expect(Object.values(t.sb.state.collections).filter((c) => c.merchant_reference === 'idem-1')).toHaveLength(1)
    expect(t.sb.events.filter((e) => e.type === 'collection.processing' && JSON.parse(e.body).data.id === first.body.id)).toHaveLength(1)
  })

  it('409 idempotency_key_mismatch for the same key with a different body', async () => {
    const key = randomUUID()
    await t.acme.post('/v1/checkout/sessions', checkoutBody({merchant_reference: 'idem-2'}), {key})
    const e = expectError(await t.acme.post('/v1/checkout/sessions', checkoutBody({merchant_reference: 'idem-2', amount: '251.00'}), {key}), 409, 'idempotency_key_mismatch')
    expect(e.message).toMatch(/different/)
  })

  it('does not store refusals: a corrected body may reuse the key', async () => {
    const key = randomUUID()
    expectError(await t.acme.post('/v1/collections', collectionBody({amount: 'ten'}), {key}), 400, 'invalid_parameter', 'amount')
    expect((await t.acme.post('/v1/collections', collectionBody(), {key})).status).toBe(201)
  })

  it('drop-after-commit: the write happens, the answer is lost, a retry with the same key replays it', async () => {
    const put = await t.acme.call('PUT', '/_sandbox/faults', {body: {drop_next: 1}})
    expect(put.body.drop_next).toBe(1)
    const key = randomUUID()
    const body = JSON.stringify(collectionBody({merchant_reference: 'dropped-1'}))
    const headers = {'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${t.acme.token}`, 'idempotency-key': key}
    await expect(request(`${t.sb.url}/v1/collections`, {method: 'POST', headers, body}).then((r) => r.body.text())).rejects.toThrow()
    const committed = Object.values(t.sb.state.collections).filter((c) => c.merchant_reference === 'dropped-1')
    expect(committed).toHaveLength(1)
    const retry = await request(`${t.sb.url}/v1/collections`, {method: 'POST', headers, body})
    expect(retry.statusCode).toBe(201)
    expect(retry.headers['idempotent-replayed']).toBe('true')
    expect(((await retry.body.json()) as {id: string}).id).toBe(committed[0].id)
    expect(Object.values(t.sb.state.collections).filter((c) => c.merchant_reference === 'dropped-1')).toHaveLength(1)
    expect(t.sb.requests.some((r) => r.path === '/v1/collections' && r.dropped === true)).toBe(true)
  })
})
