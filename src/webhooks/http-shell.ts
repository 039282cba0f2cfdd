/**
 * The listener's HTTP shell: a node:http server that takes requests at one path and hands each body, read whole
 * and bounded, to the listener; it answers what is decided on the headers alone (the tunnel's ping, another path
 * 404) and protects itself: a cap on requests in progress (503 with Retry-After over it), a bound on open sockets,
 * timeouts on headers and bodies, and an answer to a malformed request. It never throws out of a request handler.
 */
import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import type {AddressInfo, Socket} from 'node:net'
import type {Body} from './judge.js'
import {PING_HEADER, type PingKey} from './ping.js'

/** A request's headers must arrive within this time, its whole body within REQUEST_TIMEOUT (answered 408, closed). */
const DEFAULT_HEADERS_TIMEOUT_MS = 10_000
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000
/** Requests in progress at most; one over it is answered 503 with Retry-After. */
export const DEFAULT_MAX_CONNECTIONS = 256
/** What a 503 over the cap asks the sender to wait. */
const RETRY_AFTER_SECONDS = 1
/** Over the open-socket bound, a connection that has not sent its headers this long after it connected may be closed. */
const HEADERS_GRACE_MS = 3000
/** Open sockets at most, as a multiple of the cap: over it, stale ones are closed, or else the new one. */
export const OVERFLOW_FACTOR = 8
/** An idle keep-alive connection is kept at least this long (tunnel clients keep theirs open), then closed. */
const DEFAULT_IDLE_TIMEOUT_MS = 65_000
/** Idle connections are looked for this many times per idle timeout. */
const IDLE_SWEEPS = 8

/** The counts the shell keeps (fields of the listener's stats). */
interface ShellCounts {
  received: number
  not_found: number
  busy: number
}

/** What the listener does with the requests at its path. */
interface ShellHandlers {
  /** A JSON answer (the pong, the 404), through the listener's answers. */
  reply(res: ServerResponse, status: number, body: unknown): void
  /** Rejected on its headers alone: its method, or a declared length over the limit (`bytes`). */
  early(req: IncomingMessage, res: ServerResponse, reason: 'method_not_allowed' | 'body_too_large', detail: string, bytes: number): void
  /** A delivery's body, read whole (or over the limit, or cut short by the sender). */
  body(req: IncomingMessage, res: ServerResponse, raw: Body): void
  /** A 500 for what was never meant to happen. */
  failed(res: ServerResponse, err: Error): void
}

interface ShellOptions {
  port?: number
  host?: string
  path: string
  maxBodyBytes: number
  /** The tunnel health check's key: a request carrying a ping signed with it is answered, not counted or shown. */
  pingKey?: PingKey
  headersTimeoutMs?: number
  requestTimeoutMs?: number
  /** How long an idle keep-alive connection is kept at least (DEFAULT_IDLE_TIMEOUT_MS). */
  idleTimeoutMs?: number
  maxConnections?: number
  counts: ShellCounts
  handlers: ShellHandlers
}

interface HttpShell {
  /** http://host:port (no path). */
  url: string
  port: number
  close(): Promise<void>
}

interface Connection {
  /** The answer to its latest request. */
  last?: ServerResponse
  /** performance.now() when it connected. */
  since: number
  /** How many idle sweeps had run when its latest request came (or when it connected), or its answer was seen finished. */
  active: number
  /** The answer a sweep has seen finished (its `active` moved up to that sweep's start). */
  seen?: ServerResponse
}

export async function startHttpShell(options: ShellOptions): Promise<HttpShell> {
  const {path, maxBodyBytes: maxBody, pingKey, counts, handlers} = options
  const maxDigits = String(maxBody).length

  /** Up to the body: the ping, the path, the method and the declared length are judged on the headers alone. */
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const ping = pingKey && req.headers[PING_HEADER]
    const nonce = ping ? pingKey.check(ping) : undefined
    if (nonce !== undefined) {
      req.resume()
      handlers.reply(res, 200, {pong: nonce})
      return
    }
    const url = req.url ?? '/'
    const query = url.indexOf('?')
    if ((query === -1 ? url : url.slice(0, query)) !== path) {
      counts.not_found++
      req.resume()
      handlers.reply(res, 404, {error: {code: 'not_found', message: `webhooks are accepted at ${path}`}})
      return
    }
    counts.received++
    if (req.method !== 'POST') {
      req.resume()
      handlers.early(req, res, 'method_not_allowed', `${req.method} is not allowed; deliveries are POSTs`, 0)
      return
    }
    // a declared length with fewer digits than the limit is under it (no string-to-number conversion then)
    const length = req.headers['content-length']
    const declared = length !== undefined && length.length >= maxDigits ? Number(length) : 0
    if (Number.isFinite(declared) && declared > maxBody) {
      handlers.early(req, res, 'body_too_large', `body of ${declared} bytes is over the limit of ${maxBody} bytes`, declared)
      req.resume()
      return
    }
    readBody(req, maxBody, (raw) => handlers.body(req, res, raw))
  }

  /**
   * The cap is on requests in progress (bodies being read, judged or forwarded): at most maxConnections at once.
   * A request over it is never reset: it is read to its end (closing a socket with unread bytes sends a reset),
   * dropped, and answered 503 with Retry-After and Connection: close, so the sender retries it. Connections that
   * have sent no complete request yet hold no place: a slow or stuck sender cannot crowd out deliveries (and is
   * closed by the headers timeout). Open sockets are bounded too, at OVERFLOW_FACTOR times the cap: over it, stale
   * ones are closed, oldest first (idle ones, and ones still sending their headers HEADERS_GRACE_MS after they
   * connected), and when none is stale the new connection is closed at once (the last resort against a flood).
   */
  const sockets = new Map<Socket, Connection>()
  const maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS
  const maxSockets = maxConnections * OVERFLOW_FACTOR
  let busy = 0
  const done = () => busy--
  let sweeper: NodeJS.Timeout | undefined
  /** Closes stale connections, oldest first, while more than maxSockets are open. */
  const shed = () => {
    const now = performance.now()
    for (const [old, st] of sockets) {
      if (sockets.size <= maxSockets) break
      if (st.last ? st.last.writableFinished : now - st.since >= HEADERS_GRACE_MS) {
        sockets.delete(old)
        old.destroy()
      }
    }
    if (sockets.size <= maxSockets && sweeper) {
      clearInterval(sweeper)
      sweeper = undefined
    }
  }
  const overCapacity = (req: IncomingMessage, res: ServerResponse) => {
    counts.busy++
    const answer = () => {
      if (res.headersSent || res.destroyed) return
      const text = JSON.stringify({error: {code: 'listener_busy', message: `over ${maxConnections} requests in progress; retry after ${RETRY_AFTER_SECONDS} s`}})
      res.writeHead(503, {'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'retry-after': String(RETRY_AFTER_SECONDS), connection: 'close'})
      res.end(text)
    }
    // the body is read and dropped before the answer, up to the size limit (then the socket is closed anyway)
    let size = 0
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > maxBody) answer()
    })
    req.on('end', answer)
  }
  /**
   * Idle keep-alive connections are closed by one sweep over them all, not by Node's keepAliveTimeout, which sets a
   * timer on the socket after every answer and clears it at the next request. A request is stamped with the number
   * of sweeps so far (no clock read per request), and again by the first sweep that sees its answer finished; its
   * connection is closed when IDLE_SWEEPS whole intervals have passed since: at least idleMs after that request and
   * its answer (a late timer only makes it later).
   */
  const idleMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS
  let sweeps = 0
  const closeIdle = () => {
    sweeps++
    for (const [socket, st] of sockets) {
      // idle from its answer, not its request (a forward may take longer than the timeout): the answer finished after
      // the sweep before this one started
      if (st.last?.writableFinished && st.seen !== st.last) {
        st.seen = st.last
        st.active = Math.max(st.active, sweeps - 1)
      }
      if (st.last?.writableFinished && sweeps - st.active > IDLE_SWEEPS) {
        sockets.delete(socket)
        socket.destroy()
      }
    }
  }
  const idleSweeper = setInterval(closeIdle, Math.ceil(idleMs / IDLE_SWEEPS)).unref()
  // connectionsCheckingInterval: how often Node enforces the timeouts below (default every 30 s)
  const server: Server = createServer({connectionsCheckingInterval: 1000}, (req, res) => {
    const state = sockets.get(req.socket)
    if (state) {
      state.last = res
      state.active = sweeps
    }
    if (busy >= maxConnections) {
      overCapacity(req, res)
      return
    }
    busy++
    // 'close' comes once per answer: a shared listener, no wrapper per request
    res.on('close', done)
    try {
      handle(req, res)
    } catch (err) {
      handlers.failed(res, err as Error)
    }
  })
  server.on('connection', (socket: Socket) => {
    sockets.set(socket, {since: performance.now(), active: sweeps})
    socket.once('close', () => sockets.delete(socket))
    if (sockets.size <= maxSockets) return
    shed()
    if (sockets.size > maxSockets) {
      sockets.delete(socket)
      socket.destroy()
      sweeper ??= setInterval(shed, HEADERS_GRACE_MS / 2).unref()
    }
  })
  // A malformed HTTP request, or headers / a request over its time limit: answer and close, never crash.
  // The socket is destroyed once the answer is flushed: end() alone would leave it half-open for as long as
  // the sender keeps sending.
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable) {
      socket.destroy()
      return
    }
    const status = err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : err.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request'
    socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`, () => socket.destroy())
    setTimeout(() => socket.destroy(), 1000).unref()
  })
  // idle connections are closed by closeIdle above
  server.keepAliveTimeout = 0
  server.headersTimeout = options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS
  server.requestTimeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.removeListener('error', reject)
      resolve()
    })
  })
  const address = server.address() as AddressInfo
  const hostForUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address
  return {
    url: `http://${hostForUrl}:${address.port}`,
    port: address.port,
    async close() {
      if (sweeper) clearInterval(sweeper)
      clearInterval(idleSweeper)
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
    },
  }
}

/**
 * The whole body, 'too_large' as soon as it goes over `max` (reading stops; the 413 is sent with Connection:
 * close) or 'aborted' when the sender closed first. Without an 'error' listener node:http emits no error for an
 * aborted request, only 'close'.
 */
function readBody(req: IncomingMessage, max: number, done: (body: Body) => void): void {
  let first: Buffer | undefined
  let more: Buffer[] | undefined
  let size = 0
  let finished = false
  const finish = (v: Body) => {
    if (finished) return
    finished = true
    done(v)
  }
  const body = () => (more ? Buffer.concat(more, size) : (first ?? Buffer.alloc(0)))
  req.on('data', (chunk: Buffer) => {
    if (finished) return
    size += chunk.length
    if (size > max) {
      finish('too_large')
      req.pause()
      return
    }
    if (first === undefined) first = chunk
    else (more ??= [first]).push(chunk)
  })
  req.on('end', () => finish(body()))
  req.on('close', () => finish(req.complete ? body() : 'aborted'))
}
