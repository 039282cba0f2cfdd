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

describe('an insufficient-funds payout', () => {
  it('does not claim an amount was debited when nothing was taken', () => {
    const failed = {id: 'PO_1', object: 'payout', status: 'failed', status_detail: 'insufficient_funds: payout_wallet holds KES 5.00, 200010.00 needed (amount + fee)', currency: 'KES', amount: '200000.00', fee_amount: '10.00', amount_debited: '200010.00', merchant_reference: 'po-1'}
    const v = rows('payout', failed)
    expect(v['Amount debited']).toBeUndefined()
    expect(Object.values(v).join('\n')).toMatch(/200010\.00 KES.*nothing was taken/)
    const ok = rows('payout', {...failed, status: 'succeeded', status_detail: null})
    expect(ok['Amount debited']).toBe('200010.00 KES (amount + fee)')
  })
})
