/** `--events 'collection.*,payout.failed'`: glob patterns on the event type (`*` any run of characters, `?` one). */
import {EVENT_TYPES} from './events.js'

export type EventFilter = (type: string) => boolean

export function parsePatterns(spec: string | string[] | undefined): string[] {
  const list = Array.isArray(spec) ? spec : spec === undefined ? [] : [spec]
  return list.flatMap((s) => s.split(',')).map((s) => s.trim()).filter((s) => s !== '')
}

export function globToRegExp(pattern: string): RegExp {
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
