/**
 * The help of an operation, made from its spec and what was derived from the endpoint table (method, path,
 * idempotency, rule texts; src/api/operations.generated.ts). Light: no zod, no oclif. Read by the resource
 * commands' --help, the README reference (through oclif) and the drift test.
 */
import {inputLabel} from './operation-names.js'
import type {EndpointFacts} from './operation-rules.js'
import type {FieldSpec, OperationSpec} from './operation-types.js'
import {derived} from './operations.generated.js'

export function factsOf(id: string): EndpointFacts {
  const facts = derived.endpoints[id]
  if (!facts) throw new Error(`${id} is not in operations.generated.ts: regenerate it (test/api/operations.test.ts -u)`)
  return facts
}

/** `POST /v1/collections (idempotent)`, `GET /v1/mandates?merchant_reference=…`. */
function endpointLine(id: string): string {
  const f = factsOf(id)
  const query = f.query.length > 0 ? '?' + f.query.map((k) => `${k}=…`).join('&') : ''
  return `${f.method} ${f.path}${query}${f.idempotent ? ' (idempotent)' : ''}`
}

/** The selector of an endpoint of the operation: the flag given for it. */
function selectorOf(op: OperationSpec, id: string): string {
  const alt = op.alternatives?.find((a) => a.endpoint === id)
  if (alt) return `--${alt.flag}`
  const own = op.fields.find((f) => f.for === id)
  return own ? inputLabel(own) : ''
}

/** The first lines of the description: what is called, from the table. */
function endpointLines(op: OperationSpec): string {
  const ids = [op.endpoint, ...(op.alternatives ?? []).map((a) => a.endpoint)]
  const line = ids.length === 1 ? endpointLine(op.endpoint) + '.' : ids.map((id) => `${selectorOf(op, id)}: ${endpointLine(id)}.`).join(' ')
  const noRef = ids.every((id) => !factsOf(id).accountRef)
  return noRef ? `${line} The sub-account header is never sent for this endpoint.` : line
}

/** The --wait sentence, from the wait target and its terminal states. */
function waitLine(op: OperationSpec): string | undefined {
  const w = op.wait
  if (!w) return undefined
  const get = w.get === 'self' ? '' : ` ${endpointLine(w.get).replace(/ \(idempotent\)$/, '')}`
  return `With --wait, polls${get} until the ${w.noun} reaches ${w.succeeded.join(' or ')} (exit 0) or ${w.failed.join(' or ')} (exit 8), or --wait-timeout runs out (exit 9).`
}

export function descriptionOf(op: OperationSpec): string {
  return [endpointLines(op), op.description, waitLine(op)].filter(Boolean).join('\n')
}

/** A flag's or argument's help: what it means (the spec) and its rule (the schema). */
export function fieldHelp(op: OperationSpec, field: FieldSpec): string {
  const rule = derived.rules[op.command]?.[field.key]
  return rule ? `${field.help}; ${rule}` : field.help
}

/** The format rules of a field ("must be 10 to 15 digits"), without whether or when it is required. */
export function formatRules(op: OperationSpec, field: FieldSpec): string | undefined {
  const rules = (derived.rules[op.command]?.[field.key] ?? '').split('; ').filter((r) => r.startsWith('must ') && !r.includes(' when '))
  return rules.length > 0 ? rules.join('; ') : undefined
}

/** Examples as oclif shows them (`<%= config.bin %> collections create …`). */
export function examplesOf(op: OperationSpec): {description: string; command: string}[] {
  return op.examples.map((e) => ({description: e.description, command: `<%= config.bin %> ${e.command}`}))
}
