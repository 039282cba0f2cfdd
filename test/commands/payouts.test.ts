/**
 * pay payouts create|get (both destination rails, --wait), in-process against the sandbox (test/helpers/command-harness.ts). Each case checks the human
 * and --json output and, through the sandbox's request log, the exact method, path, query, headers and body sent.
 */
import {describe, expect, it} from 'vitest'
import {json} from '../helpers/cli.js'
import {byRef, expectServiceHeaders, kv, ok, only, useSandbox} from '../helpers/command-harness.js'

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

  it('--wait polls GET /v1/payouts/{merchant_reference}: exit 0 succeeded, 8 failed with the reason; get and verify show fee and amount debited (none for the failed one)', async () => {
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
    expect(t['Amount debited']).toBe('0.00 KES (failed: nothing debited)')
  })
})
