/**
 * Human views of the service's resources, written for support staff: what the thing is, its state, the money,
 * the rail, the references and where the money goes or comes from, in that order and in words. Every field the
 * service sent that the view does not name is listed after, under its own name, so nothing is hidden.
 * Under --json none of this runs: stdout gets the service's body unchanged.
 * Amounts are shown exactly as the service sent them (strings; never converted to numbers).
 */
import type {ViewName} from '../api/operation-types.js'
import type {ApiResponse} from '../client/api-client.js'
import {paintState} from './colors.js'
import {printableDeep} from './printable.js'
import {flatten, getPath} from './format.js'
import type {Output} from './output.js'
import {keyValueTable, listTable} from './table.js'

export type {ViewName} from '../api/operation-types.js'

type Obj = Record<string, unknown>
type Row = [label: string, value: string | undefined]

const KIND: Record<string, string> = {
  collection: 'Collection (money in)',
  payout: 'Payout (money out)',
  checkout_session: 'Checkout session (hosted pay link)',
  mandate: 'Direct-debit mandate',
  mandate_cancellation: 'Mandate cancellation',
  subscription: 'Subscription',
  customer: 'Customer',
  virtual_account: 'Static bank account',
}

const RAIL: Record<string, string> = {mobile_money: 'mobile money', bank_transfer: 'bank transfer', card: 'card'}

export const COLLECTION_COLUMNS = ['id', 'status', 'amount', 'currency', 'merchant_reference', 'payment_rail', 'provider', 'mobile']
export const PLAN_COLUMNS = ['plan_id', 'plan_name', 'amount', 'currency', 'frequency', 'status']

/** The columns of the list views. */
const LIST_COLUMNS: Partial<Record<ViewName, string[]>> = {
  'customer-collections': COLLECTION_COLUMNS,
  banks: ['bank_code', 'bank_name'],
  providers: ['provider'],
  balance: ['currency', 'collection_wallet', 'collection_wallet_held', 'collection_wallet_actual', 'payout_wallet'],
}

export function listColumns(view: ViewName): string[] {
  return LIST_COLUMNS[view] ?? []
}

function str(v: unknown): string | undefined {
  if (v === undefined) return undefined
  if (v === null) return '-'
  if (typeof v === 'object') return JSON.stringify(v)
  return String(v)
}

function money(amount: unknown, currency: unknown): string | undefined {
  if (amount === undefined || amount === null) return undefined
  return currency ? `${String(amount)} ${String(currency)}` : String(amount)
}

function rail(v: unknown): string | undefined {
  if (v === undefined) return undefined
  if (v === null) return 'customer chooses on the pay page'
  return RAIL[String(v)] ? `${RAIL[String(v)]} (${String(v)})` : String(v)
}

class View {
  readonly rows: Row[] = []
  private readonly used = new Set<string>()

  constructor(
    private readonly body: Obj,
    private readonly color: boolean,
  ) {}

  /** A row from fields of the body; the fields count as shown. */
  row(label: string, value: string | undefined, ...fields: string[]): this {
    for (const f of fields) this.used.add(f)
    if (value !== undefined && value !== '') this.rows.push([label, value])
    return this
  }

  field(label: string, key: string): this {
    return this.row(label, str(getPath(this.body, key)), key)
  }

  state(label: string, key = 'status'): this {
    const v = getPath(this.body, key)
    return this.row(label, typeof v === 'string' ? paintState(this.color, v) : str(v), key)
  }

  /** The rest of the body, flattened, under the service's names. */
  rest(): Row[] {
    const rest: Obj = {}
    for (const [k, v] of Object.entries(this.body)) if (!this.used.has(k)) rest[k] = v
    return [...this.rows, ...flatten(rest, this.color)]
  }
}

function transactionRows(body: Obj, color: boolean): Row[] {
  const v = new View(body, color)
  const kind = String(body.object ?? '')
  v.row('Kind', KIND[kind] ?? (kind || undefined), 'object')
  v.field('ID', 'id')
  v.state('State')
  if (typeof body.status_detail === 'string') v.field('Why', 'status_detail')
  else v.row('', undefined, 'status_detail')
  if (body.amount_mode === 'open' && body.amount === undefined) v.row('Amount', `entered by the customer (${String(body.currency ?? '')})`, 'amount_mode')
  v.row('Amount', money(body.amount, body.currency), 'amount', 'currency')
  v.row('Fee', money(body.fee_amount, body.currency), 'fee_amount')
  v.row('Amount debited', money(body.amount_debited, body.currency), 'amount_debited')
  if ('payment_rail' in body) v.row('Rail', rail(body.payment_rail), 'payment_rail')
  v.field('Merchant reference', 'merchant_reference')
  v.field('Provider', 'provider')
  v.field('Mobile', 'mobile')
  v.field('Customer', 'customer_id')
  // payout destination (our assumed field names, docs/assumptions.md)
  v.field('Bank code', 'bank_code')
  v.field('Account number', 'account_number')
  v.field('Account name', 'account_name')
  v.field('Description', 'description')
  v.field('Pay link', 'url')
  v.field('Expires', 'expires_at')
  const va = body.virtual_account
  if (va && typeof va === 'object') {
    const a = va as Obj
    v.row('Pay to bank', a.bank_name ? `${String(a.bank_name)}${a.bank_code ? ` (code ${String(a.bank_code)})` : ''}` : str(a.bank_code), 'virtual_account')
    v.row('Pay to account number', str(a.account_number))
    v.row('Pay to account name', str(a.account_name))
    v.row('Account valid until', a.expires_at === null ? 'no expiry' : str(a.expires_at))
    if (a.single_deposit_limit !== undefined && a.single_deposit_limit !== null) v.row('Single deposit limit', str(a.single_deposit_limit))
  }
  v.field('Created', 'created_at')
  return v.rest()
}

function verificationRows(body: Obj, color: boolean): Row[] {
  const v = new View(body, color)
  v.state('Result')
  const p = body.profile as Obj | null | undefined
  v.row('Name on the account', p ? [p.first_name, p.last_name].filter(Boolean).join(' ') : p === null ? 'none (not verified)' : undefined, 'profile')
  return v.rest()
}

function mandateRows(body: Obj, color: boolean): Row[] {
  const v = new View(body, color)
  v.row('Kind', KIND[String(body.object ?? 'mandate')] ?? str(body.object), 'object')
  v.field('Mandate ID', 'mandate_id')
  v.field('ID', 'id')
  v.state('State')
  v.row('Amount', money(body.amount, body.currency), 'amount', 'currency')
  v.field('Frequency', 'frequency')
  v.field('Starts', 'starts_at')
  v.field('Merchant reference', 'merchant_reference')
  v.field('Mobile', 'mobile')
  v.field('Provider', 'provider')
  v.field('Plan', 'plan_id')
  v.field('Message ID', 'message_id')
  if (body.object === 'mandate' && body.status === 'processing' && !('mandate_id' in body)) {
    v.row('Next', 'the customer approves on their phone; follow with `pay mandates get --reference ' + String(body.merchant_reference ?? 'REF') + ' --wait`')
  }
  return v.rest()
}

function debitRows(body: Obj, color: boolean): Row[] {
  const v = new View(body, color)
  v.row('Kind', 'Mandate debit', 'object')
  v.field('ID', 'id')
  v.state('State')
  v.row('Amount', money(body.amount, body.currency), 'amount', 'currency')
  v.field('Mandate ID', 'mandate_id')
  v.field('Merchant reference', 'merchant_reference')
  v.field('Provider', 'provider')
  return v.rest()
}

function subscriptionRows(body: Obj, color: boolean): Row[] {
  const v = new View(body, color)
  v.row('Kind', 'Subscription', 'object')
  v.field('Subscription ID', 'subscription_id')
  v.state('State')
  v.row('Plan', body.plan_name ? `${String(body.plan_name)} (${String(body.plan_id)})` : str(body.plan_id), 'plan_name', 'plan_id')
  v.row('Customer', body.customer_email ? `${String(body.customer_name ?? '')} <${String(body.customer_email)}>` : str(body.customer_name), 'customer_name', 'customer_email')
  v.field('Mobile', 'mobile')
  v.field('Provider', 'provider')
  v.field('Mandate ID', 'mandate_id')
  v.field('Starts', 'starts_at')
  v.field('Ends', 'ends_at')
  v.field('Merchant reference', 'merchant_reference')
  return v.rest()
}

function customerRows(body: Obj, color: boolean): Row[] {
  const v = new View(body, color)
  v.row('Kind', 'Customer', 'object')
  v.field('ID', 'id')
  v.field('Name', 'name')
  v.field('Email', 'email')
  v.field('Mobile', 'mobile')
  v.field('Merchant reference', 'merchant_reference')
  v.field('Created', 'created_at')
  return v.rest()
}

function virtualAccountRows(body: Obj, color: boolean): Row[] {
  const v = new View(body, color)
  v.row('Kind', KIND.virtual_account, 'object')
  v.row('Owner', body.owner === 'merchant' ? 'the merchant' : body.customer_id ? `customer ${String(body.customer_id)}` : str(body.owner), 'owner', 'customer_id')
  const a = (body.virtual_account ?? {}) as Obj
  const inner = new View(a, color)
  inner.row('Bank', a.bank_name ? `${String(a.bank_name)}${a.bank_code ? ` (code ${String(a.bank_code)})` : ''}` : str(a.bank_code), 'bank_name', 'bank_code')
  inner.field('Account number', 'account_number')
  inner.field('Account name', 'account_name')
  inner.field('Account type', 'account_type')
  inner.state('State')
  inner.row('Expires', a.expires_at === null ? 'never (static account)' : str(a.expires_at), 'expires_at')
  inner.row('Single deposit limit', a.single_deposit_limit === null ? 'none' : str(a.single_deposit_limit), 'single_deposit_limit')
  v.row('', undefined, 'virtual_account')
  return [...v.rest(), ...inner.rest()]
}

function cancellationRows(body: Obj, color: boolean): Row[] {
  const v = new View(body, color)
  v.row('Kind', KIND.mandate_cancellation, 'object')
  v.field('Mandate ID', 'mandate_id')
  v.state('State')
  if (body.status === 'processing') v.row('Note', 'the cancellation is being applied; the mandate ends cancelled')
  v.field('Message ID', 'message_id')
  return v.rest()
}

/** The rows of a single-object view. */
export function viewRows(view: ViewName, body: unknown, color: boolean): Row[] {
  const obj = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Obj
  switch (view) {
    case 'collection':
    case 'checkout':
    case 'payout':
    case 'transaction':
      return transactionRows(obj, color)
    case 'verification':
      return verificationRows(obj, color)
    case 'mandate':
    case 'mandate-create':
      return mandateRows(obj, color)
    case 'mandate-cancellation':
      return cancellationRows(obj, color)
    case 'debit':
      return debitRows(obj, color)
    case 'subscription':
      return subscriptionRows(obj, color)
    case 'customer':
      return customerRows(obj, color)
    case 'virtual-account':
      return virtualAccountRows(obj, color)
    default:
      return flatten(obj, color)
  }
}

/** Prints a response: the body unchanged under --json, else the view (tables for lists). */
export function renderView(out: Output, view: ViewName, res: Pick<ApiResponse, 'text' | 'body'>): void {
  if (out.json) {
    out.data(res.text === '' ? 'null' : res.text)
    return
  }
  if (view === 'plans') {
    const body = res.body as {data?: Obj[]} | undefined
    const items = body?.data ?? []
    const columns = PLAN_COLUMNS.filter((c) => c === 'plan_id' || c === 'plan_name' || items.some((i) => i[c] !== undefined))
    out.body(res.text, res.body, {columns})
    return
  }
  const columns = LIST_COLUMNS[view]
  if (columns || view === 'account') {
    out.body(res.text, res.body, {columns})
    return
  }
  const rows = viewRows(view, printableDeep(res.body), out.term.color)
  out.data(keyValueTable(rows as [string, string][], out.term.stdoutIsTTY))
}

/**
 * A table printed while its rows arrive (pay customers collections --all): the header once, then each page's
 * rows as they come, so a long history never sits in memory. Tab-separated when stdout is not a terminal,
 * aligned columns (widths from the first page) on a terminal.
 */
export class StreamTable {
  private widths?: number[]
  private count = 0

  constructor(
    private readonly out: Output,
    private readonly columns: string[],
  ) {}

  push(raw: Obj[]): void {
    const items = printableDeep(raw)
    const tty = this.out.term.stdoutIsTTY
    const rows = items.map((item) => this.columns.map((c) => str(getPath(item, c)) ?? ''))
    if (!this.widths) {
      this.widths = this.columns.map((c, i) => Math.min(40, Math.max(c.length, ...rows.map((r) => r[i].length))))
      if (!tty) this.out.data(this.columns.join('\t'))
      else this.out.data(this.columns.map((c, i) => c.toUpperCase().padEnd(this.widths![i])).join('  ').trimEnd())
    }
    if (rows.length === 0) return
    const lines = rows.map((r) => {
      if (!tty) return r.join('\t')
      return r
        .map((cell, i) => {
          const padded = cell.padEnd(this.widths![i])
          return this.columns[i] === 'status' ? padded.replace(cell, paintState(this.out.term.color, cell)) : padded
        })
        .join('  ')
        .trimEnd()
    })
    this.count += rows.length
    this.out.data(lines.join('\n'))
  }

  get rows(): number {
    return this.count
  }
}

/** A list rendered all at once (used by tests of the view code and small lists). */
export function listText(out: Output, items: Obj[], columns: string[]): string {
  return listTable(columns, items.map((i) => columns.map((c) => str(getPath(i, c)) ?? '')), out.term.stdoutIsTTY)
}
