/**
 * End to end, built CLI against the sandbox: pay payouts create|get (both destination rails, --wait) and
 * pay verifications msisdn|bank-account, checking output and the exact requests in the sandbox's log.
 */
import {describe, expect, it} from 'vitest'
import {json} from '../helpers/cli.js'
import {byRef, expectServiceHeaders, kv, ok, only, useSandbox} from './support.js'

const h = useSandbox()

describe('pay payouts', () => {
  it('create to a wallet and to a bank account: human and --json, exact bodies with our destination fields', async () => {
    const [wallet, bank] = await Promise.all([
      h.pay(['payouts', 'create', '--amount', '1200.00', '--currency', 'kes', '--reference', 'po-mm-1', '--mobile', '254712345671', '--provider', 'mpesa', '-F', 'narration=Supplier April', '--idempotency-key', 'po-key-1']),
      h.pay(['payouts', 'create', '--amount', '500', '--currency', 'KES', '--reference', 'po-bank-1', '--rail', 'bank_transfer', '--bank-code', '68', '--account-number', '0123456781', '--account-name', 'Jane Wanjiku', '--json']),
    ])
    const v = kv(ok(wallet))
    expect(v).toMatchObject({Kind: 'Payout (money out)', State: 'processing', Amount: '1200.00 KES', 'Merchant reference': 'po-mm-1', Mobile: '254712345671', Provider: 'mpesa'})
    expect(v.Fee).toMatch(/^\d+\.\d{2} KES$/)
    expect(v['Amount debited']).toMatch(/^\d+\.\d{2} KES \(amount \+ fee\)$/)
    expect(v.ID).toMatch(/^PO_/)

    const b = json(ok(bank))
    expect(b).toMatchObject({object: 'payout', status: 'processing', amount: '500.00', currency: 'KES', merchant_reference: 'po-bank-1'})
    expect(typeof b.fee_amount).toBe('string')

    const s1 = only(h.requests(byRef('po-mm-1')), 'po-mm-1')
    expect([s1.method, s1.path, s1.query]).toEqual(['POST', '/v1/payouts', {}])
    expectServiceHeaders(s1, {idempotencyKey: 'po-key-1'})
    expect(s1.body).toEqual({amount: '1200.00', currency: 'KES', merchant_reference: 'po-mm-1', mobile: '254712345671', provider: 'mpesa', narration: 'Supplier April'})
    const s2 = only(h.requests(byRef('po-bank-1')), 'po-bank-1')
    expectServiceHeaders(s2)
    expect(s2.body).toEqual({amount: '500.00', currency: 'KES', merchant_reference: 'po-bank-1', payment_rail: 'bank_transfer', bank_code: '68', account_number: '0123456781', account_name: 'Jane Wanjiku'})
  })

  it('--wait polls GET /v1/payouts/{merchant_reference}: exit 0 succeeded, 8 failed with the reason; get and verify show fee and amount debited', async () => {
    const base = ['payouts', 'create', '--amount', '100', '--currency', 'KES', '--provider', 'mpesa', '--wait']
    const [good, bad] = await Promise.all([
      h.run([...base, '--reference', 'po-w-ok', '--mobile', '254712345671']),
      h.run([...base, '--reference', 'po-w-fail', '--mobile', '254712345679']),
    ])
    expect(kv(ok(good)).State).toBe('succeeded')
    expect(bad.code, bad.stderr).toBe(8)
    expect(kv(bad).State).toBe('failed')
    expect(bad.stderr).toMatch(/payout po-w-fail ended failed/)
    const polls = h.requests((e) => e.path === '/v1/payouts/po-w-ok')
    expect(polls.length).toBeGreaterThanOrEqual(1)
    expect(polls[0].method).toBe('GET')
    expectServiceHeaders(polls[0])

    const [get, getJson, verify] = await Promise.all([
      h.run(['payouts', 'get', 'po-w-fail']),
      h.run(['payouts', 'get', 'po-w-ok', '--json']),
      h.run(['transactions', 'verify', 'po-w-fail']),
    ])
    const g = kv(ok(get))
    expect(g).toMatchObject({Kind: 'Payout (money out)', State: 'failed', 'Merchant reference': 'po-w-fail'})
    expect(g.Why).toBeTruthy()
    expect(json(ok(getJson))).toMatchObject({object: 'payout', status: 'succeeded', merchant_reference: 'po-w-ok'})
    const t = kv(ok(verify))
    expect(t).toMatchObject({Kind: 'Payout (money out)', State: 'failed', Amount: '100.00 KES'})
    expect(t.Fee).toBeTruthy()
    expect(t['Amount + fee']).toMatch(/nothing was taken/)
  })
})

describe('pay verifications', () => {
  it('msisdn: verified with the name, invalid without; no Idempotency-Key on these POSTs', async () => {
    const [good, bad, asJson] = await Promise.all([
      h.run(['verifications', 'msisdn', '--mobile', '254712345671', '--provider', 'mpesa']),
      h.run(['verifications', 'msisdn', '--mobile', '254700000009']),
      h.run(['verifications', 'msisdn', '--mobile', '254711111111', '--json']),
    ])
    const v = kv(ok(good))
    expect(v.Result).toBe('verified')
    expect(v['Name on the account']).toMatch(/^\w+ \w+$/)
    expect(kv(ok(bad))).toMatchObject({Result: 'invalid', 'Name on the account': 'none (not verified)'})
    const j = json(ok(asJson))
    expect(j.status).toBe('verified')
    expect(Object.keys(j.profile).sort()).toEqual(['first_name', 'last_name'])

    const sent = h.requests((e) => e.path === '/v1/verifications/msisdn')
    expect(sent).toHaveLength(3)
    const first = sent.find((e) => (e.body as {mobile: string}).mobile === '254712345671')!
    expect([first.method, first.query]).toEqual(['POST', {}])
    expect(first.body).toEqual({mobile: '254712345671', provider: 'mpesa'})
    expectServiceHeaders(first, {idempotencyKey: 'none'})
  })

  it('bank-account: verified, and the upstream 502 gateway_error is exit 7', async () => {
    const [good, goodJson, upstream] = await Promise.all([
      h.run(['verifications', 'bank-account', '--bank-code', '68', '--account-number', '0123456781']),
      h.run(['verifications', 'bank-account', '--bank-code', '11', '--account-number', '5550001112', '--json']),
      h.run(['verifications', 'bank-account', '--bank-code', '01', '--account-number', '1100223345', '--json']),
    ])
    expect(kv(ok(good)).Result).toBe('verified')
    expect(kv(good)['Name on the account']).toMatch(/^\w+ \w+$/)
    expect(json(ok(goodJson))).toMatchObject({status: 'verified', profile: {first_name: expect.any(String), last_name: expect.any(String)}})
    expect(upstream.code).toBe(7)
    expect(json(upstream)).toMatchObject({status: 502, error: {code: 'gateway_error'}})
    const sent = h.requests((e) => e.path === '/v1/verifications/bank_accounts' && (e.body as {account_number: string}).account_number === '0123456781')
    const e = only(sent, 'bank account check')
    expect(e.body).toEqual({bank_code: '68', account_number: '0123456781'})
    expectServiceHeaders(e, {idempotencyKey: 'none'})
  })
})
