/**
 * Payouts, drawn from payout_wallet: amount + fee is reserved at create (refunded on failure).
 * An unfunded payout is created failed (status_detail insufficient_funds). amount_debited is what the payout holds of
 * the wallet: amount + fee while processing and once succeeded, 0.00 once failed (nothing taken, or all of it given
 * back; ASSUMPTION documented in docs/assumptions.md, `NOTHING_DEBITED`). Fees: mobile_money 10.00,
 * bank_transfer 30.00 (same figure in any currency; ASSUMPTION documented in docs/sandbox.md).
 */
import {toMinor, fromMinor} from '../../api/money.js'
import type {Handler} from '../context.js'
import {newestByRef} from '../context.js'
import type {Core} from '../core.js'
import {notFound} from '../errors.js'
import {newResourceId} from '../ids.js'
import {outcomeOf} from '../outcomes.js'
import type {PayoutRec, TxStatus} from '../state.js'
import {debitPayout, normalise, refundPayout, requireCurrency, wallet} from '../wallets.js'
import {closeTransaction, copyPresent, newTransaction, requireBank, requireProvider, settleAfter} from './common.js'
import {entry} from '../state.js'

export const PAYOUT_FEES = {mobile_money: '10.00', bank_transfer: '30.00'} as const
/** amount_debited of a failed payout: the wallet keeps (or got back) amount + fee. */
const NOTHING_DEBITED = '0.00'

export function payoutView(p: PayoutRec): Record<string, unknown> {
  const view: Record<string, unknown> = {
    id: p.id,
    object: 'payout',
    status: p.status,
    currency: p.currency,
    amount: p.amount,
    fee_amount: p.fee_amount,
    amount_debited: p.amount_debited,
    merchant_reference: p.merchant_reference,
    status_detail: p.status_detail,
    payment_rail: p.payment_rail,
    created_at: p.created_at,
  }
  return copyPresent(view, p, ['mobile', 'provider', 'bank_code', 'account_number'])
}

export const createPayout: Handler = (ctx) => {
  const {core, merchant, body} = ctx
  const rail: 'mobile_money' | 'bank_transfer' = body.payment_rail ?? 'mobile_money'
  const w = requireCurrency(core, merchant, body.currency)
  if (rail === 'mobile_money') requireProvider(core, body.provider)
  else requireBank(core, body.bank_code)
  const fee = PAYOUT_FEES[rail]
  const amount = normalise(body.amount)
  const debited = fromMinor(toMinor(amount) + toMinor(fee))
  const rec: PayoutRec = {
    id: newResourceId('PO_'),
    ...newTransaction(core, ctx, merchant.id, body, rail),
    amount,
    fee_amount: fee,
    amount_debited: debited,
    bank_code: rail === 'bank_transfer' ? body.bank_code : undefined,
    account_number: rail === 'bank_transfer' ? body.account_number : undefined,
    settle_at: null,
  }
  core.insert('payouts', rec)
  if (!debitPayout(w, debited)) {
    // created failed, nothing taken: one transition, so one event (payout.failed), never a processing one
    rec.status = 'failed'
    rec.amount_debited = NOTHING_DEBITED
    rec.status_detail = `insufficient_funds: payout_wallet holds ${w.currency} ${w.payout_wallet}, ${debited} needed (amount + fee)`
    core.emit(rec.client_id, 'payout.failed', payoutView(rec))
    return {status: 201, body: payoutView(rec)}
  }
  core.emit(rec.client_id, 'payout.processing', payoutView(rec))
  if (outcomeOf(rail === 'mobile_money' ? rec.mobile : rec.account_number) !== 'hold') rec.settle_at = settleAfter(core, 'payout', rec.id)
  return {status: 201, body: payoutView(rec)}
}

export const getPayout: Handler = (ctx) => {
  const ref = ctx.params.merchant_reference
  const rec = newestByRef(ctx, 'payouts', ref)
  if (!rec) throw notFound(`payout with merchant_reference ${ref}`)
  return {status: 200, body: payoutView(rec)}
}

export function finishPayout(core: Core, rec: PayoutRec, status: Exclude<TxStatus, 'processing'>, detail: string | null = null): boolean {
  if (!closeTransaction(rec, status, detail)) return false
  if (status === 'failed') {
    const w = wallet(core, rec.merchant_id, rec.currency)
    if (w) refundPayout(w, rec.amount_debited)
    rec.amount_debited = NOTHING_DEBITED
  }
  core.emit(rec.client_id, `payout.${status}`, payoutView(rec))
  core.changed()
  return true
}

/** Due handler: settles one payout whose settle_at has come. */
export function settlePayout(core: Core, id: string, now: number): void {
  const rec = entry(core.state.payouts, id)
  if (!rec || rec.status !== 'processing' || rec.settle_at === null || rec.settle_at > now) return
  const outcome = outcomeOf(rec.payment_rail === 'mobile_money' ? rec.mobile : rec.account_number)
  if (outcome === 'fail') finishPayout(core, rec, 'failed', 'the recipient account rejected the transfer')
  else finishPayout(core, rec, 'succeeded')
}
