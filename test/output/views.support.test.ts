/** The human views of src/output/views.ts for the snapshots the sandbox rarely shows (in-process, fast). */
import {describe, expect, it} from 'vitest'
import {classifyState, pollDelayMs} from '../../src/operation/wait.js'
import {viewRows} from '../../src/output/views.js'

const rows = (view: Parameters<typeof viewRows>[0], body: unknown) => Object.fromEntries(viewRows(view, body, false))

describe('views for support staff', () => {
  it('a payout snapshot: kind, state and reason, amount, fee, amount debited, destination', () => {
    const v = rows('transaction', {id: 'PO_1', object: 'payout', status: 'failed', status_detail: 'account closed', currency: 'KES', amount: '100.00', fee_amount: '10.00', amount_debited: '0.00', merchant_reference: 'po-1', payment_rail: 'bank_transfer', bank_code: '68', account_number: '0123'})
    expect(v).toMatchObject({Kind: 'Payout (money out)', State: 'failed', Why: 'account closed', Amount: '100.00 KES', Fee: '10.00 KES', 'Amount debited': '0.00 KES (failed: nothing debited)', Rail: 'bank transfer (bank_transfer)', 'Bank code': '68', 'Account number': '0123'})
  })

  it('a checkout snapshot with an open amount and no rail chosen yet', () => {
    const v = rows('transaction', {id: 'CS_1', object: 'checkout_session', status: 'processing', amount_mode: 'open', currency: 'KES', payment_rail: null, url: 'https://pay.example/pay/CS_1', expires_at: '2026-12-01T00:00:00Z'})
    expect(v).toMatchObject({Kind: 'Checkout session (hosted pay link)', Amount: 'entered by the customer (KES)', Rail: 'customer chooses on the pay page', 'Pay link': 'https://pay.example/pay/CS_1'})
  })

  it('keeps every field it does not name, and never reformats amounts', () => {
    const v = rows('collection', {id: 'CL_1', object: 'collection', status: 'succeeded', amount: '1500.10', currency: 'UGX', merchant_reference: 'x', extra_field: 'kept', nested: {a: 1}})
    expect(v.Amount).toBe('1500.10 UGX')
    expect(v.extra_field).toBe('kept')
    expect(v['nested.a']).toBe('1')
  })

  it('a verification result and a virtual account', () => {
    expect(rows('verification', {status: 'verified', profile: {first_name: 'Jane', last_name: 'Wanjiku'}})).toMatchObject({Result: 'verified', 'Name on the account': 'Jane Wanjiku'})
    const va = rows('virtual-account', {object: 'virtual_account', owner: 'merchant', virtual_account: {account_number: '900', account_name: 'Acme', account_type: 'STATIC', bank_code: '01', bank_name: 'KCB Bank', status: 'ACTIVE', expires_at: null, single_deposit_limit: '50000'}})
    expect(va).toMatchObject({Owner: 'the merchant', Bank: 'KCB Bank (code 01)', 'Account number': '900', Expires: 'never (static account)', 'Single deposit limit': '50000'})
  })
})

describe('--wait states and backoff', () => {
  it('classifies states', () => {
    expect(['succeeded', 'active'].map(classifyState)).toEqual(['succeeded', 'succeeded'])
    expect(['failed', 'cancelled', 'charge_failed'].map(classifyState)).toEqual(['failed', 'failed', 'failed'])
    expect(['processing', 'pending_approval', undefined].map(classifyState)).toEqual([undefined, undefined, undefined])
  })

  it('backs off from about 0.5 s up to about 5 s', () => {
    expect(pollDelayMs(0)).toBeGreaterThanOrEqual(450)
    expect(pollDelayMs(0)).toBeLessThanOrEqual(550)
    expect(pollDelayMs(3)).toBeGreaterThan(pollDelayMs(0))
    expect(pollDelayMs(50)).toBeLessThanOrEqual(5500)
  })
})
