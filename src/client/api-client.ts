/**
 * The client core: every request of `pay` goes through ApiClient. It takes an endpoint of the table (or, for
 * `pay api`, a raw method and path), builds the URL and headers, attaches the bearer token, the Idempotency-Key
 * and the sub-account header where they apply, retries what is safe to retry, and maps failures to PayErrors.
 */
import {randomUUID} from 'node:crypto'
import {performance} from 'node:perf_hooks'
import {setTimeout as sleepMs} from 'node:timers/promises'
import {type Endpoint, type EndpointId, endpointList, endpoints, fillPath, matchEndpoint} from '../api/endpoints.js'
import {TokenCache} from '../config/token-cache.js'
import {TokenProvider, type TokenInfo} from './auth.js'
import {ApiError, InputError, NetworkError, hintFor} from './errors.js'
import {redactBodyText, redactHeaders, redactUrl, redactValues} from './redact.js'
import {DEFAULT_RETRIES, MAX_DELAY_MS, MAX_RETRY_AFTER_MS, type AttemptOutcome, backoffMs, classifyNetworkError, errorCode, isRetryable, retryAfterMs} from './retry-policy.js'
import {Transport, checkBaseUrl} from './transport.js'

export interface ClientSettings {
  baseUrl?: string
  clientId?: string
  clientSecret?: string
  accountRef?: string
  webhookSecret?: string
}

export interface ClientOptions {
  settings: ClientSettings
  userAgent: string
  retries?: number
  timeoutMs?: number
  /** Directory of the token cache; undefined disables caching. */
  tokenCacheDir?: string
  /** --debug sink (stderr). Receives already-redacted text. */
  debug?: (text: string) => void
  /** One-line notices for people (stderr): retries, waits. */
  notice?: (text: string) => void
  /** Warnings for people (stderr), e.g. a config dir that cannot hold the token cache. */
  warn?: (text: string) => void
  sleep?: (ms: number) => Promise<unknown>
  /** The HTTP transport (default: src/client/transport.ts); tests inject their own to run a command in-process. */
  transport?: Pick<Transport, 'send' | 'close'>
}

export interface CallInput {
  path?: Record<string, string>
  query?: Record<string, string | undefined>
  /** A JSON value (serialised once) or, for `pay api`, a ready string. */
  body?: unknown
  idempotencyKey?: string
  headers?: Record<string, string>
}

export interface PreparedRequest {
  endpoint?: Endpoint
  method: string
  url: string
  /** Headers without Authorization (added per attempt). */
  headers: Record<string, string>
  /** The exact bytes sent on every attempt. */
  body?: string
  idempotencyKey?: string
  auth: boolean
  /** GETs and requests carrying an Idempotency-Key may be repeated safely. */
  safeToRepeat: boolean
}

export interface ApiResponse<T = unknown> {
  status: number
  headers: Record<string, string>
  /** Parsed JSON body (undefined when the body is empty or not JSON). */
  body: T
  /** The body exactly as received: --json prints this. */
  text: string
  attempts: number
  request: PreparedRequest
  /** Problems found when checking the body against the endpoint's response schema. */
  schemaProblems?: string[]
}

export class ApiClient {
  readonly tokens: TokenProvider
  private transport?: Pick<Transport, 'send' | 'close'>
  private readonly retries: number
  private readonly timeoutMs: number
  private readonly sleep: (ms: number) => Promise<unknown>

  constructor(private readonly options: ClientOptions) {
    this.retries = options.retries ?? DEFAULT_RETRIES
    this.timeoutMs = options.timeoutMs ?? 30_000
    this.sleep = options.sleep ?? ((ms) => sleepMs(ms))
    const cache = options.tokenCacheDir ? new TokenCache(options.tokenCacheDir, options.warn ?? options.notice) : undefined
    this.tokens = new TokenProvider(
      {baseUrl: options.settings.baseUrl ?? '', clientId: options.settings.clientId, clientSecret: options.settings.clientSecret},
      cache,
      async () => {
        const {clientId, clientSecret} = this.options.settings
        // Asking for a token changes nothing at the service, so it is retried like a GET (not like other POSTs).
        const req = this.prepare('auth.token', {body: {grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret}})
        const res = await this.send({...req, safeToRepeat: true})
        const parsed = endpoints['auth.token'].response.safeParse(res.body)
        if (!parsed.success) throw new NetworkError('the token endpoint answered without a usable access_token', res.attempts)
        return parsed.data
      },
      this.requestBudgetMs(),
    )
  }

  /** The longest one request may legitimately take: every attempt timing out, with the longest waits between. */
  requestBudgetMs(): number {
    return (this.retries + 1) * this.timeoutMs + this.retries * Math.max(MAX_DELAY_MS, MAX_RETRY_AFTER_MS)
  }

  get settings(): ClientSettings {
    return this.options.settings
  }

  /** The base URL, checked (absolute; https unless loopback). Exit 2 when missing or unsafe. */
  baseUrl(): string {
    const base = this.options.settings.baseUrl
    if (!base) throw InputError.one('--base-url', 'is not set (flag, PAY_BASE_URL or a profile)', 'run `pay login`, or `pay sandbox start` to try pay against the local sandbox')
    checkBaseUrl(base)
    return base.replace(/\/+$/, '')
  }

  /** Builds the request for an endpoint of the table without sending it (used by --dry-run too). */
  prepare(id: EndpointId, input: CallInput = {}): PreparedRequest {
    const endpoint: Endpoint = endpoints[id]
    return this.build(endpoint.method, fillPath(endpoint.path, input.path), input, endpoint)
  }

  /** Builds a request for any method and path (`pay api`); rules of the table apply where the path is known. */
  prepareRaw(method: string, path: string, input: CallInput = {}): PreparedRequest {
    const clean = path.startsWith('/') ? path : `/${path}`
    const [pathname, search] = splitQuery(clean)
    const match = matchEndpoint(method, pathname)
    const query = {...Object.fromEntries(new URLSearchParams(search)), ...input.query}
    return this.build(method.toUpperCase(), pathname, {...input, query}, match?.endpoint)
  }

  private build(method: string, pathname: string, input: CallInput, endpoint?: Endpoint): PreparedRequest {
    const url = new URL(this.baseUrl() + pathname)
    for (const [k, v] of Object.entries(input.query ?? {})) if (v !== undefined) url.searchParams.set(k, v)
    const rules = endpoint ?? rulesForUnknownPath(method, pathname)
    const headers: Record<string, string> = {
      'user-agent': this.options.userAgent,
      accept: 'application/json',
    }
    let body: string | undefined
    if (input.body !== undefined) body = typeof input.body === 'string' ? input.body : JSON.stringify(input.body)
    if (body !== undefined || method === 'POST' || rules.auth) headers['content-type'] = 'application/json'
    if (method === 'POST' && body === undefined && endpoint?.body) body = '{}'

    if (rules.accountRef && this.options.settings.accountRef) headers['x-service-account-ref'] = this.options.settings.accountRef

    let idempotencyKey = input.idempotencyKey
    if (!idempotencyKey && endpoint?.idempotent) idempotencyKey = randomUUID()
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey
    for (const [k, v] of Object.entries(input.headers ?? {})) headers[k.toLowerCase()] = v

    return {endpoint, method, url: url.toString(), headers, body, idempotencyKey, auth: rules.auth, safeToRepeat: method === 'GET' || method === 'HEAD' || idempotencyKey !== undefined}
  }

  /** Calls an endpoint of the table. */
  async call<T = unknown>(id: EndpointId, input: CallInput = {}): Promise<ApiResponse<T>> {
    return this.send<T>(this.prepare(id, input))
  }

  /** A usable access token (cached or fresh). */
  async token(): Promise<TokenInfo> {
    this.baseUrl()
    return this.tokens.get()
  }

  /** Sends a prepared request: auth, retries with the same key and body bytes, one token refresh on 401. */
  async send<T = unknown>(req: PreparedRequest): Promise<ApiResponse<T>> {
    let attempt = 0
    let refreshedAfter401 = false
    for (;;) {
      attempt++
      const headers = {...req.headers}
      let token: string | undefined
      if (req.auth) {
        token = (await this.tokens.get()).access_token
        headers.authorization = `Bearer ${token}`
      }
      this.traceRequest(req, headers, attempt)
      const started = performance.now()
      let res
      try {
        res = await this.transportFor().send({method: req.method, url: req.url, headers, body: req.body, timeoutMs: this.timeoutMs})
      } catch (err) {
        const outcome = classifyNetworkError(err)
        const what = describeNetworkError(err, outcome, this.timeoutMs)
        this.trace(`<- ${what} after ${Math.round(performance.now() - started)} ms`)
        if (attempt <= this.retries && isRetryable(outcome, req.safeToRepeat)) {
          const wait = backoffMs(attempt)
          this.options.notice?.(`${what}; retrying in ${wait} ms (attempt ${attempt + 1} of ${this.retries + 1})`)
          await this.sleep(wait)
          continue
        }
        throw new NetworkError(
          `${req.method} ${new URL(req.url).pathname} failed: ${what}`,
          attempt,
          outcome.kind === 'network' && !outcome.sent
            ? `check that the service is reachable at ${new URL(req.url).origin} (pay profiles show, --base-url)`
            : 'try again; an idempotent request can be repeated safely with the same --idempotency-key',
        )
      }
      this.traceResponse(req, res, performance.now() - started)

      const body = parseJson(res.text)
      if (res.status === 401 && req.auth && !refreshedAfter401) {
        refreshedAfter401 = true
        this.options.notice?.('the access token was rejected; getting a fresh one and trying once more')
        await this.tokens.refresh(token)
        attempt--
        continue
      }
      if (res.status >= 400) {
        const outcome: AttemptOutcome = {kind: 'status', status: res.status}
        if (attempt <= this.retries && isRetryable(outcome, req.safeToRepeat)) {
          const asked = res.status === 429 ? retryAfterMs(res.headers, body) : undefined
          if (asked === undefined || asked <= MAX_RETRY_AFTER_MS) {
            const wait = asked ?? backoffMs(attempt)
            this.options.notice?.(`HTTP ${res.status}${asked !== undefined ? ' (Retry-After)' : ''}; retrying in ${wait} ms (attempt ${attempt + 1} of ${this.retries + 1})`)
            await this.sleep(wait)
            continue
          }
        }
        throw toApiError(res.status, res.text, body, attempt, res.headers)
      }
      const schemaProblems = checkResponse(req.endpoint, body)
      return {status: res.status, headers: res.headers, body: body as T, text: res.text, attempts: attempt, request: req, schemaProblems}
    }
  }

  async close(): Promise<void> {
    await this.transport?.close()
  }

  private transportFor(): Pick<Transport, 'send' | 'close'> {
    this.transport ??= this.options.transport ?? new Transport()
    return this.transport
  }

  private secrets(): (string | undefined)[] {
    const s = this.options.settings
    return [s.clientSecret, s.webhookSecret]
  }

  private trace(text: string): void {
    if (this.options.debug) this.options.debug(redactValues(text, this.secrets()))
  }

  private traceRequest(req: PreparedRequest, headers: Record<string, string>, attempt: number): void {
    if (!this.options.debug) return
    const lines = [`-> ${req.method} ${redactUrl(req.url)}${attempt > 1 ? ` (attempt ${attempt})` : ''}`]
    for (const [k, v] of Object.entries(redactHeaders(headers))) lines.push(`   ${k}: ${v}`)
    if (req.body !== undefined) lines.push(`   ${redactBodyText(req.body)}`)
    this.trace(lines.join('\n'))
  }

  private traceResponse(req: PreparedRequest, res: {status: number; headers: Record<string, string>; text: string}, ms: number): void {
    if (!this.options.debug) return
    const lines = [`<- ${res.status} ${req.method} ${new URL(req.url).pathname} (${Math.round(ms)} ms)`]
    for (const [k, v] of Object.entries(redactHeaders(res.headers))) lines.push(`   ${k}: ${v}`)
    if (res.text) lines.push(`   ${redactBodyText(res.text)}`)
    this.trace(lines.join('\n'))
  }
}

function splitQuery(path: string): [string, string] {
  const i = path.indexOf('?')
  return i === -1 ? [path, ''] : [path.slice(0, i), path.slice(i + 1)]
}

/**
 * The header rules for a path the table does not know (`pay api`), taken from the table: the bearer token always
 * (the one endpoint without it, the token endpoint, is in the table), and X-Service-Account-Ref unless an endpoint
 * of the same method and family (first two segments: /v1/metadata/*, /v1/balance) goes without it.
 */
function rulesForUnknownPath(method: string, pathname: string): {auth: boolean; accountRef: boolean} {
  const family = (path: string) => path.split('/').slice(0, 3).join('/')
  const exempt = endpointList.some((e) => !e.accountRef && e.auth && e.method === method && family(e.path) === family(pathname))
  return {auth: true, accountRef: !exempt}
}

export function parseJson(text: string): unknown {
  if (text === '') return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function describeNetworkError(err: unknown, outcome: AttemptOutcome, timeoutMs: number): string {
  if (outcome.kind === 'timeout') return `no answer within ${Math.round(timeoutMs / 1000)} s (timeout)`
  const code = errorCode(err)
  const message = err instanceof Error ? err.message : String(err)
  return code ? `${code}: ${message}` : message
}

export function toApiError(status: number, text: string, body: unknown, attempts: number, headers: Record<string, string>): ApiError {
  const err = (body as {error?: unknown} | undefined)?.error
  if (err && typeof err === 'object' && typeof (err as {code?: unknown}).code === 'string') {
    const e = err as {code: string; message?: unknown}
    const error = {...(err as Record<string, unknown>), code: e.code, message: typeof e.message === 'string' ? e.message : e.code}
    const asked = status === 429 ? retryAfterMs(headers, body) : undefined
    const hint = asked !== undefined && asked > MAX_RETRY_AFTER_MS ? `the service asks to wait ${Math.ceil(asked / 1000)} s before retrying` : hintFor(status, e.code, attempts, typeof e.message === 'string' ? e.message : '')
    return new ApiError(status, error, body, hint, attempts)
  }
  const snippet = text.replace(/\s+/g, ' ').trim().slice(0, 200)
  return new ApiError(status, {code: `http_${status}`, message: snippet || `HTTP ${status} with no error body`}, body ?? {error: {code: `http_${status}`, message: snippet}}, hintFor(status, undefined, attempts), attempts)
}

function checkResponse(endpoint: Endpoint | undefined, body: unknown): string[] | undefined {
  if (!endpoint) return undefined
  const parsed = endpoint.response.safeParse(body)
  if (parsed.success) return undefined
  return parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`)
}
