/**
 * Checkout sessions (pay links): processing until the customer pays on /pay/{id} (or an outcome is forced),
 * then succeeded or failed. Sessions created through the control API "in the portal" emit no events.
 */
import type {Handler} from '../context.js'
import {own} from '../context.js'
import type {Core} from '../core.js'
import {ApiError, invalidParameter} from '../errors.js'
import {newResourceId} from '../ids.js'
import type {CheckoutRec, MerchantRec, TxStatus, VirtualAccountRec} from '../state.js'
import {checkTestingCap, creditCollection, normalise, requireCurrency} from '../wallets.js'
import {requireProvider} from './common.js'
import {type DynamicTransfer, dynamicTransfer} from './virtual-accounts.js'
import {httpUrl} from '../validation.js'
import {entry} from '../state.js'

export const CHECKOUT_TTL_MS = 24 * 3600 * 1000

export function checkoutView(core: Core, s: CheckoutRec): Record<string, unknown> {
  return {
    id: s.id,
    object: 'checkout_session',
    status: s.status,
    url: `${core.baseUrl}/pay/${s.id}`,
    expires_at: s.expires_at,
    amount_mode: s.amount_mode,
    amount: s.amount,
    currency: s.currency,
    merchant_reference: s.merchant_reference,
    payment_rail: s.payment_rail,
    success_url: s.success_url,
    cancel_url: s.cancel_url,
    created_at: s.created_at,
  }
}

function slimCheckoutView(core: Core, s: CheckoutRec) {
  return {id: s.id, object: 'checkout_session', status: s.status, url: `${core.baseUrl}/pay/${s.id}`, expires_at: s.expires_at}
}

/** Rules the zod schema cannot know: products, Testing mode, reference data. */
export function checkCheckoutRules(core: Core, merchant: MerchantRec, body: any, origin: 'api' | 'portal'): void {
  const mode = body.amount_mode ?? 'fixed'
  // the pay page redirects the customer's browser there: only http(s)
  httpUrl(body.success_url, 'success_url')
  httpUrl(body.cancel_url, 'cancel_url')
  requireCurrency(core, merchant, body.currency)
  if (body.payment_rail === 'card' && !merchant.products.card_checkout) throw invalidParameter('payment_rail', 'card checkout is not enabled for this merchant')
  if (body.payment_rail === 'bank_transfer' && !merchant.products.bank_transfer) {
    throw invalidParameter('payment_rail', 'bank transfer checkout is not enabled for this merchant')
  }
  requireProvider(core, body.provider)
  if (origin === 'api' && merchant.testing && mode === 'open') throw invalidParameter('amount_mode', 'open is not available in Testing mode')
  if (mode === 'fixed') checkTestingCap(core, merchant, body.currency, body.amount)
}

export function createSession(core: Core, merchant: MerchantRec, accountId: string, clientId: string | null, body: any, origin: 'api' | 'portal'): CheckoutRec {
  const mode: 'fixed' | 'open' = body.amount_mode ?? 'fixed'
  const now = core.now()
  const rec: CheckoutRec = {
    id: newResourceId('CS_'),
    merchant_id: merchant.id,
    account_id: accountId,
    client_id: clientId,
    status: 'processing',
    amount_mode: mode,
    amount: mode === 'fixed' ? normalise(body.amount) : null,
    currency: body.currency,
    merchant_reference: body.merchant_reference,
    payment_rail: body.payment_rail ?? null,
    mobile: body.mobile ?? null,
    provider: body.provider ?? null,
    success_url: body.success_url,
    cancel_url: body.cancel_url,
    description: body.description,
    origin,
    created_at: core.iso(now),
    expires_at: core.iso(now + CHECKOUT_TTL_MS),
  }
  core.insert('checkouts', rec)
  core.at(now + CHECKOUT_TTL_MS, 'checkout', rec.id)
  core.emit(clientId, 'checkout_session.processing', checkoutView(core, rec))
  return rec
}

export const createCheckout: Handler = (ctx) => {
  checkCheckoutRules(ctx.core, ctx.merchant, ctx.body, 'api')
  const rec = createSession(ctx.core, ctx.merchant, ctx.account.id, ctx.client.client_id, ctx.body, 'api')
  return {status: 201, body: slimCheckoutView(ctx.core, rec)}
}

export const getCheckout: Handler = (ctx) => {
  const rec = own(ctx, entry(ctx.core.state.checkouts, ctx.params.id), `checkout session ${ctx.params.id}`)
  return {status: 200, body: checkoutView(ctx.core, rec)}
}

export function finishCheckout(core: Core, rec: CheckoutRec, status: Exclude<TxStatus, 'processing'>): boolean {
  if (rec.status !== 'processing') return false
  // an open session succeeds only with the amount the customer entered: no success without the money
  if (status === 'succeeded' && rec.amount === null) throw new ApiError(409, 'invalid_state', `checkout session ${rec.id} has no amount yet: the customer enters it on the pay page`)
  rec.status = status
  if (status === 'succeeded') creditCollection(core, rec.merchant_id, rec.currency, rec.amount!)
  core.emit(rec.client_id, `checkout_session.${status}`, checkoutView(core, rec))
  core.changed()
  return true
}

/** A transfer into the session's dynamic account (dynamicTransfer's rule): the amount due or more succeeds, less fails. */
export function checkoutTransfer(core: Core, rec: CheckoutRec, va: VirtualAccountRec, amount: string): DynamicTransfer {
  const t = dynamicTransfer(rec.status, `checkout session ${rec.id}`, rec.amount!, amount, va, core.now())
  finishCheckout(core, rec, t.paid ? 'succeeded' : 'failed')
  return t
}

/** Due handler: a session not paid before expires_at fails. */
export function expireCheckout(core: Core, id: string, now: number): void {
  const rec = entry(core.state.checkouts, id)
  if (rec && rec.status === 'processing' && Date.parse(rec.expires_at) <= now) finishCheckout(core, rec, 'failed')
}
