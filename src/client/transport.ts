/**
 * The HTTP transport, and the rule that credentials never travel over plain http:// to a host that is not
 * loopback. Requests go out through Node's own http/https with a keep-alive agent; when the environment names a
 * proxy (HTTP_PROXY, HTTPS_PROXY, either case), through undici's EnvHttpProxyAgent instead, which also honours
 * NO_PROXY. (undici costs ~25 ms of every command to load and to compile its HTTP parser, node:http about 5: so
 * it is loaded only for a proxy.) Both report failures with the error codes src/client/retry-policy.ts knows.
 */
import type {Agent as HttpAgent, ClientRequest, IncomingMessage} from 'node:http'
import type {Dispatcher} from 'undici'
import {InputError} from './errors.js'
import {CONNECT_TIMEOUT_CODE, RESPONSE_TIMEOUT_CODE} from './retry-policy.js'
import {isLoopbackHost} from './loopback.js'

export {isLoopbackHost} from './loopback.js'

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
}

/** Validates a base URL: absolute http(s), and https unless the host is loopback. Exit 2 otherwise. */
export function checkBaseUrl(baseUrl: string, flag = '--base-url'): URL {
  let url: URL
  try {
    url = new URL(baseUrl)
  } catch {
    throw InputError.one(flag, `must be an absolute URL such as https://api.example.com (got "${baseUrl}")`)
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

const CONNECT_TIMEOUT_MS = 10_000
const KEEP_ALIVE_MS = 10_000

const PROXY_VARIABLES = ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy']

/** True when the environment names a proxy: requests then go through undici's EnvHttpProxyAgent. */
export function proxyConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  return PROXY_VARIABLES.some((name) => Boolean(env[name]))
}

function failure(message: string, code: string): Error {
  return Object.assign(new Error(message), {code})
}

export class Transport {
  private readonly agents = new Map<string, HttpAgent>()
  private dispatcher?: Promise<Dispatcher>

  constructor(private readonly env: NodeJS.ProcessEnv = process.env) {}

  async send(req: HttpRequest): Promise<HttpResponse> {
    if (proxyConfigured(this.env)) return this.sendThroughProxy(req)
    const url = new URL(req.url)
    const https = url.protocol === 'https:'
    const module = https ? await import('node:https') : await import('node:http')
    let agent = this.agents.get(url.protocol)
    if (!agent) {
      agent = new module.Agent({keepAlive: true, timeout: KEEP_ALIVE_MS})
      this.agents.set(url.protocol, agent)
    }
    const headers: Record<string, string | number> = {...req.headers}
    if (req.body !== undefined) headers['content-length'] = Buffer.byteLength(req.body)
    return new Promise<HttpResponse>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined
      const clear = () => timer && clearTimeout(timer)
      const fail = (err: Error) => {
        clear()
        reject(err)
      }
      const out: ClientRequest = module.request(url, {method: req.method, headers, agent}, (res: IncomingMessage) => {
        // the headers are in: from here on the body may idle at most timeoutMs between chunks
        clear()
        const chunks: Buffer[] = []
        res.setTimeout(req.timeoutMs, () => res.destroy(failure(`no data within ${req.timeoutMs} ms (body timeout)`, RESPONSE_TIMEOUT_CODE)))
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('error', fail)
        res.on('end', () => {
          const responseHeaders: Record<string, string> = {}
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) responseHeaders[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v
          resolve({status: res.statusCode ?? 0, headers: responseHeaders, text: Buffer.concat(chunks).toString('utf8')})
        })
      })
      out.on('error', fail)
      // no connection within CONNECT_TIMEOUT_MS: nothing was sent; no answer within timeoutMs after that: a timeout
      const waitForAnswer = () => {
        clear()
        timer = setTimeout(() => out.destroy(failure(`no answer within ${req.timeoutMs} ms (headers timeout)`, RESPONSE_TIMEOUT_CODE)), req.timeoutMs)
      }
      out.on('socket', (socket) => {
        if (!socket.connecting) return waitForAnswer()
        timer = setTimeout(() => out.destroy(failure(`could not connect within ${CONNECT_TIMEOUT_MS} ms`, CONNECT_TIMEOUT_CODE)), CONNECT_TIMEOUT_MS)
        socket.once(https ? 'secureConnect' : 'connect', waitForAnswer)
      })
      out.end(req.body)
    })
  }

  /** Through the proxy the environment names (undici's EnvHttpProxyAgent; NO_PROXY honoured). */
  private async sendThroughProxy(req: HttpRequest): Promise<HttpResponse> {
    const {EnvHttpProxyAgent, request} = await import('undici')
    this.dispatcher ??= Promise.resolve(new EnvHttpProxyAgent({keepAliveTimeout: KEEP_ALIVE_MS, connect: {timeout: CONNECT_TIMEOUT_MS}}))
    const res = await request(req.url, {
      method: req.method as Dispatcher.HttpMethod,
      headers: req.headers,
      body: req.body,
      dispatcher: await this.dispatcher,
      headersTimeout: req.timeoutMs,
      bodyTimeout: req.timeoutMs,
    })
    const text = await res.body.text()
    const headers: Record<string, string> = {}
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v
    return {status: res.statusCode, headers, text}
  }

  async close(): Promise<void> {
    for (const agent of this.agents.values()) agent.destroy()
    this.agents.clear()
    await (await this.dispatcher)?.close()
  }
}
