/**
 * The request log: one JSON object per request (time, method, path, query, redacted headers, redacted body,
 * status, duration). Kept in memory (the last 10 000 to 11 000, GET /_sandbox/requests) and appended to --log FILE through
 * a buffered stream: no synchronous I/O on the request path.
 */
import {createWriteStream, type WriteStream} from 'node:fs'

const SECRET_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization'])
const SECRET_FIELDS = new Set(['client_secret', 'access_token', 'webhook_secret', 'refresh_token', 'password', 'card_number'])
const MAX_MEMORY = 10_000
export const REDACTED = '[REDACTED]'

export function redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) continue
    const value = Array.isArray(v) ? v.join(', ') : v
    if (SECRET_HEADERS.has(k)) {
      const scheme = /^(\w+)\s/.exec(value)
      out[k] = scheme ? `${scheme[1]} ${REDACTED}` : REDACTED
    } else out[k] = value
  }
  return out
}

export function redactBody(body: unknown): unknown {
  if (Array.isArray(body)) return body.map(redactBody)
  if (body === null || typeof body !== 'object') return body
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) out[k] = SECRET_FIELDS.has(k) ? REDACTED : redactBody(v)
  return out
}

export interface LogEntry {
  time: string
  request_id: string | null
  method: string
  path: string
  query: Record<string, string>
  headers: Record<string, string>
  body: unknown
  status: number
  duration_ms: number
  [key: string]: unknown
}

export class RequestLog {
  readonly entries: LogEntry[] = []
  private stream?: WriteStream

  constructor(
    file?: string,
    private readonly onEntry?: (entry: LogEntry) => void,
  ) {
    if (file) {
      this.stream = createWriteStream(file, {flags: 'a', mode: 0o600})
      this.stream.on('error', () => {
        this.stream = undefined
      })
    }
  }

  add(entry: LogEntry): void {
    this.entries.push(entry)
    if (this.entries.length > MAX_MEMORY + 1000) this.entries.splice(0, this.entries.length - MAX_MEMORY) // trim in batches
    if (this.stream) this.stream.write(JSON.stringify(entry) + '\n')
    this.onEntry?.(entry)
  }

  clear(): void {
    this.entries.length = 0
  }

  close(): Promise<void> {
    const s = this.stream
    this.stream = undefined
    if (!s) return Promise.resolve()
    return new Promise((resolve) => s.end(resolve))
  }
}
