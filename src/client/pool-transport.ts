/**
 * The HTTP layer of a bulk run (src/bulk/): one undici Pool per origin, `connections` keep-alive connections
 * (the run's --concurrency), no pipelining, requests dispatched with a bare handler (no Readable per response, no
 * AbortController). It does what src/client/transport.ts's direct path does, so the client core above it
 * (retries, the 401 refresh, error classification, the response schema) is the same for every request:
 *   - one timer bounds the whole exchange (connect, headers, the body's last byte): ExchangeTimeoutError;
 *   - a connection not made within CONNECT_TIMEOUT_MS fails as "never sent" (undici's UND_ERR_CONNECT_TIMEOUT);
 *   - failures carry undici's error codes, which src/client/request-policy.ts classifies (the proxy path's too);
 *   - nothing is written before the request's `ready` settles.
 * Only used where the plain transport would go direct (no proxy in the environment, no transport injected by a
 * test): see ApiClient.poolable. A 10,000-row run costs ~0.25 s less CPU than through node:http.
 */
import type {Dispatcher, Pool} from 'undici'
import {type HttpRequest, type HttpResponse, CONNECT_TIMEOUT_MS, ExchangeTimeoutError, KEEP_ALIVE_MS, bodyText} from './transport.js'
import {loadUndici} from './undici.js'

export class PoolTransport {
  private readonly pools = new Map<string, Pool>()
  private closed = false

  private constructor(
    private readonly Pool: typeof import('undici').Pool,
    private readonly connections: number,
  ) {}

  /** Loads undici's Pool (src/client/undici.ts). */
  static async open(connections: number): Promise<PoolTransport> {
    return new PoolTransport((await loadUndici()).Pool, connections)
  }

  send(req: HttpRequest): Promise<HttpResponse> {
    // after close() (the run has ended, or stopped on an error): no new connection, and the row stays unknown
    if (this.closed) return Promise.reject(new Error('the run has ended: the request was not sent'))
    // origin and target: the URL was built by the client core (absolute, checked), so a plain split is enough
    const slash = req.url.indexOf('/', req.url.indexOf('//') + 2)
    const origin = slash < 0 ? req.url : req.url.slice(0, slash)
    const path = slash < 0 ? '/' : req.url.slice(slash)
    let pool = this.pools.get(origin)
    if (!pool) {
      pool = new this.Pool(origin, {connections: this.connections, pipelining: 1, keepAliveTimeout: KEEP_ALIVE_MS, connect: {timeout: CONNECT_TIMEOUT_MS}})
      this.pools.set(origin, pool)
    }
    const headers: string[] = []
    for (const name in req.headers) headers.push(name, req.headers[name])
    return new Promise<HttpResponse>((resolve, reject) => {
      const exchange = new PoolExchange(resolve, reject, req.timeoutMs)
      const options: Dispatcher.DispatchOptions = {origin, path, method: req.method as Dispatcher.HttpMethod, headers, body: req.body, headersTimeout: 0, bodyTimeout: 0}
      // nothing written before `ready` settles (a journaled request's fsync; a bulk run's rows have none)
      if (req.ready) void req.ready.then(() => exchange.settled || pool.dispatch(options, exchange))
      else pool.dispatch(options, exchange)
    })
  }

  /**
   * Closes the connections at once. After a run every request has settled; should the run stop on an error with
   * requests in flight, they end as the process would end them (their rows are resent with their keys next time).
   */
  async close(): Promise<void> {
    this.closed = true
    const pools = [...this.pools.values()]
    this.pools.clear()
    await Promise.all(pools.map((p) => p.destroy().catch(() => undefined)))
  }
}

/** Headers a response carries once: a repeat is dropped (the first counts), as node:http does. */
const SINGLE_HEADERS = new Set(['age', 'authorization', 'content-length', 'content-type', 'etag', 'expires', 'from', 'host', 'if-modified-since', 'if-unmodified-since', 'last-modified', 'location', 'max-forwards', 'proxy-authorization', 'referer', 'retry-after', 'server', 'user-agent'])

/**
 * undici's raw response headers (name, value, ...) as node:http gives them to the plain transport: lower-case
 * names, a repeat of a single-value header (Retry-After, Content-Type, …) dropped, other repeats joined with ", ";
 * any name (`constructor`, `__proto__`) an own key.
 */
function headerRecord(raw: Buffer[]): Record<string, string> {
  const headers: Record<string, string> = {}
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toString('latin1').toLowerCase()
    const value = raw[i + 1].toString('latin1')
    if (!Object.hasOwn(headers, name)) {
      if (name === '__proto__') Object.defineProperty(headers, name, {value, enumerable: true, writable: true, configurable: true})
      else headers[name] = value
    } else if (!SINGLE_HEADERS.has(name)) headers[name] = `${headers[name]}, ${value}`
  }
  return headers
}

/**
 * One request's exchange: undici's handler, its timer and its outcome in one object (its methods shared by every
 * request, not a set of closures made per request: a bulk run makes one a row).
 */
class PoolExchange implements Dispatcher.DispatchHandler {
  settled = false
  private abortRequest?: (err: Error) => void
  private timeout?: ExchangeTimeoutError
  private readonly timer: NodeJS.Timeout
  private status = 0
  private headers: Record<string, string> = {}
  private readonly chunks: Buffer[] = []

  constructor(
    private readonly resolve: (res: HttpResponse) => void,
    private readonly reject: (err: Error) => void,
    private readonly timeoutMs: number,
  ) {
    this.timer = setTimeout(timedOut, timeoutMs, this)
  }

  /** The exchange took longer than its timeout: failed; not yet written (waiting for a connection): onConnect aborts it before a byte is sent. */
  expire(): void {
    this.timeout = new ExchangeTimeoutError(this.timeoutMs)
    this.settle(this.timeout)
    this.abortRequest?.(this.timeout)
  }

  onConnect(abortRequest: (err?: Error) => void): void {
    if (this.timeout) abortRequest(this.timeout)
    else this.abortRequest = abortRequest
  }

  onHeaders(statusCode: number, raw: Buffer[]): boolean {
    this.status = statusCode
    this.headers = headerRecord(raw)
    return true
  }

  onData(chunk: Buffer): boolean {
    this.chunks.push(chunk)
    return true
  }

  onComplete(): void {
    const {chunks} = this
    this.settle(undefined, {status: this.status, headers: this.headers, text: bodyText(this.headers, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks))})
  }

  onError(err: Error): void {
    this.settle(err)
  }

  private settle(err: Error | undefined, value?: HttpResponse): void {
    if (this.settled) return
    this.settled = true
    clearTimeout(this.timer)
    if (err) this.reject(err)
    else this.resolve(value!)
  }
}

const timedOut = (exchange: PoolExchange): void => exchange.expire()
