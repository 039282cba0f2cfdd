import {describe, expect, it} from 'vitest'
import {kindNamed} from '../../src/api/kinds.js'
import {classify, type ExpectedRow} from '../../src/reconcile/expected.js'

describe('classify', () => {
  const payout = kindNamed('payout')!
  const row: ExpectedRow = {row: 1, line: 2, reference: 'po-1', amount: '100.00', currency: 'KES', kind: payout, id: 'PO_MINE'}
  const found = (id: string, status: string) => ({body: {id, object: 'payout', merchant_reference: 'po-1', amount: '100.00', currency: 'KES', status}, kind: payout})

  it("a lookup that answers another resource with the row's reference (a second one sent with --force-new) is no verdict on the row", () => {
    const r = classify(row, found('PO_OTHER', 'succeeded'))
    expect(r.class).toBe('lookup_failed')
    expect(r.state).toBeNull()
    expect(r.detail).toContain('PO_OTHER')
    expect(r.detail).toContain('PO_MINE')
  })

  it("the row's own resource is classed as ever; a row without an id takes what the lookup answers", () => {
    expect(classify(row, found('PO_MINE', 'succeeded')).class).toBe('matched')
    expect(classify(row, found('PO_MINE', 'failed')).class).toBe('state_differs')
    expect(classify({...row, id: undefined}, found('PO_OTHER', 'succeeded')).class).toBe('matched')
  })
})
