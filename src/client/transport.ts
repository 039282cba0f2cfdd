/**
 * The HTTP transport: undici with keep-alive, HTTPS_PROXY/NO_PROXY honoured (EnvHttpProxyAgent),
 * and the rule that credentials never travel over plain http:// to a host that is not loopback.
 */
import {EnvHttpProxyAgent, request, type Dispatcher} from 'undici'
import {InputError} from './errors.js'
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

export class Transport {
  private readonly dispatcher: Dispatcher

  constructor() {
    this.dispatcher = new EnvHttpProxyAgent({keepAliveTimeout: 10_000, connect: {timeout: 10_000}})
  }

  async send(req: HttpRequest): Promise<HttpResponse> {
    const res = await request(req.url, {
      method: req.method as Dispatcher.HttpMethod,
      headers: req.headers,
      body: req.body,
      dispatcher: this.dispatcher,
      headersTimeout: req.timeoutMs,
      bodyTimeout: req.timeoutMs,
    })
    const text = await res.body.text()
    const headers: Record<string, string> = {}
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v
    return {status: res.statusCode, headers, text}
  }

  async close(): Promise<void> {
    await this.dispatcher.close()
  }
}
