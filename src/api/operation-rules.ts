/**
 * What the operation specs derive from the endpoint table and its zod schemas: each endpoint's method, path,
 * query keys and idempotency, and each field's rule text ("must be 10 to 15 digits", "is required when --rail is
 * mobile_money") read from the schema itself: the messages of its checks, of its type, and of the body's
 * cross-field rules (found by checking a few probe bodies).
 *
 * This loads zod, so it runs at build time, not when a command is loaded: its result is stored in
 * src/api/operations.generated.ts, and test/api/operations.test.ts fails when that file is stale
 * (`npx vitest run test/api/operations.test.ts -u` rewrites it).
 */
import {UNSAFE_TEXT_RULE} from '../base/text-rules.js'
import type {z} from 'zod'
import {endpoints, pathParams, type Endpoint, type EndpointId} from './endpoints.js'
import type {OperationSpec} from './operation-types.js'
import {flagNamesOf} from './operation-names.js'
import {withFlagNames} from './validate.js'

export interface EndpointFacts {
  method: string
  path: string
  query: string[]
  idempotent: boolean
  accountRef: boolean
  /** The request has a JSON object body (so --data / -F can add fields). */
  objectBody: boolean
}

export interface Derived {
  endpoints: Record<string, EndpointFacts>
  /** operation → field key → rule text (flag names already in). */
  rules: Record<string, Record<string, string>>
}

// zod's internals: `_zod.def` is part of zod 4's documented introspection surface (def.type, checks, error).
interface Def {
  type: string
  shape?: Record<string, Schema>
  innerType?: Schema
  checks?: {_zod: {def: {error?: (issue: unknown) => unknown}}}[]
  error?: (issue: unknown) => unknown
  entries?: Record<string, string>
}
interface Schema {
  _zod: {def: Def; innerType?: Schema}
}

/** The definition of a schema, through z.lazy (src/api/schemas.ts builds its schemas on first use). */
const defOf = (schema: unknown): Def => {
  let s = schema as Schema
  while (s._zod.def.type === 'lazy' && s._zod.innerType) s = s._zod.innerType
  return s._zod.def
}

function messageOf(error: ((issue: unknown) => unknown) | undefined): string | undefined {
  const m = error?.({})
  if (typeof m === 'string') return m
  if (m && typeof m === 'object' && typeof (m as {message?: unknown}).message === 'string') return (m as {message: string}).message
  return undefined
}

/** The schema under optional/nullable wrappers, and whether it may be left out. */
function unwrap(schema: Schema): {inner: Schema; optional: boolean} {
  let inner = schema
  let optional = false
  for (;;) {
    const def = defOf(inner)
    if ((def.type === 'optional' || def.type === 'nullable' || def.type === 'default') && def.innerType) {
      if (def.type !== 'nullable') optional = true
      inner = def.innerType
    } else return {inner, optional}
  }
}

/** The rule messages of one field's schema: its checks' messages, else its type's message. */
function fieldMessages(schema: Schema): {messages: string[]; optional: boolean; options?: string[]} {
  const {inner, optional} = unwrap(schema)
  const def = defOf(inner)
  // the plain-text rule holds for every stored text field: docs/assumptions.md says it once, not every flag's help
  const messages = (def.checks ?? []).map((c) => messageOf(c._zod.def.error)).filter((m): m is string => m !== undefined && m !== UNSAFE_TEXT_RULE)
  if (messages.length === 0) {
    const own = messageOf(def.error)
    if (own && own !== 'is required') messages.push(own)
  }
  return {messages, optional, options: def.type === 'enum' && def.entries ? Object.values(def.entries) : undefined}
}

/** The fields of an object schema (through z.lazy and unwrapped of nothing else), or undefined. */
function shapeOf(schema: z.ZodType | undefined): Record<string, Schema> | undefined {
  if (!schema) return undefined
  const def = defOf(schema)
  return def.type === 'object' ? def.shape : undefined
}

/** Cross-field rules ("is required when payment_rail is mobile_money"), by field, from probe bodies. */
function crossFieldRules(schema: z.ZodType, shape: Record<string, Schema>): Map<string, Set<string>> {
  const choices = Object.entries(shape).flatMap(([key, s]) => (fieldMessages(s).options ?? []).map((o) => [key, o] as const))
  const filled = Object.fromEntries(Object.keys(shape).map((k) => [k, 'x']))
  const probes: Record<string, unknown>[] = [{}, filled, ...Object.keys(shape).map((k) => ({[k]: 'x'})), ...choices.flatMap(([k, o]) => [{[k]: o}, {...filled, [k]: o}])]
  const rules = new Map<string, Set<string>>()
  for (const probe of probes) {
    const parsed = schema.safeParse(probe)
    if (parsed.success) continue
    for (const issue of parsed.error.issues) {
      if (issue.code !== 'custom' || !/ when /.test(issue.message) || issue.path.length === 0) continue
      const key = String(issue.path[0])
      if (!rules.has(key)) rules.set(key, new Set())
      rules.get(key)!.add(issue.message)
    }
  }
  return rules
}

function factsOf(e: Endpoint): EndpointFacts {
  const body = e.body ? defOf(e.body).type : undefined
  return {
    method: e.method,
    path: e.path,
    query: Object.keys(shapeOf(e.query) ?? {}),
    idempotent: e.idempotent,
    accountRef: e.accountRef,
    objectBody: body === 'object',
  }
}

/** The endpoints an operation may call: its own, its alternatives' and its wait target's. */
function endpointsOf(op: OperationSpec): EndpointId[] {
  const ids = [op.endpoint, ...(op.alternatives ?? []).map((a) => a.endpoint)]
  if (op.wait && op.wait.get !== 'self') ids.push(op.wait.get)
  return [...new Set(ids)]
}

/** The rule text of each field of an operation, from the zod schemas of the endpoint it goes to. */
function ruleTexts(op: OperationSpec): Record<string, string> {
  const names = flagNamesOf(op)
  const out: Record<string, string> = {}
  for (const field of op.fields) {
    const endpoint: Endpoint = endpoints[field.for ?? op.endpoint]
    const place = field.in ?? 'body'
    const rules: string[] = []
    if (place === 'path') {
      if (pathParams(endpoint.path).includes(field.key)) rules.push('required')
    } else {
      const schema = place === 'body' ? endpoint.body : endpoint.query
      const shape = shapeOf(schema)
      const own = shape?.[field.key]
      if (own) {
        const {messages, optional} = fieldMessages(own)
        if (!optional) rules.push('required')
        rules.push(...messages)
      }
      if (schema && shape) rules.push(...(crossFieldRules(schema, shape).get(field.key) ?? []))
    }
    // a field of one of several endpoints is needed only when that endpoint is chosen: the description says which
    const shown = field.for === undefined ? rules : rules.filter((r) => r !== 'required')
    out[field.key] = [...new Set(shown)].map((r) => withFlagNames(r, names)).join('; ')
  }
  return out
}

function derive(ops: readonly OperationSpec[]): Derived {
  const facts: Record<string, EndpointFacts> = {}
  const rules: Record<string, Record<string, string>> = {}
  for (const op of ops) {
    for (const id of endpointsOf(op)) facts[id] = factsOf(endpoints[id])
    rules[op.command] = ruleTexts(op)
  }
  return {endpoints: Object.fromEntries(Object.entries(facts).sort(([a], [b]) => a.localeCompare(b))), rules}
}

/** The text of src/api/operations.generated.ts: data, one line per endpoint and per operation. */
export function generatedModule(ops: readonly OperationSpec[]): string {
  const {endpoints: facts, rules} = derive(ops)
  const lines = (record: Record<string, unknown>) => Object.entries(record).map(([k, v]) => `    ${JSON.stringify(k)}: ${JSON.stringify(v)},`).join('\n')
  return `// Generated from the endpoint table and its zod schemas by src/api/operation-rules.ts: do not edit.
// test/api/operations.test.ts fails when it is stale; \`npx vitest run test/api/operations.test.ts -u\` rewrites it.
import type {Derived} from './operation-rules.js'

export const derived: Derived = {
  endpoints: {
${lines(facts)}
  },
  rules: {
${lines(rules)}
  },
}
`
}
