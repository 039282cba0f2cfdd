/**
 * The one declarative table of the Payments Service's endpoints (spec: Endpoints / Summary).
 * Every request of the CLI, the generic `pay api` and the sandbox's router go through it:
 * nobody builds a URL, picks headers or a schema by hand.
 */
import type {z} from 'zod'
import * as s from './schemas.js'
import {DOT_SEGMENT_RULE, isDotSegment} from '../base/text-rules.js'

type HttpMethod = 'GET' | 'POST'
/** Rate-limit class of an endpoint (spec: Limits). */
export type LimitClass = 'token' | 'write' | 'read' | 'metadata' | 'verification'

export interface Endpoint {
  readonly id: string
  readonly method: HttpMethod
  /** Path template, `{name}` marks a path parameter. */
  readonly path: string
  readonly summary: string
  /** Needs the bearer token (all but the token endpoint). */
  readonly auth: boolean
  /** Needs an Idempotency-Key header. */
  readonly idempotent: boolean
  /** X-Service-Account-Ref applies (every authenticated request except GET /v1/metadata/* and GET /v1/balance). */
  readonly accountRef: boolean
  readonly success: number
  readonly limit: LimitClass
  readonly query?: z.ZodType
  readonly body?: z.ZodType
  readonly response: z.ZodType
}

/**
 * The header with which a service marks an answer it replays for a reused key: the sandbox sends it, pay reads it
 * (src/journal/gate.ts); the interface names none (docs/assumptions.md, "The answer to a resumed key").
 */
export const REPLAYED_HEADER = 'idempotent-replayed'

/** The header naming the sub-account a request is for (the interface's X-Service-Account-Ref). */
export const ACCOUNT_REF_HEADER = 'x-service-account-ref'

/** An endpoint's schemas as the table gives them: each a function of src/api/schemas.ts that makes it once. */
interface Schemas {
  query?: () => z.ZodType
  body?: () => z.ZodType
  response: () => z.ZodType
}
type Row = Omit<Endpoint, 'auth' | 'accountRef' | keyof Schemas> & {auth?: boolean; accountRef?: boolean} & Schemas
/** What reading a row's schema gives: the schema the function makes. */
type Built<E> = {readonly [K in keyof E & keyof Schemas]: E[K] extends () => infer S ? S : never}

/**
 * An entry of the table. Its query, body and response are getters (enumerable: a spread copy has them): loading
 * the table makes no zod schema, only reading one does, once (the functions keep what they made). A command's
 * usual path reads none: stored plans check its request and answer (src/api/validate.ts, src/api/sure-match.ts).
 */
function endpoint<const E extends Row>(e: E) {
  const {query, body, response, ...rest} = e
  const auth = e.auth ?? true
  const row = {...rest, auth, accountRef: e.accountRef ?? auth}
  for (const [key, make] of [['query', query], ['body', body], ['response', response]] as const) {
    if (make) Object.defineProperty(row, key, {get: make, enumerable: true})
  }
  return row as Omit<E, keyof Schemas> & Built<E> & {auth: boolean; accountRef: boolean}
}

export const endpoints = {
  'auth.token': endpoint({id: 'auth.token', method: 'POST', path: '/v1/oauth/token', summary: 'Get an access token (client credentials)', auth: false, idempotent: false, success: 200, limit: 'token', body: s.tokenRequest, response: s.tokenResponse}),
  'collections.create': endpoint({id: 'collections.create', method: 'POST', path: '/v1/collections', summary: 'Charge a mobile money wallet or issue a dynamic bank virtual account', idempotent: true, success: 201, limit: 'write', body: s.collectionCreateRequest, response: s.collection}),
  'collections.getByReference': endpoint({id: 'collections.getByReference', method: 'GET', path: '/v1/collections', summary: 'Look up a collection by merchant reference', idempotent: false, success: 200, limit: 'read', query: s.byReferenceQuery, response: s.collection}),
  'collections.get': endpoint({id: 'collections.get', method: 'GET', path: '/v1/collections/{id}', summary: 'Get a collection by id', idempotent: false, success: 200, limit: 'read', response: s.collection}),
  'checkout.create': endpoint({id: 'checkout.create', method: 'POST', path: '/v1/checkout/sessions', summary: 'Create a hosted checkout session (pay link)', idempotent: true, success: 201, limit: 'write', body: s.checkoutCreateRequest, response: s.checkoutSession}),
  'checkout.get': endpoint({id: 'checkout.get', method: 'GET', path: '/v1/checkout/sessions/{id}', summary: 'Get a checkout session', idempotent: false, success: 200, limit: 'read', response: s.checkoutSession}),
  'transactions.verify': endpoint({id: 'transactions.verify', method: 'GET', path: '/v1/transactions/verify/{merchant_reference}', summary: 'Find the collection, payout or checkout with a merchant reference', idempotent: false, success: 200, limit: 'read', response: s.verifySnapshot}),
  'payouts.create': endpoint({id: 'payouts.create', method: 'POST', path: '/v1/payouts', summary: 'Create a payout from the payout wallet', idempotent: true, success: 201, limit: 'write', body: s.payoutCreateRequest, response: s.payout}),
  'payouts.get': endpoint({id: 'payouts.get', method: 'GET', path: '/v1/payouts/{merchant_reference}', summary: 'Get a payout by merchant reference', idempotent: false, success: 200, limit: 'read', response: s.payout}),
  'verifications.msisdn': endpoint({id: 'verifications.msisdn', method: 'POST', path: '/v1/verifications/msisdn', summary: 'Check the name behind a mobile money number', idempotent: false, success: 200, limit: 'verification', body: s.msisdnVerificationRequest, response: s.verificationResult}),
  'verifications.bankAccount': endpoint({id: 'verifications.bankAccount', method: 'POST', path: '/v1/verifications/bank_accounts', summary: 'Check the name behind a bank account', idempotent: false, success: 200, limit: 'verification', body: s.bankAccountVerificationRequest, response: s.verificationResult}),
  'mandates.create': endpoint({id: 'mandates.create', method: 'POST', path: '/v1/mandates', summary: 'Create a direct-debit mandate', idempotent: true, success: 201, limit: 'write', body: s.mandateCreateRequest, response: s.mandateCreateResponse}),
  'mandates.get': endpoint({id: 'mandates.get', method: 'GET', path: '/v1/mandates', summary: 'Look up a mandate by merchant reference', idempotent: false, success: 200, limit: 'read', query: s.byReferenceQuery, response: s.mandate}),
  'mandates.cancel': endpoint({id: 'mandates.cancel', method: 'POST', path: '/v1/mandates/{mandate_id}/cancel', summary: 'Cancel a mandate', idempotent: true, success: 200, limit: 'write', body: s.mandateCancelRequest, response: s.mandateCancellation}),
  'debits.create': endpoint({id: 'debits.create', method: 'POST', path: '/v1/mandates/{mandate_id}/debits', summary: 'Debit an approved mandate', idempotent: true, success: 201, limit: 'write', body: s.debitCreateRequest, response: s.mandateDebit}),
  'debits.status': endpoint({id: 'debits.status', method: 'GET', path: '/v1/mandate_debits/status', summary: 'Status of a mandate debit', idempotent: false, success: 200, limit: 'read', query: s.debitStatusQuery, response: s.mandateDebit}),
  'plans.list': endpoint({id: 'plans.list', method: 'GET', path: '/v1/subscription_plans', summary: 'List active subscription plans', idempotent: false, success: 200, limit: 'read', response: s.planList}),
  'subscriptions.create': endpoint({id: 'subscriptions.create', method: 'POST', path: '/v1/subscriptions', summary: 'Enrol a subscriber on a plan', idempotent: true, success: 201, limit: 'write', body: s.subscriptionCreateRequest, response: s.subscription}),
  'subscriptions.get': endpoint({id: 'subscriptions.get', method: 'GET', path: '/v1/subscriptions', summary: 'Look up a subscription by merchant reference', idempotent: false, success: 200, limit: 'read', query: s.byReferenceQuery, response: s.subscription}),
  'customers.get': endpoint({id: 'customers.get', method: 'GET', path: '/v1/customers/{id}', summary: 'Get a customer', idempotent: false, success: 200, limit: 'read', response: s.customer}),
  'customers.createVirtualAccount': endpoint({id: 'customers.createVirtualAccount', method: 'POST', path: '/v1/customers/{id}/virtual-account', summary: "Issue (or return) a customer's static bank account", idempotent: true, success: 200, limit: 'write', body: s.emptyArrayBody, response: s.virtualAccountWrapper}),
  'customers.getVirtualAccount': endpoint({id: 'customers.getVirtualAccount', method: 'GET', path: '/v1/customers/{id}/virtual-account', summary: "Get a customer's static bank account", idempotent: false, success: 200, limit: 'read', response: s.virtualAccountWrapper}),
  'customers.collections': endpoint({id: 'customers.collections', method: 'GET', path: '/v1/customers/{id}/collections', summary: "List a customer's collections", idempotent: false, success: 200, limit: 'read', query: s.customerCollectionsQuery, response: s.customerCollectionList}),
  'merchantVirtualAccount.create': endpoint({id: 'merchantVirtualAccount.create', method: 'POST', path: '/v1/virtual-accounts/merchant', summary: "Create (or return) the merchant's standing static account", idempotent: true, success: 200, limit: 'write', body: s.emptyArrayBody, response: s.virtualAccountWrapper}),
  'merchantVirtualAccount.get': endpoint({id: 'merchantVirtualAccount.get', method: 'GET', path: '/v1/virtual-accounts/merchant', summary: "Get the merchant's standing static account", idempotent: false, success: 200, limit: 'read', response: s.virtualAccountWrapper}),
  'metadata.banks': endpoint({id: 'metadata.banks', method: 'GET', path: '/v1/metadata/banks', summary: 'List banks', idempotent: false, accountRef: false, success: 200, limit: 'metadata', response: s.bankList}),
  'metadata.providers': endpoint({id: 'metadata.providers', method: 'GET', path: '/v1/metadata/mobile_providers', summary: 'List mobile money providers', idempotent: false, accountRef: false, success: 200, limit: 'metadata', response: s.providerList}),
  'balance.get': endpoint({id: 'balance.get', method: 'GET', path: '/v1/balance', summary: 'Wallet balances', idempotent: false, accountRef: false, success: 200, limit: 'read', query: s.balanceQuery, response: s.balance}),
  'account.get': endpoint({id: 'account.get', method: 'GET', path: '/v1/account', summary: 'The authenticated merchant and sub-account', idempotent: false, success: 200, limit: 'read', response: s.accountContext}),
} as const satisfies Record<string, Endpoint>

export type EndpointId = keyof typeof endpoints

export const endpointList: readonly Endpoint[] = Object.values(endpoints)

/** Path parameter names of a template, in order: '/v1/x/{id}/y' -> ['id']. */
export function pathParams(template: string): string[] {
  return [...template.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1])
}

/**
 * Why a path parameter's value cannot be sent, or undefined. "." and ".." stay as they are when URI-encoded
 * (isDotSegment): a URL reads them as steps in the path, so `mandates cancel ..` would POST to /v1/cancel. ("%2e",
 * which a URL reads as a dot too, is encoded to "%252e": no step.) The check of every command's input
 * (src/operation/run-operation.ts) and fillPath both ask this.
 */
export function pathValueRule(value: string): string | undefined {
  if (value.trim() === '') return 'must not be empty'
  if (isDotSegment(value)) return DOT_SEGMENT_RULE
  return undefined
}

/** Fills a path template; every value is URI-encoded. Throws on a missing parameter or a dot segment (pathValueRule). */
export function fillPath(template: string, params: Record<string, string> = {}): string {
  return template.replace(/\{([a-z_]+)\}/g, (_, name: string) => {
    const value = params[name]
    if (value === undefined || value === '') throw new Error(`missing path parameter ${name}`)
    if (isDotSegment(value)) throw new Error(`path parameter ${name} ${DOT_SEGMENT_RULE}`)
    return encodeURIComponent(value)
  })
}

/** Path patterns of the table, compiled on the first match: only `pay api` and the sandbox match paths. */
let compiled: {endpoint: Endpoint; names: string[]; pattern: RegExp}[] | undefined

/** Matches a concrete method and path against the table (used by `pay api` and the sandbox router). */
export function matchEndpoint(method: string, path: string): {endpoint: Endpoint; params: Record<string, string>} | undefined {
  const upper = method.toUpperCase()
  compiled ??= endpointList.map((endpoint) => ({
    endpoint,
    names: pathParams(endpoint.path),
    pattern: new RegExp('^' + endpoint.path.replace(/\{[a-z_]+\}/g, '([^/]+)') + '/?$'),
  }))
  for (const {endpoint, names, pattern} of compiled) {
    if (endpoint.method !== upper) continue
    const m = pattern.exec(path)
    if (!m) continue
    const params: Record<string, string> = {}
    names.forEach((n, i) => {
      params[n] = decodeURIComponent(m[i + 1])
    })
    return {endpoint, params}
  }
  return undefined
}
