/**
 * Lookup indexes over the state, so no request scans all records: by merchant reference (per tenant), by
 * customer, by mandate, by wallet number and upstream mandate, by virtual-account owner. Records are indexed
 * when they are inserted (Core.insert) and the whole index is rebuilt when the state is replaced (load, reset).
 * The index is derived data: it is never persisted.
 */
import type {CheckoutRec, CollectionRec, DebitRec, MandateRec, PayoutRec, State, SubscriptionRec, VirtualAccountRec} from './state.js'

export interface Records {
  collections: CollectionRec
  payouts: PayoutRec
  checkouts: CheckoutRec
  mandates: MandateRec
  debits: DebitRec
  subscriptions: SubscriptionRec
  virtual_accounts: VirtualAccountRec
}
export type Kind = keyof Records
const KINDS: readonly Kind[] = ['collections', 'payouts', 'checkouts', 'mandates', 'debits', 'subscriptions', 'virtual_accounts']

const EMPTY: readonly string[] = []

/** Key of the "by merchant reference" lookups: one tenant (merchant + sub-account), one kind, one reference. */
export const refKey = (kind: Kind, merchantId: number, accountId: string, ref: string) => `ref|${kind}|${merchantId}|${accountId}|${ref}`
export const customerKey = (customerId: string) => `customer|${customerId}`
export const debitKey = (mandateId: string, ref: string) => `debit|${mandateId}|${ref}`
export const mobileKey = (merchantId: number, mobile: string) => `mobile|${merchantId}|${mobile}`
export const upstreamKey = (merchantId: number, upstreamId: string) => `upstream|${merchantId}|${upstreamId}`
export const customerVaKey = (merchantId: number, customerId: string) => `va|${merchantId}|customer|${customerId}`
export const merchantVaKey = (merchantId: number, accountId: string) => `va|${merchantId}|merchant|${accountId}`
export const customerVaCountKey = (merchantId: number) => `va-static-customers|${merchantId}`

export function idOf<K extends Kind>(kind: K, rec: Records[K]): string {
  if (kind === 'subscriptions') return (rec as SubscriptionRec).subscription_id
  if (kind === 'virtual_accounts') return (rec as VirtualAccountRec).account_number
  return (rec as {id: string}).id
}

/** The index keys a record is listed under. */
function keysOf<K extends Kind>(kind: K, rec: Records[K]): string[] {
  const r = rec as Records[Kind]
  switch (kind) {
    case 'collections': {
      const c = r as CollectionRec
      return c.customer_id ? [refKey(kind, c.merchant_id, c.account_id, c.merchant_reference), customerKey(c.customer_id)] : [refKey(kind, c.merchant_id, c.account_id, c.merchant_reference)]
    }
    case 'payouts':
    case 'checkouts':
    case 'subscriptions': {
      const x = r as PayoutRec | CheckoutRec | SubscriptionRec
      return [refKey(kind, x.merchant_id, x.account_id, x.merchant_reference)]
    }
    case 'mandates': {
      const m = r as MandateRec
      return [refKey(kind, m.merchant_id, m.account_id, m.merchant_reference), mobileKey(m.merchant_id, m.mobile), upstreamKey(m.merchant_id, m.upstream_id)]
    }
    case 'debits': {
      const d = r as DebitRec
      return [debitKey(d.mandate_id, d.merchant_reference)]
    }
    default: {
      const va = r as VirtualAccountRec
      if (va.account_type !== 'STATIC') return []
      if (va.owner.kind === 'customer') return [customerVaKey(va.merchant_id, va.owner.customer_id), customerVaCountKey(va.merchant_id)]
      if (va.owner.kind === 'merchant') return [merchantVaKey(va.merchant_id, va.account_id)]
      return []
    }
  }
}

export class Indexes {
  /** One id (the common case: a unique reference) or the ids in insertion order. */
  private readonly lists = new Map<string, string | string[]>()
  /** Every id of each kind, in insertion order (the dashboard's newest-first lists, without enumerating a table). */
  private readonly order = Object.fromEntries(KINDS.map((k) => [k, [] as string[]])) as Record<Kind, string[]>

  add<K extends Kind>(kind: K, rec: Records[K]): void {
    const id = idOf(kind, rec)
    this.order[kind].push(id)
    for (const key of keysOf(kind, rec)) {
      const list = this.lists.get(key)
      if (list === undefined) this.lists.set(key, id)
      else if (typeof list === 'string') this.lists.set(key, [list, id])
      else list.push(id)
    }
  }

  /** Ids listed under `key`, oldest first. */
  ids(key: string): readonly string[] {
    const list = this.lists.get(key)
    return list === undefined ? EMPTY : typeof list === 'string' ? [list] : list
  }

  /** Every id of a kind, oldest first. */
  all(kind: Kind): readonly string[] {
    return this.order[kind]
  }

  rebuild(state: State): void {
    this.lists.clear()
    for (const kind of KINDS) this.order[kind].length = 0
    for (const kind of KINDS) {
      const records = Object.values(state[kind]) as Records[Kind][]
      if (kind !== 'virtual_accounts') (records as {created_at: string}[]).sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0))
      for (const rec of records) this.add(kind, rec)
    }
  }
}
