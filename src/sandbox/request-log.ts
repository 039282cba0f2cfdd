/**
 * The request log: one JSON object per request (time, method, path, query, headers, body, status, duration),
 * redacted by the one redactor (src/client/redact.ts). Kept in memory (the last 10 000 to 11 000, GET /_sandbox/requests) and appended to --log FILE through
 * a buffered stream: no synchronous I/O on the request path.
 */
import {createWriteStream, type WriteStream} from 'node:fs'
import {redactBodyText, redactJson, redactQuery} from '../client/redact.js'

export {REDACTED, redactHeaders} from '../client/redact.js'
export {redactQuery}

/** Entries kept in memory (a ring trimmed in batches: between MAX_MEMORY and MAX_MEMORY + 1000). */
const MAX_MEMORY = 10_000
/** Bodies up to this many bytes are logged whole (redacted); longer ones as their first LOG_BODY_MAX characters. */
export const LOG_BODY_MAX = 4096

/**
 * What the log keeps of a request body: the parsed JSON (when the pipeline parsed a small one), form fields,
 * or the text cut to LOG_BODY_MAX characters; always redacted (by key, or by pattern when it does not parse).
 */
export function logBody(raw: Buffer, contentType: string | undefined, parsed: unknown): unknown {
  if (parsed !== undefined) return redactJson(parsed)
  if (raw.length === 0) return undefined
  const text = raw.length > LOG_BODY_MAX ? raw.subarray(0, LOG_BODY_MAX).toString('utf8') : raw.toString('utf8')
  if (/^application\/x-www-form-urlencoded/i.test(contentType ?? '')) return redactQuery(Object.fromEntries(new URLSearchParams(text)))
  return raw.length > LOG_BODY_MAX ? `${redactBodyText(text)}…` : redactBodyText(text)
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
