/**
 * Wallet arithmetic in minor units (bigint) over decimal strings; never JS numbers.
 * T+1 hold: a succeeded credit is held for 24 h of sandbox clock, then counts in collection_wallet.
 */
import {MAX_FRACTION_DIGITS, compareDecimal, fromMinor, toMinor} from '../api/money.js'
import type {Core} from './core.js'
import {invalidParameter} from './errors.js'
import type {MerchantRec, WalletRec} from './state.js'
import {entry} from './state.js'

export const HOLD_MS = 24 * 3600 * 1000

export function wallet(core: Core, merchantId: number, currency: string): WalletRec | undefined {
  const wallets = entry(core.state.wallets, merchantId)
  return wallets && entry(wallets, currency)
}

/** A currency the merchant holds a wallet in, else 400 naming `param`. */
export function requireCurrency(core: Core, merchant: MerchantRec, currency: string, param = 'currency'): WalletRec {
  const w = wallet(core, merchant.id, currency)
  if (!w) {
    const have = Object.keys(entry(core.state.wallets, merchant.id) ?? {}).join(', ')
    throw invalidParameter(param, `currency ${currency} is not enabled for this merchant (enabled: ${have})`)
  }
  return w
}

/** Money-in while the merchant is in Testing mode must not exceed the per-currency cap. */
export function checkTestingCap(core: Core, merchant: MerchantRec, currency: string, amount: string, param = 'amount'): void {
  if (!merchant.testing) return
  const cap = entry(core.state.testing_caps, currency)
  if (cap !== undefined && compareDecimal(amount, cap) > 0) {
    throw invalidParameter(param, `exceeds the Testing mode maximum of ${currency} ${cap}; go live to lift the cap`)
  }
}

export function creditCollection(core: Core, merchantId: number, currency: string, amount: string): void {
  const w = wallet(core, merchantId, currency)
  if (!w) return
  w.held = fromMinor(heldOf(w) + toMinor(amount))
  w.credits.push({amount, at: core.now()})
}

/** The held total (computed once for a state file written before it was kept). */
function heldOf(w: WalletRec): bigint {
  w.held ??= fromMinor(w.credits.reduce((sum, c) => sum + toMinor(c.amount), 0n))
  return toMinor(w.held)
}

/** Moves released credits (the oldest ones, at the front) out of the credit list: cost is the number released. */
function release(w: WalletRec, now: number): void {
  if (w.credits.length === 0 || w.credits[0].at + HOLD_MS > now) return
  const held = heldOf(w)
  let moved = 0n
  let n = 0
  while (n < w.credits.length && w.credits[n].at + HOLD_MS <= now) moved += toMinor(w.credits[n++].amount)
  w.credits.splice(0, n)
  w.released = fromMinor(toMinor(w.released) + moved)
  w.held = fromMinor(held - moved)
}

/** The last balance entry of each wallet, reused while its three amounts stay the same (no bigint work per read). */
const lastEntry = new WeakMap<WalletRec, {released: string; held: string | undefined; payout: string; entry: ReturnType<typeof computeEntry>}>()

export function balanceEntry(core: Core, w: WalletRec) {
  release(w, core.now())
  const last = lastEntry.get(w)
  if (last && last.released === w.released && last.held === w.held && last.payout === w.payout_wallet) return last.entry
  const entry = computeEntry(w)
  lastEntry.set(w, {released: w.released, held: w.held, payout: w.payout_wallet, entry})
  return entry
}

function computeEntry(w: WalletRec) {
  const held = heldOf(w)
  const available = toMinor(w.released)
  return {
    currency: w.currency,
    collection_wallet: fromMinor(available),
    collection_wallet_actual: fromMinor(available + held),
    collection_wallet_held: fromMinor(held),
    payout_wallet: w.payout_wallet,
  }
}

/** Takes `amount` from the payout wallet; false (and nothing taken) when it does not hold enough. */
export function debitPayout(w: WalletRec, amount: string): boolean {
  const have = toMinor(w.payout_wallet)
  const need = toMinor(amount)
  if (have < need) return false
  w.payout_wallet = fromMinor(have - need)
  return true
}

export function refundPayout(w: WalletRec, amount: string): void {
  w.payout_wallet = fromMinor(toMinor(w.payout_wallet) + toMinor(amount))
}

/** The canonical form of a decimal amount (what fromMinor writes); an amount already in it is returned as it is. */
const CANONICAL_AMOUNT = new RegExp(`^(?:0|[1-9]\\d*)\\.\\d{${MAX_FRACTION_DIGITS}}$`)
export const normalise = (a: string) => (CANONICAL_AMOUNT.test(a) ? a : fromMinor(toMinor(a)))
