/**
 * Turns service objects into rows for people: flattens nested objects, orders the telling fields first,
 * colours states. Knows nothing of HTTP or oclif.
 */
import {paintState} from './colors.js'

/** Fields shown first when present, in this order; the rest follow as the service sent them. */
const PREFERRED = [
  'object', 'id', 'subscription_id', 'mandate_id', 'status', 'status_detail', 'amount', 'fee_amount', 'amount_debited', 'currency',
  'merchant_reference', 'payment_rail', 'provider', 'mobile', 'customer_id', 'url', 'expires_at', 'created_at',
]

const STATE_KEYS = new Set(['status'])

export function formatScalar(key: string, value: unknown, color: boolean): string {
  if (value === null) return '-'
  if (value === undefined) return ''
  if (typeof value === 'string') return STATE_KEYS.has(key.split('.').pop() ?? key) ? paintState(color, value) : value
  if (typeof value === 'object') return JSON.stringify(value)
  return String(value)
}

/** Flattens {a: {b: 1}} to [['a.b', '1']], keeping arrays of scalars on one line. */
export function flatten(obj: Record<string, unknown>, color: boolean, prefix = ''): [string, string][] {
  const keys = Object.keys(obj)
  const ordered = prefix === '' ? [...PREFERRED.filter((k) => keys.includes(k)), ...keys.filter((k) => !PREFERRED.includes(k))] : keys
  const rows: [string, string][] = []
  for (const k of ordered) {
    const v = obj[k]
    const name = prefix ? `${prefix}.${k}` : k
    if (v && typeof v === 'object' && !Array.isArray(v)) rows.push(...flatten(v as Record<string, unknown>, color, name))
    else if (Array.isArray(v) && v.some((x) => x && typeof x === 'object')) rows.push([name, `${v.length} item(s)`])
    else rows.push([name, formatScalar(name, Array.isArray(v) ? v.join(', ') : v, color)])
  }
  return rows
}

/** Columns of a list: the preferred fields present in any row, then the others of the first row. */
export function listColumns(items: Record<string, unknown>[], wanted?: string[]): string[] {
  if (wanted) return wanted
  const present = new Set(items.flatMap((i) => Object.keys(i)))
  const first = items[0] ? Object.keys(items[0]) : []
  const cols = [...PREFERRED.filter((k) => present.has(k)), ...first.filter((k) => !PREFERRED.includes(k))]
  return cols.filter((c) => items.some((i) => i[c] !== undefined && (typeof i[c] !== 'object' || i[c] === null)))
}

export function listRows(items: Record<string, unknown>[], columns: string[], color: boolean): string[][] {
  return items.map((item) => columns.map((c) => formatScalar(c, getPath(item, c), color)))
}

export function getPath(obj: unknown, path: string): unknown {
  let cur: unknown = obj
  for (const part of path.split('.')) {
    if (!cur || typeof cur !== 'object') return undefined
    cur = (cur as Record<string, unknown>)[part]
  }
  return cur
}
