import {describe, expect, it} from 'vitest'
import {printable, printableDeep, printableLine} from '../../src/output/printable.js'
import {deliveryLine} from '../../src/webhooks/render.js'
import {problemsOf} from '../../src/api/validate.js'
import {collectionCreateRequest} from '../../src/api/schemas.js'

// eslint-disable-next-line no-control-regex -- finding raw control characters is the point
const RAW_CONTROL = /[\u0000-\u001f\u007f-\u009f\u202e]/
// eslint-disable-next-line no-control-regex -- the colours' own escape codes
const COLOUR_CODE = /\u001b\[[0-9;]*m/g

/** The human line `webhook listen` writes for a delivery (no --json). */
const formatDelivery = (d: Parameters<typeof deliveryLine>[0], color: boolean) => deliveryLine(d, {json: false, color, tty: color})

describe('human output never carries terminal control sequences from data', () => {
  it('escapes ESC, BEL and C1 controls, keeps text and newlines', () => {
    expect(printable('a\u001b]0;owned\u0007b')).toBe('a\\u001b]0;owned\\u0007b')
    expect(printable('line\nnext café')).toBe('line\nnext café')
    expect(printableDeep({k: ['\u009b2J']})).toEqual({k: ['\\u009b2J']})
  })

  it('printableLine: a line break or tab is escaped too (text shown inside one line of a log)', () => {
    expect(printableLine('a\nb\tc\u001b')).toBe('a\\u000ab\\u0009c\\u001b')
    expect(printableLine('order-42 café')).toBe('order-42 café')
  })

  it('a rejected webhook delivery prints its unverified id and type escaped', () => {
    const line = formatDelivery(
      {time: new Date(), event: {id: 'EVT_\u001b[2J', object: 'event', type: 'x\u0007', created_at: '', data: {}}, verdict: {ok: false, status: 400, reason: 'missing_header', detail: 'no header'}, duplicate: false} as never,
      false,
    )
    expect(line.includes(String.fromCharCode(27)) || line.includes(String.fromCharCode(7))).toBe(false)
    expect(line).toContain('EVT_\\u001b[2J')
  })

  it('an accepted delivery: every field shown is escaped, with colour (field by field) and without (the whole line)', () => {
    const bad = (name: string) => `${name}\u001b]0;x\u0007\n\u202e`
    const data = {id: bad('CL_1'), status: bad('succeeded'), amount: bad('10.00'), currency: bad('KES'), merchant_reference: bad('order-42')}
    const d = {time: new Date(), event: {id: bad('EVT_1'), object: 'event', type: bad('collection.succeeded'), created_at: '', data}, verdict: {ok: true, status: 200, verified: true}, duplicate: true} as never
    for (const color of [false, true]) {
      const line = formatDelivery(d, color)
      // with colour, only the escape codes of the colours themselves (ESC [ ... m) are left
      const left = color ? line.replaceAll(COLOUR_CODE, '') : line
      expect(RAW_CONTROL.test(left), `color ${color}: ${JSON.stringify(line)}`).toBe(false)
      for (const name of ['EVT_1', 'collection.succeeded', 'CL_1', 'succeeded', '10.00', 'KES', 'order-42']) expect(left).toContain(`${name}\\u001b]0;x\\u0007\\u000a\\u202e`)
      expect(left).toContain('(duplicate, not forwarded)')
    }
    expect(formatDelivery(d, true)).toContain('\u001b[')
  })

  it('webhook listen --json: the line is printable JSON on a terminal, the JSON as it is when piped', () => {
    const d = {time: new Date(), event: {id: 'e\u009b1m', object: 'event', type: 'x', created_at: '', data: {note: '\u009b31m\u202eevil\u001b[2J'}}, verdict: {ok: true, status: 200, verified: false}, duplicate: false} as never
    const tty = deliveryLine(d, {json: true, color: false, tty: true})
    const piped = deliveryLine(d, {json: true, color: false, tty: false})
    expect(RAW_CONTROL.test(tty), tty).toBe(false)
    expect(JSON.parse(tty)).toEqual(JSON.parse(piped))
    expect(piped).toContain('\u009b31m\u202eevil') // as it is: JSON.stringify leaves C1 and direction marks raw
    expect(JSON.parse(piped)).toMatchObject({verdict: {verified: false}, duplicate: false, event: {data: {note: '\u009b31m\u202eevil\u001b[2J'}}})
    expect(deliveryLine(d, {json: false, color: true, tty: true})).toContain('e\\u009b1m')
  })
})

describe('validation messages name the user\'s flags', () => {
  it('cross-field rules say --rail, not payment_rail', () => {
    const problems = problemsOf(collectionCreateRequest(), {amount: '1', currency: 'KES', merchant_reference: 'r', payment_rail: 'mobile_money'}, {payment_rail: '--rail', merchant_reference: '--reference'})
    expect(problems).toContainEqual({flag: '--mobile', rule: 'is required when --rail is mobile_money'})
  })
})
