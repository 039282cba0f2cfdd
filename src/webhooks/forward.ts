/**
 * Forwarding, for `pay webhook listen --forward-to/--route` and `pay webhook replay`: the raw body and the original
 * headers (signature included) are posted to the developer's app, and its answer is read up to a bound. A listener
 * posts each accepted event to every route whose glob matches its type, at once; the worst answer goes back.
 */
import {redactUrl} from '../base/redact.js'
import {eventFilter} from './filter.js'

/** The largest answer of the --forward-to app read and passed back; a longer one is answered 502. */
export const MAX_FORWARD_ANSWER_BYTES = 1024 * 1024

export interface ForwardRoute {
  /** Glob on the event type (`*` any run, `?` one character). */
  pattern: string
  url: string
}

export interface ForwardResult {
  status?: number
  /** too_large: the app's answer was longer than MAX_FORWARD_ANSWER_BYTES (answered 502). */
  error?: 'unreachable' | 'timeout' | 'too_large'
  detail?: string
  ms: number
}

interface SendResult {
  response?: {status: number; headers: Record<string, string>; body: Buffer}
  error?: ForwardResult['error']
  detail?: string
  ms: number
}

interface Forwarder {
  send(body: Buffer, rawHeaders: string[]): Promise<SendResult>
  close(): Promise<void>
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'host', 'content-length', 'expect'])

/** Posts the raw body with the original headers (signature included) to the app; `via` is its X-Forwarded-By. */
export async function createForwarder(target: string, timeoutMs: number, via = 'pay webhook listen'): Promise<Forwarder> {
  const {exchange, loadUndici} = await import('../client/transport.js')
  const {Agent} = await loadUndici()
  const {classifyNetworkError} = await import('../client/request-policy.js')
  const agent = new Agent({keepAliveTimeout: 10_000, connect: {timeout: Math.min(timeoutMs, 5000)}})
  // what a failure says of the target (shown, kept in the history, answered to the sender): no password or token
  const shown = redactUrl(target)
  return {
    async send(body, rawHeaders) {
      const headers: [string, string][] = []
      for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
        if (!HOP_BY_HOP.has(rawHeaders[i].toLowerCase())) headers.push([rawHeaders[i], rawHeaders[i + 1]])
      }
      headers.push(['x-forwarded-by', via])
      const started = performance.now()
      try {
        // the whole exchange, body included, within --forward-timeout
        const res = await exchange(agent, target, {method: 'POST', headers: headers.flat(), body, timeoutMs, maxBodyBytes: MAX_FORWARD_ANSWER_BYTES})
        const out: Record<string, string> = {}
        for (const name of ['content-type', 'content-encoding']) if (res.headers[name]) out[name] = res.headers[name]
        return {response: {status: res.status, headers: out, body: res.body}, ms: Math.round(performance.now() - started)}
      } catch (err) {
        const e = err as {code?: string; message?: string}
        if (e.code === 'ERR_BODY_TOO_LARGE') {
          return {error: 'too_large', detail: `${shown} answered more than ${MAX_FORWARD_ANSWER_BYTES} bytes (not passed back)`, ms: Math.round(performance.now() - started)}
        }
        const timeout = classifyNetworkError(err).kind === 'timeout'
        return {
          error: timeout ? 'timeout' : 'unreachable',
          detail: timeout ? `${shown} did not answer within ${timeoutMs} ms` : `${shown} is unreachable: ${e.code ?? String(e.message).split(target).join(shown)}`,
          ms: Math.round(performance.now() - started),
        }
      }
    },
    close: () => agent.close(),
  }
}

export interface Route {
  /** The route's URL as shown and kept in the history (redactUrl: no password, no secret-named query value). */
  url: string
  to: Forwarder
}

/** A listener's routes: which of them an event type goes to. */
export interface Routes {
  /** The routes of a type (none when nothing is forwarded). */
  of(type: string): Route[]
  close(): Promise<void>
}

/** One forwarder per distinct URL; the routes of each type worked out once (for up to 1,000 types). */
export async function createRoutes(list: ForwardRoute[], timeoutMs: number): Promise<Routes> {
  const forwarders = new Map<string, Forwarder>()
  for (const r of list) if (!forwarders.has(r.url)) forwarders.set(r.url, await createForwarder(r.url, timeoutMs))
  const routes = list.map((r) => ({match: eventFilter([r.pattern]), url: redactUrl(r.url), to: forwarders.get(r.url)!}))
  const byType = new Map<string, Route[]>()
  return {
    of(type) {
      if (routes.length === 0) return routes
      let found = byType.get(type)
      if (!found) {
        found = routes.filter((r) => r.match(type))
        if (byType.size < 1000) byType.set(type, found)
      }
      return found
    },
    close: async () => {
      await Promise.all([...forwarders.values()].map((f) => f.close()))
    },
  }
}

/** The status a forward result is answered with: the app's, else 504 (timeout) or 502. */
export function forwardStatus(r: SendResult): number {
  return r.response?.status ?? (r.error === 'timeout' ? 504 : 502)
}

/** Posts to every target at once: each one's result, and the worst (the highest status) to pass back. */
export async function forwardAll(targets: Route[], raw: Buffer, rawHeaders: string[]): Promise<{worst: SendResult; results: SendResult[]}> {
  const results = await Promise.all(targets.map((t) => t.to.send(raw, rawHeaders)))
  let worst = results[0]
  for (const r of results) if (forwardStatus(r) > forwardStatus(worst)) worst = r
  return {worst, results}
}

/** What a forward result says in a delivery: its status, or its error and why, and how long it took. */
export function forwardSummary(r: SendResult): ForwardResult {
  return {status: r.response?.status, error: r.error, detail: r.detail, ms: r.ms}
}
