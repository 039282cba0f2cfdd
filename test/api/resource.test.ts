/**
 * Which resource an answer is about (src/api/resource.ts): the one check every lookup's reader asks before it takes
 * a state, so that a lookup by a shared reference never reports another resource's state as this one's.
 */
import {describe, expect, it} from 'vitest'
import {otherResource, resourceName} from '../../src/api/resource.js'

describe('resourceName', () => {
  it("is the answer's id, else its merchant_reference (a mandate's create answer has no id), else undefined", () => {
    expect(resourceName({id: 'PO_1', merchant_reference: 'r-1'})).toBe('PO_1')
    expect(resourceName({object: 'mandate', merchant_reference: 'r-1'})).toBe('r-1')
    expect(resourceName({status: 'processing'})).toBeUndefined()
    expect(resourceName(undefined)).toBeUndefined()
  })
})

describe('otherResource', () => {
  // [what, the name of the resource in hand, the looked-up answer, the other id (undefined: about this one, or cannot tell)]
  const table: [string, string | null | undefined, unknown, string | undefined][] = [
    ['the same id', 'PO_1', {id: 'PO_1', merchant_reference: 'r-1'}, undefined],
    ['another id with the same reference', 'PO_1', {id: 'PO_2', merchant_reference: 'r-1'}, 'PO_2'],
    ['the accepted answer gave no id (named by its reference)', 'r-1', {id: 'MD_9', merchant_reference: 'r-1'}, undefined],
    ['an answer without an id', 'PO_1', {mandate_id: 'MD_9', merchant_reference: 'r-1', status: 'succeeded'}, undefined],
    ['no name known for the resource in hand', undefined, {id: 'PO_2'}, undefined],
    ['no name known (null, a journaled row without id)', null, {id: 'PO_2'}, undefined],
    ['no body', 'PO_1', undefined, undefined],
  ]
  for (const [what, mine, body, other] of table) {
    it(what, () => {
      expect(otherResource(mine, body)).toBe(other)
    })
  }
})
