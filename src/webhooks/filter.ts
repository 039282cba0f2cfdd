/** `--events 'collection.*,payout.failed'`: glob patterns on the event type (`*` any run of characters, `?` one). */
import {EVENT_TYPES} from './events.js'

export type EventFilter = (type: string) => boolean

export function parsePatterns(spec: string | string[] | undefined): string[] {
  const list = Array.isArray(spec) ? spec : spec === undefined ? [] : [spec]
  return list.flatMap((s) => s.split(',')).map((s) => s.trim()).filter((s) => s !== '')
}

function globToRegExp(pattern: string): RegExp {
  const body = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')
  return new RegExp(`^${body}$`)
}

/** A filter that accepts everything when no pattern is given. */
export function eventFilter(patterns: string[]): EventFilter {
  if (patterns.length === 0) return () => true
  const res = patterns.map(globToRegExp)
  return (type) => res.some((re) => re.test(type))
}

/** Patterns that match no event type of the spec (probably a typo). */
export function unknownPatterns(patterns: string[]): string[] {
  return patterns.filter((p) => !EVENT_TYPES.some((t) => globToRegExp(p).test(t)))
}

/** `--max-body`: bytes, or with a unit: 512KiB, 1MiB (k/kb/kib and m/mb/mib all mean powers of 1024). */
export function parseSize(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|kib|k|mb|mib|m)?\s*$/i.exec(text)
  if (!m) return undefined
  const unit = (m[2] ?? 'b').toLowerCase()
  const mult = unit.startsWith('k') ? 1024 : unit.startsWith('m') ? 1024 * 1024 : 1
  const n = Math.floor(Number(m[1]) * mult)
  return n > 0 ? n : undefined
}

const UNIT_MS: Record<string, number> = {s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000}

/** A duration such as 90s, 30m, 1h, 7d or 2w, in milliseconds; undefined when it is not one. */
export function parseDuration(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$/i.exec(text)
  if (!m) return undefined
  const ms = Math.round(Number(m[1]) * UNIT_MS[m[2].toLowerCase()])
  return ms > 0 ? ms : undefined
}

/** `--since`: a duration back from now (1h, 2d) or a date/time (2026-11-26, 2026-11-26T14:00:00Z): unix ms, or undefined. */
export function parseSince(text: string, now = Date.now()): number | undefined {
  const back = parseDuration(text)
  if (back !== undefined) return now - back
  if (!/^\d{4}-\d{2}-\d{2}/.test(text.trim())) return undefined
  const at = Date.parse(text.trim())
  return Number.isFinite(at) ? at : undefined
}

/** The rule a flag value breaks when isHttpUrl refuses it: the one message of --forward-to, --to and the like. */
export const HTTP_URL_RULE = 'must be an http:// or https:// URL'

/** Whether a flag value is an absolute http:// or https:// URL (--forward-to, --route, --to, --tunnel-host). */
export function isHttpUrl(text: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(text).protocol)
  } catch {
    return false
  }
}
