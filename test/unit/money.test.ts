import {describe, expect, it} from 'vitest'
import {compareDecimal, fromMinor, isDecimalAmount, toMinor} from '../../src/api/money.js'

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
})
