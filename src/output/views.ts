/**
 * Human views of the service's resources, written for support staff: what the thing is, its state, the money,
 * the rail, the references and where the money goes or comes from, in that order and in words. Every field the
 * service sent that the view does not name is listed after, under its own name, so nothing is hidden.
 * Under --json none of this runs: stdout gets the service's body unchanged.
 * Amounts are shown exactly as the service sent them (strings; never converted to numbers).
 */
import {DecimalSum, isDecimal} from '../api/money.js'
import type {ViewName} from '../api/operation-types.js'
import type {ApiResponse} from '../client/api-client.js'
import {paintState} from './colors.js'
import {printableDeep} from './printable.js'
import {flatten, getPath} from './format.js'
import type {Output} from './output.js'
import {cut, fitWidths, keptWhole, keyValueTable, tsvRow} from './table.js'

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
const PLAN_COLUMNS = ['plan_id', 'plan_name', 'amount', 'currency', 'frequency', 'status']

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

function rail(v: unknown, status: unknown): string | undefined {
  if (v === undefined) return undefined
  // null: the customer picks on the pay page; once the session has ended the service does not say which
  if (v === null) return status === 'processing' || status === undefined ? 'customer chooses on the pay page' : 'not reported by the service (chosen on the pay page)'
  return RAIL[String(v)] ? `${RAIL[String(v)]} (${String(v)})` : String(v)
}

/**
 * amount_debited as the service gives it: "Amount debited" for a payout in progress or paid, with "(amount + fee)"
 * only where the answer's own figures add up so. A failed payout is never said to have debited money: zero is shown
 * as nothing taken; any other figure as the service's own field, since the spec does not say what a failed payout
 * gives back (its transitions are "not shown"), so pay claims neither a debit nor a refund.
 */
function debited(v: View, b: Obj): void {
  const total = money(b.amount_debited, b.currency)
  if (total === undefined) return
  if (b.status !== 'failed') v.row('Amount debited', isAmountPlusFee(b) ? `${total} (amount + fee)` : total, 'amount_debited')
  else if (isZero(b.amount_debited)) v.row('Amount debited', `${total} (failed: nothing debited)`, 'amount_debited')
  else v.row('amount_debited', `${total} as the service reports it for this failed payout (taken or given back: not said)`, 'amount_debited')
}

function isZero(v: unknown): boolean {
  return typeof v === 'string' && /^0+(\.0+)?$/.test(v)
}

/** Whether amount_debited is exactly amount + fee_amount, all three decimal strings of the answer. */
function isAmountPlusFee(b: Obj): boolean {
  const parts = [b.amount, b.fee_amount, b.amount_debited]
  if (!parts.every((p): p is string => typeof p === 'string' && isDecimal(p) && !p.startsWith('-'))) return false
  const difference = new DecimalSum()
  difference.add(parts[0])
  difference.add(parts[1])
  difference.add(`-${parts[2]}`)
  return /^0(\.0+)?$/.test(difference.toString().replace(/^-/, ''))
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

/**
 * A view is a list of lines, in order: `[label, field]` shows a field as is, `[label, field, 'state']` a state
 * (coloured), and a function writes rows that need more than one field or a word of explanation.
 */
type Line = readonly [label: string, key: string, kind?: 'state'] | ((v: View, body: Obj) => void)

const kind = (label: string): Line => (v) => v.row('Kind', label, 'object')
const STATE: Line = ['State', 'status', 'state']
const AMOUNT: Line = (v, b) => v.row('Amount', money(b.amount, b.currency), 'amount', 'currency')
const bank = (a: Obj) => (a.bank_name ? `${String(a.bank_name)}${a.bank_code ? ` (code ${String(a.bank_code)})` : ''}` : str(a.bank_code))

const TRANSACTION: Line[] = [
  (v, b) => v.row('Kind', KIND[String(b.object ?? '')] ?? (String(b.object ?? '') || undefined), 'object'),
  ['ID', 'id'],
  STATE,
  (v, b) => (typeof b.status_detail === 'string' ? v.field('Why', 'status_detail') : v.row('', undefined, 'status_detail')),
  (v, b) => {
    if (b.amount_mode === 'open' && b.amount === undefined) v.row('Amount', `entered by the customer (${String(b.currency ?? '')})`)
    v.row('Amount mode', b.amount_mode === 'open' ? 'open (the customer enters the amount)' : str(b.amount_mode), 'amount_mode')
  },
  AMOUNT,
  (v, b) => v.row('Fee', money(b.fee_amount, b.currency), 'fee_amount'),
  debited,
  (v, b) => {
    if ('payment_rail' in b) v.row('Rail', rail(b.payment_rail, b.status), 'payment_rail')
  },
  ['Merchant reference', 'merchant_reference'],
  ['Provider', 'provider'],
  ['Mobile', 'mobile'],
  ['Customer', 'customer_id'],
  // payout destination (our assumed field names, docs/assumptions.md)
  ['Bank code', 'bank_code'],
  ['Account number', 'account_number'],
  ['Account name', 'account_name'],
  ['Description', 'description'],
  ['Pay link', 'url'],
  ['Success URL', 'success_url'],
  ['Cancel URL', 'cancel_url'],
  ['Expires', 'expires_at'],
  (v, b) => {
    const va = b.virtual_account
    if (!va || typeof va !== 'object') return
    const a = va as Obj
    v.row('Pay to bank', bank(a), 'virtual_account')
    v.row('Pay to account number', str(a.account_number))
    v.row('Pay to account name', str(a.account_name))
    v.row('Account valid until', a.expires_at === null ? 'no expiry' : str(a.expires_at))
    if (a.single_deposit_limit !== undefined && a.single_deposit_limit !== null) v.row('Single deposit limit', str(a.single_deposit_limit))
  },
  ['Created', 'created_at'],
]

const MANDATE: Line[] = [
  (v, b) => v.row('Kind', KIND[String(b.object ?? 'mandate')] ?? str(b.object), 'object'),
  ['Mandate ID', 'mandate_id'],
  ['ID', 'id'],
  STATE,
  AMOUNT,
  ['Frequency', 'frequency'],
  ['Starts', 'starts_at'],
  ['Merchant reference', 'merchant_reference'],
  ['Mobile', 'mobile'],
  ['Provider', 'provider'],
  ['Plan', 'plan_id'],
  ['Message ID', 'message_id'],
  (v, b) => {
    if (b.object === 'mandate' && b.status === 'processing' && !('mandate_id' in b)) {
      v.row('Next', 'the customer approves on their phone; follow with `pay mandates get --reference ' + String(b.merchant_reference ?? 'REF') + ' --wait`')
    }
  },
]

/** The lines of each single-object view (the list views are columns: LIST_COLUMNS). */
const VIEWS: Partial<Record<ViewName, Line[]>> = {
  collection: TRANSACTION,
  checkout: TRANSACTION,
  payout: TRANSACTION,
  transaction: TRANSACTION,
  verification: [
    ['Result', 'status', 'state'],
    (v, b) => {
      const p = b.profile as Obj | null | undefined
      v.row('Name on the account', p ? [p.first_name, p.last_name].filter(Boolean).join(' ') : p === null ? 'none (not verified)' : undefined, 'profile')
    },
  ],
  mandate: MANDATE,
  'mandate-create': MANDATE,
  'mandate-cancellation': [
    kind(KIND.mandate_cancellation),
    ['Mandate ID', 'mandate_id'],
    STATE,
    (v, b) => {
      if (b.status === 'processing') v.row('Note', 'the cancellation is being applied; the mandate ends cancelled')
    },
    ['Message ID', 'message_id'],
  ],
  debit: [kind('Mandate debit'), ['ID', 'id'], STATE, AMOUNT, ['Mandate ID', 'mandate_id'], ['Merchant reference', 'merchant_reference'], ['Provider', 'provider']],
  subscription: [
    kind('Subscription'),
    ['Subscription ID', 'subscription_id'],
    STATE,
    (v, b) => v.row('Plan', b.plan_name ? `${String(b.plan_name)} (${String(b.plan_id)})` : str(b.plan_id), 'plan_name', 'plan_id'),
    (v, b) => v.row('Customer', b.customer_email ? `${String(b.customer_name ?? '')} <${String(b.customer_email)}>` : str(b.customer_name), 'customer_name', 'customer_email'),
    ['Mobile', 'mobile'],
    ['Provider', 'provider'],
    ['Mandate ID', 'mandate_id'],
    ['Starts', 'starts_at'],
    ['Ends', 'ends_at'],
    ['Merchant reference', 'merchant_reference'],
  ],
  customer: [kind('Customer'), ['ID', 'id'], ['Name', 'name'], ['Email', 'email'], ['Mobile', 'mobile'], ['Merchant reference', 'merchant_reference'], ['Created', 'created_at']],
}

/** The account inside a virtual-account answer, after its owner. */
const ACCOUNT: Line[] = [
  (v, a) => v.row('Bank', bank(a), 'bank_name', 'bank_code'),
  ['Account number', 'account_number'],
  ['Account name', 'account_name'],
  ['Account type', 'account_type'],
  STATE,
  (v, a) => v.row('Expires', a.expires_at === null ? 'never (static account)' : str(a.expires_at), 'expires_at'),
  (v, a) => v.row('Single deposit limit', a.single_deposit_limit === null ? 'none' : str(a.single_deposit_limit), 'single_deposit_limit'),
]

function render(lines: readonly Line[], body: Obj, color: boolean): View {
  const v = new View(body, color)
  for (const line of lines) {
    if (typeof line === 'function') line(v, body)
    else if (line[2] === 'state') v.state(line[0], line[1])
    else v.field(line[0], line[1])
  }
  return v
}

function virtualAccountRows(body: Obj, color: boolean): Row[] {
  const owner = render([kind(KIND.virtual_account), (v, b) => v.row('Owner', b.owner === 'merchant' ? 'the merchant' : b.customer_id ? `customer ${String(b.customer_id)}` : str(b.owner), 'owner', 'customer_id')], body, color)
  owner.row('', undefined, 'virtual_account')
  return [...owner.rest(), ...render(ACCOUNT, (body.virtual_account ?? {}) as Obj, color).rest()]
}

/** The rows of a single-object view. */
export function viewRows(view: ViewName, body: unknown, color: boolean): Row[] {
  const obj = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Obj
  if (view === 'virtual-account') return virtualAccountRows(obj, color)
  const lines = VIEWS[view]
  return lines ? render(lines, obj, color).rest() : flatten(obj, color)
}

/** Prints a response: the body unchanged under --json, else the view (tables for lists; the generic view for an answer that differs from the assumed shape). */
export function renderView(out: Output, view: ViewName, res: Pick<ApiResponse, 'text' | 'body' | 'differs'>): void {
  if (res.differs) {
    // valid by every stated rule, but not the shape pay assumed: nothing hidden, nothing reinterpreted
    out.warnQuoting(`the service's answer differs from what pay assumes where the interface is silent (${res.differs.join('; ')}); shown as sent. \`pay smoke --contract\` lists every difference; docs/assumptions.md says what to change`)
    if (!out.json) {
      out.data(out.generic(res.body))
      return
    }
  }
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
  const body = printableDeep(res.body)
  const rows = out.fields ? out.fieldRows((body ?? {}) as Obj) : viewRows(view, body, out.term.color)
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
  private readonly columns: string[]

  constructor(
    private readonly out: Output,
    columns: string[],
  ) {
    this.columns = out.fields ?? columns
  }

  push(raw: Obj[]): void {
    const items = printableDeep(raw)
    const tty = this.out.term.stdoutIsTTY
    const rows = items.map((item) => this.columns.map((c) => str(getPath(item, c)) ?? ''))
    if (!this.widths) {
      const natural = this.columns.map((c, i) => Math.min(40, Math.max(c.length, ...rows.map((r) => r[i].length))))
      // on a terminal (not -o wide) the lines fit its width: two spaces between columns, the widest cut first
      const width = this.out.tableWidth
      this.widths = width === undefined ? natural : fitWidths(natural, width - 2 * (natural.length - 1), keptWhole(this.columns))
      if (this.out.options.noHeader) {
        // no header line (--no-header)
      } else if (!tty) this.out.data(tsvRow(this.columns))
      else this.out.data(this.columns.map((c, i) => cut(c.toUpperCase(), this.widths![i]).padEnd(this.widths![i])).join('  ').trimEnd())
    }
    if (rows.length === 0) return
    const lines = rows.map((r) => {
      if (!tty) return tsvRow(r)
      return r
        .map((whole, i) => {
          const cell = this.out.tableWidth === undefined ? whole : cut(whole, this.widths![i])
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
