/**
 * The shape of an operation spec (src/api/operations.ts). Types only: importing this costs nothing at run time.
 */
import type {EndpointId} from './endpoints.js'

/** Lists a prompt can offer as choices, fetched from the service. */
export type ChoiceSource = 'providers' | 'banks' | 'plans'

/** How the human output of an operation looks (src/output/views.ts). */
export type ViewName =
  | 'collection'
  | 'checkout'
  | 'payout'
  | 'transaction'
  | 'verification'
  | 'mandate-create'
  | 'mandate'
  | 'mandate-cancellation'
  | 'debit'
  | 'plans'
  | 'subscription'
  | 'customer'
  | 'customer-collections'
  | 'virtual-account'
  | 'banks'
  | 'providers'
  | 'balance'
  | 'account'

export type FieldPlace = 'body' | 'query' | 'path'

export interface PromptSpec {
  /** The question, without a trailing colon. */
  message: string
  /** Offer a list from the service, or fixed values. */
  choices?: ChoiceSource | readonly string[]
  default?: string
  /** Hide the answer (not used for money fields). */
  secret?: boolean
  /** Show the field's format rule from the schema with the question: "Wallet number (must be 10 to 15 digits)". */
  rule?: boolean
}

/** One input of an operation: the request field it fills and the flag (or argument) that carries it. */
export interface FieldSpec {
  /** Name in the body, query or path template: the zod schema's field name (`merchant_reference`). */
  key: string
  /** Where it goes (default body). */
  in?: FieldPlace
  /** Flag name without `--` (default: key with `_` → `-`). Not with `arg`. */
  flag?: string
  /** A positional argument instead of a flag (`id`, `mandate_id`); shown upper-cased (`MANDATE_ID`). */
  arg?: string
  char?: string
  helpValue?: string
  /** What the flag means, for people. The rule text is added from the zod schema; do not restate it here. */
  help: string
  /** Upper-case the value (currency codes, frequency). */
  upper?: boolean
  /** How to ask for it on a terminal when it is missing; false never asks; a string is the question. */
  prompt?: string | PromptSpec | false
  /** The field belongs to this endpoint only (operations with `alternatives`). */
  for?: EndpointId
}

/** Where a value of the wait request comes from: the first answer's body, or the request's own input. */
export type ValueSource = `response.${string}` | `body.${string}` | `path.${string}` | `query.${string}`

export interface WaitSpec {
  /** The get endpoint that reports the state; 'self' polls the operation's own endpoint with the same input. */
  get: EndpointId | 'self'
  /** The get's path/query values, each from the first sources that give one (not used with 'self'). */
  path?: Record<string, readonly ValueSource[]>
  query?: Record<string, readonly ValueSource[]>
  /** What is waited for, for people: "collection" → "collection CL_123". */
  noun: string
  /** Where the name after the noun comes from (default: the get's first path or query value). */
  label?: readonly ValueSource[]
  /** Terminal states (spec: States): exit 0 on `succeeded`, 8 on `failed`. */
  succeeded: readonly string[]
  failed: readonly string[]
  /** The states the interface lists that are not final; any other state is unknown (not final, said once). */
  pending: readonly string[]
  /** The view of the get's answer, when it differs from the operation's. */
  view?: ViewName
}

interface Example {
  description: string
  /** The command line after `pay` (`collections create --amount …`). */
  command: string
}

/** A flag that switches the operation to another endpoint (`collections get --reference`). */
interface Alternative {
  /** The flag that selects it (a field's flag, or a boolean flag declared here). */
  flag: string
  endpoint: EndpointId
  /** For a boolean selector: its help. */
  help?: string
  /** The answer that picks it in `choose`. */
  choice?: string
}

export interface OperationSpec {
  /** oclif command id: `collections:create`. */
  command: string
  /** The endpoint of the table this operation calls (the default one when there are alternatives). */
  endpoint: EndpointId
  alternatives?: readonly Alternative[]
  /** On a terminal, when no selector was given, ask which endpoint: the default's answer first. */
  choose?: {message: string; default: string}
  summary: string
  /** What people need to know beyond the endpoint line, which is made from the table (method, path, idempotent). */
  description: string
  fields: readonly FieldSpec[]
  view: ViewName
  wait?: WaitSpec
  /** `--all`: follow the pages (query key `page`) to the end, streaming the list rows. */
  paging?: {flag: string; help: string; exclusive: readonly string[]; noun: string}
  /** The answer is a list: `--limit` (and `--all`, which follows `paging` where the service pages). */
  list?: boolean
  /**
   * Money moves: on a terminal, against a profile marked live, say what will happen (amount, currency, the
   * destination read from these request values, reference) and ask; `--yes` skips. `when`: money moves only when
   * this request value is set (a mandate with a plan enrols a subscriber, who is charged; one without moves none).
   * `plan`: what is charged is the amount of the plan this value names (not an amount of the body).
   * The one test of it: movesMoney (src/operation/confirm.ts).
   */
  confirm?: {destination: readonly ValueSource[]; when?: ValueSource; plan?: ValueSource}
  /** `--open`: open this response field (a URL) in the browser. */
  open?: {flag: string; help: string; field: string}
  /** --data / -F for extra body fields (default: the endpoint has an object body). */
  extraBody?: boolean
  /** A body always sent as is (the virtual-account POSTs send `[]`). */
  fixedBody?: unknown
  examples: readonly Example[]
  aliases?: readonly string[]
}
