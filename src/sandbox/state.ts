/**
 * The sandbox's whole state as plain JSON-serialisable records (so `--state FILE` is one JSON.stringify).
 * Every record carries merchant_id and account_id: lookups compare both (tenant and sub-account isolation).
 */
import {fromMinor, toMinor} from '../api/money.js'
import type {Products, Seed} from './seed.js'

export type TxStatus = 'processing' | 'succeeded' | 'failed'

export interface MerchantRec {
  id: number
  key: string
  name: string
  testing: boolean
  products: Products
  accounts: {id: string; account_ref: string; name: string}[]
}

export interface ClientRec {
  client_id: string
  client_secret: string
  webhook_secret: string
  merchant_id: number
  enabled: boolean
  webhook_url: string | null
}

export interface TokenRec {
  client_id: string
  merchant_id: number
  expires_at: number
}

/** Collection wallet = `released` + credits older than the hold; held = newer credits. */
export interface WalletRec {
  currency: string
  released: string
  payout_wallet: string
  /** Credits still held, oldest first (credits are appended in clock order). */
  credits: {amount: string; at: number}[]
  /** Sum of `credits` (kept with them, so a balance read does not add them all up); absent in older state files. */
  held?: string
}

interface Owned {
  merchant_id: number
  account_id: string
  /** API client that created the resource (events go to it); null when created "in the portal". */
  client_id: string | null
}

export interface VirtualAccountRec {
  merchant_id: number
  account_id: string
  client_id: string | null
  account_number: string
  account_name: string
  account_type: 'STATIC' | 'DYNAMIC'
  bank_code: string
  bank_name: string
  status: 'ACTIVE'
  expires_at: string | null
  single_deposit_limit: string | null
  owner: {kind: 'customer'; customer_id: string} | {kind: 'merchant'} | {kind: 'collection'; id: string} | {kind: 'checkout'; id: string}
}

export interface CollectionRec extends Owned {
  id: string
  status: TxStatus
  currency: string
  amount: string
  merchant_reference: string
  payment_rail: 'mobile_money' | 'bank_transfer'
  mobile?: string
  provider?: string
  customer_id?: string
  account_name?: string
  description?: string
  va_number?: string
  status_detail: string | null
  created_at: string
  settle_at: number | null
}

export interface CheckoutRec extends Owned {
  id: string
  status: TxStatus
  amount_mode: 'fixed' | 'open'
  amount: string | null
  currency: string
  merchant_reference: string
  payment_rail: string | null
  mobile: string | null
  provider: string | null
  success_url: string
  cancel_url: string
  description?: string
  origin: 'api' | 'portal'
  va_number?: string
  created_at: string
  expires_at: string
}

export interface PayoutRec extends Owned {
  id: string
  status: TxStatus
  currency: string
  amount: string
  fee_amount: string
  amount_debited: string
  merchant_reference: string
  payment_rail: 'mobile_money' | 'bank_transfer'
  mobile?: string
  provider?: string
  bank_code?: string
  account_number?: string
  account_name?: string
  description?: string
  status_detail: string | null
  created_at: string
  settle_at: number | null
}

export interface MandateRec extends Owned {
  id: string
  status: 'processing' | 'succeeded' | 'cancelled'
  upstream_id: string
  mobile: string
  provider: string
  currency: string
  amount: string
  frequency: string
  starts_at: string
  merchant_reference: string
  description?: string
  notes?: string
  plan_id?: string
  subscription_id?: string
  message_id: string
  created_at: string
  approved_at: string | null
  cancelled_at: string | null
  /** Clock time of the automatic approval; null = waits for POST /_sandbox/mandates/{id}/approve. */
  approve_at: number | null
}

export interface DebitRec extends Owned {
  id: string
  status: TxStatus
  mandate_id: string
  amount: string
  currency: string
  merchant_reference: string
  provider: string
  subscription_id?: string
  status_detail: string | null
  created_at: string
  settle_at: number | null
}

export interface SubscriptionRec extends Owned {
  subscription_id: string
  status: 'pending_approval' | 'active' | 'cancelled' | 'failed'
  merchant_reference: string
  customer_name: string
  customer_email: string
  plan_id: string
  plan_name: string
  mandate_id: string
  mobile: string
  provider: string
  notes?: string
  starts_at: string
  ends_at: string
  created_at: string
}

export interface CustomerRec {
  id: string
  merchant_id: number
  account_id: string
  merchant_reference: string
  name: string
  email: string
  mobile: string
  provider: string
  created_at: string
}

export interface PlanRec {
  merchant_id: number
  plan_id: string
  plan_name: string
  amount: string
  currency: string
  frequency: string
  active: boolean
}

export interface DeliveryAttempt {
  attempt: number
  at: string
  url: string
  status: number | null
  error?: string
  duplicate?: boolean
  /** Sent again through the control API (`pay sandbox resend`), outside the retry schedule. */
  resend?: boolean
}

export interface EventRec {
  id: string
  type: string
  client_id: string
  merchant_id: number
  created_at: string
  /** The exact JSON body delivered (signatures are computed over these bytes). */
  body: string
  state: 'pending' | 'delivered' | 'failed' | 'no_endpoint'
  deliveries: DeliveryAttempt[]
  /** The id of the resource the event is about, kept in memory for the dashboard (not in a --state file). */
  subject?: string
}

export interface IdempotencyRec {
  fingerprint: string
  status: number
  body: string
  created_at: number
}

export interface State {
  version: 1
  clock_offset_ms: number
  banks: {bank_code: string; bank_name: string}[]
  mobile_providers: string[]
  testing_caps: Record<string, string>
  merchants: Record<string, MerchantRec>
  clients: Record<string, ClientRec>
  tokens: Record<string, TokenRec>
  wallets: Record<string, Record<string, WalletRec>>
  plans: Record<string, PlanRec>
  customers: Record<string, CustomerRec>
  collections: Record<string, CollectionRec>
  checkouts: Record<string, CheckoutRec>
  payouts: Record<string, PayoutRec>
  mandates: Record<string, MandateRec>
  debits: Record<string, DebitRec>
  subscriptions: Record<string, SubscriptionRec>
  virtual_accounts: Record<string, VirtualAccountRec>
  events: EventRec[]
  idempotency: Record<string, IdempotencyRec>
}

export function stateFromSeed(seed: Seed, now: number): State {
  const state: State = {
    version: 1,
    clock_offset_ms: 0,
    banks: seed.banks,
    mobile_providers: seed.mobile_providers,
    testing_caps: seed.testing_caps,
    merchants: {},
    clients: {},
    tokens: {},
    wallets: {},
    plans: {},
    customers: {},
    collections: {},
    checkouts: {},
    payouts: {},
    mandates: {},
    debits: {},
    subscriptions: {},
    virtual_accounts: {},
    events: [],
    idempotency: {},
  }
  for (const m of seed.merchants) {
    state.merchants[m.id] = {id: m.id, key: m.key, name: m.name, testing: m.testing, products: {...m.products}, accounts: m.accounts.map((a) => ({...a}))}
    for (const c of m.clients) state.clients[c.client_id] = {...c, merchant_id: m.id}
    const wallets: Record<string, WalletRec> = {}
    for (const w of m.wallets) {
      const held = toMinor(w.collection_wallet_held)
      wallets[w.currency] = {
        currency: w.currency,
        released: fromMinor(toMinor(w.collection_wallet)),
        payout_wallet: fromMinor(toMinor(w.payout_wallet)),
        credits: held > 0n ? [{amount: fromMinor(held), at: now}] : [],
        held: fromMinor(held),
      }
    }
    state.wallets[m.id] = wallets
    for (const p of m.plans) state.plans[p.plan_id] = {...p, merchant_id: m.id}
    m.customers.forEach((c, ci) => {
      const account = m.accounts.find((a) => a.account_ref === (c.account_ref ?? m.accounts[0].account_ref)) ?? m.accounts[0]
      state.customers[c.id] = {id: c.id, merchant_id: m.id, account_id: account.id, merchant_reference: c.merchant_reference, name: c.name, email: c.email, mobile: c.mobile, provider: c.provider, created_at: c.created_at}
      if (!c.collections) return
      const base = Date.parse(c.created_at)
      for (let n = 1; n <= c.collections.count; n++) {
        const id = `CL_SEED${m.key.toUpperCase()}${String(ci + 1).padStart(2, '0')}${String(n).padStart(4, '0')}`
        state.collections[id] = {
          id,
          merchant_id: m.id,
          account_id: account.id,
          client_id: null,
          status: 'succeeded',
          currency: c.collections.currency,
          amount: fromMinor(toMinor(c.collections.amount)),
          merchant_reference: `seed-${c.merchant_reference}-${n}`,
          payment_rail: 'mobile_money',
          mobile: c.mobile,
          provider: c.provider,
          customer_id: c.id,
          status_detail: null,
          created_at: new Date(base + n * 3_600_000).toISOString(),
          settle_at: null,
        }
      }
    })
  }
  return state
}

/**
 * The record a map holds under an id, its own keys only: an id from a request (`__proto__`, `constructor`,
 * `toString`) finds nothing, never Object.prototype or one of its members.
 */
export function entry<T>(map: Record<string, T>, id: string | number | null | undefined): T | undefined {
  return id !== null && id !== undefined && Object.hasOwn(map, id) ? map[id] : undefined
}
