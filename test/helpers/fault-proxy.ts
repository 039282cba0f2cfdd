/**
 * A loopback HTTP proxy in front of the sandbox that loses answers on purpose. Each request is forwarded as
 * is; the rule then decides what the client gets:
 *   'pass'  the service's answer;
 *   'cut'   nothing: the connection is destroyed AFTER the service has answered (so it has committed);
 *   'hold'  nothing, ever (the service has answered; the client waits until it gives up or is killed);
 *   'drop'  the connection is destroyed and nothing is forwarded (the service never sees the request);
 *   {status, retryAfter} an answer made up here, without forwarding (a 429 storm); headerOnly: the wait is in
 *           the Retry-After header only, not in the body.
 * Real sockets on 127.0.0.1 end to end: no mocked HTTP.
 */
import {type IncomingMessage, type Server, type ServerResponse, createServer, request} from 'node:http'
import type {AddressInfo} from 'node:net'

export type FaultAction = 'pass' | 'cut' | 'hold' | 'drop' | {status: number; retryAfter?: number; headerOnly?: boolean}

export interface FaultRequest {
  method: string
  path: string
  headers: IncomingMessage['headers']
  body: string
}

export interface FaultProxy {
  url: string
  /** Decides per request; replace it at any time. */
  rule: (req: FaultRequest) => FaultAction
  /** Requests seen, with what was done. */
  seen: {req: FaultRequest; action: FaultAction}[]
  close(): Promise<void>
}

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const upstream = new URL(target)
  const held: ServerResponse[] = []
  const proxy: FaultProxy = {url: '', rule: () => 'pass', seen: [], close: async () => undefined}
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      const fr: FaultRequest = {method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body: body.toString('utf8')}
      const action = proxy.rule(fr)
      proxy.seen.push({req: fr, action})
      if (action === 'drop') {
        req.socket.destroy()
        return
      }
      if (typeof action === 'object') {
        const payload = JSON.stringify({error: {code: 'rate_limited', message: 'injected by the fault proxy', ...(action.headerOnly ? {} : {retry_after: action.retryAfter ?? 1})}})
        res.writeHead(action.status, {'content-type': 'application/json', ...(action.retryAfter !== undefined ? {'retry-after': String(action.retryAfter)} : {})})
        res.end(payload)
        return
      }
      const headers = {...req.headers, host: upstream.host}
      const up = request({host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers}, (upRes) => {
        const parts: Buffer[] = []
        upRes.on('data', (c: Buffer) => parts.push(c))
        upRes.on('end', () => {
          if (action === 'cut') {
            req.socket.destroy()
            return
          }
          if (action === 'hold') {
            held.push(res)
            return
          }
          const out = Buffer.concat(parts)
          const h = {...upRes.headers}
          delete h['transfer-encoding']
          h['content-length'] = String(out.length)
          res.writeHead(upRes.statusCode ?? 502, h)
          res.end(out)
        })
      })
      up.on('error', () => req.socket.destroy())
      up.end(body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  proxy.close = async () => {
    for (const r of held) r.socket?.destroy()
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
  return proxy
}

/** merchant_reference of a JSON request body, for rules that pick rows. */
export function referenceIn(body: string): string | undefined {
  try {
    return (JSON.parse(body) as {merchant_reference?: string}).merchant_reference
  } catch {
    return undefined
  }
}
