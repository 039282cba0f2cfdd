/**
 * Fixed-window rate limits (real time): per merchant for write/read/metadata/verification classes,
 * per IP and per client_id on the token endpoint. 429 rate_limited with Retry-After, X-RateLimit-* and retry_after.
 */
import type {LimitClass} from '../api/endpoints.js'
import {ApiError} from './errors.js'
import type {RateLimits} from './options.js'

interface Window {
  start: number
  count: number
}

interface Rule {
  name: string
  limit: number
  windowMs: number
}

const MINUTE = 60_000
const HOUR = 3_600_000

const ruleCache = new WeakMap<RateLimits, Map<LimitClass, Rule[]>>()

/** The rules of a class (built once per limits object). */
export function rulesFor(limits: RateLimits, cls: LimitClass): Rule[] {
  let byClass = ruleCache.get(limits)
  if (!byClass) ruleCache.set(limits, (byClass = new Map()))
  let rules = byClass.get(cls)
  if (!rules) byClass.set(cls, (rules = buildRules(limits, cls)))
  return rules
}

function buildRules(limits: RateLimits, cls: LimitClass): Rule[] {
  switch (cls) {
    case 'write':
      return [
        {name: 'write-minute', limit: limits.writePerMinute, windowMs: MINUTE},
        {name: 'write-hour', limit: limits.writePerHour, windowMs: HOUR},
      ]
    case 'read':
      return [{name: 'read-minute', limit: limits.readPerMinute, windowMs: MINUTE}]
    case 'metadata':
      return [{name: 'metadata-minute', limit: limits.metadataPerMinute, windowMs: MINUTE}]
    case 'verification':
      return [
        {name: 'verification-minute', limit: limits.verificationPerMinute, windowMs: MINUTE},
        {name: 'verification-hour', limit: limits.verificationPerHour, windowMs: HOUR},
      ]
    case 'token':
      return [{name: 'token-ip-minute', limit: limits.tokenPerMinutePerIp, windowMs: MINUTE}]
  }
}

export class RateLimiter {
  private readonly windows = new Map<string, Window>()

  constructor(public limits: RateLimits) {}

  /**
   * Counts one request of `scope` against `rules`; returns the X-RateLimit-* headers of the tightest rule,
   * or throws 429 when any rule is exhausted (the request is then not counted).
   */
  take(scope: string, rules: Rule[], now = Date.now()): Record<string, string> {
    let tightest: {rule: Rule; w: Window} | undefined
    const active: {rule: Rule; w: Window}[] = []
    for (const rule of rules) {
      if (!(rule.limit > 0)) continue
      const key = `${rule.name}|${scope}`
      let w = this.windows.get(key)
      if (!w || now - w.start >= rule.windowMs) {
        w = {start: now, count: 0}
        this.windows.set(key, w)
      }
      if (w.count >= rule.limit) {
        const retryAfter = Math.max(1, Math.ceil((w.start + rule.windowMs - now) / 1000))
        throw new ApiError(429, 'rate_limited', `rate limit exceeded (${rule.limit} per ${rule.windowMs / 1000} s); retry after ${retryAfter} s`, {
          retry_after: retryAfter,
          doc: 'rate-limits',
          headers: {
            'retry-after': String(retryAfter),
            'x-ratelimit-limit': String(rule.limit),
            'x-ratelimit-remaining': '0',
            'x-ratelimit-reset': String(Math.ceil((w.start + rule.windowMs) / 1000)),
          },
        })
      }
      active.push({rule, w})
    }
    for (const a of active) {
      a.w.count++
      if (!tightest || a.rule.limit - a.w.count < tightest.rule.limit - tightest.w.count) tightest = a
    }
    if (this.windows.size > 50_000) this.prune(now)
    if (!tightest) return {}
    return {
      'x-ratelimit-limit': String(tightest.rule.limit),
      'x-ratelimit-remaining': String(tightest.rule.limit - tightest.w.count),
      'x-ratelimit-reset': String(Math.ceil((tightest.w.start + tightest.rule.windowMs) / 1000)),
    }
  }

  private prune(now: number): void {
    for (const [k, w] of this.windows) if (now - w.start > HOUR) this.windows.delete(k)
  }

  reset(): void {
    this.windows.clear()
  }
}
