/**
 * The kinds of object a merchant reference or an id can name, and how each is looked up (spec: Resources and their
 * fields, Endpoints): what `pay find` asks for a query and what `pay reconcile` asks for a row. One table, so the
 * two commands cannot disagree on which endpoint answers for a kind, which field holds its id, or which state counts
 * as its success (the operation specs' --wait states, src/api/operations.ts).
 */
import type {EndpointId} from './endpoints.js'
import {operationList, operations} from './operations.js'
import {shellArgument, shellQuote} from '../base/shell-quote.js'

type KindName = 'collection' | 'checkout_session' | 'payout' | 'mandate' | 'debit' | 'subscription'

export interface Kind {
  name: KindName
  /** For people: "collection". */
  label: string
  /** The `object` field of its answers. */
  object: string
  /** The id prefix of the spec (none for a debit: the spec shows none). */
  prefix?: string
  /** The answer's field holding its id. */
  idField: 'id' | 'mandate_id' | 'subscription_id'
  /** Whether its create answer carries its id (a mandate's does not: spec, Mandate create response). */
  idInCreateAnswer: boolean
  /** GET by id, when the interface has one. */
  byId?: EndpointId
  /** GET by merchant reference; a debit's needs its mandate id as well. */
  byReference: EndpointId
  /** Its terminal states (the operation spec's --wait states): success and failure. */
  states: {succeeded: readonly string[]; failed: readonly string[]}
  /** Other names a file's `kind` column may use. */
  aliases: readonly string[]
}

const statesOf = (command: keyof typeof operations) => {
  const wait = (operations[command] as {wait?: {succeeded: readonly string[]; failed: readonly string[]}}).wait
  return {succeeded: wait?.succeeded ?? [], failed: wait?.failed ?? []}
}

export const KINDS: readonly Kind[] = [
  {name: 'collection', label: 'collection', object: 'collection', prefix: 'CL_', idField: 'id', idInCreateAnswer: true, byId: 'collections.get', byReference: 'collections.getByReference', states: statesOf('collections:get'), aliases: ['collections']},
  {name: 'payout', label: 'payout', object: 'payout', prefix: 'PO_', idField: 'id', idInCreateAnswer: true, byReference: 'payouts.get', states: statesOf('payouts:get'), aliases: ['payouts']},
  // the only lookup of a session by reference is the unified verify snapshot (its `object` says which kind it found)
  {name: 'checkout_session', label: 'checkout session', object: 'checkout_session', prefix: 'CS_', idField: 'id', idInCreateAnswer: true, byId: 'checkout.get', byReference: 'transactions.verify', states: statesOf('checkout:get'), aliases: ['checkout', 'checkout-session', 'checkout_sessions', 'session', 'pay-link']},
  {name: 'mandate', label: 'mandate', object: 'mandate', prefix: 'MD_', idField: 'mandate_id', idInCreateAnswer: false, byReference: 'mandates.get', states: statesOf('mandates:get'), aliases: ['mandates']},
  {name: 'debit', label: 'debit', object: 'mandate_debit', idField: 'id', idInCreateAnswer: true, byReference: 'debits.status', states: statesOf('debits:status'), aliases: ['debits', 'mandate_debit']},
  {name: 'subscription', label: 'subscription', object: 'subscription', prefix: 'SUB_', idField: 'subscription_id', idInCreateAnswer: true, byReference: 'subscriptions.get', states: statesOf('subscriptions:get'), aliases: ['subscriptions']},
]

/** A kind by its name or one of its aliases (case-insensitive). */
export function kindNamed(name: string): Kind | undefined {
  const n = name.trim().toLowerCase()
  return KINDS.find((k) => k.name === n || k.aliases.includes(n))
}

/** The kind an answer is (its `object` field). */
export function kindOfObject(object: unknown): Kind | undefined {
  return KINDS.find((k) => k.object === object)
}

/** The kind an id's prefix names. */
export function kindOfId(id: string): Kind | undefined {
  return KINDS.find((k) => k.prefix !== undefined && id.startsWith(k.prefix))
}

/** The kind whose create (or other write) request an endpoint of the table is: `collections.create` → collection. */
export function kindOfEndpoint(endpoint: string): Kind | undefined {
  const [group] = endpoint.split('.')
  return KINDS.find((k) => k.byReference.split('.')[0] === group || k.byId?.split('.')[0] === group)
}

/** The request that looks a kind up by merchant reference (a debit's with its mandate id): a path or a query. */
export function referenceLookup(kind: Kind, reference: string, mandateId?: string): {endpoint: EndpointId; input: {path?: Record<string, string>; query?: Record<string, string>}} {
  switch (kind.byReference) {
    case 'transactions.verify':
    case 'payouts.get':
      return {endpoint: kind.byReference, input: {path: {merchant_reference: reference}}}
    case 'debits.status':
      return {endpoint: kind.byReference, input: {query: {mandate_id: mandateId ?? '', merchant_reference: reference}}}
    default:
      return {endpoint: kind.byReference, input: {query: {merchant_reference: reference}}}
  }
}

/** The id of an answer of this kind (its idField), when it has one. */
export function idOf(kind: Kind, body: Record<string, unknown>): string | undefined {
  const id = body[kind.idField]
  return typeof id === 'string' ? id : undefined
}

/** Whether a state is the kind's success, its failure, or neither yet (processing, pending_approval, …). */
export function stateClass(kind: Kind, state: string | undefined): 'succeeded' | 'failed' | 'pending' {
  const s = state?.toLowerCase()
  if (s !== undefined && kind.states.succeeded.includes(s)) return 'succeeded'
  if (s !== undefined && kind.states.failed.includes(s)) return 'failed'
  return 'pending'
}

/**
 * The `pay` command that looks up, by its merchant reference, what a request of `endpoint` made: its kind's lookup by
 * reference (`byReference`) through the operation spec that calls it (`pay mandates get --reference md-1`, `pay debits
 * status --mandate MD_1 --reference db-1`, `pay transactions verify cs-1`), each value quoted for a shell. `params`: the
 * request's path parameters (a debit's mandate id; pathParamsOf). Undefined when the endpoint makes no kind of this
 * table, or a value the lookup needs is not known: the caller points at `pay find` or `pay journal` then.
 */
export function lookupCommand(endpoint: string | undefined, reference: string, params: Record<string, string> = {}): string | undefined {
  const kind = endpoint === undefined ? undefined : kindOfEndpoint(endpoint)
  if (!kind) return undefined
  const spec = operationList.find((o) => o.endpoint === kind.byReference) ?? operationList.find((o) => o.alternatives?.some((a) => a.endpoint === kind.byReference))
  if (!spec) return undefined
  const flags: string[] = []
  const args: string[] = []
  for (const f of spec.fields) {
    if (f.for !== undefined && f.for !== kind.byReference) continue
    const value = f.key === 'merchant_reference' ? reference : params[f.key]
    if (value === undefined) return undefined
    const flag = `--${f.flag ?? f.key.replaceAll('_', '-')}`
    if (f.arg !== undefined) args.push(shellArgument(value))
    else if (value.startsWith('-')) flags.push(shellQuote(`${flag}=${value}`)) // else read as a flag of its own
    else flags.push(flag, shellQuote(value))
  }
  return ['pay', ...spec.command.split(':'), ...flags, ...args].join(' ')
}

/** The values of a path template's parameters in a URL whose path ends with it (`{mandate_id}` of `/v1/mandates/MD_1/debits`). */
export function pathParamsOf(template: string, url: string): Record<string, string> {
  const names: string[] = []
  const pattern = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_, name: string) => {
    names.push(name)
    return '([^/]+)'
  })
  let m: RegExpExecArray | null = null
  try {
    m = new RegExp(`${pattern}$`).exec(new URL(url).pathname)
  } catch {
    // not a URL: none known
  }
  const params: Record<string, string> = {}
  names.forEach((n, i) => {
    if (m?.[i + 1] === undefined) return
    try {
      params[n] = decodeURIComponent(m[i + 1])
    } catch {
      // a malformed escape: not known
    }
  })
  return params
}
