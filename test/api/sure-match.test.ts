/**
 * surelyMatches (src/api/sure-match.ts) never says yes where zod says no: on every response schema of the endpoint
 * table (and their stated readings), for thousands of answers made from the schemas' own parts (right and wrong
 * values, missing and extra keys, other types), a "sure" answer is one zod accepts. And the usual answers of a bulk
 * run are the sure ones, so zod is not asked for them.
 */
import {describe, expect, it} from 'vitest'
import {z} from 'zod'
import {endpointList} from '../../src/api/endpoints.js'
import {CROSS_FIELD_RULES, REFINEMENTS, statedReading} from '../../src/api/schemas.js'
import {exactPlansModule, plansModule, storedCheck, surelyMatches} from '../../src/api/sure-match.js'
import {answerPlans, bodyPlans, queryPlans} from '../../src/api/sure-plans.generated.js'

interface Def {
  type: string
  checks?: {_zod: {def: {format?: string; prefix?: string; suffix?: string}}}[]
  shape?: Record<string, Schema>
  innerType?: Schema
  values?: unknown[]
  entries?: Record<string, unknown>
  options?: Schema[]
  element?: Schema
  valueType?: Schema
}
interface Schema {
  _zod: {def: Def; innerType?: Schema}
}

/** A small seeded generator (the same cases every run). */
function random(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

/** Strings near a request's rules: right and wrong amounts, codes, wallets, lengths, unsafe text, astral characters. */
const REQUEST_STRINGS = [
  ...['10.00', '10', '0.50', '0', '0.00', '10.001', '1.', '-1.00', ' 10.00', '1,000.00', '99999999999999999999.99'],
  ...['KES', 'kes', 'KE', 'KESS', '254700000001', '2547000', '2547000000000000', '25470000000a', 'mpesa', 'mobile_money', 'bank_transfer', 'card', 'fixed', 'open', 'DAILY'],
  ...['.', '..', './', 'inv-1', 'a'.repeat(255), 'a'.repeat(256), 'x'.repeat(64), 'x'.repeat(65), '\u{1F600}', '\u{1F600}'.repeat(128), '\u{1F600}'.repeat(255), 'a\u0000b', 'a\u202eb', 'a\nb'],
  ...['1', '20', '100', '101', '0', '01', '1000000000', '1000000001', '9999999999'],
]

const ODD: unknown[] = [null, true, false, 0, 1, -1, 1.5, '', 'x', '10.00', '-0.5', '1.', 'abc@example.com', 'https://x.test', [], {}, ['x'], {a: 1}]

/** A JSON value for `schema`, mostly of its shape, now and then wrong (a value of another kind, a broken string). */
function sample(schema: Schema, pick: () => number, depth = 0): unknown {
  const def = schema._zod.def
  const one = <T,>(xs: T[]): T => xs[Math.floor(pick() * xs.length)]
  if (depth > 6 || pick() < 0.06) return one(ODD)
  switch (def.type) {
    case 'lazy':
      return sample(schema._zod.innerType!, pick, depth + 1)
    case 'object': {
      const out: Record<string, unknown> = {}
      for (const [key, field] of Object.entries(def.shape!)) {
        if (pick() < 0.12) continue
        const v = sample(field, pick, depth + 1)
        if (v !== undefined) out[key] = v
      }
      if (pick() < 0.3) out[one(['extra', 'constructor', 'toString', 'object'])] = one(ODD)
      return out
    }
    case 'string': {
      const made = (def.checks ?? []).map((c) => c._zod.def).flatMap((c) => (c.prefix !== undefined ? [`${c.prefix}ABC123`, c.prefix] : c.suffix !== undefined ? [`abc${c.suffix}`] : []))
      return one([...made, ...made, ...REQUEST_STRINGS, 'x', '', '10.00', '7', '-3.25', '1e3', 'CL_1', 'abc@example.com', '2026-01-01T00:00:00Z', 'https://x.test/a'])
    }
    case 'literal':
      return pick() < 0.8 ? one(def.values!) : one(['other', 1, null])
    case 'enum':
      return pick() < 0.8 ? one(Object.values(def.entries!)) : one(['other', 'daily', 1, null])
    case 'optional':
      return pick() < 0.2 ? undefined : sample(def.innerType!, pick, depth + 1)
    case 'nullable':
      return pick() < 0.2 ? null : sample(def.innerType!, pick, depth + 1)
    case 'union':
      return sample(one(def.options!), pick, depth + 1)
    case 'number':
      return one([0, 1, 2, -1, 1.5, 100, '1'])
    case 'boolean':
      return one([true, false, 'true'])
    case 'array':
      return Array.from({length: Math.floor(pick() * 3)}, () => sample(def.element!, pick, depth + 1))
    case 'record':
      return {a: sample(def.valueType!, pick, depth + 1)}
    default:
      return one(ODD)
  }
}

const schemas = endpointList.flatMap((e) => {
  const stated = statedReading(e.response)
  return [{name: e.id, schema: e.response}, ...(stated ? [{name: `${e.id} (stated)`, schema: stated}] : [])]
})

const NAMED = {refinements: REFINEMENTS, crossField: CROSS_FIELD_RULES}

it('src/api/sure-plans.generated.ts is what the schemas give (else: run this file with -u)', async () => {
  await expect(plansModule(endpointList, NAMED)).toMatchFileSnapshot('../../src/api/sure-plans.generated.ts')
})

describe('the stored plans', () => {
  const requests = endpointList.flatMap((e) => [
    ...(e.body ? [{name: `${e.id} body`, schema: e.body, sure: storedCheck(bodyPlans, e.id, REFINEMENTS)}] : []),
    ...(e.query ? [{name: `${e.id} query`, schema: e.query, sure: storedCheck(queryPlans, e.id, REFINEMENTS)}] : []),
  ])

  it('say yes to a request only where zod accepts it, on every body and query schema of the table', () => {
    const pick = random(11)
    let sure = 0
    let accepted = 0
    for (const {name, schema, sure: check} of requests) {
      expect(check, name).toBeDefined()
      for (let i = 0; i < 1500; i++) {
        const value = sample(schema as unknown as Schema, pick)
        const zod = schema.safeParse(value).success
        if (zod) accepted++
        if (check!(value)) {
          sure++
          expect(zod, `${name}: ${JSON.stringify(value)}`).toBe(true)
        }
      }
    }
    expect(sure).toBeGreaterThan(2000)
    expect(accepted).toBeGreaterThan(sure)
  })

  it('are sure of the usual requests of a create, so that no zod schema is built for them', () => {
    const collection = {amount: '10.00', currency: 'KES', merchant_reference: 'inv-1', mobile: '254700000001', provider: 'mpesa'}
    expect(storedCheck(bodyPlans, 'collections.create', REFINEMENTS)!(collection)).toBe(true)
    expect(storedCheck(bodyPlans, 'payouts.create', REFINEMENTS)!(collection)).toBe(true)
    expect(storedCheck(queryPlans, 'balance.get', REFINEMENTS)!({currency: 'KES'})).toBe(true)
    expect(storedCheck(queryPlans, 'balance.get', REFINEMENTS)!({})).toBe(true)
    // and of none that zod refuses: a rule, a cross-field rule, a length in code points
    for (const wrong of [
      {...collection, amount: '10.001'},
      {...collection, merchant_reference: '..'},
      {...collection, merchant_reference: 'a\u0000b'},
      {...collection, provider: undefined},
      {...collection, payment_rail: 'bank_transfer', account_name: undefined, mobile: undefined, provider: undefined, description: 'x'.repeat(256)},
      {...collection, account_name: 'A'},
    ]) {
      const body = JSON.parse(JSON.stringify(wrong))
      expect(storedCheck(bodyPlans, 'collections.create', REFINEMENTS)!(body), JSON.stringify(body)).toBe(false)
      expect(endpointList.find((e) => e.id === 'collections.create')!.body!.safeParse(body).success).toBe(false)
    }
    expect(storedCheck(bodyPlans, 'customers.get', REFINEMENTS)).toBeUndefined()
  })

  it('hold to zod where the table does not reach: holes, async or unnamed rules, a stripped object, a cache per rule set', () => {
    // an array's hole is undefined to zod
    expect(surelyMatches(z.array(z.string()), new Array(1))).toBe(false)
    const rulePlan = {one: JSON.stringify({string: [{rule: 'r'}]}), proto: JSON.stringify({string: [{rule: 'toString'}]})}
    expect(storedCheck(rulePlan, 'one', {r: () => true})!('a')).toBe(true)
    // an async refinement is zod's error, not a pass
    expect(storedCheck(rulePlan, 'one', {r: async () => true})!('a')).toBe(false)
    // a name that only the prototype has is no rule
    expect(storedCheck(rulePlan, 'proto')!('a')).toBe(false)
    expect(storedCheck(rulePlan, 'one')!('a')).toBe(false)
    // a cross-field rule on an object that drops unknown keys: zod runs it on what is left, so not modelled
    const strip = z.object({a: z.string()}).superRefine((v, ctx) => {
      if (!('extra' in v)) ctx.addIssue({code: 'custom', message: 'needs extra'})
    })
    const named = {refinements: {needsExtra: () => undefined}, crossField: new WeakMap<object, string>([[strip, 'needsExtra']])}
    expect(plansModule([{id: 't', response: z.unknown(), body: strip}], named)).toContain('"t": "false"')
    const loose = z.looseObject({a: z.string()}).superRefine(() => undefined)
    named.crossField.set(loose, 'needsExtra')
    expect(plansModule([{id: 't', response: z.unknown(), body: loose}], named)).toContain('\\"rule\\":\\"needsExtra\\"')
  })

  it('in exact mode, are not sure of an object whose field is found on its prototype only (zod would copy it)', () => {
    const text = exactPlansModule({t: z.object({toString: z.unknown().optional(), a: z.string()})}, 'the test')
    const plan = JSON.parse(/"t": (".*"),\n/.exec(text)![1]) as string
    const sure = storedCheck({t: plan}, 't')!
    expect(sure({a: 'x'})).toBe(false)
    expect(Object.keys(z.object({toString: z.unknown().optional(), a: z.string()}).parse({a: 'x'}))).toContain('toString')
    expect(sure({a: 'x', toString: 1})).toBe(true)
    expect(sure({a: 'x', b: 1})).toBe(false)
  })

  it('answer as the schemas do for every response too (the generated answers are those surelyMatches reads)', () => {
    for (const e of endpointList) expect(storedCheck(answerPlans, e.id), e.id).toBeDefined()
  })
})

describe('surelyMatches', () => {
  it('says yes only where zod accepts, on every response schema of the table', () => {
    const pick = random(7)
    let sure = 0
    let accepted = 0
    for (const {name, schema} of schemas) {
      for (let i = 0; i < 400; i++) {
        const body = sample(schema as unknown as Schema, pick)
        const zod = schema.safeParse(body).success
        if (zod) accepted++
        if (surelyMatches(schema, body)) {
          sure++
          expect(zod, `${name}: ${JSON.stringify(body)}`).toBe(true)
        }
      }
    }
    // the cases reach both sides: many sure, and many that zod alone decides
    expect(sure).toBeGreaterThan(500)
    expect(accepted).toBeGreaterThan(sure)
  })

  const answer = {
    id: 'CL_OHKQ2OSBFPZOMGQSJ4H3', object: 'collection', status: 'processing', currency: 'KES', amount: '10.25', merchant_reference: 'inv-1',
    payment_rail: 'mobile_money', mobile: '254710000001', provider: 'mpesa', status_detail: null, created_at: '2026-11-27T15:44:32.460Z',
  }
  const create = endpointList.find((e) => e.id === 'collections.create')!.response

  it("is sure of a collection create's usual answer, and of one with extra or absent optional fields", () => {
    expect(surelyMatches(create, answer)).toBe(true)
    expect(surelyMatches(create, {...answer, new_field: {a: [1]}})).toBe(true)
    const {mobile: _m, status_detail: _s, created_at: _c, ...fewer} = answer
    expect(surelyMatches(create, fewer)).toBe(true)
    expect(create.safeParse(fewer).success).toBe(true)
  })

  it('leaves every answer zod refuses to zod, and what it does not model too', () => {
    for (const wrong of [
      {...answer, id: 'PO_1'},
      {...answer, object: 'payout'},
      {...answer, amount: 10.25},
      {...answer, amount: '10.'},
      {...answer, status_detail: 1},
      {...answer, virtual_account: {account_number: 1}},
      (({amount: _a, ...rest}) => rest)(answer),
      [answer],
      null,
      'x',
    ]) {
      expect(surelyMatches(create, wrong), JSON.stringify(wrong)).toBe(false)
      expect(create.safeParse(wrong).success, JSON.stringify(wrong)).toBe(false)
    }
    // not modelled (zod decides): a refinement, a format, a strict object, an array's length
    expect(surelyMatches(z.string().refine(() => true), 'x')).toBe(false)
    expect(surelyMatches(z.email(), 'a@b.test')).toBe(false)
    expect(surelyMatches(z.strictObject({a: z.string()}), {a: 'x'})).toBe(false)
    expect(surelyMatches(z.array(z.string()).min(1), ['x'])).toBe(false)
    // an array: each element sure
    expect(surelyMatches(z.array(z.string()), [])).toBe(true)
    expect(surelyMatches(z.array(z.string()), ['x', 'y'])).toBe(true)
    expect(surelyMatches(z.array(z.string()), ['x', 1])).toBe(false)
    expect(surelyMatches(z.array(z.string()), {0: 'x', length: 1})).toBe(false)
    expect(surelyMatches(z.number().int(), 1)).toBe(false)
    // a key zod requires even of any value: absent, not sure
    expect(surelyMatches(z.object({a: z.unknown()}), {})).toBe(z.object({a: z.unknown()}).safeParse({}).success)
  })
})
