/**
 * A small model of the Payments Service, written from the interface (shared/spec/payments-service-interface.md)
 * and the sandbox's documented choices where the interface says "not shown" (docs/sandbox.md: outcomes by last
 * digit, payout fees, the dynamic-account transfer rule, the seed), never from the sandbox's code. The model test
 * (test/sandbox/server.model.test.ts) drives the sandbox and this model with the same operations and compares them.
 *
 * What it keeps: each transaction's state, the wallets (collection credits held 24 h of clock, then available;
 * the payout wallet less amount + fee at create, refunded on failure), the events each transition emits (one per
 * transition, to the API client that created the resource) and what is due at which clock time. Money is bigint
 * minor units; time is seconds of sandbox clock since the run began.
 */

/** Interface, rule 3: the T+1 hold. */
export const HOLD_S = 24 * 3600
/** docs/sandbox.md: checkout sessions expire 24 h after create. */
export const CHECKOUT_TTL_S = 24 * 3600
/** docs/sandbox.md: a bank-transfer collection's dynamic account is valid 24 h; unpaid by then, the collection fails. */
export const DYNAMIC_VA_TTL_S = 24 * 3600
/** The --settle-ms the model test starts the sandbox with, in seconds (a clock move settles what is due). */
export const SETTLE_S = 300
/** docs/sandbox.md: payout fees per rail, in minor units. */
export const PAYOUT_FEE: Record<Rail, bigint> = {mobile_money: 1000n, bank_transfer: 3000n}
/** docs/sandbox.md: Testing-mode cap of KES money-in (merchant B is in Testing mode). */
export const TESTING_CAP: Record<string, bigint> = {KES: 100000n, UGX: 3500000n}

export type Rail = 'mobile_money' | 'bank_transfer'
export type Who = 'A1' | 'A2' | 'GE' | 'GW'
export type Merchant = 'A' | 'B'
export type TxKind = 'collection' | 'checkout' | 'payout' | 'debit'
export type TxStatus = 'processing' | 'succeeded' | 'failed'
/** docs/sandbox.md, "Deterministic outcomes": 9 fails, 8 waits for the control API, anything else succeeds. */
export type Outcome = 'succeed' | 'fail' | 'hold'

export const outcomeOf = (number: string): Outcome => (number.endsWith('9') ? 'fail' : number.endsWith('8') ? 'hold' : 'succeed')

/** The seeded API clients (docs/sandbox.md, "Seeded data"): merchant, sub-account, client id. */
export const CLIENTS: Record<Who, {merchant: Merchant; account: string; client_id: string}> = {
  A1: {merchant: 'A', account: 'acme-main', client_id: 'sb_acme_client'},
  A2: {merchant: 'A', account: 'acme-main', client_id: 'sb_acme_ops_client'},
  GE: {merchant: 'B', account: 'globex-east', client_id: 'sb_globex_client'},
  GW: {merchant: 'B', account: 'globex-west', client_id: 'sb_globex_client'},
}
export const TESTING: Record<Merchant, boolean> = {A: false, B: true}
export const SUBSCRIPTIONS: Record<Merchant, boolean> = {A: true, B: false}
export const PLANS: Record<string, {merchant: Merchant; amount: bigint}> = {PLN_ACMEGOLD: {merchant: 'A', amount: 150000n}, PLN_ACMESILVER: {merchant: 'A', amount: 40000n}}

export const money = (minor: bigint): string => {
  const sign = minor < 0n ? '-' : ''
  const abs = minor < 0n ? -minor : minor
  return `${sign}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`
}

interface Wallet {
  released: bigint
  payout: bigint
  credits: {amount: bigint; at: number}[]
}

export interface Tx {
  kind: TxKind
  /** The sandbox id once known (a subscription's charge is learnt from its first event). */
  id?: string
  key: string
  who: Who
  status: TxStatus
  amount: bigint
  currency: string
  ref: string
  /** When it settles by itself (clock seconds), null when it waits (a transfer, the pay page, a forced outcome). */
  dueAt: number | null
  outcome: Outcome
  fee?: bigint
  /** Dynamic account number (bank-transfer collection, checkout paid by bank transfer). */
  va?: string
  expiresAt?: number
  mandateId?: string
  subId?: string
}

export interface Mandate {
  id: string
  who: Who
  mobile: string
  ref: string
  status: 'processing' | 'succeeded' | 'cancelled'
  upstream: number
  approveAt: number | null
  subId?: string
}

export interface Sub {
  id: string
  who: Who
  ref: string
  status: 'pending_approval' | 'active' | 'cancelled' | 'failed'
  plan: string
  mandateId: string
}

export interface StaticVa {
  number: string
  who: Who
}

/** An expected event: the resource key, type, receiving client and (where the type names it) the data's status. */
export interface Ev {
  key: string
  type: string
  client: string
  status?: string
}

const EVENT_PREFIX: Record<TxKind, string> = {collection: 'collection', checkout: 'checkout_session', payout: 'payout', debit: 'mandate_debit'}

export class Model {
  now = 0
  private upstreams = 0
  wallets: Record<Merchant, Record<string, Wallet>> = {
    A: {KES: {released: 25000000n, payout: 10000000n, credits: []}, UGX: {released: 150000000n, payout: 50000000n, credits: []}},
    B: {KES: {released: 500000n, payout: 200000n, credits: []}},
  }
  txs: Tx[] = []
  mandates: Mandate[] = []
  subs: Sub[] = []
  staticVas: Partial<Record<string, StaticVa>> = {}
  events: Ev[] = []

  tx(key: string): Tx | undefined {
    return this.txs.find((t) => t.key === key)
  }

  emit(key: string, type: string, who: Who, status?: string): void {
    this.events.push({key, type, client: CLIENTS[who].client_id, status})
  }

  credit(merchant: Merchant, currency: string, amount: bigint): void {
    this.wallets[merchant][currency].credits.push({amount, at: this.now})
  }

  /** Interface rule 3: available (after the T+1 hold), actual (all succeeded credits), held, payout. */
  balance(merchant: Merchant): Record<string, {collection_wallet: string; collection_wallet_actual: string; collection_wallet_held: string; payout_wallet: string}> {
    const out: ReturnType<Model['balance']> = {}
    for (const [currency, w] of Object.entries(this.wallets[merchant])) {
      let available = w.released
      let held = 0n
      for (const c of w.credits) {
        if (c.at + HOLD_S <= this.now) available += c.amount
        else held += c.amount
      }
      out[currency] = {collection_wallet: money(available), collection_wallet_actual: money(available + held), collection_wallet_held: money(held), payout_wallet: money(w.payout)}
    }
    return out
  }

  /** Credits still inside the hold, oldest first. */
  heldCredits(): {amount: bigint; at: number}[] {
    const all = Object.values(this.wallets).flatMap((ws) => Object.values(ws).flatMap((w) => w.credits))
    return all.filter((c) => c.at + HOLD_S > this.now).sort((a, b) => a.at - b.at)
  }

  /** A new processing transaction: its event, and its settlement time when its outcome decides itself. */
  open(t: Omit<Tx, 'status' | 'dueAt'>, waits = false): Tx {
    const tx: Tx = {...t, status: 'processing', dueAt: waits || t.outcome === 'hold' ? null : this.now + SETTLE_S}
    this.txs.push(tx)
    this.emit(tx.key, `${EVENT_PREFIX[tx.kind]}.processing`, tx.who, 'processing')
    return tx
  }

  /** processing -> succeeded | failed, with its money and its one event; false when it was no longer processing. */
  finish(tx: Tx, status: 'succeeded' | 'failed'): boolean {
    if (tx.status !== 'processing') return false
    tx.status = status
    tx.dueAt = null
    const merchant = CLIENTS[tx.who].merchant
    if (status === 'succeeded' && tx.kind !== 'payout') this.credit(merchant, tx.currency, tx.amount)
    if (status === 'failed' && tx.kind === 'payout') this.wallets[merchant][tx.currency].payout += tx.amount + tx.fee!
    this.emit(tx.key, `${EVENT_PREFIX[tx.kind]}.${status}`, tx.who, status)
    const sub = tx.subId ? this.subs.find((s) => s.id === tx.subId) : undefined
    if (sub && sub.status === 'pending_approval') {
      if (status === 'succeeded') {
        sub.status = 'active'
        this.emit(sub.id, 'subscription.active', sub.who)
      } else {
        sub.status = 'failed'
        this.emit(sub.id, 'subscription.charge_failed', sub.who)
        this.emit(sub.id, 'subscription.failed', sub.who)
      }
    }
    return true
  }

  /** What a payout create answers: created failed (nothing taken, one event) when amount + fee is not there. */
  payout(t: Omit<Tx, 'status' | 'dueAt' | 'kind'>, rail: Rail): Tx {
    const fee = PAYOUT_FEE[rail]
    const w = this.wallets[CLIENTS[t.who].merchant][t.currency]
    if (w.payout < t.amount + fee) {
      const tx: Tx = {...t, kind: 'payout', fee, status: 'failed', dueAt: null}
      this.txs.push(tx)
      this.emit(tx.key, 'payout.failed', tx.who, 'failed')
      return tx
    }
    w.payout -= t.amount + fee
    return this.open({...t, kind: 'payout', fee})
  }

  /** Interface: an earlier create still awaiting approval for the number, an approved one to reuse, or a new one. */
  mandateFor(merchant: Merchant, mobile: string): 'pending' | Mandate | undefined {
    const same = this.mandates.filter((m) => CLIENTS[m.who].merchant === merchant && m.mobile === mobile)
    if (same.some((m) => m.status === 'processing')) return 'pending'
    return same.find((m) => m.status === 'succeeded')
  }

  createMandate(id: string, who: Who, mobile: string, ref: string, reuse: Mandate | undefined): Mandate {
    const m: Mandate = {
      id,
      who,
      mobile,
      ref,
      status: reuse ? 'succeeded' : 'processing',
      upstream: reuse ? reuse.upstream : ++this.upstreams,
      approveAt: reuse || outcomeOf(mobile) === 'hold' ? null : this.now + SETTLE_S,
    }
    this.mandates.push(m)
    this.emit(m.id, reuse ? 'mandate.succeeded' : 'mandate.processing', who, m.status)
    return m
  }

  approve(m: Mandate): boolean {
    if (m.status !== 'processing') return false
    m.status = 'succeeded'
    m.approveAt = null
    this.emit(m.id, 'mandate.succeeded', m.who, 'succeeded')
    this.charge(m)
    return true
  }

  /** Interface rule 9: an API-enrolled subscription is charged the plan amount once, on approval (a debit). */
  charge(m: Mandate): void {
    const sub = m.subId ? this.subs.find((s) => s.id === m.subId) : undefined
    if (!sub || sub.status !== 'pending_approval') return
    this.open({kind: 'debit', key: `charge:${m.id}`, who: sub.who, amount: PLANS[sub.plan].amount, currency: 'KES', ref: `${sub.ref}-charge`, outcome: outcomeOf(m.mobile), mandateId: m.id, subId: sub.id})
  }

  /** Interface: cancel cancels every local mandate of the merchant sharing the upstream mandate (and their subscriptions). */
  cancel(m: Mandate): void {
    const merchant = CLIENTS[m.who].merchant
    for (const other of this.mandates) {
      if (CLIENTS[other.who].merchant !== merchant || other.upstream !== m.upstream || other.status === 'cancelled') continue
      other.status = 'cancelled'
      other.approveAt = null
      this.emit(other.id, 'mandate.cancelled', other.who, 'cancelled')
      const sub = other.subId ? this.subs.find((s) => s.id === other.subId) : undefined
      if (sub && (sub.status === 'pending_approval' || sub.status === 'active')) {
        sub.status = 'cancelled'
        this.emit(sub.id, 'subscription.cancelled', sub.who)
      }
    }
  }

  /**
   * docs/sandbox.md: a dynamic account takes one transfer while its transaction is processing; the amount due or
   * more pays it (the amount due is credited, the rest returned), less fails it (all returned); later ones: 409.
   */
  transfer(tx: Tx, received: bigint): {status: 200 | 409; credited: bigint; returned: bigint} {
    if (tx.status !== 'processing') return {status: 409, credited: 0n, returned: received}
    const paid = received >= tx.amount
    this.finish(tx, paid ? 'succeeded' : 'failed')
    return {status: 200, credited: paid ? tx.amount : 0n, returned: paid ? received - tx.amount : received}
  }

  /** Moves the clock: everything due by then happens at the new time, in the order it fell due. */
  advance(seconds: number): void {
    this.now += seconds
    for (;;) {
      const due: {at: number; run: () => void}[] = []
      for (const t of this.txs) {
        if (t.status !== 'processing') continue
        if (t.dueAt !== null && t.dueAt <= this.now) due.push({at: t.dueAt, run: () => this.finish(t, t.outcome === 'fail' ? 'failed' : 'succeeded')})
        else if (t.expiresAt !== undefined && t.expiresAt <= this.now) due.push({at: t.expiresAt, run: () => this.finish(t, 'failed')})
      }
      for (const m of this.mandates) if (m.status === 'processing' && m.approveAt !== null && m.approveAt <= this.now) due.push({at: m.approveAt, run: () => this.approve(m)})
      if (due.length === 0) return
      due.sort((a, b) => a.at - b.at)
      due[0].run()
    }
  }
}
