/**
 * The /v1 pipeline. Dispatch goes through `matchEndpoint` (src/api/endpoints.ts), so the sandbox serves
 * exactly the endpoint table the CLI calls, with its zod request schemas. Order of checks:
 * faults -> route -> auth (401) -> rate limit (429) -> Content-Type/Accept (400) -> X-Service-Account-Ref
 * (400/404) -> Idempotency-Key (400) -> JSON body (400) -> query/body schema (400) -> idempotent replay or
 * 409 mismatch -> handler -> store the answer for replay -> maybe drop the socket (fault).
 */
import {ACCOUNT_REF_HEADER, type Endpoint, type EndpointId, REPLAYED_HEADER, matchEndpoint} from '../api/endpoints.js'
import {issueToken, authenticate} from './auth.js'
import type {Ctx} from './context.js'
import {ApiError, errorBody, invalidParameter, notFound} from './errors.js'
import {reportBug} from './faults.js'
import {type SbRequest, type SbResponse, JSON_TYPE, header} from './http.js'
import {fingerprint, lookup, remember} from './idempotency.js'
import {newRequestId} from './ids.js'
import {rulesFor} from './rate-limit.js'
import {handlers} from './resources/index.js'
import type {Runtime} from './runtime.js'
import type {ClientRec, MerchantRec} from './state.js'
import {validate} from './validation.js'
import {parseJsonBody} from './json-body.js'
import {LOG_BODY_MAX} from './request-log.js'

type Match = ReturnType<typeof matchEndpoint>
/** By method, then path: no joined key to build and hash per request. */
const matchCache = new Map<string, Map<string, Match>>()
let matchCount = 0

/** matchEndpoint builds its patterns per call; the router memoises answers per method + path. */
function match(method: string, path: string): Match {
  let byPath = matchCache.get(method)
  if (byPath === undefined) matchCache.set(method, (byPath = new Map()))
  let m = byPath.get(path)
  if (m === undefined && !byPath.has(path)) {
    try {
      m = matchEndpoint(method, path)
    } catch {
      throw invalidParameter('path', 'holds malformed percent-encoding') // decodeURIComponent of a path parameter
    }
    if (++matchCount > 10_000) {
      for (const paths of matchCache.values()) paths.clear()
      matchCount = 1
    }
    byPath.set(path, m)
  }
  return m
}

const emptyQueries = new Map<Endpoint, Record<string, string> | null>()

/** The validated query; an empty one is validated once per endpoint (the answer cannot change). */
function validQuery(endpoint: Endpoint, query: Record<string, string>): Record<string, string> {
  for (const _ in query) return validate(endpoint.query!, query, 'query') as Record<string, string>
  let empty = emptyQueries.get(endpoint)
  if (empty === undefined) {
    const r = endpoint.query!.safeParse({})
    empty = r.success ? (r.data as Record<string, string>) : null
    emptyQueries.set(endpoint, empty)
  }
  return empty ?? (validate(endpoint.query!, query, 'query') as Record<string, string>)
}

// The exact common value is checked first: the patterns run only for other spellings.
function isJson(value: string | undefined): boolean {
  return value === 'application/json' || (value !== undefined && /^application\/json\s*(;|$)/i.test(value.trim()))
}

function accepts(value: string | undefined): boolean {
  return value === 'application/json' || (value !== undefined && /(^|,)\s*(application\/json|application\/\*|\*\/\*)\s*(;|,|$)/i.test(value))
}

function resolveAccount(merchant: MerchantRec, ref: string | undefined): MerchantRec['accounts'][number] {
  if (ref === undefined || ref === '') {
    if (merchant.products.sub_accounts) {
      throw invalidParameter('X-Service-Account-Ref', `header is required: sub-accounts are enabled for this merchant (one of its account refs)`)
    }
    return merchant.accounts[0]
  }
  const account = merchant.accounts.find((a) => a.account_ref === ref)
  if (!account) throw notFound(`account ${ref}`)
  return account
}

/** Answers a /v1 request: synchronously, unless injected latency or faults (--latency-ms, --fault-rate) make it wait. */
export function handleApi(rt: Runtime, req: SbRequest): SbResponse | Promise<SbResponse> {
  const requestId = newRequestId()
  if (!rt.faults.active) return answerApi(rt, req, requestId)
  return rt.faults.before().then(
    () => answerApi(rt, req, requestId),
    (err: unknown) => errorResponse(err, requestId, {}, undefined, rt.core.baseUrl),
  )
}

function answerApi(rt: Runtime, req: SbRequest, requestId: string): SbResponse {
  let rateHeaders: Record<string, string> = {}
  let logBody: unknown
  try {
    rt.faults.maybeBug()
    const m = match(req.method, req.path)
    if (!m) throw new ApiError(404, 'not_found', `no endpoint ${req.method} ${req.path}`)
    const {endpoint, params} = m
    const {core} = rt

    let client: ClientRec | undefined
    if (endpoint.auth) {
      client = authenticate(core, header(req, 'authorization')).client
      rateHeaders = rt.limiter.take(`m${client.merchant_id}`, rulesFor(rt.limiter.limits, endpoint.limit))
      // The spec's header table requires Content-Type: application/json on every authenticated request, GETs too.
      if (!isJson(header(req, 'content-type'))) throw invalidParameter('Content-Type', 'header must be application/json')
      if (!accepts(header(req, 'accept'))) throw invalidParameter('Accept', 'header must be application/json')
    } else {
      rateHeaders = rt.limiter.take(`ip${req.ip}`, rulesFor(rt.limiter.limits, 'token'))
      if (req.raw.length > 0 && !isJson(header(req, 'content-type'))) throw invalidParameter('Content-Type', 'header must be application/json')
    }

    let body: unknown
    if (req.method === 'POST') {
      body = parseJsonBody(req.raw)
      if (req.raw.length <= LOG_BODY_MAX) logBody = body // a larger body is logged as truncated text (server.ts)
    }

    if (!client) return tokenEndpoint(rt, endpoint, body, requestId, rateHeaders)

    const merchant = core.merchant(client.merchant_id)
    // metadata and balance ignore the header (spec: it applies to every request except those)
    const account = endpoint.accountRef ? resolveAccount(merchant, header(req, ACCOUNT_REF_HEADER)) : merchant.accounts[0]
    const key = header(req, 'idempotency-key')
    if (endpoint.idempotent && (key === undefined || key.trim() === '')) {
      throw invalidParameter('Idempotency-Key', 'header is required on this endpoint (a UUID is recommended)')
    }
    if (key !== undefined && key.length > 255) throw invalidParameter('Idempotency-Key', 'must be at most 255 characters')

    const query = endpoint.query ? validQuery(endpoint, req.query) : req.query
    let print = ''
    if (endpoint.idempotent && key) {
      print = fingerprint(endpoint.id, params, account.id, body)
      const stored = lookup(core.state, merchant.id, key, print)
      if (stored) {
        return {status: stored.status, headers: {'content-type': JSON_TYPE, [REPLAYED_HEADER]: 'true', 'x-request-id': requestId, ...rateHeaders}, body: stored.body, logBody, requestId}
      }
    }
    const parsedBody = endpoint.body ? validate(endpoint.body, body, 'body') : body

    const ctx: Ctx = {core, merchant, account, client, params, query, body: parsedBody}
    const result = handlers[endpoint.id as Exclude<EndpointId, 'auth.token'>](ctx)
    const text = result.text ?? JSON.stringify(result.body)
    if (req.method === 'POST') {
      if (endpoint.idempotent && key) remember(core.state, merchant.id, key, print, result.status, text, core.now())
      core.changed()
      if (rt.faults.dropAfterCommit()) return {status: result.status, headers: {}, body: '', drop: true, logBody, requestId}
    }
    return {status: result.status, headers: {'content-type': JSON_TYPE, 'x-request-id': requestId, ...rateHeaders}, body: text, logBody, requestId}
  } catch (err) {
    return errorResponse(err, requestId, rateHeaders, logBody, rt.core.baseUrl)
  }
}

function tokenEndpoint(rt: Runtime, endpoint: Endpoint, body: unknown, requestId: string, rateHeaders: Record<string, string>): SbResponse {
  const parsed = validate(endpoint.body!, body, 'body') as {client_id: string; client_secret: string}
  const l = rt.limiter.limits
  const clientHeaders = rt.limiter.take(`c${parsed.client_id}`, [{name: 'token-client-minute', limit: l.tokenPerMinutePerClient, windowMs: 60_000}])
  const answer = issueToken(rt.core, parsed)
  rt.core.changed()
  return {
    status: endpoint.success,
    headers: {'content-type': JSON_TYPE, 'cache-control': 'no-store', 'x-request-id': requestId, ...rateHeaders, ...clientHeaders},
    body: JSON.stringify(answer),
    logBody: body,
    requestId,
  }
}

export function errorResponse(err: unknown, requestId: string, rateHeaders: Record<string, string> = {}, logBody?: unknown, docBase = ''): SbResponse {
  const apiError =
    err instanceof ApiError ? err : new ApiError(500, 'internal_error', `sandbox bug: ${err instanceof Error ? err.message : String(err)}`)
  if (!(err instanceof ApiError)) reportBug('sandbox bug:', err)
  return {
    status: apiError.status,
    headers: {'content-type': JSON_TYPE, 'x-request-id': requestId, ...rateHeaders, ...apiError.extra.headers},
    body: JSON.stringify(errorBody(apiError, requestId, docBase)),
    logBody,
    requestId,
  }
}
