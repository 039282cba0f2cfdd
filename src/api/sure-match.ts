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
 */
import type {z} from 'zod'

type Sure = (value: unknown) => boolean

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
  if (sure === undefined) MADE.set(schema, (sure = sureOf(schema as unknown as Schema, 0)))
  return sure(value)
}

const MADE = new WeakMap<object, Sure>()

function sureOf(schema: Schema, depth: number): Sure {
  const def = schema._zod.def
  if (depth > 32) return NOT_SURE // (a recursive schema: zod decides)
  // a format (a string's email, uuid, …; a number's int, …): the schema is a check itself, which is not modelled
  if (def.format !== undefined) return NOT_SURE
  // a refinement or another check on anything but a string is not modelled
  if (def.type !== 'string' && def.checks !== undefined && def.checks.length > 0) return NOT_SURE
  switch (def.type) {
    case 'lazy':
      return sureOf(def.getter!(), depth + 1)
    case 'unknown':
    case 'any':
      return ANY
    case 'string':
      return stringOf(def)
    case 'boolean':
      return def.coerce ? NOT_SURE : (v) => typeof v === 'boolean'
    case 'number':
      return def.coerce ? NOT_SURE : (v) => typeof v === 'number' && Number.isFinite(v)
    case 'literal': {
      const values = def.values!
      return (v) => values.includes(v)
    }
    case 'nullable': {
      const inner = sureOf(def.innerType!, depth + 1)
      return (v) => v === null || inner(v)
    }
    case 'optional': {
      // a present key's value (an absent key is the object's to judge; JSON holds no undefined)
      const inner = sureOf(def.innerType!, depth + 1)
      return (v) => v !== undefined && inner(v)
    }
    case 'union': {
      if (def.inclusive !== undefined || def.discriminator !== undefined) return NOT_SURE
      const options = def.options!.map((o) => sureOf(o, depth + 1))
      return (v) => options.some((o) => o(v))
    }
    case 'object':
      return objectOf(def, depth)
    default:
      return NOT_SURE
  }
}

/** A plain string with checks of a prefix, a suffix or a pattern (each as zod runs it); a format (email, url, …) is not modelled. */
function stringOf(def: Def): Sure {
  if (def.coerce) return NOT_SURE
  const tests: ((s: string) => boolean)[] = []
  for (const check of def.checks ?? []) {
    const c = check._zod.def
    if (c.check !== 'string_format' || c.when !== undefined) return NOT_SURE
    if (c.format === 'starts_with' && typeof c.prefix === 'string') {
      const prefix = c.prefix
      tests.push((s) => s.startsWith(prefix))
    } else if (c.format === 'ends_with' && typeof c.suffix === 'string') {
      const suffix = c.suffix
      tests.push((s) => s.endsWith(suffix))
    } else if (c.format === 'regex' && c.pattern instanceof RegExp) {
      const pattern = c.pattern
      tests.push((s) => {
        pattern.lastIndex = 0
        return pattern.test(s)
      })
    } else return NOT_SURE
  }
  if (tests.length === 0) return (v) => typeof v === 'string'
  if (tests.length === 1) {
    const [test] = tests
    return (v) => typeof v === 'string' && test(v)
  }
  return (v) => typeof v === 'string' && tests.every((t) => t(v))
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
function objectOf(def: Def, depth: number): Sure {
  const catchall = def.catchall?._zod.def
  if (catchall !== undefined && catchall.type !== 'unknown' && catchall.type !== 'any') return NOT_SURE
  const fields: {key: string; sure: Sure; mayBeAbsent: boolean}[] = []
  for (const [key, field] of Object.entries(def.shape!)) {
    if (key === '__proto__') return NOT_SURE
    fields.push({key, sure: sureOf(field, depth + 1), mayBeAbsent: mayBeAbsent(field._zod.def)})
  }
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
