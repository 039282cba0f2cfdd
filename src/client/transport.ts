/**
 * The HTTP transport, and the rule that credentials never travel over plain http:// to a host that is not
 * loopback. Requests go out through Node's own http/https with a keep-alive agent; when the environment names a
 * proxy (HTTP_PROXY, HTTPS_PROXY, either case), through undici's EnvHttpProxyAgent instead, which also honours
 * NO_PROXY. (undici costs ~25 ms of every command to load and to compile its HTTP parser, node:http about 5: so
 * it is loaded only for a proxy.) Both report failures with the error codes src/client/request-policy.ts knows.
 * Either way `--timeout` bounds the whole exchange, the body's last byte included (`within`): per-chunk timers
 * alone let a body that trickles one byte a second run for ever.
 */
import type {Agent as HttpAgent, ClientRequest, IncomingMessage, RequestOptions} from 'node:http'
import type {Dispatcher} from 'undici'
import {InputError, PayError} from '../base/errors.js'
import {ExitCode} from '../base/exit-codes.js'
import {redactUrl} from '../base/redact.js'
import {CONNECT_TIMEOUT_CODE, RESPONSE_TIMEOUT_CODE} from './request-policy.js'
import {isLoopbackHost} from './loopback.js'
import {loadUndici} from './undici.js'

export {isLoopbackHost} from './loopback.js'
export {loadUndici} from './undici.js'

export interface HttpResponse {
  status: number
  headers: Record<string, string>
  text: string
}

export interface HttpRequest {
  method: string
  url: string
  headers: Record<string, string>
  body?: string
  timeoutMs: number
  /** Nothing of the request is sent, and its timer does not start, before this settles (the journal's fsync); it may connect meanwhile. */
  ready?: Promise<void>
}

/** Validates a base URL: absolute http(s), and https unless the host is loopback. Exit 2 otherwise. */
export function checkBaseUrl(baseUrl: string, flag = '--base-url'): URL {
  let url: URL
  try {
    url = new URL(baseUrl)
  } catch {
    throw InputError.one(flag, `must be an absolute URL such as https://api.example.com (got "${redactUrl(baseUrl)}")`)
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw InputError.one(flag, 'must use https://')
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw InputError.one(
      flag,
      `must use https:// for ${url.hostname}: credentials are only sent over plain http:// to loopback (127.0.0.0/8, ::1, localhost)`,
    )
  }
  return url
}

export const CONNECT_TIMEOUT_MS = 10_000
export const KEEP_ALIVE_MS = 10_000

/** An exchange (connect, headers and the whole body) did not finish within its time. */
export class ExchangeTimeoutError extends Error {
  readonly code = RESPONSE_TIMEOUT_CODE
  constructor(readonly timeoutMs: number) {
    super(`no complete answer within ${Math.round(timeoutMs / 1000)} s`)
    this.name = 'ExchangeTimeoutError'
  }
}

/**
 * Runs one exchange (`run` passes the signal to its request) and fails it with ExchangeTimeoutError when it has not
 * finished, body included, within `timeoutMs`, whatever the HTTP implementation does with the abort.
 */
export async function within<T>(timeoutMs: number, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController()
  let timeout: ExchangeTimeoutError | undefined // made only when it fires: an Error's stack costs ~15 µs per request
  let timer: NodeJS.Timeout | undefined
  try {
    return await new Promise<T>((resolve, reject) => {
      timer = setTimeout(() => {
        timeout = new ExchangeTimeoutError(timeoutMs)
        controller.abort(timeout)
        reject(timeout)
      }, timeoutMs)
      run(controller.signal).then(resolve, (err: unknown) => reject(timeout ?? err))
    })
  } finally {
    clearTimeout(timer)
  }
}

interface Exchange {
  status: number
  headers: Record<string, string>
  body: Buffer
}

/**
 * One request through an undici dispatcher and its whole body, within `timeoutMs`: the client core through a
 * proxy, and `webhook listen --forward-to`.
 */
export async function exchange(
  dispatcher: Dispatcher,
  url: string,
  options: {method: string; headers: Record<string, string> | string[]; body?: string | Buffer; timeoutMs: number; maxBodyBytes?: number},
): Promise<Exchange> {
  const {request} = await loadUndici()
  return within(options.timeoutMs, async (signal) => {
    const res = await request(url, {
      method: options.method as Dispatcher.HttpMethod,
      headers: options.headers,
      body: options.body,
      dispatcher,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      signal,
    })
    const body = options.maxBodyBytes === undefined ? Buffer.from(await res.body.arrayBuffer()) : await boundedBody(res.body, options.maxBodyBytes)
    return {status: res.statusCode, headers: flatHeaders(res.headers), body}
  })
}

/** The body read up to `max` bytes; over it, reading stops and an error with code ERR_BODY_TOO_LARGE is thrown. */
async function boundedBody(body: AsyncIterable<Buffer> & {destroy(err?: Error): unknown}, max: number): Promise<Buffer> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of body) {
    size += chunk.length
    if (size > max) {
      body.destroy()
      throw failure(`the answer is longer than ${max} bytes`, 'ERR_BODY_TOO_LARGE')
    }
    chunks.push(chunk)
  }
  return Buffer.concat(chunks, size)
}

/** The content codings pay reads in an answer, though it asks for none (`Accept-Encoding: identity`, src/client/api-client.ts). */
export const READ_CODINGS = 'gzip, deflate and br'
/** The most bytes one encoded answer may decode to: past it, the body is left as it came (not JSON). */
const MAX_DECODED_BYTES = 64 * 1024 * 1024

/**
 * An answer's body as text. pay asks for no content coding; a service (or a CDN before it) that sends gzip, deflate
 * or br all the same is decoded with node:zlib, loaded only then (no start-up cost for the usual answer). A coding
 * pay does not read, or bytes that do not decode, are left as they came: the body then fails as not JSON, and the
 * message names the coding (src/client/api-client.ts, unusableBody). One rule for the three ways an answer arrives
 * (node:http, the proxy's undici, a bulk run's pool).
 */
export function bodyText(headers: Record<string, string>, bytes: Buffer): string {
  const coding = headers['content-encoding']
  if (coding === undefined) return bytes.toString('utf8')
  const codings = coding.toLowerCase().split(',').map((c) => c.trim()).filter((c) => c !== '' && c !== 'identity')
  if (codings.length === 0) return bytes.toString('utf8')
  const zlib = process.getBuiltinModule('node:zlib')
  const limit = {maxOutputLength: MAX_DECODED_BYTES}
  let out = bytes
  try {
    // the codings were applied in the order listed: undone last first
    for (const c of codings.reverse()) {
      if (c === 'gzip' || c === 'x-gzip') out = zlib.gunzipSync(out, limit)
      else if (c === 'br') out = zlib.brotliDecompressSync(out, limit)
      else if (c === 'deflate') out = inflated(zlib, out, limit)
      else return bytes.toString('utf8')
    }
  } catch {
    return bytes.toString('utf8')
  }
  return out.toString('utf8')
}

/** `deflate` is the zlib format (RFC 9110); some servers send the bare deflate stream under that name. */
function inflated(zlib: typeof import('node:zlib'), bytes: Buffer, limit: {maxOutputLength: number}): Buffer {
  try {
    return zlib.inflateSync(bytes, limit)
  } catch {
    return zlib.inflateRawSync(bytes, limit)
  }
}

function flatHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const [k, v] of Object.entries(raw)) if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v
  return headers
}

/** The proxy undici's EnvHttpProxyAgent would use for a URL's scheme (NO_PROXY aside), and the variable it came from. */
export function configuredProxy(url: string, env: NodeJS.ProcessEnv = process.env): {origin: string; variable: string; host: string; port: number} | undefined {
  const names = new URL(url).protocol === 'https:' ? ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY'] : ['http_proxy', 'HTTP_PROXY']
  for (const variable of names) {
    const value = env[variable]
    if (!value) continue
    try {
      const u = new URL(value)
      // origin only: a proxy URL may carry user:password
      return {origin: `${u.protocol}//${u.host}`, variable, host: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port) || (u.protocol === 'https:' ? 443 : 80)}
    } catch {
      return undefined
    }
  }
  return undefined
}

const PROXY_VARIABLES = ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy']

/** True when the environment names a proxy: requests then go through undici's EnvHttpProxyAgent. */
export function proxyConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  return PROXY_VARIABLES.some((name) => Boolean(env[name]))
}

function failure(message: string, code: string): Error {
  return Object.assign(new Error(message), {code})
}

/**
 * A request still in flight when its command ended (close): one a signal made the command give up (a --wait's
 * poll; no path closes the client with a money request in flight: the journal's signal handler exits first). A
 * PayError, so the client ends it at once instead of retrying it, as it does pay's own failures; `inFlight`: it may
 * have been written, so its class is unknown, never refused.
 */
function closedError(inFlight: boolean): PayError {
  const err = new PayError('the command ended before this request was answered', ExitCode.OTHER)
  if (inFlight) err.requestClass = 'unknown'
  return err
}

/**
 * One request of sendDirect, made (its socket assigned and connecting) with nothing written until `send`. Before
 * then, a failure or an answer (a server may close an idle connection, or answer 408 to a request it never got)
 * only marks it `failed` and closes it: nothing of it was written, and sendDirect makes another.
 */
class DirectRequest {
  failed = false
  private readonly out: ClientRequest
  private connectTimer?: NodeJS.Timeout
  /** Set by `send` (and `abandon`): what the request's end, or its failure, comes to; called once. */
  private done?: (err: Error | undefined, res?: HttpResponse) => void

  constructor(module: typeof import('node:http') | typeof import('node:https'), url: URL, options: RequestOptions, https: boolean) {
    this.out = module.request(url, options, (res: IncomingMessage) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('error', (err) => this.settle(err))
      res.on('end', () => {
        const headers = flatHeaders(res.headers)
        this.settle(undefined, {status: res.statusCode ?? 0, headers, text: bodyText(headers, Buffer.concat(chunks))})
      })
    })
    this.out.on('error', (err) => this.settle(err))
    this.out.on('socket', (socket) => {
      if (!socket.connecting) return
      this.connectTimer = setTimeout(() => this.out.destroy(failure(`could not connect within ${CONNECT_TIMEOUT_MS} ms`, CONNECT_TIMEOUT_CODE)), CONNECT_TIMEOUT_MS)
      socket.once(https ? 'secureConnect' : 'connect', () => clearTimeout(this.connectTimer))
    })
  }

  /** Writes the request and starts its timer: the answer, or the failure, within `timeoutMs`. */
  send(body: string | undefined, timeoutMs: number): Promise<HttpResponse> {
    return new Promise<HttpResponse>((resolve, reject) => {
      const overall = setTimeout(() => {
        const timeout = new ExchangeTimeoutError(timeoutMs)
        this.settle(timeout)
        this.out.destroy(timeout)
      }, timeoutMs)
      this.done = (err, res) => {
        this.done = ignored
        clearTimeout(overall)
        clearTimeout(this.connectTimer)
        if (err) reject(err)
        else resolve(res!)
      }
      this.out.end(body)
    })
  }

  /** Closes it unwritten (`ready` rejected): what it meets after this (the 'error' of its destroy) is not reported. */
  abandon(): void {
    this.done = ignored
    clearTimeout(this.connectTimer)
    this.out.destroy()
  }

  private settle(err: Error | undefined, res?: HttpResponse): void {
    if (this.done) return this.done(err, res)
    if (this.failed) return
    this.failed = true
    clearTimeout(this.connectTimer)
    this.out.destroy()
  }
}

const ignored = (): void => undefined

export class Transport {
  private readonly agents = new Map<string, HttpAgent>()
  private dispatcher?: Promise<Dispatcher>
  private proxied?: boolean
  private httpModule?: typeof import('node:http')
  private httpsModule?: typeof import('node:https')
  private closed = false

  constructor(private readonly env: NodeJS.ProcessEnv = process.env) {}

  async send(req: HttpRequest): Promise<HttpResponse> {
    if (this.closed) throw closedError(false)
    this.proxied ??= proxyConfigured(this.env) // the environment of a process does not change its proxy midway
    try {
      return await (this.proxied ? this.sendThroughProxy(req) : this.sendDirect(req))
    } catch (err) {
      throw this.closed ? closedError(true) : err
    }
  }

  /**
   * One exchange through node:http(s). One timer bounds it whole from `ready` on (what is left of the
   * connect, headers, the body's last byte: what `within` does for the proxy path, without an AbortController per
   * request, which a bulk run of thousands of rows pays for); a connection not made within CONNECT_TIMEOUT_MS fails
   * as "never sent". With `ready` (the journal's fsync), the request is made before it settles: node:http loaded,
   * the socket made and connecting (with https, the TLS handshake too) while the fsync runs. node:http writes no
   * byte of a request, its head included, before end() (Node's lib/_http_outgoing.js keeps them in `outputData`
   * until then), except with an Expect header, whose head it sends at once: such a request is made after `ready`.
   * end() and the timer come after `ready`; when `ready` rejects, the connection is closed and the send fails with
   * that error (pay's own: nothing was written). A request that failed (refused, reset, not connected in time) or
   * was answered before it was written is dropped and made again after `ready`, so what it comes to is what a
   * request made then meets, as before this overlap.
   */
  private async sendDirect(req: HttpRequest): Promise<HttpResponse> {
    const url = new URL(req.url)
    const https = url.protocol === 'https:'
    // loaded on first use, as CommonJS: import() would build its ES-module face (on Node 22+ that loads Node's own
    // undici and node:http2, ~35 ms) and start the ESM loader
    const module = https ? (this.httpsModule ??= process.getBuiltinModule('node:https')) : (this.httpModule ??= process.getBuiltinModule('node:http'))
    let agent = this.agents.get(url.protocol)
    if (!agent) {
      agent = new module.Agent({keepAlive: true, timeout: KEEP_ALIVE_MS})
      this.agents.set(url.protocol, agent)
    }
    const headers: Record<string, string | number> = {...req.headers}
    if (req.body !== undefined) headers['content-length'] = Buffer.byteLength(req.body)
    const open = () => new DirectRequest(module, url, {method: req.method, headers, agent}, https)
    if (!req.ready) return open().send(req.body, req.timeoutMs)
    const early = Object.keys(headers).some((name) => name.toLowerCase() === 'expect') ? undefined : open()
    try {
      await req.ready
    } catch (err) {
      early?.abandon()
      throw err
    }
    return (early && !early.failed ? early : open()).send(req.body, req.timeoutMs)
  }

  /** Through the proxy the environment names (undici's EnvHttpProxyAgent; NO_PROXY honoured). */
  private async sendThroughProxy(req: HttpRequest): Promise<HttpResponse> {
    const {EnvHttpProxyAgent} = await loadUndici()
    this.dispatcher ??= Promise.resolve(new EnvHttpProxyAgent({keepAliveTimeout: KEEP_ALIVE_MS, connect: {timeout: CONNECT_TIMEOUT_MS}}))
    await req.ready
    const res = await exchange(await this.dispatcher, req.url, req)
    return {status: res.status, headers: res.headers, text: bodyText(res.headers, res.body)}
  }

  /** At a command's end: what is still in flight was given up (a --wait a signal ended), so it is ended, not awaited. */
  async close(): Promise<void> {
    this.closed = true
    for (const agent of this.agents.values()) agent.destroy()
    this.agents.clear()
    await (await this.dispatcher)?.destroy()
  }
}
