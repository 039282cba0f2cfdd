/**
 * The client core: every request of `pay` goes through ApiClient. It takes an endpoint of the table (or, for
 * `pay api`, a raw method and path), builds the URL and headers, attaches the bearer token, the Idempotency-Key
 * and the sub-account header where they apply, retries what is safe to retry, and maps failures to PayErrors.
 */
import {ACCOUNT_REF_HEADER, REPLAYED_HEADER, type Endpoint, type EndpointId, endpointList, endpoints, fillPath, matchEndpoint} from '../api/endpoints.js'
import {statedReading} from '../api/schemas.js'
import {storedCheck, surelyMatches} from '../api/sure-match.js'
import {answerPlans} from '../api/sure-plans.generated.js'
import {TokenCache} from '../config/token-cache.js'
import {TokenProvider, type TokenInfo} from './auth.js'
import {ApiError, InputError, InvalidResponseError, NetworkError, hintFor, PayError} from '../base/errors.js'
import {redactAnswer, redactBodyText, redactHeaders, redactUrl, redactValues} from '../base/redact.js'
import {DEFAULT_RETRIES, MAX_RETRY_AFTER_MS, type AttemptOutcome, type Decision, RequestAttempts, classOfError, askedWaitMs, classifyNetworkError, errorCode, mayHaveReached, saysAbsent, statusOutcome, DEADLINE_FACTOR} from './request-policy.js'
import {ExitCode} from '../base/exit-codes.js'
import {randomUUID} from '../base/digest.js'
import {bigIntegersAsStrings} from '../base/json-numbers.js'
import {READ_CODINGS, Transport, checkBaseUrl, configuredProxy, proxyConfigured} from './transport.js'
import {checkRawPath, checkSentUrl} from './raw-path.js'

/** Milliseconds for deadlines and --debug's timings (node:perf_hooks would add ~1.6 ms to every command's start). */
const nowMs = (): number => Number(process.hrtime.bigint()) / 1e6

export interface ClientSettings {
  baseUrl?: string
  clientId?: string
  clientSecret?: string
  /** SHA-256 of the client secret while it stays in the OS keyring; `loadSecret` reads it for a token request. */
  clientSecretSha256?: string
  loadSecret?: (key: 'clientSecret' | 'webhookSecret') => Promise<string | undefined>
  accountRef?: string
  webhookSecret?: string
  /** Where the settings came from (src/config/settings.ts), for the message when nothing is set. */
  profileName?: string
  profileFound?: boolean
  /** How many profiles the profiles file holds, when it was read. */
  profilesStored?: number
  sources?: {profileName?: string}
  /** A profile named by --profile or PAY_PROFILE that the file does not hold, and the names it does hold. */
  missingProfile?: {name: string; known: string[]}
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
  /** The operation journal (src/journal/gate.ts): every idempotent request of the table goes through it. */
  journal?: RequestJournal
}

/** What the send path asks of the operation journal for one idempotent request (src/journal/gate.ts). */
export interface RequestJournal {
  /**
   * Resolves once this process may send the request (no other process is sending the same one). `secrets`: the
   * values the journal must not write (the credentials, a flow's declared secrets) should an answer echo one.
   */
  begin(req: PreparedRequest, settings: ClientSettings, baseUrl: string, budgetMs?: number, secrets?: () => readonly (string | undefined)[]): JournalEntryHandle | Promise<JournalEntryHandle>
}

export interface JournalEntryHandle {
  /** The request to send (its key may be a journaled one). */
  request: PreparedRequest
  /** Set when the service already accepted the same request: return this, send nothing. */
  replay?: ApiResponse
  /** Settles once the journal's record of the request is on disk: no byte of the request is written before; rejects when it cannot be (nothing is sent). */
  durable?: Promise<void>
  /** The key was sent before (an earlier run) and its outcome is unknown: the request policy counts that attempt. */
  earlierMaybeSent?: boolean
  /** Records the answer; returns what the journal adds to it (a way to note a later state; whether it may be a replay). */
  succeeded(res: ApiResponse): Pick<ApiResponse, 'noteState' | 'maybeReplayed'> | void
  /** Records the failure; returns the error to throw (naming the key when the outcome is unknown). */
  failed(err: unknown): unknown
  end(): void
}

/**
 * Whether an answer may be the service's stored first answer to its key, its state as it was then: the key was sent
 * before with an unknown outcome (`resumed`: the interface does not say that a replay is marked), or the service
 * marks it replayed. The journal gate and the bulk engine ask it.
 */
export function maybeReplayed(res: Pick<ApiResponse, 'headers'>, resumed: boolean): boolean {
  return resumed || res.headers[REPLAYED_HEADER]?.toLowerCase() === 'true'
}

/**
 * Whether an answer's state may be older than now: the journal's answer to a request accepted earlier (nothing sent),
 * or a resumed key's answer that may be the service's first one, replayed. A command, a flow step and `pay api` look
 * such a resource up (src/operation/run-operation.ts, lookUpAccepted).
 */
export function mayBeStale(res: Pick<ApiResponse, 'replayedAt' | 'maybeReplayed'>): boolean {
  return res.replayedAt !== undefined || res.maybeReplayed !== undefined
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
  /** The key was given by the caller (--idempotency-key), not generated: the journal does not replace it. */
  keyGiven?: boolean
  auth: boolean
  /** GETs and requests carrying an Idempotency-Key may be repeated safely. */
  safeToRepeat: boolean
  /** Retries of this request, instead of the client's (the bulk engine retries rows itself: 0). */
  retries?: number
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
  /** Set when nothing was sent: the journal's answer to the same request, which the service accepted at this time. */
  replayedAt?: string
  /** With replayedAt: when the state in `body` was seen (a later lookup's, else the answer's). */
  stateSeenAt?: string
  /** A journaled request's answer (or replayedAt): records a newer state of the resource (and the body that showed it) in the journal. */
  noteState?: (state: string, body: string, seenAtMs?: number) => void
  /**
   * The answer to a key sent before whose outcome was unknown (or one the service marks replayed): it may be the
   * service's first answer to that key, its state as it was then (`firstSentAt`: when the key was first sent, when
   * the journal knows), not now. A command looks the resource up when that state has not ended.
   */
  maybeReplayed?: {firstSentAt?: string}
  /**
   * Set when the answer keeps every rule the interface states but not pay's assumptions where it is silent (the
   * schema's `assumed` parts, src/api/schemas.ts): how it differs. Commands then show it with the generic view.
   */
  differs?: string[]
}

/** A path as sent under a base URL, relative to the base URL's own path (the URL parser's resolution of its segments). */
function sentPathOf(base: string, pathname: string): string {
  const sent = new URL(base + pathname).pathname
  const prefix = new URL(base).pathname.replace(/\/+$/, '')
  return prefix !== '' && sent.startsWith(`${prefix}/`) ? sent.slice(prefix.length) : sent
}

export class ApiClient {
  readonly tokens: TokenProvider
  private transport?: Pick<Transport, 'send' | 'close'>
  private readonly retries: number
  private readonly timeoutMs: number
  private readonly sleep: (ms: number) => Promise<unknown>
  private checkedBase?: {given: string; url: string}
  private lastUrl?: {given: string; url: string}

  constructor(private readonly options: ClientOptions) {
    this.retries = options.retries ?? DEFAULT_RETRIES
    this.timeoutMs = options.timeoutMs ?? 30_000
    this.sleep = options.sleep ?? ((ms) => process.getBuiltinModule('node:timers/promises').setTimeout(ms)) // loaded on a retry
    const cache = options.tokenCacheDir ? new TokenCache(options.tokenCacheDir, options.warn ?? options.notice) : undefined
    this.tokens = new TokenProvider(
      {baseUrl: options.settings.baseUrl ?? '', clientId: options.settings.clientId, clientSecret: options.settings.clientSecret, clientSecretSha256: options.settings.clientSecretSha256},
      cache,
      async () => {
        const {clientId} = this.options.settings
        // a secret kept in the OS keyring is read here, only when no cached token could serve
        const clientSecret = this.options.settings.clientSecret ?? (await this.options.settings.loadSecret?.('clientSecret'))
        if (clientSecret && clientSecret !== this.options.settings.clientSecret) this.moreSecrets.push(clientSecret)
        // Asking for a token changes nothing at the service, so it is retried like a GET (not like other POSTs).
        const req = this.prepare('auth.token', {body: {grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret}})
        const res = await this.exchange({...req, safeToRepeat: true})
        const parsed = endpoints['auth.token'].response.safeParse(res.body)
        if (!parsed.success) throw new NetworkError('the token endpoint answered without a usable access_token', res.attempts)
        return parsed.data
      },
      this.requestBudgetMs(),
    )
  }

  /** The longest one request may take: all its attempts and the waits between end by this deadline (see send). */
  requestBudgetMs(): number {
    return this.timeoutMs * DEADLINE_FACTOR
  }

  get settings(): ClientSettings {
    return this.options.settings
  }

  /** The base URL, checked (absolute; https unless loopback). Exit 2 when missing or unsafe. */
  baseUrl(): string {
    const {baseUrl: base, profileName, profileFound, profilesStored, sources} = this.options.settings
    if (base && this.checkedBase?.given === base) return this.checkedBase.url // a bulk run builds thousands of requests
    const {missingProfile} = this.options.settings
    if (missingProfile) {
      const {name, known} = missingProfile
      const given = sources?.profileName === 'env' ? 'PAY_PROFILE' : '--profile'
      const hint = known.length > 0 ? `the profiles are: ${known.join(', ')} (\`pay profiles list\`); or create "${name}" with \`pay login --profile ${name}\`` : `none is stored yet: create one with \`pay login --profile ${name}\`, or \`pay sandbox start\` to try pay against the local sandbox`
      throw new PayError(`no profile named "${name}" (${given})`, ExitCode.USAGE, hint)
    }
    if (!base && profileName && profileFound === false && sources?.profileName === 'profile') {
      // the profiles file is there but the active profile is gone (`pay profiles remove`): the last one, or one of several
      if (profilesStored === 0) throw new PayError('no active profile: none is left', ExitCode.USAGE, 'create one with `pay login` (or `pay profiles add NAME`), or `pay sandbox start` to try pay against the local sandbox')
      throw new PayError('no active profile', ExitCode.USAGE, 'choose one with `pay profiles use NAME` (`pay profiles list` shows them), or pass --profile')
    }
    if (!base) throw InputError.one('--base-url', 'is not set (flag, PAY_BASE_URL or a profile)', 'run `pay login`, or `pay sandbox start` to try pay against the local sandbox')
    // as the URL parser writes it (scheme and host in lower case, no default port): every spelling of one service
    // is one scope for the journal, the reference index and a bulk run's id, so a re-run finds the earlier request
    this.checkedBase = {given: base, url: checkBaseUrl(base).href.replace(/\/+$/, '')}
    return this.checkedBase.url
  }

  /**
   * The base URL as pay shows it anywhere (messages, reports, --json): a password or token in it replaced
   * (redactUrl). Every base URL that reaches output goes through this or shownBaseUrl of the settings.
   */
  shownBaseUrl(): string {
    return redactUrl(this.baseUrl())
  }

  /** Builds the request for an endpoint of the table without sending it (used by --dry-run too). */
  prepare(id: EndpointId, input: CallInput = {}): PreparedRequest {
    const endpoint: Endpoint = endpoints[id]
    return this.build(endpoint.method, fillPath(endpoint.path, input.path), input, endpoint)
  }

  /**
   * Builds a request for any method and path (`pay api`); rules of the table apply where the path is known.
   * The path must stay under /v1/ without dot segments unless `allowAnyPath`; and it never leaves the base URL's
   * origin (no scheme, no `//host`, no backslash), so the bearer token goes nowhere else.
   */
  prepareRaw(method: string, path: string, input: CallInput = {}, options: {allowAnyPath?: boolean} = {}): PreparedRequest {
    const clean = path.startsWith('/') ? path : `/${path}`
    const [pathname, search] = splitPath(clean)
    checkRawPath(path, pathname, options.allowAnyPath ?? false)
    // the endpoint of the path as it will be sent: the URL parser resolves `.`, `..` and `%2e` segments, which
    // --allow-any-path lets through, so `/v1/./collections` is the collections create it becomes (its live-money
    // question, its key, its journal)
    const match = matchEndpoint(method, sentPathOf(this.baseUrl(), pathname))
    const query = {...Object.fromEntries(new URLSearchParams(search)), ...input.query}
    const req = this.build(method.toUpperCase(), pathname, {...input, query}, match?.endpoint)
    checkSentUrl(new URL(this.baseUrl()), new URL(req.url), options.allowAnyPath ?? false)
    return req
  }

  /**
   * The URL of a path (and query) under the base URL, as the URL parser writes it. The last one without a query
   * is kept: a bulk run builds the same URL for every row, and parsing it was a third of building its request.
   */
  private urlOf(pathname: string, query: Record<string, string | undefined> | undefined): string {
    const given = this.baseUrl() + pathname
    const plain = query === undefined || Object.values(query).every((v) => v === undefined)
    if (plain && this.lastUrl?.given === given) return this.lastUrl.url
    const url = new URL(given)
    if (!plain) for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, v)
    const text = url.toString()
    if (plain) this.lastUrl = {given, url: text}
    return text
  }

  private build(method: string, pathname: string, input: CallInput, endpoint?: Endpoint): PreparedRequest {
    const url = this.urlOf(pathname, input.query)
    const rules = endpoint ?? rulesForUnknownPath(method, pathname)
    const headers: Record<string, string> = {
      'user-agent': this.options.userAgent,
      accept: 'application/json',
      // no content coding, please: HTTP lets a server pick any when the request names none (src/client/transport.ts
      // still reads gzip, deflate and br should one come all the same)
      'accept-encoding': 'identity',
    }
    let body = requestBodyText(input.body)
    if (body !== undefined || method === 'POST' || rules.auth) headers['content-type'] = 'application/json'
    // (`in`: reading the table's body getter would make its zod schema)
    if (method === 'POST' && body === undefined && endpoint !== undefined && 'body' in endpoint) body = '{}'

    if (rules.accountRef && this.options.settings.accountRef) headers[ACCOUNT_REF_HEADER] = this.options.settings.accountRef

    const problems = headerProblems(input)
    if (problems.length > 0) throw new InputError(problems)
    // a key given as a header (`pay api -H 'Idempotency-Key: …'`, any case) is the key: journaled, printed, reused
    const headerKey = input.headers && Object.entries(input.headers).find(([k]) => k.toLowerCase() === 'idempotency-key')?.[1]
    let idempotencyKey = input.idempotencyKey ?? headerKey
    if (!idempotencyKey && endpoint?.idempotent) idempotencyKey = randomUUID() // without node:crypto (src/base/digest.ts)
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey
    if (input.headers) for (const [k, v] of Object.entries(input.headers)) if (k.toLowerCase() !== 'idempotency-key' || input.idempotencyKey === undefined) headers[k.toLowerCase()] = v

    return {endpoint, method, url, headers, body, idempotencyKey, keyGiven: input.idempotencyKey !== undefined || headerKey !== undefined, auth: rules.auth, safeToRepeat: method === 'GET' || method === 'HEAD' || idempotencyKey !== undefined}
  }

  /** The same request under another Idempotency-Key (a bulk row's key is derived from its request's bytes). */
  withIdempotencyKey(req: PreparedRequest, key: string): PreparedRequest {
    // (the usual key, a bulk row's derived one, passes at once: no list of problems made for each row)
    if (!usableKey(key)) throw new InputError(headerProblems({idempotencyKey: key}))
    const keyed = rekeyed(req, key) // a fresh object: marked here rather than copied once more
    keyed.keyGiven = true
    keyed.safeToRepeat = true
    return keyed
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

  /**
   * Sends a prepared request; an idempotent one of the table is journaled first (src/journal/gate.ts). The answer is
   * as pay may print it: a secret it quotes is hidden (shown).
   */
  async send<T = unknown>(req: PreparedRequest): Promise<ApiResponse<T>> {
    return this.shown(await this.sendJournaled<T>(req))
  }

  private async sendJournaled<T>(req: PreparedRequest): Promise<ApiResponse<T>> {
    const journal = this.options.journal
    if (!journal || !req.endpoint?.idempotent || !req.idempotencyKey) return this.exchange<T>(req)
    const entry = await journal.begin(req, this.options.settings, this.baseUrl(), this.requestBudgetMs(), () => this.secrets())
    if (entry.replay) return entry.replay as ApiResponse<T>
    try {
      const res = await this.exchange<T>(entry.request, entry.durable, undefined, entry.earlierMaybeSent)
      const journaled = entry.succeeded(res)
      return journaled ? {...res, ...journaled} : res
    } catch (err) {
      throw entry.failed(err)
    } finally {
      entry.end()
    }
  }

  /**
   * Sends without the journal: for a caller that journals itself (the bulk engine, src/bulk/). `via`: the HTTP
   * layer to use instead of the client's (the bulk engine's pool, see poolable); everything above it is the same.
   */
  sendUnjournaled<T = unknown>(req: PreparedRequest, via?: Pick<Transport, 'send'>): Promise<ApiResponse<T>> {
    return this.exchange<T>(req, undefined, via, false, true) // (the answer made shown there: one async step a request, not three)
  }

  /**
   * A 2xx answer as pay may print it (--json, -o, --jq, tables, `pay api -i`): every known secret value it quotes, in
   * its body or a header, and every secret-named header hidden (redactAnswer). The token request's own answer never
   * comes here (it holds the token the client then uses).
   */
  private shown<T>(res: ApiResponse<T>, fresh = false): ApiResponse<T> {
    const shown = redactAnswer(res, this.secrets())
    if (shown.text === res.text && shown.body === res.body) {
      // an answer made for this caller alone (fresh) that quotes no secret is shown as it is, not copied
      return fresh && shown.headers === res.headers ? res : {...res, headers: shown.headers}
    }
    return {...res, headers: shown.headers, text: shown.text, body: shown.body as T}
  }

  /**
   * Whether many requests at once (a bulk run) may take a pool of connections of their own
   * (src/client/pool-transport.ts) instead of the client's transport: not with a proxy in the environment (the
   * plain transport honours it and NO_PROXY), nor with a transport given to the client (tests).
   */
  get poolable(): boolean {
    return !this.options.transport && !proxyConfigured()
  }

  /**
   * Auth, retries with the same key and body bytes, one token refresh on 401, as the request policy decides
   * (src/client/request-policy.ts); nothing is written before `ready` settles. A failure is thrown marked with what
   * the request came to (requestClass: refused or unknown). `via`: the HTTP layer instead of the client's transport
   * (sendUnjournaled); `earlierMaybeSent`: an earlier run's attempt under this key may have reached the service.
   */
  private async exchange<T>(req: PreparedRequest, ready?: Promise<void>, via?: Pick<Transport, 'send'>, earlierMaybeSent = false, shown = false): Promise<ApiResponse<T>> {
    // --timeout bounds each attempt (body included); all attempts and the waits between them share this deadline
    const deadline = nowMs() + this.requestBudgetMs()
    const retries = req.retries ?? this.retries
    const policy = new RequestAttempts({retries, safeToRepeat: req.safeToRepeat, earlierMaybeSent, auth: req.auth, timeLeft: () => deadline - nowMs()})
    try {
      const transport = via ?? this.transportFor()
      for (;;) {
        const attempt = policy.attempt + 1
        const headers = {...req.headers}
        let token: string | undefined
        if (req.auth) {
          token = (this.tokens.held() ?? (await this.tokens.get())).access_token
          headers.authorization = this.bearer(token)
        }
        this.traceRequest(req, headers, attempt)
        const started = nowMs()
        const timeoutMs = Math.max(1, Math.min(this.timeoutMs, Math.round(deadline - started)))
        let res
        try {
          res = await transport.send({method: req.method, url: req.url, headers, body: req.body, timeoutMs, ready})
        } catch (err) {
          // pay's own failure before a byte was written (the journal could not make the request durable): not an attempt
          if (err instanceof PayError) throw err
          const outcome = classifyNetworkError(err)
          const what = describeNetworkError(err, outcome, timeoutMs, req.url)
          this.trace(`<- ${what} after ${Math.round(nowMs() - started)} ms`)
          const decision = policy.next(outcome)
          if (decision.retry) {
            this.options.notice?.(`${what}; retrying in ${decision.waitMs} ms (attempt ${attempt + 1} of ${retries + 1})`)
            await this.sleep(decision.waitMs)
            continue
          }
          const stoppedBy = decision.stoppedBy === 'deadline' ? `; stopped after ${attempt} attempt(s) at the overall deadline of ${Math.round((this.timeoutMs * DEADLINE_FACTOR) / 1000)} s (${DEADLINE_FACTOR} x --timeout)` : ''
          throw decided(new NetworkError(`${req.method} ${new URL(req.url).pathname} failed: ${what}${stoppedBy}`, attempt, networkHint(req, outcome, err), outcome.kind === 'tls' ? 'tls_error' : 'network_error', mayHaveReached(outcome)), decision, outcome)
        }
        this.traceResponse(req, res, nowMs() - started)

        const body = parseJson(res.text)
        if (res.status < 400) {
          const unusable = unusableBody(req, res, body)
          if (!unusable || unusable.differs) {
            const answer: ApiResponse<T> = {status: res.status, headers: res.headers, body: body as T, text: res.text, attempts: attempt, request: req}
            if (unusable?.differs) answer.differs = unusable.problems
            return shown ? this.shown(answer, true) : answer
          }
          const outcome: AttemptOutcome = {kind: 'unusable', status: res.status}
          throw decided(new InvalidResponseError(unusable.message, res.status, redactBodyText(res.text, this.secrets()), unusable.problems, attempt), policy.next(outcome), outcome)
        }
        const outcome = statusOutcome(res.status, body)
        const asked = askedWaitMs(res.status, res.headers, body)
        const decision = policy.next(outcome, asked)
        if (decision.retry && decision.refreshToken) {
          this.options.notice?.('the access token was rejected; getting a fresh one and trying once more')
          await this.tokens.refresh(token)
          continue
        }
        if (decision.retry) {
          this.options.notice?.(`HTTP ${res.status}${asked !== undefined ? ' (Retry-After)' : ''}; retrying in ${decision.waitMs} ms (attempt ${attempt + 1} of ${retries + 1})`)
          await this.sleep(decision.waitMs)
          continue
        }
        // the error is shown, put under --json and journaled: a secret the answer quotes (a token, the client secret) is hidden
        const shownText = redactBodyText(res.text, this.secrets())
        throw decided(Object.assign(toApiError(res.status, shownText, shownText === res.text ? body : parseJson(shownText), attempt, res.headers), {responseHeaders: redactHeaders(res.headers, this.secrets())}), decision, outcome)
      }
    } catch (err) {
      // thrown before an answer was judged (no token, the journal's record not durable): the policy's class of that
      if (err instanceof PayError && err.requestClass === undefined) err.requestClass = classOfError(err, policy.maybeSent)
      throw err
    }
  }

  async close(): Promise<void> {
    await this.transport?.close()
  }

  private lastBearer?: {token: string; header: string}
  /** The Authorization header of a token: one string for every request that token goes with (a bulk run: every row). */
  private bearer(token: string): string {
    if (this.lastBearer?.token !== token) this.lastBearer = {token, header: `Bearer ${token}`}
    return this.lastBearer.header
  }

  private transportFor(): Pick<Transport, 'send' | 'close'> {
    this.transport ??= this.options.transport ?? new Transport()
    return this.transport
  }

  /**
   * The values traces, errors and the journal hide wherever an answer quotes one: the credentials (a client secret
   * read from the OS keyring too), every access token this client has held, and what redactAlso added.
   */
  private secrets(): (string | undefined)[] {
    const s = this.options.settings
    return [s.clientSecret, s.webhookSecret, urlPassword(s.baseUrl), ...this.tokens.known(), ...this.moreSecrets]
  }

  private readonly moreSecrets: string[] = []
  /** Values the traces and errors must redact besides the credentials (a flow's declared `secrets:`). */
  redactAlso(values: readonly string[]): void {
    this.moreSecrets.push(...values)
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

/** The password of a base URL's userinfo (`https://user:PASSWORD@host`), decoded: a secret to hide like the others. */
function urlPassword(baseUrl: string | undefined): string | undefined {
  if (!baseUrl?.includes('@')) return undefined
  try {
    const {password} = new URL(baseUrl)
    return password === '' ? undefined : decodeURIComponent(password)
  } catch {
    return undefined
  }
}

/** A failure marked with the request policy's verdict on it (the class of the request, and whether it may be repeated later). */
function decided<E extends PayError>(err: E, decision: Decision, outcome: AttemptOutcome): E {
  if (!decision.retry) {
    err.requestClass = decision.class
    err.refusedForNow = decision.again
  }
  err.attemptOutcome = outcome
  return err
}

/** Header values are visible ASCII (a CR/LF would split the request; undici refuses non-ASCII as a network error). */
const HEADER_VALUE = /^[\x20-\x7e]*$/
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
/** The longest Idempotency-Key sent (the service's reference fields allow 255 too). */
const MAX_IDEMPOTENCY_KEY = 255

/**
 * The bytes a request sends for its input's body: a ready string as it is (`pay api`), else its JSON. One rule for
 * prepare and for a bulk run's rows, whose Idempotency-Key is derived from these bytes (src/bulk/check.ts).
 */
export function requestBodyText(body: unknown): string | undefined {
  return body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body)
}

/** Whether an Idempotency-Key breaks none of headerProblems' rules for it (asked first: no list made for a good one). */
function usableKey(key: string): boolean {
  return key !== '' && key.length <= MAX_IDEMPOTENCY_KEY && HEADER_VALUE.test(key)
}

function headerProblems(input: CallInput): {flag: string; rule: string}[] {
  const problems: {flag: string; rule: string}[] = []
  const key = input.idempotencyKey
  if (key !== undefined && !usableKey(key)) {
    if (key === '' || !HEADER_VALUE.test(key)) problems.push({flag: '--idempotency-key', rule: 'must be printable ASCII (no line breaks or other control characters, no accents)'})
    if (key.length > MAX_IDEMPOTENCY_KEY) problems.push({flag: '--idempotency-key', rule: `must be at most ${MAX_IDEMPOTENCY_KEY} characters (got ${key.length})`})
  }
  if (input.headers) for (const [name, value] of Object.entries(input.headers)) {
    if (!HEADER_NAME.test(name)) problems.push({flag: '-H', rule: `header name "${name}" must be letters, digits and !#$%&'*+.^_\`|~-`})
    else if (!HEADER_VALUE.test(value)) problems.push({flag: '-H', rule: `value of ${name} must be printable ASCII (no line breaks or other control characters, no accents)`})
  }
  return problems
}

/** A path's pathname and query as a URL parser splits them: the pathname ends at `?` or `#`, the query at `#`. */
export function splitPath(path: string): [string, string] {
  const end = path.search(/[?#]/)
  if (end === -1) return [path, '']
  const fragment = path.indexOf('#', end)
  return [path.slice(0, end), path[end] === '#' ? '' : path.slice(end + 1, fragment === -1 ? undefined : fragment)]
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

/** The sub-account header, as build() writes every header name (lower case). */

/**
 * The account ref a prepared request carries: the sub-account it goes to, whether from the settings
 * (--account-ref, PAY_ACCOUNT_REF, the profile) or from `pay api -H 'X-Service-Account-Ref: …'`, which overrides
 * them. The journal scopes a request by this (src/journal/gate.ts), never by the settings; an empty header is none.
 */
export function accountRefOf(req: PreparedRequest): string | undefined {
  return req.headers[ACCOUNT_REF_HEADER] || undefined
}

/** The request under another Idempotency-Key (the field and the header), nothing else changed. */
export function rekeyed(req: PreparedRequest, key: string): PreparedRequest {
  return {...req, idempotencyKey: key, headers: {...req.headers, 'idempotency-key': key}}
}

/** An answer's JSON, undefined when it is not JSON; an integer beyond 2^53 in it is the string of its digits (bigIntegersAsStrings). */
export function parseJson(text: string): unknown {
  if (text === '') return undefined
  try {
    return JSON.parse(bigIntegersAsStrings(text))
  } catch {
    return undefined
  }
}

function describeNetworkError(err: unknown, outcome: AttemptOutcome, timeoutMs: number, url: string): string {
  if (outcome.kind === 'timeout') return `no complete answer within ${Math.round(timeoutMs / 1000)} s (timeout)`
  const code = errorCode(err)
  const message = err instanceof Error ? err.message : String(err)
  const proxy = outcome.kind === 'network' && !outcome.sent ? failedProxy(err, url) : undefined
  if (proxy) return `could not connect to the proxy ${proxy.origin} (from ${proxy.variable}): ${code ?? message}`
  if (outcome.kind === 'tls') return `the TLS certificate of ${new URL(url).host} could not be verified (${code}: ${message})`
  return code ? `${code}: ${message}` : message
}

/** The configured proxy, when the failed connection was the one to it (the error names its address and port). */
function failedProxy(err: unknown, url: string): ReturnType<typeof configuredProxy> {
  const proxy = configuredProxy(url)
  if (!proxy) return undefined
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const {port, address, hostname} = e as {port?: unknown; address?: unknown; hostname?: unknown}
    if (port === proxy.port && (address === proxy.host || hostname === proxy.host || address === undefined)) return proxy
    if (hostname === proxy.host) return proxy
    e = (e as {cause?: unknown}).cause
  }
  return undefined
}

/** What to do after a request failed without an answer. */
function networkHint(req: PreparedRequest, outcome: AttemptOutcome, err: unknown): string {
  if (outcome.kind === 'tls') {
    return 'pay only talks to servers whose certificate verifies; for a private CA, point NODE_EXTRA_CA_CERTS at its PEM file (export NODE_EXTRA_CA_CERTS=/path/ca.pem); check the host name in --base-url'
  }
  const proxy = outcome.kind === 'network' && !outcome.sent ? failedProxy(err, req.url) : undefined
  if (proxy) return `check the proxy in ${proxy.variable}, or add the service's host to NO_PROXY`
  if (outcome.kind === 'network' && !outcome.sent) return `check that the service is reachable at ${new URL(req.url).origin} (pay profiles show, --base-url)`
  if (req.idempotencyKey) return `try again; repeating it with --idempotency-key ${req.idempotencyKey} cannot act twice`
  return 'try again later'
}

const NOT_THE_SERVICE_404 = "this 404 is not the service's not_found error (an error object with code, message and request_id): a gateway or proxy answered (a wrong path in --base-url, a route it does not pass on), so nothing is known about the resource; check the base URL (pay profiles show)"

export function toApiError(status: number, text: string, body: unknown, attempts: number, headers: Record<string, string>): ApiError {
  // a 404 that is not the service's not_found (a gateway's page, JSON of another shape) says nothing about the resource
  const unproven = status === 404 && !saysAbsent(statusOutcome(status, body))
  const err = (body as {error?: unknown} | undefined)?.error
  if (err && typeof err === 'object' && typeof (err as {code?: unknown}).code === 'string') {
    const e = err as {code: string; message?: unknown}
    const error = {...(err as Record<string, unknown>), code: e.code, message: typeof e.message === 'string' ? e.message : e.code}
    const asked = askedWaitMs(status, headers, body)
    const hint =
      asked !== undefined && asked > MAX_RETRY_AFTER_MS
        ? `the service asks to wait ${Math.ceil(asked / 1000)} s (Retry-After); pay waits at most ${MAX_RETRY_AFTER_MS / 1000} s by itself, so try again after that`
        : hintFor(status, e.code, attempts, typeof e.message === 'string' ? e.message : '')
    return unproven ? new ApiError(status, error, body, NOT_THE_SERVICE_404, attempts, ExitCode.NETWORK) : new ApiError(status, error, body, hint, attempts)
  }
  const snippet = text.replace(/\s+/g, ' ').trim().slice(0, 200)
  const error = {code: `http_${status}`, message: snippet || `HTTP ${status} with no error body`}
  if (unproven) return new ApiError(status, error, body ?? {error}, NOT_THE_SERVICE_404, attempts, ExitCode.NETWORK)
  return new ApiError(status, error, body ?? {error: {code: `http_${status}`, message: snippet}}, hintFor(status, undefined, attempts), attempts)
}

/**
 * Why a success answer cannot be used, or undefined. An endpoint of the table must answer JSON matching its
 * response schema; a path the table does not know (`pay api`) may answer anything, but a body labelled JSON
 * must parse (docs/assumptions.md: "Success bodies").
 */
/** A schema failure's first issues, each `path: message`. */
function issueList(error: {issues: readonly {path: readonly PropertyKey[]; message: string}[]}): string[] {
  return error.issues.slice(0, 5).map((i) => `${i.path.map(String).join('.') || '(body)'}: ${i.message}`)
}

/** Whether the usual answer is surely what zod accepts: by the endpoint's stored plan (no zod schema built). */
function surelyAnswers(endpoint: Endpoint, body: unknown): boolean {
  const sure = storedCheck(answerPlans, endpoint.id)
  // (an endpoint the generated file does not know yet: its plan from the schema)
  return sure === undefined ? surelyMatches(endpoint.response, body) : sure(body)
}

function unusableBody(req: PreparedRequest, res: {status: number; headers: Record<string, string>; text: string}, body: unknown): {message: string; problems?: string[]; differs?: true} | undefined {
  const what = () => `${req.method} ${new URL(req.url).pathname} answered HTTP ${res.status}` // only for a failure: a bulk run checks thousands of answers
  const endpoint = req.endpoint
  // a body in a content coding is not JSON when pay could not decode it: that, rather than a guess it was cut short
  const coding = res.headers['content-encoding']
  const notJson = () => `${what()} with a body that is not valid JSON (${coding && coding.toLowerCase() !== 'identity' ? `Content-Encoding: ${coding}; pay reads ${READ_CODINGS}` : 'cut short?'})`
  if (!endpoint) {
    const labelledJson = /[/+]json\b/i.test(res.headers['content-type'] ?? '')
    return labelledJson && res.text.trim() !== '' && body === undefined ? {message: notJson()} : undefined
  }
  if (body === undefined) return {message: res.text.trim() === '' ? `${what()} with an empty body` : notJson()}
  // the usual answer is judged by a plain predicate; zod judges whatever that is not sure of (the same verdicts)
  if (surelyAnswers(endpoint, body)) return undefined
  const parsed = endpoint.response.safeParse(body)
  if (parsed.success) return undefined
  const problems = issueList(parsed.error)
  // our guess where the interface is silent did not fit: still usable when every stated rule holds
  const stated = statedReading(endpoint.response)?.safeParse(body)
  if (stated?.success) return {message: `${endpoint.id}: the answer differs from pay's assumptions`, problems, differs: true}
  const broken = stated?.error ? issueList(stated.error) : problems
  return {message: `${what()} with a body that does not match the ${endpoint.id} response (${broken.join('; ')})`, problems: broken}
}
