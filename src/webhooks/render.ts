/**
 * How `pay webhook listen` shows deliveries: one line per delivery for people (time, event id, type, resource
 * id, coloured state, amount and currency, merchant reference), or one JSON object per line for scripts.
 */
import {paint, paintState} from '../output/colors.js'
import {printableDeep} from '../output/printable.js'
import type {Delivery, ListenerStats} from './listener.js'

function field(data: unknown, key: string): string | undefined {
  if (!data || typeof data !== 'object') return undefined
  const v = (data as Record<string, unknown>)[key]
  return typeof v === 'string' || typeof v === 'number' ? String(v) : undefined
}

/** The id of the resource an event is about: the mandate's for mandate events (a plan mandate also names its subscription). */
export function resourceId(data: unknown, type = ''): string | undefined {
  if (type.startsWith('mandate')) return field(data, 'id') ?? field(data, 'mandate_id') ?? field(data, 'subscription_id')
  return field(data, 'id') ?? field(data, 'subscription_id') ?? field(data, 'mandate_id')
}

/** Local wall-clock time, like a log line. */
const time = (d: Date) => d.toTimeString().slice(0, 8)

/** One (or two) human lines for a delivery. */
export function formatDelivery(d: Delivery, color: boolean): string {
  const parts = [paint(color, 'dim', time(d.time))]
  // event fields come from the body, unverified when rejected: never print control characters from it
  const event = d.event ? printableDeep(d.event) : undefined
  if (!d.verdict.ok) {
    const ev = event ? ` ${event.id} ${event.type}` : ''
    parts.push(paint(color, 'red', `REJECTED ${d.verdict.status} ${d.verdict.reason}`) + ev, `— ${d.verdict.detail}`)
    return parts.join('  ')
  }
  const e = event!
  const data = e.data
  const state = field(data, 'status')
  const amount = field(data, 'amount')
  const currency = field(data, 'currency')
  parts.push(e.id, paint(color, 'bold', e.type))
  const id = resourceId(data, e.type)
  if (id) parts.push(id)
  if (state) parts.push(paintState(color, state))
  if (amount) parts.push(`${amount}${currency ? ` ${currency}` : ''}`)
  const ref = field(data, 'merchant_reference')
  if (ref) parts.push(`ref ${ref}`)
  if (d.duplicate) parts.push(paint(color, 'yellow', '(duplicate, not forwarded)'))
  if (!d.verdict.verified) parts.push(paint(color, 'yellow', '(UNVERIFIED)'))
  if (d.forward) {
    const f = d.forward
    parts.push(
      f.status !== undefined
        ? paint(color, f.status >= 200 && f.status < 300 ? 'green' : 'red', `→ app ${f.status} (${f.ms} ms)`)
        : paint(color, 'red', `→ app ${f.error}: ${f.detail}`),
    )
  }
  return parts.join('  ')
}

/** The --json line: {event, verdict, duplicate} plus time, filtered and forward. */
export function deliveryJson(d: Delivery): string {
  return JSON.stringify({
    time: d.time.toISOString(),
    event: d.event,
    verdict: d.verdict,
    duplicate: d.duplicate,
    ...(d.filtered ? {filtered: true} : {}),
    ...(d.forward ? {forward: d.forward} : {}),
  })
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
