/** The sandbox's transport-neutral request and response, and small response builders. */
import type {IncomingHttpHeaders} from 'node:http'

export interface SbRequest {
  method: string
  path: string
  query: Record<string, string>
  headers: IncomingHttpHeaders
  raw: Buffer
  ip: string
}

export interface SbResponse {
  status: number
  headers: Record<string, string>
  body: string
  /** Destroy the socket instead of answering (drop-after-commit fault). */
  drop?: boolean
  /** Parsed request body for the request log. */
  logBody?: unknown
  requestId?: string
}

export const JSON_TYPE = 'application/json; charset=utf-8'

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): SbResponse {
  return {status, headers: {'content-type': JSON_TYPE, ...headers}, body: JSON.stringify(body)}
}

export function parseQuery(qs: string): Record<string, string> {
  const out: Record<string, string> = {}
  if (!qs) return out
  for (const [k, v] of new URLSearchParams(qs)) if (!Object.hasOwn(out, k)) out[k] = v
  return out
}

export function header(req: SbRequest, name: string): string | undefined {
  const v = req.headers[name]
  return Array.isArray(v) ? v[0] : v
}
