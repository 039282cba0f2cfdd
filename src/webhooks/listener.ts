/**
 * The webhook listener behind `pay webhook listen`: the HTTP shell around the pure judge (src/webhooks/judge.ts).
 * A node:http server that accepts deliveries at one path,
 * verifies each against the raw body bytes (src/webhooks/signature.ts), drops duplicates by event id,
 * filters by type, forwards the raw body and original headers to the developer's app, and counts everything.
 * It answers every request and never throws out of a request handler: bad input is a rejection, not a crash.
 *
 * Answers: 200 accepted (or duplicate, or filtered out); 400 missing/malformed signature header, body not
 * JSON or not an event; 401 no matching signature or timestamp outside tolerance; 413 body over maxBodyBytes;
 * 404 other paths; 405 other methods; 503 with Retry-After over the connection cap; with forwardTo, the app's
 * status and body, 502 when the app is unreachable or its answer is over MAX_FORWARD_ANSWER_BYTES, 504 when it
 * does not answer in time. A body nested deeper than MAX_JSON_DEPTH is never parsed (invalid_json).
 */
import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import type {AddressInfo, Socket} from 'node:net'
import {type WebhookEvent} from './events.js'
import {eventFilter, type EventFilter} from './filter.js'
import type {HistoryWriter} from './history.js'
import {type Body, createJudge, isOtherShape, type RejectReason, STATUS_OF, type Verdict} from './judge.js'
import {PING_HEADER, type PingKey} from './ping.js'
import type {Scheme} from './signature.js'

export type {RejectReason, Verdict} from './judge.js'

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024
export const DEFAULT_PATH = '/webhooks'
/** A request's headers must arrive within this time, its whole body within REQUEST_TIMEOUT (answered 408, closed). */
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000
/** Requests in progress at most; one over it is answered 503 with Retry-After. */
export const DEFAULT_MAX_CONNECTIONS = 256
/** What a 503 over the cap asks the sender to wait. */
export const RETRY_AFTER_SECONDS = 1
/** Over the open-socket bound, a connection that has not sent its headers this long after it connected may be closed. */
const HEADERS_GRACE_MS = 3000
/** Open sockets at most, as a multiple of the cap: over it, stale ones are closed, or else the new one. */
export const OVERFLOW_FACTOR = 8
/** The largest answer of the --forward-to app read and passed back; a longer one is answered 502. */
export const MAX_FORWARD_ANSWER_BYTES = 1024 * 1024

interface Connection {
  /** The answer to its latest request. */
  last?: ServerResponse
  /** performance.now() when it connected. */
  since: number
}

export interface ListenerOptions {
  /** Port to bind; 0 (default) picks a free one. */
  port?: number
  /** Address to bind (default 127.0.0.1). */
  host?: string
  path?: string
  /** Secrets to verify with; any one matching passes (rotation). Required unless verify is false. */
  secrets?: string[]
  /** false = accept unsigned deliveries (--no-verify); each delivery is then marked unverified. */
  verify?: boolean
  /** The one signature scheme accepted (the profile's webhook_signature); by default every recognised one. */
  pinnedScheme?: Scheme
  toleranceSeconds?: number
  maxBodyBytes?: number
  /** Glob patterns on the event type; others are answered 200 and counted as filtered. */
  events?: string[]
  forwardTo?: string
  /** Forward by type: each accepted event goes to every route whose glob matches (forwardTo is the route '*'). */
  routes?: ForwardRoute[]
  forwardTimeoutMs?: number
  /** Keeps every delivery and forward attempt (src/webhooks/history.ts), durable before the answer. */
  history?: HistoryWriter
  /** Called once per delivery at the path, after it was answered. */
  onDelivery?: (delivery: Delivery) => void
  /** Current unix time in seconds (tests). */
  now?: () => number
  /** The tunnel health check's key: a request carrying a ping signed with it is answered, not counted or shown. */
  pingKey?: PingKey
  headersTimeoutMs?: number
  requestTimeoutMs?: number
  /** Requests in progress at most (DEFAULT_MAX_CONNECTIONS); open sockets at most OVERFLOW_FACTOR times it. */
  maxConnections?: number
  /** Accepted event ids remembered for the duplicate check (default SEEN_LIMIT). */
  seenLimit?: number
}

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

export interface Delivery {
  time: Date
  /** The parsed event when the body was JSON (also for some rejections), else null. */
  event: WebhookEvent | null
  verdict: Verdict
  duplicate: boolean
  filtered: boolean
  /** The worst of the forwards (the status passed back); each route's in `forwards`. */
  forward?: ForwardResult
  forwards?: (ForwardResult & {url: string})[]
  bytes: number
  /** Its id in the history, when kept. */
  id?: string
  /**
   * The body is a JSON object but not the event shape pay assumes (string `id` and `type`, docs/assumptions.md):
   * then `event.data` holds the body as sent, and its id and type come from the delivery headers (or a digest).
   */
  otherShape?: boolean
}

export interface ListenerStats {
  received: number
  verified: number
  unverified: number
  rejected: Partial<Record<RejectReason, number>>
  duplicates: number
  filtered: number
  forwarded: number
  forward_failed: number
  not_found: number
  /** Requests answered 503 over the cap on requests in progress (the sender retries them). */
  busy: number
}

export interface Listener {
  /** http://host:port (no path). */
  readonly url: string
  readonly port: number
  readonly path: string
  readonly stats: ListenerStats
  close(): Promise<void>
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'host', 'content-length', 'expect'])
const SEEN_LIMIT = 100_000
/** The usual answer and its headers, made once. */
const RECEIVED = JSON.stringify({received: true})
const RECEIVED_HEADERS = {'content-type': 'application/json', 'content-length': String(Buffer.byteLength(RECEIVED))}
const EMPTY = Buffer.alloc(0)

type Outcome = 'accepted' | 'failed'

export function emptyStats(): ListenerStats {
  return {received: 0, verified: 0, unverified: 0, rejected: {}, duplicates: 0, filtered: 0, forwarded: 0, forward_failed: 0, not_found: 0, busy: 0}
}

/**
 * Every request is handled with callbacks, without a promise, until it is forwarded (the only step that waits
 * for something else): a delivery is one body read, one HMAC, one JSON.parse and one answer, judged with the
 * others read in the same turn of the event loop. Measured as a whole process against a bare node:http server by
 * test/bench/webhook-listener.mjs.
 */
export async function startListener(options: ListenerOptions): Promise<Listener> {
  const path = options.path ?? DEFAULT_PATH
  const verify = options.verify !== false
  const secrets = options.secrets ?? []
  if (verify && secrets.length === 0) throw new Error('a webhook secret is required unless verification is off')
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES
  const maxDigits = String(maxBody).length
  const filter: EventFilter = eventFilter(options.events ?? [])
  const stats = emptyStats()
  /** Event ids answered 2xx (accepted), and those in flight (a duplicate waits for the first's outcome). */
  const seen = new Map<string, Outcome | Promise<Outcome>>()
  const seenLimit = options.seenLimit ?? SEEN_LIMIT
  const judge = createJudge({
    verify,
    secrets,
    toleranceSeconds: options.toleranceSeconds,
    pinned: options.pinnedScheme,
    maxBodyBytes: maxBody,
    now: options.now,
    seen: (id) => {
      const previous = seen.get(id)
      return previous === undefined || typeof previous === 'string' ? previous : 'in_flight'
    },
  })
  const history = options.history
  history?.open()
  const routeList = [...(options.forwardTo ? [{pattern: '*', url: options.forwardTo}] : []), ...(options.routes ?? [])]
  const forwarders = new Map<string, Forwarder>()
  for (const r of routeList) if (!forwarders.has(r.url)) forwarders.set(r.url, await createForwarder(r.url, options.forwardTimeoutMs ?? 10_000))
  const routes = routeList.map((r) => ({match: eventFilter([r.pattern]), url: r.url, to: forwarders.get(r.url)!}))
  /** The routes of a type (one list per type, made once). */
  const routesOf = new Map<string, typeof routes>()
  const routesFor = (type: string) => {
    let list = routesOf.get(type)
    if (!list) {
      list = routes.filter((r) => r.match(type))
      if (routesOf.size < 1000) routesOf.set(type, list)
    }
    return list
  }

  /**
   * `fresh`: the id is known not to be there (one lookup less); else it moves to the newest end. Over the limit,
   * the oldest tenth goes in one pass: dropping the single oldest id each time costs, in a Map, a walk over the
   * deleted entries at its front, on every delivery once it is full.
   */
  const remember = (id: string, value: Outcome | Promise<Outcome>, fresh = false) => {
    if (!fresh) seen.delete(id)
    seen.set(id, value)
    if (seen.size <= seenLimit) return
    let drop = Math.ceil(seenLimit / 10)
    for (const old of seen.keys()) {
      seen.delete(old)
      if (--drop === 0) break
    }
  }

  /**
   * While the deliveries of a turn are judged (judgeRead), their answers and shown deliveries wait here in order,
   * and go out once all of them are judged: judging is not cut by the system call that sends an answer.
   */
  type Held = {res: ServerResponse; status: number; body: unknown; close: boolean} | {delivery: Delivery}
  let held: Held[] | undefined

  /** `body` is JSON.stringify'd, unless it is already JSON text (the common answer, made once). */
  const reply = (res: ServerResponse, status: number, body: unknown, close = false) => {
    if (held) {
      held.push({res, status, body, close})
      return
    }
    if (history?.pending) {
      history.afterCommit(() => send(res, status, body, close))
      return
    }
    send(res, status, body, close)
  }
  const send = (res: ServerResponse, status: number, body: unknown, close: boolean) => {
    if (res.headersSent || res.destroyed) return
    if (body === RECEIVED && !close) {
      res.writeHead(status, RECEIVED_HEADERS)
      res.end(RECEIVED)
      return
    }
    const text = JSON.stringify(body)
    res.writeHead(status, close ? {'content-type': 'application/json', 'content-length': Buffer.byteLength(text), connection: 'close'} : {'content-type': 'application/json', 'content-length': Buffer.byteLength(text)})
    res.end(text)
  }

  /** Keeps a delivery in the history (before its answer is sent): its id. */
  const keep = (req: IncomingMessage, raw: Buffer, event: WebhookEvent | null, verdict: 'accepted' | 'duplicate' | 'rejected', status: number, verified: boolean, extra?: {reason?: string; detail?: string; filtered?: boolean}) => {
    if (!history) return undefined
    const ref = event && event.data && typeof event.data === 'object' ? (event.data as {merchant_reference?: unknown}).merchant_reference : undefined
    return history.delivery(
      {event_id: typeof event?.id === 'string' ? event.id : undefined, type: typeof event?.type === 'string' ? event.type : undefined, reference: typeof ref === 'string' ? ref : undefined, verdict, status, verified, ...extra},
      req.rawHeaders,
      raw,
    )
  }

  const reject = (req: IncomingMessage, res: ServerResponse, reason: RejectReason, detail: string, event: WebhookEvent | null, bytes: number, raw: Buffer = EMPTY) => {
    const status = STATUS_OF[reason]
    stats.rejected[reason] = (stats.rejected[reason] ?? 0) + 1
    const id = keep(req, raw, event, 'rejected', status, false, {reason, detail})
    reply(res, status, {error: {code: reason, message: detail}}, reason === 'body_too_large')
    emit({time: new Date(), event, verdict: {ok: false, status, verified: false, reason, detail}, duplicate: false, filtered: false, bytes, id})
  }

  const emit = (d: Delivery) => {
    if (d.event && isOtherShape(d.event)) d.otherShape = true
    if (held) {
      held.push({delivery: d})
      return
    }
    try {
      options.onDelivery?.(d)
    } catch {
      // a rendering problem must never take the listener down
    }
  }

  // never reached by design; if it is, answer and carry on
  const failed = (res: ServerResponse, err: Error) => reply(res, 500, {error: {code: 'listener_error', message: err.message}})

  /** Up to the body: the ping, the path, the method and the declared length are judged on the headers alone. */
  function handle(req: IncomingMessage, res: ServerResponse): void {
    const ping = options.pingKey && req.headers[PING_HEADER]
    const nonce = ping ? options.pingKey!.check(ping) : undefined
    if (nonce !== undefined) {
      req.resume()
      reply(res, 200, {pong: nonce})
      return
    }
    const url = req.url ?? '/'
    const query = url.indexOf('?')
    if ((query === -1 ? url : url.slice(0, query)) !== path) {
      stats.not_found++
      req.resume()
      reply(res, 404, {error: {code: 'not_found', message: `webhooks are accepted at ${path}`}})
      return
    }
    stats.received++
    if (req.method !== 'POST') {
      req.resume()
      reject(req, res, 'method_not_allowed', `${req.method} is not allowed; deliveries are POSTs`, null, 0)
      return
    }
    // a declared length with fewer digits than the limit is under it (no string-to-number conversion then)
    const length = req.headers['content-length']
    const declared = length !== undefined && length.length >= maxDigits ? Number(length) : 0
    if (Number.isFinite(declared) && declared > maxBody) {
      reject(req, res, 'body_too_large', `body of ${declared} bytes is over the limit of ${maxBody} bytes`, null, declared)
      req.resume()
      return
    }
    readBody(req, maxBody, (raw) => {
      read.push({req, res, raw})
      if (read.length === 1) setImmediate(judgeRead)
    })
  }

  /**
   * Deliveries whose bodies were read in the same turn of the event loop are judged together, once that turn's
   * I/O is done (setImmediate: the same turn, no timer): when several arrive at once (concurrent or pipelined
   * senders), their verifications, parses and answers run one after the other rather than each between the
   * system calls of the others' reads and answers. Measured as a whole process (test/bench/webhook-listener.mjs,
   * paired runs) while other work loaded the machine: about 2 µs of CPU per delivery less, and 0.72-0.76 →
   * 0.82-0.88 of the bare server's throughput; on a quiet machine, no difference. Their answers (and the
   * deliveries shown) then wait until all of them are judged (`held`), so that no answer's system call cuts the
   * judging of the next: on a machine where a system call costs several µs and leaves the caches cold, six
   * alternating paired runs gave 3 µs of CPU per delivery less (1.5 to 5.8) and 0.80-0.85 → 0.83-0.96.
   */
  let read: {req: IncomingMessage; res: ServerResponse; raw: Body}[] = []
  function judgeRead(): void {
    const batch = read
    read = []
    const out: Held[] = (held = [])
    try {
      for (const {req, res, raw} of batch) {
        try {
          act(req, res, raw)
        } catch (err) {
          failed(res, err as Error)
        }
      }
    } finally {
      // whatever happened above, later answers are never held
      held = undefined
    }
    // the batch's deliveries are durable before any of its answers goes out (one sync for the whole batch)
    if (history?.pending) history.afterCommit(() => release(out))
    else release(out)
  }
  function release(out: Held[]): void {
    for (const item of out) {
      if ('delivery' in item) emit(item.delivery)
      else {
        try {
          send(item.res, item.status, item.body, item.close)
        } catch (err) {
          // as when the answer was sent from judge(): the next ones still go out
          failed(item.res, err as Error)
        }
      }
    }
  }

  /** The body read: judged (src/webhooks/judge.ts), then rejected, or accepted, or answered as a duplicate. */
  function act(req: IncomingMessage, res: ServerResponse, raw: Body): void {
    const j = judge(req.headers, raw)
    if (j.kind === 'reject') {
      reject(req, res, j.reason, j.detail, j.event, j.bytes, typeof raw === 'string' ? EMPTY : raw)
      return
    }
    if (verify) stats.verified++
    else stats.unverified++
    const {event, verdict} = j
    const body = raw as Buffer
    if (j.dedupe === 'new') accept(req, res, body, event, verdict)
    else if (j.dedupe === 'duplicate') duplicate(req, res, body, event, verdict)
    else {
      // the same event is being forwarded: its outcome decides
      void (seen.get(event.id) as Promise<Outcome>).then((o) => (o === 'accepted' ? duplicate : accept)(req, res, body, event, verdict)).catch((err: Error) => failed(res, err))
    }
  }

  function duplicate(req: IncomingMessage, res: ServerResponse, raw: Buffer, event: WebhookEvent, verdict: Verdict): void {
    stats.duplicates++
    const id = keep(req, raw, event, 'duplicate', 200, verdict.verified)
    reply(res, 200, {received: true, duplicate: true})
    emit({time: new Date(), event, verdict, duplicate: true, filtered: !filter(event.type), bytes: raw.length, id})
  }

  /** A new event (or one whose forwarding failed before): never in `seen`. */
  function accept(req: IncomingMessage, res: ServerResponse, raw: Buffer, event: WebhookEvent, verdict: Verdict): void {
    if (!filter(event.type)) {
      stats.filtered++
      remember(event.id, 'accepted', true)
      const id = keep(req, raw, event, 'accepted', 200, verdict.verified, {filtered: true})
      reply(res, 200, {received: true, filtered: true})
      emit({time: new Date(), event, verdict, duplicate: false, filtered: true, bytes: raw.length, id})
      return
    }
    const targets = routes.length === 0 ? routes : routesFor(event.type)
    const id = keep(req, raw, event, 'accepted', 200, verdict.verified)
    if (targets.length === 0) {
      remember(event.id, 'accepted', true)
      reply(res, 200, RECEIVED)
      emit({time: new Date(), event, verdict, duplicate: false, filtered: false, bytes: raw.length, id})
      return
    }
    forward(targets, req, res, raw, event, verdict, id).catch((err: Error) => failed(res, err))
  }

  /** Posts to every route of the event at once; the worst answer (the highest status; unreachable 502, timeout 504) goes back. */
  async function forward(targets: {url: string; to: Forwarder}[], req: IncomingMessage, res: ServerResponse, raw: Buffer, event: WebhookEvent, verdict: Verdict, id: string | undefined): Promise<void> {
    let settle!: (o: Outcome) => void
    remember(event.id, new Promise<Outcome>((resolve) => (settle = resolve)))
    const results = await Promise.all(targets.map((t) => t.to.send(raw, req.rawHeaders)))
    let result = results[0]
    const statusOf = (r: SendResult) => r.response?.status ?? (r.error === 'timeout' ? 504 : 502)
    for (const r of results) if (statusOf(r) > statusOf(result)) result = r
    if (history && id) {
      for (let i = 0; i < results.length; i++) {
        const r = results[i]
        history.attempt(id, event.id, {url: targets[i].url, status: r.response?.status, error: r.error, detail: r.detail, ms: r.ms})
      }
    }
    const ok = result.response !== undefined && result.response.status >= 200 && result.response.status < 300
    if (ok) {
      stats.forwarded++
      remember(event.id, 'accepted')
    } else {
      stats.forward_failed++
      seen.delete(event.id)
    }
    settle(ok ? 'accepted' : 'failed')
    if (result.response) {
      const {status, headers, body} = result.response
      const pass = () => {
        if (!res.headersSent && !res.destroyed) {
          res.writeHead(status, {'content-type': 'application/octet-stream', ...headers, 'content-length': body.length})
          res.end(body)
        }
      }
      if (history?.pending) history.afterCommit(pass)
      else pass()
    } else {
      const status = result.error === 'timeout' ? 504 : 502
      reply(res, status, {error: {code: `forward_${result.error}`, message: result.detail}})
    }
    emit({
      time: new Date(),
      event,
      verdict: {...verdict, status: result.response?.status ?? (result.error === 'timeout' ? 504 : 502)},
      duplicate: false,
      filtered: false,
      bytes: raw.length,
      forward: {status: result.response?.status, error: result.error, detail: result.detail, ms: result.ms},
      ...(results.length > 1 ? {forwards: results.map((r, i) => ({url: targets[i].url, status: r.response?.status, error: r.error, detail: r.detail, ms: r.ms}))} : {}),
      id,
    })
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
    stats.busy++
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
  // connectionsCheckingInterval: how often Node enforces the timeouts below (default every 30 s)
  const server: Server = createServer({connectionsCheckingInterval: 1000}, (req, res) => {
    const state = sockets.get(req.socket)
    if (state) state.last = res
    if (busy >= maxConnections) {
      overCapacity(req, res)
      return
    }
    busy++
    res.once('close', () => busy--)
    try {
      handle(req, res)
    } catch (err) {
      failed(res, err as Error)
    }
  })
  server.on('connection', (socket: Socket) => {
    sockets.set(socket, {since: performance.now()})
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
  // Tunnel clients keep their connections open; do not cut idle ones every 5 s.
  server.keepAliveTimeout = 65_000
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
    path,
    stats,
    async close() {
      if (sweeper) clearInterval(sweeper)
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
      await Promise.all([...forwarders.values()].map((f) => f.close()))
      await history?.close()
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

export interface SendResult {
  response?: {status: number; headers: Record<string, string>; body: Buffer}
  error?: ForwardResult['error']
  detail?: string
  ms: number
}

export interface Forwarder {
  send(body: Buffer, rawHeaders: string[]): Promise<SendResult>
  close(): Promise<void>
}

/** Posts the raw body with the original headers (signature included) to the app; `via` is its X-Forwarded-By. */
export async function createForwarder(target: string, timeoutMs: number, via = 'pay webhook listen'): Promise<Forwarder> {
  const {exchange, loadUndici} = await import('../client/transport.js')
  const {Agent} = await loadUndici()
  const {classifyNetworkError} = await import('../client/request-policy.js')
  const agent = new Agent({keepAliveTimeout: 10_000, connect: {timeout: Math.min(timeoutMs, 5000)}})
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
          return {error: 'too_large', detail: `${target} answered more than ${MAX_FORWARD_ANSWER_BYTES} bytes (not passed back)`, ms: Math.round(performance.now() - started)}
        }
        const timeout = classifyNetworkError(err).kind === 'timeout'
        return {
          error: timeout ? 'timeout' : 'unreachable',
          detail: timeout ? `${target} did not answer within ${timeoutMs} ms` : `${target} is unreachable: ${e.code ?? e.message}`,
          ms: Math.round(performance.now() - started),
        }
      }
    },
    close: () => agent.close(),
  }
}
