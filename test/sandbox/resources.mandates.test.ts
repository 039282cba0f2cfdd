import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Sandbox} from '../../src/sandbox/index.js'
import {hintFor} from '../../src/base/errors.js'
import {ACME_OPS, type Client, Client as HttpClient, acmeClient, expectError, globexClient, mandateBody, start, tokenFor, until} from '../helpers/sandbox-http.js'

let sb: Sandbox
let acme: Client
let globex: Client
beforeAll(async () => {
  sb = await start({settleMs: 30})
  acme = await acmeClient(sb)
  globex = await globexClient(sb)
})
afterAll(() => sb.close())

const mandate = (c: Client, ref: string) => c.get(`/v1/mandates?merchant_reference=${ref}`).then((r) => r.body)

describe('mandates', () => {
  it('processing until approved (auto after --settle-ms), then reuse answers succeeded at once', async () => {
    const r = await acme.post('/v1/mandates', mandateBody({mobile: '254711000011', merchant_reference: 'md-a'}))
    expect(r.status).toBe(201)
    expect(r.body).toEqual({object: 'mandate', status: 'processing', merchant_reference: 'md-a', message_id: expect.any(String)})
    expect(r.body.mandate_id).toBeUndefined() // the create answer gives no id
    const approved = await until(async () => {
      const m = await mandate(acme, 'md-a')
      return m.status === 'succeeded' && m
    }, 3000, 'approval')
    expect(approved).toMatchObject({object: 'mandate', mandate_id: expect.stringMatching(/^MD_/), merchant_reference: 'md-a', amount: '500.00', currency: 'KES'})
    const reuse = await acme.post('/v1/mandates', mandateBody({mobile: '254711000011', merchant_reference: 'md-a2'}))
    expect(reuse.body.status).toBe('succeeded')
  })

  it('409 mandate_pending_approval while the first create awaits approval (number ending in 8), then approve by control API', async () => {
    await acme.post('/v1/mandates', mandateBody({mobile: '254711000018', merchant_reference: 'md-p'}))
    const e = expectError(await acme.post('/v1/mandates', mandateBody({mobile: '254711000018', merchant_reference: 'md-p2'})), 409, 'mandate_pending_approval')
    expect(e.message).toContain('md-p')
    const m = await mandate(acme, 'md-p')
    expect(m.status).toBe('processing')
    // debits only on an approved mandate
    expectError(await acme.post(`/v1/mandates/${m.mandate_id}/debits`, {amount: '10.00', currency: 'KES', merchant_reference: 'db-early', provider: 'mpesa'}), 422, 'validation_error', 'mandate_id')
    const ok = await acme.post(`/_sandbox/mandates/${m.mandate_id}/approve`)
    expect(ok.body.status).toBe('succeeded')
    const debit = await acme.post(`/v1/mandates/${m.mandate_id}/debits`, {amount: '10.00', currency: 'KES', merchant_reference: 'db-1', provider: 'mpesa'})
    expect(debit.status).toBe(201)
    expect(debit.body).toMatchObject({object: 'mandate_debit', status: 'processing', mandate_id: m.mandate_id, merchant_reference: 'db-1', amount: '10.00', currency: 'KES'})
    // ...8 holds the debit too; force it
    await acme.post(`/_sandbox/transactions/${debit.body.id}/succeed`)
    const st = await acme.get(`/v1/mandate_debits/status?mandate_id=${m.mandate_id}&merchant_reference=db-1`)
    expect(st.body.status).toBe('succeeded')
  })

  it('debits settle by the number: ...9 fails; currency/provider must match the mandate', async () => {
    await acme.post('/v1/mandates', mandateBody({mobile: '254711000019', merchant_reference: 'md-f'}))
    const m = await until(async () => {
      const x = await mandate(acme, 'md-f')
      return x.status === 'succeeded' && x
    }, 3000, 'approval')
    expectError(await acme.post(`/v1/mandates/${m.mandate_id}/debits`, {amount: '10.00', currency: 'UGX', merchant_reference: 'db-x', provider: 'mpesa'}), 400, 'invalid_parameter', 'currency')
    expectError(await acme.post(`/v1/mandates/${m.mandate_id}/debits`, {amount: '10.00', currency: 'KES', merchant_reference: 'db-x', provider: 'airtel'}), 400, 'invalid_parameter', 'provider')
    await acme.post(`/v1/mandates/${m.mandate_id}/debits`, {amount: '10.00', currency: 'KES', merchant_reference: 'db-f', provider: 'mpesa'})
    await until(async () => (await acme.get(`/v1/mandate_debits/status?mandate_id=${m.mandate_id}&merchant_reference=db-f`)).body.status === 'failed', 3000, 'debit failure')
  })

  it('cancel cancels every local mandate sharing the upstream mandate; a new create is processing again', async () => {
    await acme.post('/v1/mandates', mandateBody({mobile: '254711000021', merchant_reference: 'md-c1'}))
    await until(async () => (await mandate(acme, 'md-c1')).status === 'succeeded', 3000, 'approval')
    expect((await acme.post('/v1/mandates', mandateBody({mobile: '254711000021', merchant_reference: 'md-c2'}))).body.status).toBe('succeeded')
    const first = await mandate(acme, 'md-c1')
    expectError(await acme.post(`/v1/mandates/${first.mandate_id}/cancel`, {mobile: '254700000000', reason: 'x'}), 400, 'invalid_parameter', 'mobile')
    const c = await acme.post(`/v1/mandates/${first.mandate_id}/cancel`, {mobile: '254711000021', reason: 'customer asked'})
    expect(c.status).toBe(200)
    expect(c.body).toMatchObject({object: 'mandate_cancellation', status: 'processing', mandate_id: first.mandate_id, message_id: expect.any(String)})
    expect((await mandate(acme, 'md-c1')).status).toBe('cancelled')
    expect((await mandate(acme, 'md-c2')).status).toBe('cancelled')
    expectError(await acme.post(`/v1/mandates/${first.mandate_id}/debits`, {amount: '1.00', currency: 'KES', merchant_reference: 'db-c', provider: 'mpesa'}), 422, 'validation_error')
    expect((await acme.post('/v1/mandates', mandateBody({mobile: '254711000021', merchant_reference: 'md-c3'}))).body.status).toBe('processing')
  })

  it('a debit created by the second client of the merchant: its events go to that client, not to the mandate\'s', async () => {
    const ops = new HttpClient(sb.url, await tokenFor(sb.url, ACME_OPS))
    await acme.post('/v1/mandates', mandateBody({mobile: '254711000031', merchant_reference: 'md-two-clients'}))
    const m = await until(async () => {
      const x = await mandate(acme, 'md-two-clients')
      return x.status === 'succeeded' && x
    }, 3000, 'approval')
    const d = await ops.post(`/v1/mandates/${m.mandate_id}/debits`, {amount: '25.00', currency: 'KES', merchant_reference: 'db-by-ops', provider: 'mpesa'})
    expect(d.status).toBe(201)
    const events = () => sb.events.filter((e) => e.body.includes(d.body.id)).map((e) => [e.type, e.client_id])
    await until(() => events().length === 2, 3000, 'the debit to settle')
    expect(events()).toEqual([
      ['mandate_debit.processing', 'sb_acme_ops_client'],
      ['mandate_debit.succeeded', 'sb_acme_ops_client'],
    ])
    // the mandate's own events still go to the client that created the mandate
    expect(sb.events.filter((e) => e.type.startsWith('mandate.') && e.body.includes(m.mandate_id)).map((e) => e.client_id)).toEqual(['sb_acme_client', 'sb_acme_client'])
  })

  it('a number awaiting approval in another sub-account: the 409 names the sub-account to poll from, where the lookup answers', async () => {
    const west = await globexClient(sb, 'globex-west')
    expect((await globex.post('/v1/mandates', mandateBody({mobile: '254711000058', merchant_reference: 'md-east-pending'}))).status).toBe(201)
    const e = expectError(await west.post('/v1/mandates', mandateBody({mobile: '254711000058', merchant_reference: 'md-west'})), 409, 'mandate_pending_approval')
    expect(e.message).toContain('poll GET /v1/mandates?merchant_reference=md-east-pending with X-Service-Account-Ref: globex-east')
    expectError(await west.get('/v1/mandates?merchant_reference=md-east-pending'), 404, 'not_found')
    expect((await globex.get('/v1/mandates?merchant_reference=md-east-pending')).body.status).toBe('processing')
    expect(hintFor(409, e.code, 1, e.message)).toContain('`pay mandates get --reference md-east-pending --account-ref globex-east`')
    // from the same sub-account the message names no header
    const same = expectError(await globex.post('/v1/mandates', mandateBody({mobile: '254711000058', merchant_reference: 'md-east-2'})), 409, 'mandate_pending_approval')
    expect(same.message).not.toContain('X-Service-Account-Ref')
  })

  it("another merchant's mandate is 404", async () => {
    const m = await mandate(acme, 'md-a')
    expectError(await globex.post(`/v1/mandates/${m.mandate_id}/cancel`, {mobile: '254711000011', reason: 'x'}), 404, 'not_found')
    expectError(await globex.get('/v1/mandates?merchant_reference=md-a'), 404, 'not_found')
  })
})

describe('subscriptions', () => {
  it('lists active plans only', async () => {
    const r = await acme.get('/v1/subscription_plans')
    expect(r.body.object).toBe('list')
    expect(r.body.data.map((p: {plan_id: string}) => p.plan_id).sort()).toEqual(['PLN_ACMEGOLD', 'PLN_ACMESILVER'])
  })

  it('pending_approval at enrolment; charged once on approval; active later', async () => {
    const r = await acme.post('/v1/subscriptions', {plan_id: 'PLN_ACMEGOLD', merchant_reference: 'sub-1', customer_name: 'Grace Achieng', customer_email: 'grace@example.com', mobile: '254711000031', provider: 'mpesa'})
    expect(r.status).toBe(201)
    expect(r.body).toMatchObject({subscription_id: expect.stringMatching(/^SUB_/), status: 'pending_approval', plan_id: 'PLN_ACMEGOLD', plan_name: 'Gold (monthly)', mandate_id: expect.stringMatching(/^MD_/), mobile: '254711000031', customer_email: 'grace@example.com'})
    await until(async () => (await acme.get('/v1/subscriptions?merchant_reference=sub-1')).body.status === 'active', 3000, 'active')
    const charges = Object.values(sb.state.debits).filter((d) => d.subscription_id === r.body.subscription_id)
    expect(charges).toHaveLength(1)
    expect(charges[0]).toMatchObject({amount: '1500.00', status: 'succeeded'})
    const types = sb.events.filter((e) => e.type.startsWith('subscription.') && JSON.parse(e.body).data.subscription_id === r.body.subscription_id).map((e) => e.type)
    expect(types).toEqual(['subscription.created', 'subscription.active'])
  })

  it('a failed charge (...9) emits subscription.charge_failed and the subscription fails', async () => {
    const r = await acme.post('/v1/subscriptions', {plan_id: 'PLN_ACMESILVER', merchant_reference: 'sub-2', customer_name: 'K', customer_email: 'k@example.com', mobile: '254711000039', provider: 'mpesa'})
    await until(async () => (await acme.get('/v1/subscriptions?merchant_reference=sub-2')).body.status === 'failed', 3000, 'failed')
    expect(sb.events.some((e) => e.type === 'subscription.charge_failed' && JSON.parse(e.body).data.subscription_id === r.body.subscription_id)).toBe(true)
  })

  it('a mandate with plan_id creates a subscriber', async () => {
    await acme.post('/v1/mandates', mandateBody({mobile: '254711000041', merchant_reference: 'md-plan', plan_id: 'PLN_ACMESILVER', customer_name: 'Mary', customer_email: 'mary@example.com'}))
    expect((await acme.get('/v1/subscriptions?merchant_reference=md-plan')).body.status).toMatch(/pending_approval|active/)
    expectError(await acme.get('/v1/subscriptions?merchant_reference=none'), 404, 'not_found')
  })
})

describe('customers, static accounts and paging', () => {
  it('gets a customer', async () => {
    const r = await acme.get('/v1/customers/MC_ACME0001')
    expect(r.body).toMatchObject({id: 'MC_ACME0001', object: 'customer', name: 'Jane Wanjiku', email: 'jane@example.com', mobile: '254712345678'})
    expect(r.body.created_at).toMatch(/[+-]\d\d:\d\d$/)
  })

  it('pages collections with page (1-based) and per_page (default 20, max 100)', async () => {
    const p1 = await acme.get('/v1/customers/MC_ACME0001/collections')
    expect(p1.body).toMatchObject({object: 'list', customer_id: 'MC_ACME0001', total: 47, has_more: true})
    expect(p1.body.data).toHaveLength(20)
    expect(p1.body.data[0]).toMatchObject({object: 'collection', customer_id: 'MC_ACME0001', status: 'succeeded'})
    const p3 = await acme.get('/v1/customers/MC_ACME0001/collections?page=3')
    expect(p3.body.data).toHaveLength(7)
    expect(p3.body.has_more).toBe(false)
    const all = await acme.get('/v1/customers/MC_ACME0001/collections?per_page=100')
    expect(all.body.data).toHaveLength(47)
    const ids = new Set([...p1.body.data, ...(await acme.get('/v1/customers/MC_ACME0001/collections?page=2')).body.data, ...p3.body.data].map((c: {id: string}) => c.id))
    expect(ids.size).toBe(47)
    const beyond = await acme.get('/v1/customers/MC_ACME0001/collections?page=9')
    expect(beyond.body).toMatchObject({data: [], has_more: false, total: 47})
  })

  it('one ACTIVE static account per customer: repeat calls return it; a transfer in creates a collection', async () => {
    expectError(await acme.get('/v1/customers/MC_ACME0003/virtual-account'), 404, 'not_found')
    const a = await acme.post('/v1/customers/MC_ACME0003/virtual-account', [])
    expect(a.status).toBe(200)
    expect(a.body).toMatchObject({object: 'virtual_account', customer_id: 'MC_ACME0003', virtual_account: {account_type: 'STATIC', status: 'ACTIVE', expires_at: null, single_deposit_limit: null, account_name: 'Amina Hassan'}})
    const b = await acme.post('/v1/customers/MC_ACME0003/virtual-account', [])
    expect(b.body.virtual_account.account_number).toBe(a.body.virtual_account.account_number)
    expect((await acme.get('/v1/customers/MC_ACME0003/virtual-account')).body).toEqual(a.body)
    await acme.post(`/_sandbox/virtual-accounts/${a.body.virtual_account.account_number}/transfers`, {amount: '42.00'})
    const list = await acme.get('/v1/customers/MC_ACME0003/collections')
    expect(list.body.total).toBe(1)
    expect(list.body.data[0]).toMatchObject({amount: '42.00', status: 'succeeded', payment_rail: 'bank_transfer'})
  })

  it('the merchant standing account: created once, owner merchant; 403 without Static VA', async () => {
    const a = await acme.post('/v1/virtual-accounts/merchant', [])
    expect(a.body).toMatchObject({object: 'virtual_account', owner: 'merchant', virtual_account: {account_type: 'STATIC', status: 'ACTIVE'}})
    expect((await acme.post('/v1/virtual-accounts/merchant', [])).body).toEqual(a.body)
    expect((await acme.get('/v1/virtual-accounts/merchant')).body).toEqual(a.body)
    await acme.call('PUT', '/_sandbox/merchants/acme', {body: {products: {static_va: false}}})
    expectError(await acme.post('/v1/customers/MC_ACME0002/virtual-account', []), 403, 'forbidden')
    await acme.call('PUT', '/_sandbox/merchants/acme', {body: {products: {static_va: true}}})
  })
})
