/**
 * The request log: one JSON object per request (time, method, path, query, headers, body, status, duration),
 * redacted by the one redactor (src/base/redact.ts). Kept in memory as a ring of the last MAX_MEMORY to
 * MAX_MEMORY + 1000 requests (GET /_sandbox/requests) and appended to --log FILE through a buffered stream:
 * no synchronous I/O on the request path.
 *
 * The request path stores only what it already holds (the header object, the parsed JSON body of a small
 * request or the first LOG_BODY_MAX bytes of another); the redacted entry is built when someone reads it
 * (--log, onRequest, GET /_sandbox/requests), not for every request.
 */
import {createWriteStream, type WriteStream} from 'node:fs'
import type {IncomingHttpHeaders} from 'node:http'
import {redactBodyText, redactHeaders, redactJson, redactQuery, redactUrl} from '../base/redact.js'
import {parseQuery} from './http.js'

/** Entries kept in memory (a ring trimmed in batches: between MAX_MEMORY and MAX_MEMORY + 1000). */
const MAX_MEMORY = 10_000
/** Bodies up to this many bytes are logged whole (redacted); longer ones as their first LOG_BODY_MAX bytes. */
export const LOG_BODY_MAX = 4096
/** Longest path and header value kept in a log entry. */
const MAX_TEXT = 512

/** What the request path records. */
interface RawEntry {
  time: number
  request_id: string | null
  method: string
  url: string
  headers: IncomingHttpHeaders
  /** The parsed JSON body (small bodies the pipeline parsed), else undefined. */
  parsed: unknown
  /** The body bytes (at most LOG_BODY_MAX + 1, a copy) when there is no parsed body. */
  raw?: Buffer
  status: number
  dropped?: boolean
  duration_ms: number
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

const cut = (s: string) => (s.length > MAX_TEXT ? s.slice(0, MAX_TEXT) + '…' : s)

/** What the log keeps of a request body: parsed JSON, form fields, or text cut to LOG_BODY_MAX bytes; always redacted. */
function bodyOf(e: RawEntry): unknown {
  if (e.parsed !== undefined) return redactJson(e.parsed)
  const raw = e.raw
  if (!raw || raw.length === 0) return undefined
  const long = raw.length > LOG_BODY_MAX
  const text = (long ? raw.subarray(0, LOG_BODY_MAX) : raw).toString('utf8')
  const type = e.headers['content-type']
  if (typeof type === 'string' && /^application\/x-www-form-urlencoded/i.test(type)) return redactQuery(Object.fromEntries(new URLSearchParams(text)))
  return long ? `${redactBodyText(text)}…` : redactBodyText(text)
}

/** The redacted, printable entry of a recorded request. */
function materialise(e: RawEntry): LogEntry {
  const q = e.url.indexOf('?')
  const headers = redactHeaders(e.headers)
  for (const [k, v] of Object.entries(headers)) headers[k] = cut(v)
  return {
    time: new Date(e.time).toISOString(),
    request_id: e.request_id,
    method: e.method,
    path: cut(redactUrl(q === -1 ? e.url : e.url.slice(0, q))),
    query: redactQuery(q === -1 ? {} : parseQuery(e.url.slice(q + 1))),
    headers,
    body: bodyOf(e),
    status: e.status,
    ...(e.dropped ? {dropped: true} : {}),
    duration_ms: e.duration_ms,
  }
}

/** The part of a body worth keeping for the log: a small copy, never a reference to a large buffer. */
export function keptBody(raw: Buffer): Buffer | undefined {
  if (raw.length === 0) return undefined
  return Buffer.from(raw.subarray(0, LOG_BODY_MAX + 1))
}

export class RequestLog {
  private readonly ring: RawEntry[] = []
  private readonly built = new WeakMap<RawEntry, LogEntry>()
  /**
   * The redacted entries, oldest first: a live view of the ring whose elements are built when read
   * (`entries.length = 0` clears the log, as it did when the log was a plain array).
   */
  readonly entries: LogEntry[] = new Proxy(this.ring as unknown as LogEntry[], {
    get: (target, prop, receiver) => {
      if (typeof prop === 'string' && /^\d+$/.test(prop)) {
        const raw = this.ring[Number(prop)]
        return raw === undefined ? undefined : this.entry(raw)
      }
      return Reflect.get(target, prop, receiver)
    },
  })
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

  private entry(e: RawEntry): LogEntry {
    let built = this.built.get(e)
    if (!built) this.built.set(e, (built = materialise(e)))
    return built
  }

  add(raw: RawEntry): void {
    this.ring.push(raw)
    if (this.ring.length > MAX_MEMORY + 1000) this.ring.splice(0, this.ring.length - MAX_MEMORY) // trim in batches
    if (this.stream || this.onEntry) {
      const entry = this.entry(raw)
      if (this.stream) this.stream.write(JSON.stringify(entry) + '\n')
      this.onEntry?.(entry)
    }
  }

  clear(): void {
    this.ring.length = 0
  }

  close(): Promise<void> {
    const s = this.stream
    this.stream = undefined
    if (!s) return Promise.resolve()
    return new Promise((resolve) => s.end(resolve))
  }
}
