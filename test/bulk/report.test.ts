/** The money totals of bulk runs and `pay reconcile`: exact decimal sums of decimal strings, per currency. */
import {describe, expect, it} from 'vitest'
import {MoneyTotals} from '../../src/bulk/report.js'

describe('MoneyTotals', () => {
  const totals = (rows: [string | null, string | null][]) => {
    const m = new MoneyTotals()
    for (const [amount, currency] of rows) m.add(amount, currency)
    return m.toJSON()
  }

  it.each([
    ['two decimals', [['0.10', 'KES'], ['0.20', 'KES']], {KES: '0.30'}],
    ['three decimals are kept, not truncated', [['100.009', 'KES']], {KES: '100.009'}],
    ['three decimals and a negative (what a service may answer)', [['100.009', 'KES'], ['-50.00', 'KES']], {KES: '50.009'}],
    ['negatives only', [['-1.5', 'KES'], ['-0.25', 'KES']], {KES: '-1.75'}],
    ['a sum that crosses zero', [['-0.01', 'KES'], ['0.005', 'KES']], {KES: '-0.005'}],
    ['the scale grows with the first longer fraction', [['1.1', 'KES'], ['0.0001', 'KES'], ['2', 'KES']], {KES: '3.1001'}],
    ['whole numbers keep two fraction digits', [['1500', 'UGX'], ['1', 'UGX']], {UGX: '1501.00'}],
    ['beyond 2^53', [['9007199254740993.01', 'KES'], ['9007199254740993.01', 'KES']], {KES: '18014398509481986.02'}],
    ['huge and tiny together', [['123456789012345678901234567890.5', 'KES'], ['0.000000001', 'KES'], ['-123456789012345678901234567890', 'KES']], {KES: '0.500000001'}],
    ['one currency whatever its case, under its upper-case code', [['1200.00', 'kes'], ['2400.00', 'KES'], ['1.00', 'Kes'], ['2.00', 'ugx']], {KES: '3601.00', UGX: '2.00'}],
    ['every currency separately', [['1.005', 'KES'], ['-2.00', 'UGX'], ['3', 'TZS']], {KES: '1.005', TZS: '3.00', UGX: '-2.00'}],
    ['no amount or no currency, or not a decimal, is not added', [[null, 'KES'], ['1.00', null], ['not money', 'TZS'], ['1e5', 'TZS'], ['+1', 'TZS'], ['1.00', 'KES']], {KES: '1.00'}],
  ] as const)('%s', (_, rows, expected) => {
    expect(totals(rows as unknown as [string | null, string | null][])).toEqual(expected)
  })

  it('many distinct amounts of mixed scales and signs, added up along the way, equal their exact sum', () => {
    const m = new MoneyTotals()
    let thousandths = 0n
    for (let i = 1; i <= 10_000; i++) {
      const negative = i % 7 === 0
      const amount = `${negative ? '-' : ''}${i}.${String(i % 1000).padStart(3, '0')}`
      m.add(amount, 'KES')
      thousandths += (negative ? -1n : 1n) * (BigInt(i) * 1000n + BigInt(i % 1000))
    }
    const sign = thousandths < 0n ? '-' : ''
    const abs = thousandths < 0n ? -thousandths : thousandths
    expect(m.toJSON().KES).toBe(`${sign}${abs / 1000n}.${String(abs % 1000n).padStart(3, '0')}`)
  })
})
