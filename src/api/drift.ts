/**
 * Where an answer differs from the response schema pay assumes for it (`pay smoke --contract`): fields missing,
 * extra, of another type, of another shape, or breaking a field's rule. Reads the schema through zod 4's documented
 * introspection surface (`_zod.def`), as src/api/operation-rules.ts does; knows nothing of HTTP.
 */
import type {z} from 'zod'

type DriftKind = 'missing' | 'extra' | 'type' | 'shape' | 'rule'

export interface Drift {
  /** Dotted path in the body (`data[].plan_id`); '(body)' for the whole answer. */
  path: string
  kind: DriftKind
  /** What pay assumes there, in a few words. */
  expected: string
  /** What the answer holds there. */
  actual: string
}

interface Def {
  type: string
  innerType?: Schema
  shape?: Record<string, Schema>
  catchall?: Schema
  element?: Schema
  options?: Schema[]
  discriminator?: string
  valueType?: Schema
  values?: unknown[]
  entries?: Record<string, unknown>
  in?: Schema
}
interface Schema {
  _zod: {def: Def; innerType?: Schema}
  safeParse(value: unknown): {success: boolean; error?: {issues: {message: string}[]}}
}

function resolved(schema: Schema): Schema {
  let s = schema
  while (s._zod.def.type === 'lazy' && s._zod.innerType) s = s._zod.innerType
  return s
}

/** A JSON value's kind in words. */
function kindOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value
}

const SHAPES = new Set(['object', 'array', 'record'])

/** What a schema expects, in a word or two. */
function expectedOf(schema: Schema): string {
  const def = resolved(schema)._zod.def
  switch (def.type) {
    case 'optional':
    case 'default':
      return expectedOf(def.innerType!)
    case 'nullable':
      return `${expectedOf(def.innerType!)} or null`
    case 'record':
      return 'object'
    case 'literal':
      return (def.values ?? []).map((v) => JSON.stringify(v)).join(' or ')
    case 'enum':
      return Object.values(def.entries ?? {}).map((v) => JSON.stringify(v)).join(', ')
    case 'union':
      return [...new Set((def.options ?? []).map(expectedOf))].join(' or ')
    case 'pipe':
      return expectedOf(def.in!)
    default:
      return def.type
  }
}

/** Whether a value's JSON kind is one a schema type takes. */
function kindFits(type: string, value: unknown): boolean {
  const kind = kindOf(value)
  switch (type) {
    case 'string':
    case 'literal':
    case 'enum':
      return kind === 'string' || (type !== 'string' && kind !== 'object' && kind !== 'array')
    case 'number':
    case 'int':
      return kind === 'number'
    case 'boolean':
      return kind === 'boolean'
    case 'object':
    case 'record':
      return kind === 'object'
    case 'array':
      return kind === 'array'
    default:
      return true
  }
}

function walk(schema: Schema, value: unknown, path: string, out: Drift[]): void {
  const s = resolved(schema)
  const def = s._zod.def
  const here = path || '(body)'
  switch (def.type) {
    case 'optional':
    case 'default':
      if (value === undefined) return
      return walk(def.innerType!, value, path, out)
    case 'nullable':
      if (value === null) return
      return walk(def.innerType!, value, path, out)
    case 'unknown':
    case 'any':
      return
    case 'pipe':
      return walk(def.in!, value, path, out)
    case 'union': {
      const options = def.options ?? []
      if (options.some((o) => o.safeParse(value).success)) return
      // the option named by the discriminator (`object`), else the first of the value's kind
      const tag = def.discriminator && value && typeof value === 'object' ? (value as Record<string, unknown>)[def.discriminator] : undefined
      const chosen =
        options.find((o) => tag !== undefined && resolved(o)._zod.def.shape?.[def.discriminator!]?.safeParse(tag).success) ??
        options.find((o) => kindFits(resolved(o)._zod.def.type, value)) ??
        options[0]
      if (chosen) walk(chosen, value, path, out)
      return
    }
    default:
  }
  if (value === undefined) {
    out.push({path: here, kind: 'missing', expected: expectedOf(s), actual: 'absent'})
    return
  }
  if (!kindFits(def.type, value)) {
    const shaped = SHAPES.has(def.type) || SHAPES.has(kindOf(value)) || (kindOf(value) === 'array' && def.type !== 'array')
    out.push({path: here, kind: shaped ? 'shape' : 'type', expected: expectedOf(s), actual: kindOf(value)})
    return
  }
  if (def.type === 'object') {
    const obj = value as Record<string, unknown>
    const shape = def.shape ?? {}
    for (const [key, field] of Object.entries(shape)) walk(field, obj[key], path ? `${path}.${key}` : key, out)
    for (const key of Object.keys(obj)) if (!Object.hasOwn(shape, key)) out.push({path: path ? `${path}.${key}` : key, kind: 'extra', expected: 'absent', actual: kindOf(obj[key])})
    return
  }
  if (def.type === 'record') {
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) walk(def.valueType!, v, path ? `${path}.${key}` : key, out)
    return
  }
  if (def.type === 'array') {
    // each item is held to the item schema; a difference is named once per path (`data[].amount`), not per item
    const seen = new Set<string>()
    for (const item of value as unknown[]) {
      const mine: Drift[] = []
      walk(def.element!, item, `${path}[]`, mine)
      for (const d of mine) {
        const key = `${d.kind} ${d.path}`
        if (!seen.has(key)) {
          seen.add(key)
          out.push(d)
        }
      }
    }
    return
  }
  // a leaf of the right kind: its own rule (a prefix, a literal, a pattern)
  const checked = s.safeParse(value)
  if (!checked.success) out.push({path: here, kind: 'rule', expected: checked.error?.issues[0]?.message ?? expectedOf(s), actual: JSON.stringify(value).slice(0, 60)})
}

/** Every difference between an answer and the schema pay assumes for it, in the order of the schema. */
export function driftOf(schema: z.ZodType, body: unknown): Drift[] {
  const out: Drift[] = []
  walk(schema as unknown as Schema, body, '', out)
  return out
}
