/**
 * The bulk engine's shared rate: at most `limit` requests in flight, `limit` adapting between 1 and --concurrency.
 * A 429 halves the limit and pauses every sender until the service's Retry-After (or a doubling backoff when it
 * names none) has passed; each run of `limit` successes raises it by one again (additive increase,
 * multiplicative decrease). So a rate-limited service sees one short pause, then fewer requests: never a storm.
 */
import {throttleBackoffMs} from '../client/request-policy.js'

export class AdaptiveRate {
  limit: number
  /** 429s seen (for the summary). */
  throttled = 0
  private inflight = 0
  private pausedUntil = 0
  private okStreak = 0
  private quietBackoff = 0
  private waiters: (() => void)[] = []
  private timer?: NodeJS.Timeout

  constructor(
    readonly max: number,
    private readonly now: () => number = Date.now,
  ) {
    this.limit = max
  }

  /**
   * Takes a free slot at once when there is one and no pause (true), else false: then `acquire` waits for one.
   * (A bulk run takes a slot per row; most of the time one is free, and an await of nothing costs a tick.)
   */
  tryAcquire(): boolean {
    if (this.inflight >= this.limit || this.waiters.length > 0 || this.now() < this.pausedUntil) return false
    this.inflight++
    return true
  }

  /** Waits for a free slot (and for any pause to end). */
  async acquire(): Promise<void> {
    while (this.inflight >= this.limit || this.now() < this.pausedUntil) {
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve)
        this.arm()
      })
    }
    this.inflight++
  }

  release(): void {
    this.inflight--
    this.wake()
  }

  /** A request succeeded (or failed for a reason that is not the rate). */
  ok(): void {
    this.quietBackoff = 0
    if (this.limit < this.max && ++this.okStreak >= this.limit) {
      this.limit++
      this.okStreak = 0
      this.wake()
    }
  }

  /** A 429: `retryAfterMs` as the service asked, undefined when it did not say. */
  throttle(retryAfterMs: number | undefined): void {
    this.throttled++
    this.okStreak = 0
    this.limit = Math.max(1, Math.floor(this.limit / 2))
    let wait = retryAfterMs
    if (wait === undefined) {
      this.quietBackoff = throttleBackoffMs(this.quietBackoff)
      wait = this.quietBackoff
    }
    this.pausedUntil = Math.max(this.pausedUntil, this.now() + wait)
  }

  /** Lets waiters re-check (at most `limit` of them can go); re-arms the timer while paused. */
  private wake(): void {
    if (this.waiters.length === 0) return // (nothing to wake: a new waiter arms the timer itself)
    if (this.now() < this.pausedUntil) {
      this.arm()
      return
    }
    const free = this.limit - this.inflight
    for (const resolve of this.waiters.splice(0, Math.max(0, free))) resolve()
  }

  private arm(): void {
    if (this.timer) return
    const delay = Math.max(0, this.pausedUntil - this.now())
    if (delay === 0 && this.inflight < this.limit) {
      queueMicrotask(() => this.wake())
      return
    }
    if (delay === 0) return
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.wake()
    }, delay)
  }
}
