/**
 * A quick "yes" to "does this value match its schema?", asked before zod: a plain predicate made from the schema's
 * definition (zod 4's documented introspection surface, `_zod.def`, as src/api/drift.ts reads it). It says yes only
 * where zod surely does (a string with its prefix, pattern, length or named refinement, a plain URL, a literal or
 * enum, an array, a record, an object's fields with its extra keys allowed, …); anything it does not model (an
 * unnamed refinement, another format, a
 * transform, a number's bounds, a key missing that zod would not allow) is "not sure", and zod decides, as before.
 * So every value is accepted or refused exactly as zod alone would (test/api/sure-match.test.ts checks that against
 * zod on every schema of the table). Why: a bulk run checks every answer, and zod's parse of a collection was
 * ~15 µs of a row's CPU; and a command that builds a zod schema to check one value pays more for the building than
 * for the check (~5M instructions of a `pay collections create` for its body, as many for its answer).
 *
 * The predicate is made in two steps: `planOf` reads a schema into a plan (plain JSON data: which keys, which
 * prefixes and patterns), `sureOfPlan` makes the predicate from a plan. The plans of the endpoint table's responses,
 * request bodies and queries are kept in src/api/sure-plans.generated.ts (`storedCheck` reads them), so a command
 * judges its request and its answer without building their zod schemas; test/api/sure-match.test.ts fails when that
 * file is not what the schemas give.
 */
import type {z} from 'zod'

type Sure = (value: unknown) => boolean

/**
 * What the predicate checks, as JSON: `true` any value, `false` not sure (zod decides). A string's tests are a
 * prefix, a suffix, a pattern (RegExp source and flags), a length in code points (min, max) or a refinement by its
 * name; an object's fields are [key, plan, may be absent], and `rule` names its cross-field rule.
 */
type Plan =
  | boolean
  | {string: StringTest[]}
  | {boolean: true}
  | {number: true}
  | {literal: (string | number | boolean | null)[]}
  | {nullable: Plan}
  | {optional: Plan}
  | {union: Plan[]}
  | {array: Plan}
  | {record: Plan}
  | {object: [key: string, plan: Plan, mayBeAbsent: boolean][]; rule?: string; exact?: true}
type StringTest = {prefix: string} | {suffix: string} | {pattern: string; flags: string} | {min: number} | {max: number} | {rule: string} | {url: true}

/**
 * Refinements the plans may name (a request's rules, src/api/schemas.ts REFINEMENTS): a string's by its function,
 * an object's cross-field rule by its schema (zod's definition of a superRefine does not hold the function). A
 * refinement not named here is not modelled.
 */
interface Named {
  refinements: Record<string, ((value: never, ctx: never) => unknown) | undefined>
  crossField: WeakMap<object, string>
  /**
   * A plan whose yes also says that zod's output is the value itself (nothing dropped, filled in or rewritten), for
   * a caller that uses the value as zod would have given it: an object that drops unknown keys is sure only without
   * one. The profiles file's plan is made so (src/config/profiles.ts).
   */
  exact?: boolean
}
interface Def {
  type: string
  checks?: {_zod: {def: {check?: string; format?: string; prefix?: string; suffix?: string; pattern?: RegExp; when?: unknown; minimum?: number; maximum?: number; fn?: unknown}}}[]
  coerce?: boolean
  format?: string
  shape?: Record<string, Schema>
  catchall?: Schema
  innerType?: Schema
  values?: unknown[]
  entries?: Record<string, unknown>
  keyType?: Schema
  valueType?: Schema
  normalize?: unknown
  hostname?: unknown
  protocol?: unknown
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
function planOf(schema: z.ZodType, named?: Named): Plan {
  return planAt(schema as unknown as Schema, 0, named)
}

function planAt(schema: Schema, depth: number, named: Named | undefined): Plan {
  const def = schema._zod.def
  if (depth > 32) return false // (a recursive schema: zod decides)
  // a format (a string's email, uuid, …; a number's int, …): the schema is a check itself, which is not modelled,
  // but for a plain URL (zod's z.url() with no options: what URL.canParse takes, trimmed)
  if (def.format !== undefined && !isPlainUrl(def)) return false
  // a refinement or another check on anything but a string is not modelled, but for an object's named cross-field rule
  if (def.type !== 'string' && def.checks !== undefined && def.checks.length > 0 && !(def.type === 'object' && crossFieldOf(schema, named) !== undefined)) return false
  switch (def.type) {
    case 'lazy':
      return planAt(def.getter!(), depth + 1, named)
    case 'unknown':
    case 'any':
      return true
    case 'string':
      return stringPlan(def, named)
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
    case 'enum': {
      // an enum of strings (a TypeScript enum's numbers have reverse keys zod leaves out: not modelled)
      const values = Object.values(def.entries!)
      return values.every((v) => typeof v === 'string') ? {literal: values as string[]} : false
    }
    case 'nullable':
      return {nullable: planAt(def.innerType!, depth + 1, named)}
    case 'optional':
      // a present key's value (an absent key is the object's to judge; JSON holds no undefined)
      return {optional: planAt(def.innerType!, depth + 1, named)}
    case 'union':
      if (def.inclusive !== undefined || def.discriminator !== undefined) return false
      return {union: def.options!.map((o) => planAt(o, depth + 1, named))}
    case 'array':
      return {array: planAt(def.element!, depth + 1, named)}
    case 'record': {
      // string keys of any text: each value by its plan (a key zod drops, __proto__, is never sure)
      const key = def.keyType!._zod.def
      return key.type === 'string' && key.format === undefined && (key.checks ?? []).length === 0 && !key.coerce ? {record: planAt(def.valueType!, depth + 1, named)} : false
    }
    case 'default':
      // a present value (the object's plan never lets a field with a default be absent, which zod would fill)
      return planAt(def.innerType!, depth + 1, named)
    case 'object':
      return objectPlan(schema, depth, named)
    default:
      return false
  }
}

/**
 * A plain string with checks of a prefix, a suffix, a pattern, a length or a named refinement (each as zod runs
 * it), or a plain URL; another format (email, uuid, …) is not modelled.
 */
function stringPlan(def: Def, named: Named | undefined): Plan {
  if (def.coerce) return false
  const tests: StringTest[] = def.format === 'url' ? [{url: true}] : []
  for (const check of def.checks ?? []) {
    // (a check's `when` only says when zod runs it: the predicate holds the value to every check, always)
    const c = check._zod.def
    if (c.check === 'min_length' && typeof c.minimum === 'number') tests.push({min: c.minimum})
    else if (c.check === 'max_length' && typeof c.maximum === 'number') tests.push({max: c.maximum})
    else if (c.check === 'custom') {
      const rule = nameOf(c.fn, named)
      if (rule === undefined) return false
      tests.push({rule})
    } else if (c.check !== 'string_format') return false
    else if (c.format === 'starts_with' && typeof c.prefix === 'string') tests.push({prefix: c.prefix})
    else if (c.format === 'ends_with' && typeof c.suffix === 'string') tests.push({suffix: c.suffix})
    else if (c.format === 'regex' && c.pattern instanceof RegExp) tests.push({pattern: c.pattern.source, flags: c.pattern.flags})
    else return false
  }
  return {string: tests}
}

/** zod's z.url() without options (no normalising, no hostname or protocol rule). */
function isPlainUrl(def: Def): boolean {
  return def.type === 'string' && def.format === 'url' && !('normalize' in def) && !('hostname' in def) && !('protocol' in def)
}

/** The name `named` gives a refinement's function, if any. */
function nameOf(fn: unknown, named: Named | undefined): string | undefined {
  if (named === undefined || typeof fn !== 'function') return undefined
  return Object.keys(named.refinements).find((name) => named.refinements[name] === fn)
}

/**
 * The name of an object schema's one check, its cross-field rule, when `named` knows it. Only on a loose object:
 * zod runs the rule on its output, which is the input itself only where no key is dropped.
 */
function crossFieldOf(schema: Schema, named: Named | undefined): string | undefined {
  const def = schema._zod.def
  const checks = def.checks ?? []
  if (named === undefined || checks.length !== 1 || checks[0]._zod.def.check !== 'custom' || checks[0]._zod.def.fn !== undefined) return undefined
  const catchall = def.catchall?._zod.def.type
  if (catchall !== 'unknown' && catchall !== 'any') return undefined
  const name = named.crossField.get(schema)
  return name !== undefined && ruleOf(named.refinements, name) !== undefined ? name : undefined
}

/** A refinement by its name (an own key only: a plan never names `toString`). */
function ruleOf(refinements: Named['refinements'], name: string): ((value: never, ctx: never) => unknown) | undefined {
  return Object.hasOwn(refinements, name) ? refinements[name] : undefined
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
function objectPlan(schema: Schema, depth: number, named: Named | undefined): Plan {
  const def = schema._zod.def
  const catchall = def.catchall?._zod.def
  if (catchall !== undefined && catchall.type !== 'unknown' && catchall.type !== 'any') return false
  const fields: [string, Plan, boolean][] = []
  for (const [key, field] of Object.entries(def.shape!)) {
    if (key === '__proto__') return false
    fields.push([key, planAt(field, depth + 1, named), mayBeAbsent(field._zod.def)])
  }
  const rule = crossFieldOf(schema, named)
  // an object that drops unknown keys (no catch-all): exact only without one
  const exact = named?.exact === true && catchall === undefined
  return {object: fields, ...(rule === undefined ? {} : {rule}), ...(exact ? {exact: true as const} : {})}
}

const STORED = new WeakMap<object, WeakMap<object, Map<string, Sure>>>()
const NO_REFINEMENTS: Named['refinements'] = {}

/**
 * The predicate of the plan stored for `id` in `plans` (a generated table of plans as JSON text), made on first use
 * and kept; undefined when the table has none for it. `refinements`: the functions its rules name.
 */
export function storedCheck(plans: Readonly<Record<string, string>>, id: string, refinements: Named['refinements'] = NO_REFINEMENTS): Sure | undefined {
  let byRefinements = STORED.get(plans)
  if (byRefinements === undefined) STORED.set(plans, (byRefinements = new WeakMap()))
  let made = byRefinements.get(refinements)
  if (made === undefined) byRefinements.set(refinements, (made = new Map()))
  let sure = made.get(id)
  if (sure === undefined && Object.hasOwn(plans, id)) made.set(id, (sure = sureOfPlan(JSON.parse(plans[id]) as Plan, refinements)))
  return sure
}

/** The predicate of a plan; `refinements`: the functions its rules name (a rule not there: not sure). */
function sureOfPlan(plan: Plan, refinements: Named['refinements'] = NO_REFINEMENTS): Sure {
  if (plan === true) return ANY
  if (plan === false) return NOT_SURE
  const sureOf = (p: Plan) => sureOfPlan(p, refinements)
  if ('string' in plan) return stringOf(plan.string, refinements)
  if ('boolean' in plan) return (v) => typeof v === 'boolean'
  if ('number' in plan) return (v) => typeof v === 'number' && Number.isFinite(v)
  if ('literal' in plan) {
    const values = plan.literal
    return (v) => values.includes(v as string)
  }
  if ('nullable' in plan) {
    const inner = sureOf(plan.nullable)
    return (v) => v === null || inner(v)
  }
  if ('optional' in plan) {
    const inner = sureOf(plan.optional)
    return (v) => v !== undefined && inner(v)
  }
  if ('union' in plan) {
    const options = plan.union.map(sureOf)
    return (v) => options.some((o) => o(v))
  }
  if ('record' in plan) {
    const value = sureOf(plan.record)
    return (v) => {
      if (typeof v !== 'object' || v === null || Array.isArray(v) || Object.getPrototypeOf(v) !== Object.prototype) return false
      for (const key of Reflect.ownKeys(v)) {
        if (typeof key !== 'string' || key === '__proto__' || !Object.prototype.propertyIsEnumerable.call(v, key)) return false
        if (!value((v as Record<string, unknown>)[key])) return false
      }
      return true
    }
  }
  if ('array' in plan) {
    const element = sureOf(plan.array)
    return (v) => {
      if (!Array.isArray(v)) return false
      // every index, holes too (every() skips a hole, which zod reads as undefined)
      for (let i = 0; i < v.length; i++) if (!element(v[i])) return false
      return true
    }
  }
  const object = objectOf(plan.object, sureOf, plan.exact === true)
  if (plan.rule === undefined) return object
  const rule = ruleOf(refinements, plan.rule) as ((value: unknown, ctx: {addIssue(): void}) => void) | undefined
  if (rule === undefined) return NOT_SURE
  return (v) => {
    if (!object(v)) return false
    let issues = 0
    try {
      rule(v, {addIssue: () => issues++})
    } catch {
      return false // (a rule that needs more of zod's context than addIssue: zod decides)
    }
    return issues === 0
  }
}

function stringOf(plan: StringTest[], refinements: Named['refinements']): Sure {
  const tests = plan.map((t): ((s: string) => boolean) => {
    if ('prefix' in t) return (s) => s.startsWith(t.prefix)
    if ('suffix' in t) return (s) => s.endsWith(t.suffix)
    // zod counts a string's length in code points where UTF-16 units would decide otherwise: at most `max` units
    // is surely at most `max` code points; the floor is counted in code points (as the string iterator yields them)
    if ('min' in t) return (s) => s.length >= 2 * t.min || codePoints(s) >= t.min
    if ('max' in t) return (s) => s.length <= t.max
    // zod's z.url() (validateURL in zod's core: URL.canParse of the trimmed text, tabs and line breaks dropped after):
    // sure of printable ASCII only, which it keeps as it is (and Node 20's optimised URL.canParse can refuse a host
    // of Latin-1 letters it accepts unoptimised: such a URL goes to zod)
    if ('url' in t) return (s) => /^[\x21-\x7e]*$/.test(s) && URL.canParse(s)
    if ('rule' in t) {
      const rule = ruleOf(refinements, t.rule) as ((s: string) => unknown) | undefined
      // true only: zod takes any truthy result as a pass, but a promise (an async refinement) is zod's error
      return rule === undefined ? () => false : (s) => rule(s) === true
    }
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

function codePoints(s: string): number {
  let n = 0
  for (const _ of s) n++
  return n
}

function objectOf(plan: Extract<Plan, {object: unknown}>['object'], sureOf: (plan: Plan) => Sure, exact: boolean): Sure {
  const fields = plan.map(([key, field, mayBeAbsent]) => ({key, sure: sureOf(field), mayBeAbsent}))
  const known = new Set(plan.map(([key]) => key))
  return (v) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return false
    const o = v as Record<string, unknown>
    // exact: no key the object would drop (own keys only; a JSON value has no other), and none of its fields found on
    // the prototype only (zod would copy `toString` into its output)
    if (exact && (Object.getPrototypeOf(o) !== Object.prototype || Reflect.ownKeys(o).some((k) => typeof k !== 'string' || !known.has(k)))) return false
    if (exact && fields.some(({key}) => !Object.hasOwn(o, key) && key in o)) return false
    for (const {key, sure, mayBeAbsent} of fields) {
      if (key in o) {
        if (!sure(o[key])) return false
      } else if (!mayBeAbsent) return false
    }
    return true
  }
}

/** One line of a generated table of plans: `name` and its schema's plan as JSON text. */
function planLine(name: string, schema: z.ZodType, named: Named | undefined): string {
  return `  ${JSON.stringify(name)}: ${JSON.stringify(JSON.stringify(planOf(schema, named)))},`
}

/**
 * The text of src/api/sure-plans.generated.ts: the plan of each endpoint's response, request body and query, one
 * line each, as JSON text (parsed when first used: a table of nested literals would be built whole at every start,
 * ~3M instructions of a command that uses one plan or two). `named`: the refinements a request's plan may name.
 */
export function plansModule(table: readonly {id: string; response: z.ZodType; body?: z.ZodType; query?: z.ZodType}[], named: Named): string {
  const lines = (schemaOf: (e: (typeof table)[number]) => z.ZodType | undefined, withNames?: Named) =>
    table.flatMap((e) => {
      const schema = schemaOf(e)
      return schema === undefined ? [] : [planLine(e.id, schema, withNames)]
    }).join('\n')
  return `// Generated from the endpoint table's schemas by src/api/sure-match.ts (planOf): do not edit.
// test/api/sure-match.test.ts fails when it is stale; \`npx vitest run test/api/sure-match.test.ts -u\` rewrites it.

/** Each endpoint's response plan (src/api/sure-match.ts, Plan) as JSON text. */
export const answerPlans: Record<string, string> = {
${lines((e) => e.response)}
}

/** Each endpoint's request body plan, its rules named by src/api/schemas.ts REFINEMENTS. */
export const bodyPlans: Record<string, string> = {
${lines((e) => e.body, named)}
}

/** Each endpoint's query plan, its rules named by src/api/schemas.ts REFINEMENTS. */
export const queryPlans: Record<string, string> = {
${lines((e) => e.query, named)}
}
`
}

/**
 * The text of a generated table of exact plans (`Named.exact`: a yes also says zod's output is the value itself), one
 * line a schema, as JSON text. `test`: the test that holds the file to the schemas and rewrites it with -u.
 */
export function exactPlansModule(schemas: Record<string, z.ZodType>, test: string): string {
  const exact: Named = {refinements: {}, crossField: new WeakMap(), exact: true}
  const lines = Object.entries(schemas).map(([name, schema]) => planLine(name, schema, exact))
  return `// Generated from zod schemas by src/api/sure-match.ts (planOf, exact): do not edit.
// ${test} fails when it is stale; \`npx vitest run ${test} -u\` rewrites it.

/** Each schema's exact plan (src/api/sure-match.ts, Plan) as JSON text. */
export const exactPlans: Record<string, string> = {
${lines.join('\n')}
}
`
}
