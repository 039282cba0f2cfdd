/**
 * A quick "yes" to "does this answer match its response schema?", asked before zod: a plain predicate made once
 * per schema from its definition (zod 4's documented introspection surface, `_zod.def`, as src/api/drift.ts reads
 * it). It says yes only where zod surely does (a string with its prefix or pattern, a literal, an object's fields
 * with its extra keys allowed, …); anything it does not model (a refinement, a format, a transform, a number's
 * bounds, an array, a key missing that zod would not allow) is "not sure", and zod decides, as before. So every
 * answer is accepted or refused exactly as zod alone would (test/api/sure-match.test.ts checks that against zod on
 * every response schema of the table). Why: a bulk run checks every answer, and zod's parse of a collection
 * (payload objects, a copy of the answer, the catch-all's key set, issue bookkeeping) was ~15 µs of a row's CPU,
 * much of it the compiling of zod's many small functions.
 *
 * The predicate is made in two steps: `planOf` reads a schema into a plan (plain JSON data: which keys, which
 * prefixes and patterns), `sureOfPlan` makes the predicate from a plan. The plans of the endpoint table's responses
 * are kept in src/api/sure-plans.generated.ts, so a command judges its answer without building the response's zod
 * schema at all (building one costs a command more than the rest of its check: ~5M instructions of a
 * `pay collections create`); test/api/sure-match.test.ts fails when that file is not what the schemas give.
 */
import type {z} from 'zod'

type Sure = (value: unknown) => boolean

/**
 * What the predicate checks, as JSON: `true` any value, `false` not sure (zod decides). A string's tests are a
 * prefix, a suffix or a pattern (RegExp source and flags); an object's fields are [key, plan, may be absent].
 */
export type Plan =
  | boolean
  | {string: ({prefix: string} | {suffix: string} | {pattern: string; flags: string})[]}
  | {boolean: true}
  | {number: true}
  | {literal: (string | number | boolean | null)[]}
  | {nullable: Plan}
  | {optional: Plan}
  | {union: Plan[]}
  | {array: Plan}
  | {object: [key: string, plan: Plan, mayBeAbsent: boolean][]}

interface Def {
  type: string
  checks?: {_zod: {def: {check?: string; format?: string; prefix?: string; suffix?: string; pattern?: RegExp; when?: unknown}}}[]
  coerce?: boolean
  format?: string
  shape?: Record<string, Schema>
  catchall?: Schema
  innerType?: Schema
  values?: unknown[]
  options?: Schema[]
  element?: Schema
  inclusive?: boolean
  discriminator?: string
  getter?: () => Schema
}
/** What is read of a schema: its definition only (the properties beside it are zod's @internal ones). */
interface Schema {
  _zod: {def: Def}
}

const NOT_SURE: Sure = () => false
const ANY: Sure = () => true

/** Whether zod surely accepts `value` for `schema` (false: not known here; ask zod). */
export function surelyMatches(schema: z.ZodType, value: unknown): boolean {
  let sure = MADE.get(schema)
  if (sure === undefined) MADE.set(schema, (sure = sureOfPlan(planOf(schema))))
  return sure(value)
}

const MADE = new WeakMap<object, Sure>()

/** The plan of `schema`: what of it the predicate can check (test/api/sure-match.test.ts holds it to zod). */
function planOf(schema: z.ZodType): Plan {
  return planAt(schema as unknown as Schema, 0)
}

function planAt(schema: Schema, depth: number): Plan {
  const def = schema._zod.def
  if (depth > 32) return false // (a recursive schema: zod decides)
  // a format (a string's email, uuid, …; a number's int, …): the schema is a check itself, which is not modelled
  if (def.format !== undefined) return false
  // a refinement or another check on anything but a string is not modelled
  if (def.type !== 'string' && def.checks !== undefined && def.checks.length > 0) return false
  switch (def.type) {
    case 'lazy':
      return planAt(def.getter!(), depth + 1)
    case 'unknown':
    case 'any':
      return true
    case 'string':
      return stringPlan(def)
    case 'boolean':
      return def.coerce ? false : {boolean: true}
    case 'number':
      return def.coerce ? false : {number: true}
    case 'literal': {
      const values = def.values!
      // only what JSON can hold (an answer is JSON)
      const json = (v: unknown) => v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))
      return values.every(json) ? {literal: values as (string | number | boolean | null)[]} : false
    }
    case 'nullable':
      return {nullable: planAt(def.innerType!, depth + 1)}
    case 'optional':
      // a present key's value (an absent key is the object's to judge; JSON holds no undefined)
      return {optional: planAt(def.innerType!, depth + 1)}
    case 'union':
      if (def.inclusive !== undefined || def.discriminator !== undefined) return false
      return {union: def.options!.map((o) => planAt(o, depth + 1))}
    case 'array':
      return {array: planAt(def.element!, depth + 1)}
    case 'object':
      return objectPlan(def, depth)
    default:
      return false
  }
}

/** A plain string with checks of a prefix, a suffix or a pattern (each as zod runs it); a format (email, url, …) is not modelled. */
function stringPlan(def: Def): Plan {
  if (def.coerce) return false
  const tests: Extract<Plan, {string: unknown}>['string'] = []
  for (const check of def.checks ?? []) {
    const c = check._zod.def
    if (c.check !== 'string_format' || c.when !== undefined) return false
    if (c.format === 'starts_with' && typeof c.prefix === 'string') tests.push({prefix: c.prefix})
    else if (c.format === 'ends_with' && typeof c.suffix === 'string') tests.push({suffix: c.suffix})
    else if (c.format === 'regex' && c.pattern instanceof RegExp) tests.push({pattern: c.pattern.source, flags: c.pattern.flags})
    else return false
  }
  return {string: tests}
}

/**
 * A field zod lets be absent and leaves absent: optional, not over a default (which zod would fill in) or anything
 * else that may make a value of nothing.
 */
function mayBeAbsent(def: Def): boolean {
  if (def.type !== 'optional') return false
  const inner = def.innerType!._zod.def.type
  return inner !== 'default' && inner !== 'prefault' && inner !== 'catch' && inner !== 'pipe' && inner !== 'transform' && inner !== 'lazy'
}

/**
 * An object whose extra keys are allowed (a loose object's catch-all of any value, or a plain object's, which drops
 * them): each field's value sure; a field absent only where zod lets it be absent without a word (optional in and
 * out). A strict object, or one with a refinement, is not modelled.
 */
function objectPlan(def: Def, depth: number): Plan {
  const catchall = def.catchall?._zod.def
  if (catchall !== undefined && catchall.type !== 'unknown' && catchall.type !== 'any') return false
  const fields: [string, Plan, boolean][] = []
  for (const [key, field] of Object.entries(def.shape!)) {
    if (key === '__proto__') return false
    fields.push([key, planAt(field, depth + 1), mayBeAbsent(field._zod.def)])
  }
  return {object: fields}
}

/** The predicate of a plan. */
export function sureOfPlan(plan: Plan): Sure {
  if (plan === true) return ANY
  if (plan === false) return NOT_SURE
  if ('string' in plan) return stringOf(plan.string)
  if ('boolean' in plan) return (v) => typeof v === 'boolean'
  if ('number' in plan) return (v) => typeof v === 'number' && Number.isFinite(v)
  if ('literal' in plan) {
    const values = plan.literal
    return (v) => values.includes(v as string)
  }
  if ('nullable' in plan) {
    const inner = sureOfPlan(plan.nullable)
    return (v) => v === null || inner(v)
  }
  if ('optional' in plan) {
    const inner = sureOfPlan(plan.optional)
    return (v) => v !== undefined && inner(v)
  }
  if ('union' in plan) {
    const options = plan.union.map(sureOfPlan)
    return (v) => options.some((o) => o(v))
  }
  if ('array' in plan) {
    const element = sureOfPlan(plan.array)
    return (v) => Array.isArray(v) && v.every((e) => element(e))
  }
  return objectOf(plan.object)
}

function stringOf(plan: Extract<Plan, {string: unknown}>['string']): Sure {
  const tests = plan.map((t): ((s: string) => boolean) => {
    if ('prefix' in t) return (s) => s.startsWith(t.prefix)
    if ('suffix' in t) return (s) => s.endsWith(t.suffix)
    const pattern = new RegExp(t.pattern, t.flags)
    return (s) => {
      pattern.lastIndex = 0
      return pattern.test(s)
    }
  })
  if (tests.length === 0) return (v) => typeof v === 'string'
  if (tests.length === 1) {
    const [test] = tests
    return (v) => typeof v === 'string' && test(v)
  }
  return (v) => typeof v === 'string' && tests.every((t) => t(v))
}

function objectOf(plan: Extract<Plan, {object: unknown}>['object']): Sure {
  const fields = plan.map(([key, field, mayBeAbsent]) => ({key, sure: sureOfPlan(field), mayBeAbsent}))
  return (v) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return false
    const o = v as Record<string, unknown>
    for (const {key, sure, mayBeAbsent} of fields) {
      if (key in o) {
        if (!sure(o[key])) return false
      } else if (!mayBeAbsent) return false
    }
    return true
  }
}

/** The text of src/api/sure-plans.generated.ts: the plan of each endpoint's response, one line each. */
export function plansModule(responses: readonly {id: string; response: z.ZodType}[]): string {
  // each plan as JSON text, parsed when its endpoint first answers: a table of nested literals would be built
  // whole at every start (~3M instructions of a command that uses one plan)
  const lines = responses.map((e) => `  ${JSON.stringify(e.id)}: ${JSON.stringify(JSON.stringify(planOf(e.response)))},`).join('\n')
  return `// Generated from the endpoint table's response schemas by src/api/sure-match.ts (planOf): do not edit.
// test/api/sure-match.test.ts fails when it is stale; \`npx vitest run test/api/sure-match.test.ts -u\` rewrites it.
/** Each endpoint's response plan (src/api/sure-match.ts, Plan) as JSON text. */
export const answerPlans: Record<string, string> = {
${lines}
}
`
}
