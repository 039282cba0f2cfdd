/**
 * Request validation over plain HTTP: each case names the field the sandbox must reject. These assert the
 * spec's rules directly, so a wrong shared zod schema (src/api/schemas.ts) is caught here too.
 */
import {describe, expect, it} from 'vitest'
import {checkoutBody, collectionBody, expectError, mandateBody, useSandboxClients} from '../helpers/sandbox-http.js'

const t = useSandboxClients()

describe('400 invalid_parameter naming the field', () => {
  const cases: [string, string, unknown, string][] = [
    ['collection amount as a number', '/v1/collections', collectionBody({amount: 100}), 'amount'],
    ['collection amount with 3 decimals', '/v1/collections', collectionBody({amount: '10.001'}), 'amount'],
    ['collection amount zero', '/v1/collections', collectionBody({amount: '0.00'}), 'amount'],
    ['collection amount negative', '/v1/collections', collectionBody({amount: '-5.00'}), 'amount'],
    ['collection currency lower case', '/v1/collections', collectionBody({currency: 'kes'}), 'currency'],
    ['collection currency 4 letters', '/v1/collections', collectionBody({currency: 'KESH'}), 'currency'],
    ['collection currency without a wallet', '/v1/collections', collectionBody({currency: 'USD'}), 'currency'],
    ['collection missing merchant_reference', '/v1/collections', {...collectionBody(), merchant_reference: undefined}, 'merchant_reference'],
    ['collection mobile missing on mobile money', '/v1/collections', {...collectionBody(), mobile: undefined}, 'mobile'],
    ['collection provider missing on mobile money', '/v1/collections', {...collectionBody(), provider: undefined}, 'provider'],
    ['collection unknown provider', '/v1/collections', collectionBody({provider: 'vodacash'}), 'provider'],
    ['collection mobile of 9 digits', '/v1/collections', collectionBody({mobile: '712345670'}), 'mobile'],
    ['collection unknown rail', '/v1/collections', collectionBody({payment_rail: 'card'}), 'payment_rail'],
    ['checkout success_url not a URL', '/v1/checkout/sessions', checkoutBody({success_url: 'not a url'}), 'success_url'],
    ['checkout cancel_url missing', '/v1/checkout/sessions', {...checkoutBody(), cancel_url: undefined}, 'cancel_url'],
    ['checkout fixed without amount', '/v1/checkout/sessions', {...checkoutBody(), amount: undefined}, 'amount'],
    ['checkout open with an amount', '/v1/checkout/sessions', checkoutBody({amount_mode: 'open'}), 'amount'],
    ['checkout bad amount_mode', '/v1/checkout/sessions', checkoutBody({amount_mode: 'any'}), 'amount_mode'],
    ['checkout mobile_money rail without mobile', '/v1/checkout/sessions', checkoutBody({payment_rail: 'mobile_money'}), 'mobile'],
    ['checkout unknown rail', '/v1/checkout/sessions', checkoutBody({payment_rail: 'crypto'}), 'payment_rail'],
    ['payout bank transfer without account_number', '/v1/payouts', {amount: '10.00', currency: 'KES', merchant_reference: 'p-x', payment_rail: 'bank_transfer', bank_code: '01'}, 'account_number'],
    ['payout unknown bank', '/v1/payouts', {amount: '10.00', currency: 'KES', merchant_reference: 'p-y', payment_rail: 'bank_transfer', bank_code: '999', account_number: '12345'}, 'bank_code'],
    ['msisdn mobile of 16 digits', '/v1/verifications/msisdn', {mobile: '2547123456701234'}, 'mobile'],
    ['msisdn mobile of 9 digits', '/v1/verifications/msisdn', {mobile: '712345670'}, 'mobile'],
    ['msisdn provider of 65 characters', '/v1/verifications/msisdn', {mobile: '254712345670', provider: 'p'.repeat(65)}, 'provider'],
    ['bank verification bank_code of 33 characters', '/v1/verifications/bank_accounts', {bank_code: '1'.repeat(33), account_number: '123'}, 'bank_code'],
    ['bank verification account_number of 65 characters', '/v1/verifications/bank_accounts', {bank_code: '01', account_number: '1'.repeat(65)}, 'account_number'],
    ['mandate frequency YEARLY', '/v1/mandates', mandateBody({frequency: 'YEARLY'}), 'frequency'],
    ['mandate starts_at not a date-time', '/v1/mandates', mandateBody({starts_at: 'tomorrow'}), 'starts_at'],
    ['mandate plan_id without customer_name', '/v1/mandates', mandateBody({plan_id: 'PLN_ACMEGOLD', customer_email: 'a@b.example'}), 'customer_name'],
    ['mandate bad customer_email', '/v1/mandates', mandateBody({plan_id: 'PLN_ACMEGOLD', customer_name: 'A', customer_email: 'nope'}), 'customer_email'],
    ['mandate cancel without reason', '/v1/mandates/MD_X/cancel', {mobile: '254711000001'}, 'reason'],
    ['debit currency of 4 letters', '/v1/mandates/MD_X/debits', {amount: '1.00', currency: 'KESS', merchant_reference: 'd', provider: 'mpesa'}, 'currency'],
    ['debit merchant_reference of 256 characters', '/v1/mandates/MD_X/debits', {amount: '1.00', currency: 'KES', merchant_reference: 'r'.repeat(256), provider: 'mpesa'}, 'merchant_reference'],
    ['debit provider of 65 characters', '/v1/mandates/MD_X/debits', {amount: '1.00', currency: 'KES', merchant_reference: 'd', provider: 'p'.repeat(65)}, 'provider'],
    ['subscription without customer_email', '/v1/subscriptions', {plan_id: 'PLN_ACMEGOLD', merchant_reference: 's', customer_name: 'A', mobile: '254711000001', provider: 'mpesa'}, 'customer_email'],
    ['customer virtual account body not an empty array', '/v1/customers/MC_ACME0001/virtual-account', {}, 'body'],
    ['merchant virtual account body with items', '/v1/virtual-accounts/merchant', [1], 'body'],
  ]
  for (const [name, path, body, param] of cases) {
    it(name, async () => {
      expectError(await t.acme.post(path, body), 400, 'invalid_parameter', param)
    })
  }

  it('invalid JSON body', async () => {
    expectError(await t.acme.call('POST', '/v1/collections', {raw: '{"amount":'}), 400, 'invalid_parameter', 'body')
  })

  it('query rules: merchant_reference required, per_page max 100, page >= 1, balance currency 3 letters', async () => {
    expectError(await t.acme.get('/v1/collections'), 400, 'invalid_parameter', 'merchant_reference')
    expectError(await t.acme.get('/v1/mandate_debits/status?merchant_reference=x'), 400, 'invalid_parameter', 'mandate_id')
    expectError(await t.acme.get('/v1/customers/MC_ACME0001/collections?per_page=101'), 400, 'invalid_parameter', 'per_page')
    expectError(await t.acme.get('/v1/customers/MC_ACME0001/collections?page=0'), 400, 'invalid_parameter', 'page')
    expectError(await t.acme.get('/v1/balance?currency=KE'), 400, 'invalid_parameter', 'currency')
  })

  it('accepts a valid body of every kind (no false rejections)', async () => {
    expect((await t.acme.post('/v1/collections', collectionBody())).status).toBe(201)
    expect((await t.acme.post('/v1/collections', collectionBody({payment_rail: 'bank_transfer', mobile: undefined, provider: undefined, account_name: 'Order 1'}))).status).toBe(201)
    expect((await t.acme.post('/v1/checkout/sessions', checkoutBody({payment_rail: null, mobile: null, provider: null}))).status).toBe(201)
    expect((await t.acme.post('/v1/checkout/sessions', checkoutBody({amount_mode: 'open', amount: undefined}))).status).toBe(201)
    expect((await t.acme.post('/v1/checkout/sessions', checkoutBody({payment_rail: 'card'}))).status).toBe(201)
    expect((await t.acme.post('/v1/payouts', {amount: '10.00', currency: 'KES', merchant_reference: 'p-ok', mobile: '254712345670', provider: 'airtel'})).status).toBe(201)
    expect((await t.acme.post('/v1/verifications/bank_accounts', {bank_code: '01', account_number: '0123456780'})).status).toBe(200)
  })
})

describe('product switches, plans and Testing mode', () => {
  it('card checkout not enabled is 400 invalid_parameter on payment_rail', async () => {
    expectError(await t.globexEast.post('/v1/checkout/sessions', checkoutBody({payment_rail: 'card'})), 400, 'invalid_parameter', 'payment_rail')
  })

  it('subscriptions not enabled is 403 forbidden (plans list and enrolment)', async () => {
    expectError(await t.globexEast.get('/v1/subscription_plans'), 403, 'forbidden')
    expectError(await t.globexEast.post('/v1/subscriptions', {plan_id: 'PLN_GLOBEXBASIC', merchant_reference: 's1', customer_name: 'A', customer_email: 'a@b.example', mobile: '254711000001', provider: 'mpesa'}), 403, 'forbidden')
  })

  it('an inactive or unknown plan is 422 validation_error', async () => {
    const body = {merchant_reference: 's2', customer_name: 'A', customer_email: 'a@b.example', mobile: '254711000002', provider: 'mpesa'}
    expectError(await t.acme.post('/v1/subscriptions', {...body, plan_id: 'PLN_ACMELEGACY'}), 422, 'validation_error', 'plan_id')
    expectError(await t.acme.post('/v1/subscriptions', {...body, plan_id: 'PLN_NOPE'}), 422, 'validation_error', 'plan_id')
    expectError(await t.acme.post('/v1/subscriptions', {...body, plan_id: 'PLN_GLOBEXBASIC'}), 422, 'validation_error', 'plan_id') // another merchant's plan
  })

  it('Testing mode caps money-in at KES 1000.00 on collections and fixed checkout sessions', async () => {
    expectError(await t.globexEast.post('/v1/collections', collectionBody({amount: '1000.01'})), 400, 'invalid_parameter', 'amount')
    expect((await t.globexEast.post('/v1/collections', collectionBody({amount: '1000.00'}))).status).toBe(201)
    expectError(await t.globexEast.post('/v1/checkout/sessions', checkoutBody({amount: '5000.00'})), 400, 'invalid_parameter', 'amount')
    expect((await t.globexEast.post('/v1/checkout/sessions', checkoutBody({amount: '999.99'}))).status).toBe(201)
    // the live merchant has no cap
    expect((await t.acme.post('/v1/collections', collectionBody({amount: '50000.00'}))).status).toBe(201)
  })

  it('Testing mode refuses amount_mode open', async () => {
    expectError(await t.globexEast.post('/v1/checkout/sessions', checkoutBody({amount_mode: 'open', amount: undefined})), 400, 'invalid_parameter', 'amount_mode')
  })

  it('going live through the control API lifts the cap', async () => {
    await t.acme.call('PUT', '/_sandbox/merchants/globex', {body: {testing: false}})
    expect((await t.globexEast.post('/v1/collections', collectionBody({amount: '5000.00'}))).status).toBe(201)
    await t.acme.call('PUT', '/_sandbox/merchants/globex', {body: {testing: true}})
  })
})
