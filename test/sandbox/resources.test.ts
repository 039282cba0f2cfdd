import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Sandbox} from '../../src/sandbox/index.js'
import {type Client, acmeClient, checkoutBody, collectionBody, expectError, globexClient, start, until} from '../helpers/sandbox-http.js'
import {fromMinor, toMinor} from '../../src/api/money.js'
import {dynamicTransfer} from '../../src/sandbox/resources/virtual-accounts.js'

let sb: Sandbox
let acme: Client
let globex: Client
beforeAll(async () => {
  sb = await start({settleMs: 30, tokenTtlSeconds: 30 * 86_400}) // the clock jumps by days here
  acme = await acmeClient(sb)
  globex = await globexClient(sb)
})
afterAll(() => sb.close())

const status = (c: Client, path: string) => c.get(path).then((r) => r.body.status as string)
const kes = async (c: Client) => (await c.get('/v1/balance?currency=KES')).body.data[0]

describe('collections', () => {
  it('mobile money: processing, then succeeded after --settle-ms; the create answer has the spec fields', async () => {
    const r = await acme.post('/v1/collections', collectionBody({mobile: '254712345671', merchant_reference: 'c-ok'}))
    expect(r.status).toBe(201)
    expect(r.body).toMatchObject({object: 'collection', status: 'processing', currency: 'KES', amount: '100.00', merchant_reference: 'c-ok'})
    expect(r.body.id).toMatch(/^CL_[A-Z0-9]{20}$/)
    await until(async () => (await status(acme, `/v1/collections/${r.body.id}`)) === 'succeeded', 3000, 'collection to succeed')
    const byRef = await acme.get('/v1/collections?merchant_reference=c-ok')
    expect(byRef.body).toMatchObject({id: r.body.id, status: 'succeeded', payment_rail: 'mobile_money', mobile: '254712345671', provider: 'mpesa'})
    const verify = await acme.get('/v1/transactions/verify/c-ok')
    expect(verify.body).toMatchObject({object: 'collection', id: r.body.id, status: 'succeeded'})
  })

  it('a wallet number ending in 9 fails; ending in 8 stays processing until forced', async () => {
    const failing = (await acme.post('/v1/collections', collectionBody({mobile: '254712345679'}))).body
    const held = (await acme.post('/v1/collections', collectionBody({mobile: '254712345678'}))).body
    await until(async () => (await status(acme, `/v1/collections/${failing.id}`)) === 'failed', 3000, 'failure')
    expect(await status(acme, `/v1/collections/${held.id}`)).toBe('processing')
    const forced = await acme.post(`/_sandbox/transactions/${held.id}/fail`)
    expect(forced.body.status).toBe('failed')
    expect(await status(acme, `/v1/collections/${held.id}`)).toBe('failed')
    expect((await acme.post(`/_sandbox/transactions/${held.id}/succeed`)).status).toBe(409)
  })

  it('bank transfer: a dynamic virtual account, succeeded when the transfer arrives', async () => {
    const r = await acme.post('/v1/collections', collectionBody({payment_rail: 'bank_transfer', mobile: undefined, provider: undefined, amount: '700.00', account_name: 'Order 77'}))
    expect(r.body.virtual_account).toMatchObject({account_name: 'Order 77', status: 'ACTIVE', bank_code: '01', bank_name: 'KCB Bank'})
    expect(r.body.virtual_account.expires_at).toMatch(/^\d{4}-/)
    await new Promise((res) => setTimeout(res, 80))
    expect(await status(acme, `/v1/collections/${r.body.id}`)).toBe('processing')
    const t = await acme.post(`/_sandbox/virtual-accounts/${r.body.virtual_account.account_number}/transfers`, {amount: '700.00'})
    expect(t.body.collection.status).toBe('succeeded')
    expect(await status(acme, `/v1/collections/${r.body.id}`)).toBe('succeeded')
  })

  it('bank transfer: an account that expires before its transfer fails the collection; a late transfer is refused and credits nothing', async () => {
    const r = await acme.post('/v1/collections', collectionBody({payment_rail: 'bank_transfer', mobile: undefined, provider: undefined, amount: '500.00'}))
    const {account_number: account, expires_at: expiresAt} = r.body.virtual_account
    const DYNAMIC_TTL_MS = 24 * 3600 * 1000 // docs/sandbox.md: valid 24 h
    expect(Date.parse(expiresAt) - Date.parse(r.body.created_at)).toBe(DYNAMIC_TTL_MS)
    await acme.post('/_sandbox/clock/advance', {seconds: DYNAMIC_TTL_MS / 1000 - 60})
    expect(await status(acme, `/v1/collections/${r.body.id}`)).toBe('processing')
    await acme.post('/_sandbox/clock/advance', {seconds: 120})
    const after = (await acme.get(`/v1/collections/${r.body.id}`)).body
    expect(after).toMatchObject({status: 'failed', status_detail: `expired: no transfer reached its account ${account} before ${expiresAt}`, virtual_account: {expires_at: expiresAt}})
    expect(sb.events.filter((e) => e.body.includes(r.body.id)).map((e) => e.type)).toEqual(['collection.processing', 'collection.failed'])
    const before = await kes(acme)
    const late = await acme.post(`/_sandbox/virtual-accounts/${account}/transfers`, {amount: '500.00'})
    expect(expectError(late, 409, 'invalid_state').message).toContain('returns it to the sender')
    expect(await status(acme, `/v1/collections/${r.body.id}`)).toBe('failed')
    expect(await kes(acme)).toEqual(before)
  })

  it('a dynamic account past its expires_at refuses a transfer even while its transaction still reads processing', () => {
    const va = {account_number: '9012345678', expires_at: new Date(1_000_000).toISOString()}
    expect(dynamicTransfer('processing', 'collection CL_1', '5.00', '5.00', va, 999_999)).toMatchObject({paid: true, credited: '5.00'})
    expect(() => dynamicTransfer('processing', 'collection CL_1', '5.00', '5.00', va, 1_000_000)).toThrow(/the dynamic account 9012345678 of collection CL_1 expired at .*: it takes no transfer/)
  })

  it('bank transfer is refused when the merchant does not have it', async () => {
    await acme.call('PUT', '/_sandbox/merchants/acme', {body: {products: {bank_transfer: false}}})
    expectError(await acme.post('/v1/collections', collectionBody({payment_rail: 'bank_transfer', mobile: undefined, provider: undefined})), 400, 'invalid_parameter', 'payment_rail')
    await acme.call('PUT', '/_sandbox/merchants/acme', {body: {products: {bank_transfer: true}}})
  })
})

describe('balance and the T+1 hold', () => {
  it('a succeeded collection is held for 24 h, then available; the clock control makes it testable', async () => {
    const before = await kes(globex)
    const r = await globex.post('/v1/collections', collectionBody({amount: '123.45', mobile: '254700000001'}))
    await until(async () => (await status(globex, `/v1/collections/${r.body.id}`)) === 'succeeded', 3000, 'settle')
    const held = await kes(globex)
    expect(held.collection_wallet).toBe(before.collection_wallet)
    expect(held.collection_wallet_held).toBe('123.45')
    expect(held.collection_wallet_actual).toBe('5123.45')
    expect(typeof held.payout_wallet).toBe('string')
    await globex.post('/_sandbox/clock/advance', {seconds: 86_400})
    const released = await kes(globex)
    expect(released).toEqual({currency: 'KES', collection_wallet: '5123.45', collection_wallet_actual: '5123.45', collection_wallet_held: '0.00', payout_wallet: '2000.00'})
  })

  it('lists one entry per currency; the shape is {object: balance, data: [...]}', async () => {
    const r = await acme.get('/v1/balance')
    expect(r.body.object).toBe('balance')
    expect(r.body.data.map((d: {currency: string}) => d.currency)).toEqual(['KES', 'UGX'])
  })
})

describe('payouts', () => {
  it('draws amount + fee from payout_wallet and succeeds', async () => {
    const before = await kes(globex)
    const r = await globex.post('/v1/payouts', {amount: '100.00', currency: 'KES', merchant_reference: 'po-1', mobile: '254700000002', provider: 'airtel'})
    expect(r.status).toBe(201)
    expect(r.body).toMatchObject({object: 'payout', status: 'processing', amount: '100.00', fee_amount: '10.00', amount_debited: '110.00', merchant_reference: 'po-1', status_detail: null})
    expect(r.body.id).toMatch(/^PO_/)
    expect((await kes(globex)).payout_wallet).toBe((Number(before.payout_wallet) - 110).toFixed(2))
    await until(async () => (await status(globex, '/v1/payouts/po-1')) === 'succeeded', 3000, 'payout')
    expect((await globex.get('/v1/transactions/verify/po-1')).body).toMatchObject({object: 'payout', status: 'succeeded'})
  })

  it('bank transfer payouts carry the bank fee; a failed payout is refunded', async () => {
    const before = (await kes(acme)).payout_wallet
    const r = await acme.post('/v1/payouts', {amount: '50.00', currency: 'KES', merchant_reference: 'po-bank', payment_rail: 'bank_transfer', bank_code: '68', account_number: '0011223349', account_name: 'J Doe'})
    expect(r.body).toMatchObject({fee_amount: '30.00', amount_debited: '80.00'})
    await until(async () => (await status(acme, '/v1/payouts/po-bank')) === 'failed', 3000, 'payout failure')
    expect((await kes(acme)).payout_wallet).toBe(before)
    // given back: the failed payout holds nothing of the wallet
    expect((await acme.get('/v1/payouts/po-bank')).body).toMatchObject({status: 'failed', amount: '50.00', fee_amount: '30.00', amount_debited: '0.00'})
  })

  it('an unfunded payout fails with insufficient_funds and takes nothing', async () => {
    const before = (await kes(globex)).payout_wallet
    const r = await globex.post('/v1/payouts', {amount: '1000000.00', currency: 'KES', merchant_reference: 'po-big', mobile: '254700000002', provider: 'mpesa'})
    expect(r.status).toBe(201)
    expect(r.body.status).toBe('failed')
    expect(r.body.status_detail).toMatch(/insufficient_funds/)
    expect((await kes(globex)).payout_wallet).toBe(before)
    // the answer says what the wallet says: nothing debited (the fee is still named)
    expect(r.body).toMatchObject({amount: '1000000.00', fee_amount: '10.00', amount_debited: '0.00'})
    expect((await globex.get('/v1/payouts/po-big')).body.amount_debited).toBe('0.00')
    // created failed: one transition, one event (never a processing one)
    expect(sb.events.filter((e) => e.body.includes(r.body.id)).map((e) => [e.type, JSON.parse(e.body).data.status])).toEqual([['payout.failed', 'failed']])
  })
})

describe('dynamic accounts: every credit is money kept', () => {
  const accountShown = async (c: Client, sessionId: string) => {
    const page = await c.call('POST', `/pay/${sessionId}`, {raw: 'rail=bank_transfer', headers: {'content-type': 'application/x-www-form-urlencoded'}})
    return /id="account_number">(\d+)</.exec(page.text)![1]
  }

  it('an underpaid bank transfer fails a fixed-amount checkout and credits nothing (all of it returned)', async () => {
    const before = await kes(acme)
    const s = await acme.post('/v1/checkout/sessions', checkoutBody({amount: '1536.75'}))
    const account = await accountShown(acme, s.body.id)
    const t = await acme.post(`/_sandbox/virtual-accounts/${account}/transfers`, {amount: '1532.66'})
    expect(t.status).toBe(200)
    expect(t.body).toMatchObject({credited: '0.00', returned: '1532.66', checkout_session: {status: 'failed'}})
    expect(await status(acme, `/v1/checkout/sessions/${s.body.id}`)).toBe('failed')
    expect(sb.events.filter((e) => e.body.includes(s.body.id)).map((e) => e.type)).toEqual(['checkout_session.processing', 'checkout_session.failed'])
    expect(await kes(acme)).toEqual(before)
  })

  it('the amount due or more credits the amount due (the rest returned); a later transfer is refused, 409', async () => {
    const before = await kes(acme)
    const s = await acme.post('/v1/checkout/sessions', checkoutBody({amount: '300.00'}))
    const account = await accountShown(acme, s.body.id)
    const paid = await acme.post(`/_sandbox/virtual-accounts/${account}/transfers`, {amount: '300.00'})
    expect(paid.body).toMatchObject({credited: '300.00', returned: '0.00', checkout_session: {status: 'succeeded'}})
    const c = await acme.post('/v1/collections', collectionBody({payment_rail: 'bank_transfer', mobile: undefined, provider: undefined, amount: '700.00'}))
    const over = await acme.post(`/_sandbox/virtual-accounts/${c.body.virtual_account.account_number}/transfers`, {amount: '750.50'})
    expect(over.body).toMatchObject({credited: '700.00', returned: '50.50', collection: {status: 'succeeded', status_detail: expect.stringMatching(/^overpaid/)}})
    const after = await kes(acme)
    expect(after.collection_wallet_held).toBe(fromMinor(toMinor(before.collection_wallet_held) + toMinor('1000.00')))
    for (const [acc, what] of [[account, 'the paid checkout'], [c.body.virtual_account.account_number, 'the paid collection']]) {
      const again = await acme.post(`/_sandbox/virtual-accounts/${acc}/transfers`, {amount: '10.00'})
      expect(again.status, what).toBe(409)
      expect(again.body.error).toMatchObject({code: 'invalid_state', message: expect.stringContaining('returns it to the sender')})
    }
    const under = await acme.post('/v1/collections', collectionBody({payment_rail: 'bank_transfer', mobile: undefined, provider: undefined, amount: '700.00'}))
    const short = await acme.post(`/_sandbox/virtual-accounts/${under.body.virtual_account.account_number}/transfers`, {amount: '699.99'})
    expect(short.body).toMatchObject({credited: '0.00', returned: '699.99', collection: {status: 'failed', status_detail: expect.stringMatching(/^underpaid/)}})
    expect(await kes(acme)).toEqual(after)
  })
})

describe('checkout sessions', () => {
  it('create answers the slim shape; GET the full session; forced outcomes; verify finds it', async () => {
    const r = await acme.post('/v1/checkout/sessions', checkoutBody({merchant_reference: 'cs-1'}))
    expect(r.status).toBe(201)
    expect(Object.keys(r.body).sort()).toEqual(['expires_at', 'id', 'object', 'status', 'url'])
    expect(r.body).toMatchObject({object: 'checkout_session', status: 'processing', url: `${sb.url}/pay/${r.body.id}`})
    const full = await acme.get(`/v1/checkout/sessions/${r.body.id}`)
    expect(full.body).toMatchObject({amount_mode: 'fixed', amount: '250.00', currency: 'KES', merchant_reference: 'cs-1', payment_rail: null, success_url: 'https://shop.example/ok', cancel_url: 'https://shop.example/cancel'})
    await acme.post(`/_sandbox/transactions/${r.body.id}/succeed`)
    expect((await acme.get('/v1/transactions/verify/cs-1')).body).toMatchObject({object: 'checkout_session', status: 'succeeded'})
  })

  it('expires after 24 h (failed)', async () => {
    const r = await acme.post('/v1/checkout/sessions', checkoutBody())
    await acme.post('/_sandbox/clock/advance', {seconds: 86_401})
    expect(await status(acme, `/v1/checkout/sessions/${r.body.id}`)).toBe('failed')
  })
})

describe('verifications', () => {
  it('verified with a name, invalid for ...9, 502 gateway_error for ...5', async () => {
    const ok = await acme.post('/v1/verifications/msisdn', {mobile: '254712345670', provider: 'mpesa'})
    expect(ok.body.status).toBe('verified')
    expect(ok.body.profile).toEqual({first_name: expect.any(String), last_name: expect.any(String)})
    expect((await acme.post('/v1/verifications/msisdn', {mobile: '254712345679'})).body).toMatchObject({status: 'invalid', profile: null})
    expectError(await acme.post('/v1/verifications/msisdn', {mobile: '254712345675'}), 502, 'gateway_error')
    expect((await acme.post('/v1/verifications/bank_accounts', {bank_code: '01', account_number: '123456780'})).body.status).toBe('verified')
    expect((await acme.post('/v1/verifications/bank_accounts', {bank_code: 'XX', account_number: '123456780'})).body.status).toBe('invalid')
    expectError(await acme.post('/v1/verifications/bank_accounts', {bank_code: '01', account_number: '123455'}), 502, 'gateway_error')
  })
})

describe('metadata', () => {
  it('banks and three mobile providers', async () => {
    const banks = await acme.get('/v1/metadata/banks')
    expect(banks.body.object).toBe('list')
    expect(banks.body.data[0]).toMatchObject({bank_code: '01', bank_name: 'KCB Bank'})
    const providers = await acme.get('/v1/metadata/mobile_providers')
    expect(providers.body.data.map((p: {provider: string}) => p.provider)).toEqual(['mpesa', 'airtel', 'mtn'])
  })
})
