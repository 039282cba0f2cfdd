/**
 * The client of the sandbox's control API (/_sandbox/…; no auth; docs/sandbox.md), used by the
 * `pay sandbox <control>` commands. Like the service's endpoint table (src/api/endpoints.ts), the control
 * endpoints the CLI calls are named here once, by id; the request goes through the client core's transport and a
 * failure becomes the same errors (and exit codes) as the service's: a 404 exits 4, a 409 5, no sandbox 7.
 */
import {fillPath} from '../api/endpoints.js'
import {SANDBOX_PROFILE} from '../config/profile-schema.js'
import {readProfiles} from '../config/profiles.js'
import {parseJson, toApiError} from './api-client.js'
import {NetworkError} from '../base/errors.js'
import {isLoopbackUrl} from './loopback.js'
import {redactBodyText, redactUrl} from '../base/redact.js'
import {Transport} from './transport.js'
import {controlEndpoints, type ControlEndpointId} from '../api/control-endpoints.js'

/** Where `pay sandbox start` listens by default. */
const DEFAULT_SANDBOX_URL = 'http://127.0.0.1:4010'

export {controlEndpoints, type ControlEndpointId} from '../api/control-endpoints.js'

export interface ControlInput {
  path?: Record<string, string>
  query?: Record<string, string | undefined>
  body?: unknown
}

interface ControlOptions {
  /** --url */
  url?: string
  userAgent: string
  timeoutMs?: number
  /** --debug sink (stderr). */
  debug?: (text: string) => void
  env?: NodeJS.ProcessEnv
}

/** The sandbox to control: --url, else $PAY_SANDBOX_URL, else the "sandbox" profile's base URL, else the default. */
function sandboxUrl(flag?: string, env: NodeJS.ProcessEnv = process.env): string {
  let url = flag || env.PAY_SANDBOX_URL
  if (!url) {
    try {
      url = readProfiles()?.profiles[SANDBOX_PROFILE]?.base_url
    } catch {
      // an unreadable profiles file: the default
    }
  }
  return (url || DEFAULT_SANDBOX_URL).replace(/\/+$/, '')
}

export class ControlClient {
  readonly baseUrl: string
  private readonly transport = new Transport()

  constructor(private readonly options: ControlOptions) {
    this.baseUrl = sandboxUrl(options.url, options.env)
  }

  /** Calls a control endpoint; the parsed answer, or an ApiError / NetworkError. */
  async call<T = any>(id: ControlEndpointId, input: ControlInput = {}): Promise<T> {
    const {method, path} = controlEndpoints[id]
    const url = new URL(this.baseUrl + fillPath(path, input.path))
    for (const [k, v] of Object.entries(input.query ?? {})) if (v !== undefined) url.searchParams.set(k, v)
    const body = input.body === undefined ? undefined : JSON.stringify(input.body)
    const headers = {'user-agent': this.options.userAgent, accept: 'application/json', ...(body === undefined ? {} : {'content-type': 'application/json'})}
    this.options.debug?.(`-> ${method} ${redactUrl(url.toString())}${body === undefined ? '' : `\n   ${redactBodyText(body)}`}`)
    let res
    try {
      res = await this.transport.send({method, url: url.toString(), headers, body, timeoutMs: this.options.timeoutMs ?? 30_000})
    } catch (err) {
      throw new NetworkError(`cannot reach the sandbox at ${redactUrl(this.baseUrl)} (${(err as Error).message})`, 1, 'start it with `pay sandbox start`, or pass --url')
    }
    this.options.debug?.(`<- ${res.status} ${method} ${url.pathname}${res.text ? `\n   ${redactBodyText(res.text)}` : ''}`)
    const parsed = parseJson(res.text)
    if (res.status < 200 || res.status >= 300) throw toApiError(res.status, res.text, parsed, 1, res.headers)
    return (parsed ?? res.text) as T
  }

  async close(): Promise<void> {
    await this.transport.close()
  }
}

/**
 * True when `baseUrl` is a pay sandbox: a loopback address whose control API answers. A loopback address alone is not
 * enough (a port-forward to the real service is loopback too), so the control API is asked; any failure says no.
 */
export async function isSandbox(baseUrl: string, userAgent: string): Promise<boolean> {
  if (!isLoopbackUrl(baseUrl)) return false
  const client = new ControlClient({url: baseUrl, userAgent, timeoutMs: 2000})
  try {
    const clock = await client.call<{object?: unknown}>('clock.get')
    return clock?.object === 'clock'
  } catch {
    return false
  } finally {
    await client.close()
  }
}
