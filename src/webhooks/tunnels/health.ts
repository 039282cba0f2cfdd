/**
 * The tunnel health check of `pay webhook listen`: every few seconds a ping signed with the listener's key
 * (src/webhooks/ping.ts) is posted to the PUBLIC URL; the answer must be the listener's pong with the same
 * nonce. A tunnel can look connected to its library while the server no longer routes to it (a restarted
 * localtunnel server, a dead ngrok edge): after `failures` checks in a row fail, the tunnel is reconnected.
 * When the checks still fail after a reconnect (a network that cannot reach the public URL at all), each further
 * reconnect waits for twice as many failures (up to MAX_BACKOFF times), so the URL is not changed every few seconds.
 */
import type {PingKey} from '../ping.js'
import {PING_HEADER} from '../ping.js'
import type {Tunnel, TunnelLogLevel} from './tunnel.js'

const DEFAULT_HEALTH_INTERVAL_MS = 5000
const DEFAULT_HEALTH_FAILURES = 2
const MAX_BACKOFF = 64

interface HealthOptions {
  tunnel: Tunnel
  /** The delivery path (appended to the tunnel's current URL). */
  path: string
  key: PingKey
  intervalMs?: number
  /** Failed checks in a row before a reconnect. */
  failures?: number
  /** Bound on one check (default: the interval). */
  timeoutMs?: number
  log?: (level: TunnelLogLevel, message: string) => void
}

interface HealthWatch {
  /** Checks done, and the failures among them (tests, the summary). */
  readonly checks: number
  readonly failed: number
  /** Reconnects started by the checks. */
  readonly reconnects: number
  stop(): void
}

/** One check: undefined when healthy, else why not. */
async function pingThrough(url: string, key: PingKey, timeoutMs: number): Promise<string | undefined> {
  const {header, nonce} = key.sign()
  try {
    const res = await fetch(url, {
      method: 'POST',
      // the two skip headers keep localtunnel's and ngrok's browser warning pages out of the way
      headers: {[PING_HEADER]: header, 'content-type': 'application/json', 'bypass-tunnel-reminder': '1', 'ngrok-skip-browser-warning': '1'},
      body: '{}',
      signal: AbortSignal.timeout(timeoutMs),
    })
    const text = await res.text()
    if (res.status !== 200) return `the public URL answered HTTP ${res.status}`
    let pong: unknown
    try {
      pong = (JSON.parse(text) as {pong?: unknown}).pong
    } catch {
      pong = undefined
    }
    return pong === nonce ? undefined : 'the public URL answered, but not with this listener\'s pong'
  } catch (err) {
    const e = err as {name?: string; cause?: {code?: string}; message?: string}
    if (e.name === 'TimeoutError' || e.name === 'AbortError') return `no answer through the public URL within ${Math.round(timeoutMs / 1000)} s`
    return `the public URL is unreachable (${e.cause?.code ?? e.message})`
  }
}

export function watchHealth(options: HealthOptions): HealthWatch {
  const interval = options.intervalMs ?? DEFAULT_HEALTH_INTERVAL_MS
  const limit = options.failures ?? DEFAULT_HEALTH_FAILURES
  const timeoutMs = options.timeoutMs ?? interval
  const log = options.log ?? (() => {})
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  let inRow = 0
  /** Failures in a row needed for the next reconnect: `limit`, doubled after each reconnect that did not help. */
  let needed = limit
  const watch = {checks: 0, failed: 0, reconnects: 0, stop() {}}
  const tick = async () => {
    const problem = await pingThrough(`${options.tunnel.url}${options.path}`, options.key, timeoutMs)
    if (stopped) return
    watch.checks++
    if (problem === undefined) {
      if (inRow > 0) log('debug', 'health check: the public URL answers again')
      inRow = 0
      needed = limit
    } else {
      watch.failed++
      inRow++
      log('debug', `health check failed (${inRow}/${needed}): ${problem}`)
      if (inRow >= needed) {
        if (needed > limit) log('warn', `health checks through the public URL still fail after a reconnect (${problem}); reconnecting again, then waiting longer (--health-interval 0 turns the checks off)`)
        inRow = 0
        watch.reconnects++
        await options.tunnel.reconnect(`the health check through the public URL failed ${needed} times in a row: ${problem}`)
        // if the next checks fail too, the reconnect did not help: wait for more failures before the next one
        needed = Math.min(needed * 2, limit * MAX_BACKOFF)
      }
    }
  }
  const schedule = () => {
    if (stopped) return
    timer = setTimeout(() => void tick().finally(schedule), interval)
    timer.unref()
  }
  watch.stop = () => {
    stopped = true
    if (timer) clearTimeout(timer)
  }
  schedule()
  return watch
}
