/**
 * -F key=value / key:=json and --data merged into a request body (src/operation/body-input.ts).
 */
import {describe, expect, it} from 'vitest'
import {mergeBody, parseFieldFlags} from '../../src/operation/body-input.js'

describe('body input', () => {
  it('keeps key=value a string (amounts stay decimal strings) and parses key:=json', () => {
    expect(parseFieldFlags(['amount=10.50', 'count:=3', 'a.b=c'])).toEqual({amount: '10.50', count: 3, a: {b: 'c'}})
  })
  it('merges command fields, then --data, then -F', () => {
    expect(mergeBody({amount: '1.00', x: {a: 1}}, {x: {b: 2}}, {amount: '2.00'})).toEqual({amount: '2.00', x: {a: 1, b: 2}})
  })
  it('with neither --data nor -F: a copy of the command fields (a bulk row), nothing for none', () => {
    const fields = {amount: '1.00', x: {a: 1}}
    const merged = mergeBody(fields, undefined, {}) as Record<string, unknown>
    expect(merged).toEqual(fields)
    expect(merged).not.toBe(fields)
    merged.amount = '2.00'
    expect(fields.amount).toBe('1.00')
    expect(mergeBody(undefined, undefined, {})).toBeUndefined()
    expect(mergeBody(undefined, undefined, {a: 1})).toEqual({a: 1})
    expect(mergeBody(undefined, null, {})).toBeNull()
  })
})
