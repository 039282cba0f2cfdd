/**
 * Live updates: server-sent events to the open dashboard pages. The request path only calls rt.activity (set
 * while at least one page listens, else undefined); that arms one timer, and the pages hear at most one "change"
 * per THROTTLE_MS however many requests arrive (coalesced). A page then fetches itself again (live.js).
 */
import type {ServerResponse} from 'node:http'
import type {Runtime} from '../runtime.js'

/** At most one push per this many milliseconds (a busy sandbox is shown once a second, not per request: docs/sandbox.md). */
const THROTTLE_MS = 1000
/** A comment line this often keeps proxies and browsers from closing an idle stream. */
const KEEPALIVE_MS = 25_000

export class LiveHub {
  private readonly clients = new Set<ServerResponse>()
  private timer?: NodeJS.Timeout
  private keepalive?: NodeJS.Timeout
  private version = 0

  constructor(private readonly rt: Runtime) {}

  /** Called on activity while someone listens: one timer per THROTTLE_MS, whatever the rate of requests. */
  private readonly poke = (): void => {
    this.timer ??= setTimeout(this.push, THROTTLE_MS).unref()
  }

  private readonly push = (): void => {
    this.timer = undefined
    this.version++
    for (const res of this.clients) res.write(`event: change\ndata: ${this.version}\n\n`)
  }

  get listeners(): number {
    return this.clients.size
  }

  /** Keeps `res` open as an event stream until the page goes away. */
  add(res: ServerResponse, headers: Record<string, string>): void {
    res.writeHead(200, {...headers, 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no'})
    res.write(`retry: 2000\nevent: hello\ndata: ${this.version}\n\n`)
    this.clients.add(res)
    this.rt.activity = this.poke
    this.keepalive ??= setInterval(() => {
      for (const c of this.clients) c.write(': keep-alive\n\n')
    }, KEEPALIVE_MS).unref()
    res.on('close', () => {
      this.clients.delete(res)
      if (this.clients.size > 0) return
      // nobody listens: the request path is back to one property read
      if (this.rt.activity === this.poke) this.rt.activity = undefined
      clearTimeout(this.timer)
      this.timer = undefined
      clearInterval(this.keepalive)
      this.keepalive = undefined
    })
  }
}
