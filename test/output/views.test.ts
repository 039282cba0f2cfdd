/**
 * Hardening (issue 12, "What a new user tripped on"): views that say what the body means.
 */
import {describe, expect, it} from 'vitest'
import {viewRows} from '../../src/output/views.js'

const rows = (view: Parameters<typeof viewRows>[0], body: unknown) => Object.fromEntries(viewRows(view, body, false))

describe('a checkout session after payment', () => {
  const paid = {
    id: 'CS_1',
    object: 'checkout_session',
    status: 'succeeded',
    amount_mode: 'fixed',
    amount: '10.00',
    currency: 'KES',
    merchant_reference: 'co-1',
    payment_rail: null,
    success_url: 'https://shop.example/ok',
    cancel_url: 'https://shop.example/cancel',
    url: 'https://pay.example/pay/CS_1',
  }

  it('does not say the customer still chooses the rail, and labels every field (no raw keys)', () => {
    const v = rows('checkout', paid)
    expect(v.Rail).not.toMatch(/chooses/)
    expect(Object.keys(v)).not.toContain('amount_mode')
    expect(Object.keys(v)).not.toContain('success_url')
    expect(Object.keys(v)).not.toContain('cancel_url')
    expect(v).toMatchObject({'Amount mode': 'fixed', 'Success URL': 'https://shop.example/ok', 'Cancel URL': 'https://shop.example/cancel'})
  })

  it('before payment the rail is still the customer\'s choice', () => {
    expect(rows('checkout', {...paid, status: 'processing'}).Rail).toBe('customer chooses on the pay page')
  })
})

describe('the amount a payout debited', () => {
  it('is shown as the service gives it; a failed payout is never said to have debited money', () => {
    const failed = {id: 'PO_1', object: 'payout', status: 'failed', status_detail: 'reversal pending', currency: 'KES', amount: '10.00', fee_amount: '1.00', amount_debited: '11.00', merchant_reference: 'p1'}
    const paid = {...failed, status: 'succeeded', status_detail: null}
    expect(rows('payout', paid)['Amount debited']).toBe('11.00 KES (amount + fee)')
    expect(rows('payout', {...paid, status: 'processing'})['Amount debited']).toBe('11.00 KES (amount + fee)')
    // "(amount + fee)" only where the answer's own figures add up so
    expect(rows('payout', {...paid, amount_debited: '10.50'})['Amount debited']).toBe('10.50 KES')
    expect(rows('payout', {...paid, amount: '10.001', fee_amount: '1.000', amount_debited: '11.0010'})['Amount debited']).toBe('11.0010 KES (amount + fee)')
    // failed: zero is nothing taken; another figure is the service's field, neither a debit nor a refund claimed
    expect(rows('payout', {...failed, amount_debited: '0.00'})['Amount debited']).toBe('0.00 KES (failed: nothing debited)')
    const v = rows('payout', failed)
    expect(v['Amount debited']).toBeUndefined()
    expect(v.amount_debited).toBe('11.00 KES as the service reports it for this failed payout (taken or given back: not said)')
    expect(Object.entries(v).map(([k, x]) => `${k} ${x}`).join('\n')).not.toMatch(/Amount debited|amount \+ fee|refund/)
  })
})
