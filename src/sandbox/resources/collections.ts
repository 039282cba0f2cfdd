/**
 * Collections: processing -> succeeded | failed.
 * Mobile money settles after --settle-ms by the wallet number's last digit (outcomes.ts);
 * bank transfer waits for a transfer into its dynamic virtual account (control API) or a forced outcome, and fails
 * when the account expires first (expireCollection).
 */
import type {Ctx, Handler} from '../context.js'
import {newestByRef, own} from '../context.js'
import type {Core} from '../core.js'
import {invalidParameter, notFound} from '../errors.js'
import {newResourceId} from '../ids.js'
import {outcomeOf} from '../outcomes.js'
import type {CollectionRec, TxStatus, VirtualAccountRec} from '../state.js'
import {checkTestingCap, creditCollection, normalise, requireCurrency} from '../wallets.js'
import {closeTransaction, copyPresent, newTransaction, requireProvider, settleAfter} from './common.js'
import {type DynamicTransfer, dynamicTransfer, issueVirtualAccount, vaExpired, vaView} from './virtual-accounts.js'
import {entry} from '../state.js'

export function collectionView(core: Core, c: CollectionRec): Record<string, unknown> {
  const view: Record<string, unknown> = {
    id: c.id,
    object: 'collection',
    status: c.status,
    currency: c.currency,
    amount: c.amount,
    merchant_reference: c.merchant_reference,
    payment_rail: c.payment_rail,
  }
  copyPresent(view, c, ['mobile', 'provider', 'customer_id', 'description'])
  if (c.va_number) {
    const va = entry(core.state.virtual_accounts, c.va_number)
    if (va) view.virtual_account = vaView(va)
  }
  view.status_detail = c.status_detail
  view.created_at = c.created_at
  return view
}

export const createCollection: Handler = (ctx) => {
  const {core, merchant, body} = ctx
  const rail: 'mobile_money' | 'bank_transfer' = body.payment_rail ?? 'mobile_money'
  requireCurrency(core, merchant, body.currency)
  if (rail === 'bank_transfer' && !merchant.products.bank_transfer) {
    throw invalidParameter('payment_rail', 'bank_transfer is not enabled for this merchant')
  }
  requireProvider(core, body.provider)
  checkTestingCap(core, merchant, body.currency, body.amount)
  const id = newResourceId('CL_')
  const outcome = rail === 'mobile_money' ? outcomeOf(body.mobile) : 'hold'
  const rec: CollectionRec = {
    id,
    ...newTransaction(core, ctx, merchant.id, body, rail),
    amount: normalise(body.amount),
    settle_at: outcome === 'hold' ? null : settleAfter(core, 'collection', id),
  }
  if (rail === 'bank_transfer') {
    const va = issueVirtualAccount(core, {merchant_id: merchant.id, account_id: ctx.account.id, client_id: ctx.client.client_id, name: body.account_name ?? merchant.name, type: 'DYNAMIC', owner: {kind: 'collection', id}, from: Date.parse(rec.created_at)})
    rec.va_number = va.account_number
    core.at(Date.parse(va.expires_at!), COLLECTION_EXPIRY, id)
  }
  core.insert('collections', rec)
  const view = collectionView(core, rec) // the event and the answer carry the same snapshot (neither is changed)
  core.emit(rec.client_id, 'collection.processing', view)
  return {status: 201, body: view}
}

export const getCollection: Handler = (ctx) => {
  const rec = own(ctx, entry(ctx.core.state.collections, ctx.params.id), `collection ${ctx.params.id}`)
  return {status: 200, body: collectionView(ctx.core, rec)}
}

export const getCollectionByReference: Handler = (ctx: Ctx) => {
  const ref = ctx.query.merchant_reference
  const rec = newestByRef(ctx, 'collections', ref)
  if (!rec) throw notFound(`collection with merchant_reference ${ref}`)
  return {status: 200, body: collectionView(ctx.core, rec)}
}

export function finishCollection(core: Core, rec: CollectionRec, status: Exclude<TxStatus, 'processing'>, detail: string | null = null): boolean {
  if (!closeTransaction(rec, status, detail)) return false
  if (status === 'succeeded') creditCollection(core, rec.merchant_id, rec.currency, rec.amount)
  core.emit(rec.client_id, `collection.${status}`, collectionView(core, rec))
  core.changed()
  return true
}

/** Due handler: settles one collection whose settle_at has come. */
export function settleCollection(core: Core, id: string, now: number): void {
  const rec = entry(core.state.collections, id)
  if (!rec || rec.status !== 'processing' || rec.settle_at === null || rec.settle_at > now) return
  if (outcomeOf(rec.mobile) === 'fail') finishCollection(core, rec, 'failed', 'the customer declined or the wallet has insufficient funds')
  else finishCollection(core, rec, 'succeeded')
}

/** The due kind of a bank-transfer collection's expiry (the timer queue's; resources/index.ts). */
export const COLLECTION_EXPIRY = 'collection_expiry'

/** The dynamic account of a bank-transfer collection still waiting for its transfer, when it has one. */
export function waitingAccount(core: Core, rec: CollectionRec): VirtualAccountRec | undefined {
  const va = rec.status === 'processing' && rec.va_number ? entry(core.state.virtual_accounts, rec.va_number) : undefined
  return va?.account_type === 'DYNAMIC' ? va : undefined
}

/**
 * Due handler: a bank-transfer collection whose dynamic account expired before its transfer came fails (the
 * interface's Collection states are processing, succeeded and failed: none says expired), as a checkout session
 * not paid by its expires_at does; a transfer after that is refused and returned.
 */
export function expireCollection(core: Core, id: string, now: number): void {
  const rec = entry(core.state.collections, id)
  const va = rec && waitingAccount(core, rec)
  if (rec && va && vaExpired(va, now)) finishCollection(core, rec, 'failed', `expired: no transfer reached its account ${va.account_number} before ${va.expires_at}`)
}

/** A transfer into a dynamic collection account (dynamicTransfer's rule): the amount due or more succeeds, less fails. */
export function collectionTransfer(core: Core, rec: CollectionRec, va: VirtualAccountRec, amount: string): DynamicTransfer {
  const t = dynamicTransfer(rec.status, `collection ${rec.id}`, rec.amount, amount, va, core.now())
  if (t.paid) finishCollection(core, rec, 'succeeded', t.returned === '0.00' ? null : `overpaid: received ${rec.currency} ${normalise(amount)} of ${rec.amount}; ${t.returned} returned to the sender`)
  else finishCollection(core, rec, 'failed', `underpaid: received ${rec.currency} ${normalise(amount)} of ${rec.amount}; returned to the sender`)
  return t
}
