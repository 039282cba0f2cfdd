import {describe, expect, it} from 'vitest'
import {compareDecimal, fromMinor, isDecimalAmount, toMinor, withCanonicalAmounts} from '../../src/api/money.js'

describe('decimal amounts', () => {
  it.each(['1', '10', '10.5', '10.50', '0.01', '1500000000000000000000.99'])('accepts %s', (v) => expect(isDecimalAmount(v)).toBe(true))
  it.each(['0', '0.00', '-1', '+1', '1e3', '1.234', '01', '1,000', ' 1', '1.', '.5', 'NaN', ''])('rejects %s', (v) => expect(isDecimalAmount(v)).toBe(false))
  it('compares without floating point', () => {
    expect(compareDecimal('0.3', '0.30')).toBe(0)
    expect(compareDecimal('1000.01', '1000.1')).toBeLessThan(0)
    expect(compareDecimal('99999999999999999999.99', '100000000000000000000')).toBeLessThan(0)
    expect(compareDecimal('2', '10')).toBeLessThan(0)
  })
  it('converts to and from minor units exactly', () => {
    expect(toMinor('0.1') + toMinor('0.2')).toBe(toMinor('0.3'))
    expect(fromMinor(toMinor('12345678901234567890.07'))).toBe('12345678901234567890.07')
    expect(fromMinor(-150n)).toBe('-1.50')
  })
  it('one spelling on the wire: exactly two fraction digits', () => {
    const sent = (amount: string) => (withCanonicalAmounts({amount}) as {amount: string}).amount
    for (const [given, wire] of [['1200', '1200.00'], ['1200.0', '1200.00'], ['1200.00', '1200.00'], ['350.5', '350.50'], ['0.01', '0.01'], ['1500000000000000000000.9', '1500000000000000000000.90']]) expect(sent(given)).toBe(wire)
    // not an amount: left for the rule to report
    for (const bad of ['01', '1.234', 'abc', '']) expect(sent(bad)).toBe(bad)
    const body = {amount: '1200', currency: 'KES'}
    expect(withCanonicalAmounts(body)).toEqual({amount: '1200.00', currency: 'KES'})
    expect(body.amount).toBe('1200')
    expect(withCanonicalAmounts({amount: 5})).toEqual({amount: 5})
  })
})
