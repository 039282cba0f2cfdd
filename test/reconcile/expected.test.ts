import {RESULT_COLUMNS as BULK_RESULT_COLUMNS} from '../../src/bulk/report.js'
import {describe, expect, it} from 'vitest'
import {kindNamed} from '../../src/api/kinds.js'
import {classify, expectedOf, type ExpectedRow, markRepeatedObjects, type RowResult} from '../../src/reconcile/expected.js'

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

describe('expectedOf: the columns of a row', () => {
  const csv = {name: 'x.csv', format: 'csv' as const, headerLine: 1}
  const ndjson = {name: 'x.ndjson', format: 'ndjson' as const}
  const row = (values: Record<string, unknown>) => ({row: 1, line: 2, values})
  const bulkResult = {row: '1', line: '2', status: 'processing', outcome: 'accepted', http_status: '201', id: 'CL_1', idempotency_key: 'k1', amount: '10.00', currency: 'KES'}

  it("a row of pay's own --results CSV is read as it was before the formula-cell neutralisation", () => {
    const r = expectedOf(row({...bulkResult, reference: "'-neg1"}), undefined, csv)
    expect(r.problems).toEqual([])
    expect(r.row).toMatchObject({reference: '-neg1', amount: '10.00', currency: 'KES', id: 'CL_1', kind: kindNamed('collection')})
    expect(expectedOf(row({...bulkResult, reference: "''=x"}), undefined, csv).row?.reference).toBe("'=x")
  })

  it("a file pay did not write, or NDJSON (never neutralised), is read as it is: a reference may start with '", () => {
    expect(expectedOf(row({reference: "'-neg1", amount: '1.00', currency: 'KES'}), undefined, csv).row?.reference).toBe("'-neg1")
    expect(expectedOf(row({...bulkResult, reference: "'-neg1"}), undefined, ndjson).row?.reference).toBe("'-neg1")
  })

  it("reconcile's own --results file is read by its expectation (expected_amount, expected_currency, expected_state)", () => {
    const result = {row: '1', line: '2', reference: "'@at1", kind: 'payout', class: 'state_differs', expected_amount: '5.00', expected_currency: 'KES', expected_state: 'failed', id: 'PO_1', amount: '6.00', currency: 'UGX', state: 'succeeded', detail: 'x'}
    const r = expectedOf(row(result), undefined, csv)
    expect(r.problems).toEqual([])
    expect(r.row).toMatchObject({reference: '@at1', amount: '5.00', currency: 'KES', state: 'failed', id: 'PO_1', kind: kindNamed('payout')})
  })

  it("pay's own files are told by their whole header: a merchant's CSV that merely has an idempotency_key column keeps its state and its cells", () => {
    const columns = ['reference', 'amount', 'currency', 'state', 'idempotency_key']
    const r = expectedOf(row({reference: "'-mine", amount: '1.00', currency: 'KES', state: 'failed', idempotency_key: 'k1'}), undefined, {...csv, columns})
    expect(r.problems).toEqual([])
    expect(r.row).toMatchObject({reference: "'-mine", state: 'failed'})
    // the header a bulk run writes, as it writes it
    const bulk = expectedOf(row({...bulkResult, reference: "'-neg1"}), undefined, {...csv, columns: [...BULK_RESULT_COLUMNS]})
    expect(bulk.row).toMatchObject({reference: '-neg1', id: 'CL_1'})
  })

  it.each([
    ['reference', 'merchant_reference'],
    ['merchant_reference', 'reference'],
    ['state', 'expected_state'],
  ])('two columns for one input (%s and %s) are refused, both named, at the header line', (a, b) => {
    const values = {[a]: 'v1', [b]: 'v2', amount: '1.00', currency: 'KES', ...(a === 'state' ? {reference: 'r1'} : {})}
    const r = expectedOf(row(values), undefined, csv)
    expect(r.row).toBeUndefined()
    expect(r.problems).toEqual([{flag: `x.csv:1 column "${b}"`, rule: `gives the same input as column "${a}": keep one of them`, line: 1}])
  })
})

describe('markRepeatedObjects', () => {
  const result = (row: number, reference: string, kind: string | null, id: string | null, cls: RowResult['class'] = 'matched'): RowResult => ({
    row, line: row + 1, reference, kind, class: cls, expected_amount: '100.00', expected_currency: 'KES', expected_state: null, id, amount: id ? '100.00' : null, currency: id ? 'KES' : null, state: id ? 'succeeded' : null, detail: null,
  })

  it.each([
    ['a row with a kind and one found by the verify lookup: one collection', [result(1, 'c1', 'collection', 'CL_1'), result(2, 'c1', 'collection', 'CL_1')], ['matched', 'duplicated']],
    ['the first in file order keeps its class, whatever it is', [result(1, 'c1', 'collection', 'CL_1', 'amount_differs'), result(2, 'c1', 'collection', 'CL_1')], ['amount_differs', 'duplicated']],
    ['two objects of one reference (a collection and a payout) are two rows', [result(1, 'c1', 'collection', 'CL_1'), result(2, 'c1', 'payout', 'PO_1')], ['matched', 'matched']],
    ['no id shown: the object by its kind and reference', [result(1, 'm1', 'mandate', null), result(2, 'm1', 'mandate', null), result(3, 'm2', 'mandate', null)], ['matched', 'duplicated', 'matched']],
    ['missing and failed lookups found nothing to repeat', [result(1, 'c1', null, null, 'missing'), result(2, 'c1', 'collection', null, 'lookup_failed'), result(3, 'c1', 'collection', 'CL_1')], ['missing', 'lookup_failed', 'matched']],
  ] as const)('%s', (_, given, classes) => {
    const results = given.map((r) => ({...r}))
    markRepeatedObjects(results)
    expect(results.map((r) => r.class)).toEqual(classes)
    for (const r of results.filter((x) => x.class === 'duplicated')) {
      expect(r).toMatchObject({amount: null, currency: null, state: null})
      expect(r.detail).toMatch(/^the same (collection CL_1|mandate) as row 1: counted once, on that row$/)
    }
  })
})
