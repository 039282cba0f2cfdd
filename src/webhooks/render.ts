/**
 * How `pay webhook listen` shows deliveries: one line per delivery for people (time, event id, type, resource
 * id, coloured state, amount and currency, merchant reference), or one JSON object per line for scripts.
 */
import {paint, paintState} from '../output/colors.js'
import {forStdout, printableLine} from '../output/printable.js'
import type {Delivery, ListenerStats} from './deliveries.js'

function field(data: unknown, key: string): string | undefined {
  if (!data || typeof data !== 'object') return undefined
  const v = (data as Record<string, unknown>)[key]
  return typeof v === 'string' || typeof v === 'number' ? String(v) : undefined
}

/** The id of the resource an event is about: the mandate's for mandate events (a plan mandate also names its subscription). */
function resourceId(data: unknown, type = ''): string | undefined {
  if (type.startsWith('mandate')) return field(data, 'id') ?? field(data, 'mandate_id') ?? field(data, 'subscription_id')
  return field(data, 'id') ?? field(data, 'subscription_id') ?? field(data, 'mandate_id')
}

/** Local wall-clock time, like a log line (computed once per second: deliveries come in bursts). */
let clockSecond = -1
let clockText = ''
function time(d: Date): string {
  const second = Math.floor(d.getTime() / 1000)
  if (second !== clockSecond) {
    clockSecond = second
    clockText = d.toTimeString().slice(0, 8)
  }
  return clockText
}

/** A field of the event's data, made printable on one line (event fields come from the body, unverified when rejected). */
function shown(data: unknown, key: string): string | undefined {
  const v = field(data, key)
  return v === undefined ? undefined : printableLine(v)
}

/**
 * One human line for a delivery. Only the fields shown are made printable, not the whole event, and a field
 * cannot break the line (a forged event id cannot print a line of its own). Built by concatenation: it runs for
 * every delivery.
 */
function formatDelivery(d: Delivery, color: boolean): string {
  const event = d.event
  let line = paint(color, 'dim', time(d.time))
  if (!d.verdict.ok) {
    const ev = event ? ` ${printableLine(String(event.id))} ${printableLine(String(event.type))}` : ''
    return `${line}  ${paint(color, 'red', `REJECTED ${d.verdict.status} ${d.verdict.reason}`)}${ev}  — ${d.verdict.detail}`
  }
  const e = event!
  const data = e.data
  line += `  ${printableLine(e.id)}  ${paint(color, 'bold', printableLine(e.type))}`
  if (d.otherShape) line += `  ${paint(color, 'yellow', '(payload of another shape)')}  ${otherFields(data)}`
  else line += knownFields(data, e.type, color)
  if (d.duplicate) line += `  ${paint(color, 'yellow', '(duplicate, not forwarded)')}`
  if (!d.verdict.verified) line += `  ${paint(color, 'yellow', '(UNVERIFIED)')}`
  if (d.forward) {
    const f = d.forward
    line += `  ${
      f.status !== undefined
        ? paint(color, f.status >= 200 && f.status < 300 ? 'green' : 'red', `→ app ${f.status} (${f.ms} ms)`)
        : paint(color, 'red', `→ app ${f.error}: ${f.detail}`)
    }`
  }
  return line
}

/** The resource's id, state, amount and reference, from an event of the assumed shape. */
function knownFields(data: Record<string, unknown>, type: string, color: boolean): string {
  let line = ''
  const id = resourceId(data, type)
  if (id) line += `  ${printableLine(id)}`
  const state = shown(data, 'status')
  if (state) line += `  ${paintState(color, state)}`
  const amount = shown(data, 'amount')
  if (amount) {
    const currency = shown(data, 'currency')
    line += currency ? `  ${amount} ${currency}` : `  ${amount}`
  }
  const ref = shown(data, 'merchant_reference')
  if (ref) line += `  ref ${ref}`
  return line
}

/** A payload of another shape, generically: its first scalar fields as key=value, nested keys joined by dots. */
function otherFields(body: Record<string, unknown>, max = 8): string {
  const pairs: string[] = []
  const walk = (obj: Record<string, unknown>, prefix: string) => {
    for (const [k, v] of Object.entries(obj)) {
      if (pairs.length >= max) return
      const name = prefix ? `${prefix}.${k}` : k
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) walk(v as Record<string, unknown>, name)
      else pairs.push(`${printableLine(name)}=${printableLine(Array.isArray(v) ? `[${v.length}]` : String(v))}`)
    }
  }
  walk(body, '')
  return pairs.join(' ')
}

/** The --json line: {event, verdict, duplicate} plus time, filtered and forward. */
function deliveryJson(d: Delivery): string {
  return JSON.stringify({
    time: d.time.toISOString(),
    event: d.event,
    verdict: d.verdict,
    duplicate: d.duplicate,
    ...(d.otherShape ? {other_shape: true} : {}),
    ...(d.filtered ? {filtered: true} : {}),
    ...(d.forward ? {forward: d.forward} : {}),
  })
}

/**
 * The line `webhook listen` writes for a delivery: with --json its JSON, on a terminal made printable (\uXXXX
 * escapes, so the same JSON; a sender's C1 controls or direction marks never reach the screen raw), piped as it is;
 * else the human line (its fields made printable).
 */
export function deliveryLine(d: Delivery, how: {json: boolean; color: boolean; tty: boolean}): string {
  try {
    if (!how.json) return formatDelivery(d, how.color)
    return forStdout(how.tty).json(deliveryJson(d))
  } catch {
    // Guarded per delivery: whatever a body holds, the listener never dies of showing it. Deliveries are bounded
    // in depth before they are parsed (src/output/json-shape.ts), so this is the last line of defence only.
    return unshowable(d, how)
  }
}

/** The line of a delivery that could not be shown: its verdict (the listener's own words) without the event. */
function unshowable(d: Delivery, how: {json: boolean; color: boolean}): string {
  const {ok, status, verified, reason} = d.verdict
  if (how.json) return JSON.stringify({time: d.time.toISOString(), event: null, verdict: {ok, status, verified, reason}, duplicate: d.duplicate, unshowable: true})
  return `${paint(how.color, 'dim', time(d.time))}  ${paint(how.color, ok ? 'yellow' : 'red', `${ok ? 'ACCEPTED' : `REJECTED ${status} ${reason}`} (the event could not be shown)`)}`
}

export function formatSummary(s: ListenerStats, forwarding: boolean): string {
  const rejected = Object.values(s.rejected).reduce((a, b) => a + (b ?? 0), 0)
  const lines = [
    `received    ${s.received}`,
    `verified    ${s.verified}${s.unverified ? `   (unverified, --no-verify: ${s.unverified})` : ''}`,
    `rejected    ${rejected}${rejected ? `   (${Object.entries(s.rejected).map(([k, v]) => `${k}: ${v}`).join(', ')})` : ''}`,
    `duplicates  ${s.duplicates}`,
    `filtered    ${s.filtered}`,
  ]
  if (forwarding) lines.push(`forwarded   ${s.forwarded}`, `forward failures ${s.forward_failed}`)
  if (s.not_found) lines.push(`other paths ${s.not_found} (answered 404)`)
  if (s.busy) lines.push(`over the cap    ${s.busy} (answered 503, Retry-After)`)
  return lines.join('\n')
}

/** The loud lines said when the public URL changed after a reconnect: it must be updated where it is registered. */
export function urlChangedLines(was: string, now: string, color: boolean): string[] {
  const bar = '='.repeat(72)
  return [
    paint(color, 'yellow', bar),
    paint(color, 'bold', `THE PUBLIC URL CHANGED: ${now}`),
    `(was ${was}; the tunnel reconnected with a new address)`,
    paint(color, 'bold', 'Update the webhook URL in the merchant portal now: deliveries to the old URL are lost.'),
    paint(color, 'yellow', bar),
  ]
}

/**
 * Delivery lines written together: a burst of deliveries costs one write to stdout (a pipe write is a blocking
 * system call on Linux, and wakes the reader), not one per line. Items wait at most `delayMs`, or until `maxItems`
 * are pending; flush() writes what is pending at once (before exit). Items are made lines by `toLine` when they
 * are written: formatting a batch in one go runs warmer than formatting between requests. The text given to
 * `write` ends with a newline.
 */
export function lineBatch<T>(toLine: (item: T) => string, write: (text: string) => void, delayMs = 15, maxItems = 256): {push(item: T): void; flush(): void} {
  let pending: T[] = []
  let timer: NodeJS.Timeout | undefined
  const flush = () => {
    if (timer) clearTimeout(timer)
    timer = undefined
    if (pending.length === 0) return
    const lines = pending.map(toLine)
    pending = []
    lines.push('') // the text ends with a newline: written as it is, not copied once more to add one
    write(lines.join('\n'))
  }
  return {
    push(item) {
      pending.push(item)
      if (pending.length >= maxItems) flush()
      else timer ??= setTimeout(flush, delayMs)
    },
    flush,
  }
}
