/**
 * Mandates (processing -> succeeded -> cancelled) and mandate debits (processing -> succeeded | failed).
 * - A create for a number with an approved mandate of the merchant reuses it: succeeded at once, same upstream id.
 * - A create while another for the same number awaits approval: 409 mandate_pending_approval.
 * - Approval: automatic after --settle-ms, except numbers ending in 8 (POST /_sandbox/mandates/{id}/approve).
 * - Cancel cancels every local mandate of the merchant sharing the upstream mandate id.
 * - Debits only against an approved (succeeded) mandate; they settle by the mandate number's last digit.
 */
import type {Ctx, Handler} from '../context.js'
import {newestByRef, own} from '../context.js'
import type {Core} from '../core.js'
import {ApiError, invalidParameter, notFound, validationError} from '../errors.js'
import {newResourceId, randomId} from '../ids.js'
import {outcomeOf} from '../outcomes.js'
import type {DebitRec, MandateRec, TxStatus} from '../state.js'
import {creditCollection, normalise, requireCurrency} from '../wallets.js'
import {requireProvider, settleAfter} from './common.js'
import {activePlan, createSubscriptionRecord, subscriptionView} from './subscription-records.js'
import {debitKey, mobileKey, upstreamKey} from '../indexes.js'
import {entry} from '../state.js'

/**
 * A query value with every character but letters, digits, - _ ~ %-encoded (encodeURIComponent leaves . ! ' ( ) *),
 * so that a reference ending in `.` or `)` stays whole where the message's sentence goes on after the URL.
 */
const queryValue = (value: string) => encodeURIComponent(value).replace(/[.!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)

export function mandateView(m: MandateRec): Record<string, unknown> {
  return {
    object: 'mandate',
    mandate_id: m.id,
    status: m.status,
    merchant_reference: m.merchant_reference,
    mobile: m.mobile,
    provider: m.provider,
    currency: m.currency,
    amount: m.amount,
    frequency: m.frequency,
    starts_at: m.starts_at,
    description: m.description ?? null,
    plan_id: m.plan_id ?? null,
    subscription_id: m.subscription_id ?? null,
    message_id: m.message_id,
    created_at: m.created_at,
    approved_at: m.approved_at,
    cancelled_at: m.cancelled_at,
  }
}

export function debitView(d: DebitRec): Record<string, unknown> {
  return {
    object: 'mandate_debit',
    id: d.id,
    status: d.status,
    mandate_id: d.mandate_id,
    merchant_reference: d.merchant_reference,
    amount: d.amount,
    currency: d.currency,
    provider: d.provider,
    status_detail: d.status_detail,
    created_at: d.created_at,
  }
}

type NewMandate = Pick<MandateRec, 'mobile' | 'provider' | 'currency' | 'amount' | 'frequency' | 'starts_at' | 'merchant_reference' | 'description' | 'notes' | 'plan_id'>

/** Creates a local mandate (reusing an approved upstream one); throws 409 while one awaits approval. */
export function createMandateRecord(ctx: Ctx, input: NewMandate): MandateRec {
  const {core} = ctx
  const mandates = core.lookup('mandates', mobileKey(ctx.merchant.id, input.mobile))
  const pending = mandates.find((m) => m.status === 'processing')
  if (pending) {
    // One upstream mandate per number and merchant (reuse and cancel are merchant-wide), so a pending one blocks a
    // create in any sub-account; the message names the sub-account to poll from when it is another one (lookups
    // are per sub-account: from this one the reference would answer 404).
    const other = pending.account_id === ctx.account.id ? undefined : ctx.merchant.accounts.find((a) => a.id === pending.account_id)
    const where = other ? ` with X-Service-Account-Ref: ${other.account_ref}` : ''
    throw new ApiError(409, 'mandate_pending_approval', `a mandate for ${input.mobile} is still awaiting the customer's approval; poll GET /v1/mandates?merchant_reference=${queryValue(pending.merchant_reference)}${where}`, {doc: 'mandates'})
  }
  const approved = mandates.find((m) => m.status === 'succeeded')
  const now = core.now()
  const id = newResourceId('MD_')
  const rec: MandateRec = {
    id,
    merchant_id: ctx.merchant.id,
    account_id: ctx.account.id,
    client_id: ctx.client.client_id,
    status: approved ? 'succeeded' : 'processing',
    upstream_id: approved ? approved.upstream_id : randomId('UPM_', 16),
    mobile: input.mobile,
    provider: input.provider,
    currency: input.currency,
    amount: normalise(input.amount),
    frequency: input.frequency,
    starts_at: input.starts_at,
    merchant_reference: input.merchant_reference,
    description: input.description,
    notes: input.notes,
    plan_id: input.plan_id,
    message_id: randomId('MSG_', 16),
    created_at: core.iso(now),
    approved_at: approved ? core.iso(now) : null,
    cancelled_at: null,
    approve_at: approved || outcomeOf(input.mobile) === 'hold' ? null : settleAfter(core, 'mandate', id),
  }
  core.insert('mandates', rec)
  core.emit(rec.client_id, approved ? 'mandate.succeeded' : 'mandate.processing', mandateView(rec))
  return rec
}

export const createMandate: Handler = (ctx) => {
  const {core, body} = ctx
  requireProvider(core, body.provider)
  requireCurrency(core, ctx.merchant, body.currency)
  let plan
  if (body.plan_id !== undefined) {
    if (!ctx.merchant.products.subscriptions) throw new ApiError(403, 'forbidden', 'Subscriptions is not enabled for this merchant', {doc: 'products'})
    plan = activePlan(ctx, body.plan_id)
  }
  const rec = createMandateRecord(ctx, body)
  if (plan) {
    createSubscriptionRecord(ctx, rec, plan, {merchant_reference: body.merchant_reference, customer_name: body.customer_name, customer_email: body.customer_email, notes: body.notes})
  }
  if (rec.status === 'succeeded' && rec.subscription_id) chargeSubscription(core, rec)
  return {status: 201, body: {object: 'mandate', status: rec.status, merchant_reference: rec.merchant_reference, message_id: rec.message_id}}
}

export const getMandate: Handler = (ctx) => {
  const ref = ctx.query.merchant_reference
  const rec = newestByRef(ctx, 'mandates', ref)
  if (!rec) throw notFound(`mandate with merchant_reference ${ref}`)
  return {status: 200, body: mandateView(rec)}
}

export const cancelMandate: Handler = (ctx) => {
  const {core} = ctx
  const rec = own(ctx, entry(core.state.mandates, ctx.params.mandate_id), `mandate ${ctx.params.mandate_id}`)
  if (rec.mobile !== ctx.body.mobile) throw invalidParameter('mobile', 'does not match the mobile number of the mandate')
  const wasCancelled = rec.status === 'cancelled'
  if (!wasCancelled) cancelUpstream(core, rec.merchant_id, rec.upstream_id)
  return {status: 200, body: {object: 'mandate_cancellation', status: wasCancelled ? 'cancelled' : 'processing', mandate_id: rec.id, message_id: randomId('MSG_', 16)}}
}

function cancelUpstream(core: Core, merchantId: number, upstreamId: string): void {
  for (const m of core.lookup('mandates', upstreamKey(merchantId, upstreamId))) {
    if (m.status === 'cancelled') continue
    m.status = 'cancelled'
    m.cancelled_at = core.iso()
    m.approve_at = null
    core.emit(m.client_id, 'mandate.cancelled', mandateView(m))
    const sub = m.subscription_id ? entry(core.state.subscriptions, m.subscription_id) : undefined
    if (sub && (sub.status === 'active' || sub.status === 'pending_approval')) {
      sub.status = 'cancelled'
      core.emit(sub.client_id, 'subscription.cancelled', subscriptionView(sub))
    }
  }
  core.changed()
}

export function approveMandate(core: Core, rec: MandateRec): boolean {
  if (rec.status !== 'processing') return false
  rec.status = 'succeeded'
  rec.approved_at = core.iso()
  rec.approve_at = null
  core.emit(rec.client_id, 'mandate.succeeded', mandateView(rec))
  if (rec.subscription_id) chargeSubscription(core, rec)
  core.changed()
  return true
}

/** API-enrolled subscriptions are charged the plan amount once, on approval. */
export function chargeSubscription(core: Core, mandate: MandateRec): void {
  const sub = mandate.subscription_id ? entry(core.state.subscriptions, mandate.subscription_id) : undefined
  if (!sub || sub.status !== 'pending_approval') return
  const plan = entry(core.state.plans, sub.plan_id)
  // the charge is the subscription's: its events go to the client that enrolled the subscriber
  createDebitRecord(core, mandate, sub.client_id, {amount: plan?.amount ?? mandate.amount, currency: plan?.currency ?? mandate.currency, merchant_reference: `${sub.merchant_reference}-charge-1`, provider: mandate.provider}, sub.subscription_id)
}

/** A debit created by `clientId` (its events go there: the debit is the resource, not the mandate). */
function createDebitRecord(core: Core, mandate: MandateRec, clientId: string | null, input: {amount: string; currency: string; merchant_reference: string; provider: string}, subscriptionId?: string): DebitRec {
  const id = newResourceId('DB_')
  const rec: DebitRec = {
    id,
    merchant_id: mandate.merchant_id,
    account_id: mandate.account_id,
    client_id: clientId,
    status: 'processing',
    mandate_id: mandate.id,
    amount: normalise(input.amount),
    currency: input.currency,
    merchant_reference: input.merchant_reference,
    provider: input.provider,
    subscription_id: subscriptionId,
    status_detail: null,
    created_at: core.iso(),
    settle_at: outcomeOf(mandate.mobile) === 'hold' ? null : settleAfter(core, 'debit', id),
  }
  core.insert('debits', rec)
  core.emit(rec.client_id, 'mandate_debit.processing', debitView(rec))
  return rec
}

export const createDebit: Handler = (ctx) => {
  const {core, body} = ctx
  const mandate = own(ctx, entry(core.state.mandates, ctx.params.mandate_id), `mandate ${ctx.params.mandate_id}`)
  if (mandate.status !== 'succeeded') {
    throw validationError('mandate_id', `mandate ${mandate.id} is ${mandate.status === 'processing' ? 'still awaiting approval' : 'cancelled'}; debits need an approved mandate`)
  }
  if (body.currency !== mandate.currency) throw invalidParameter('currency', `must be the mandate currency ${mandate.currency}`)
  requireProvider(core, body.provider)
  if (body.provider !== mandate.provider) throw invalidParameter('provider', `must be the mandate provider ${mandate.provider}`)
  const rec = createDebitRecord(core, mandate, ctx.client.client_id, body)
  return {status: 201, body: debitView(rec)}
}

export const getDebitStatus: Handler = (ctx) => {
  const {mandate_id, merchant_reference} = ctx.query
  const owned = ctx.core.lookup('debits', debitKey(mandate_id, merchant_reference)).filter((d) => d.merchant_id === ctx.merchant.id && d.account_id === ctx.account.id)
  const rec = owned[owned.length - 1]
  if (!rec) throw notFound(`debit ${merchant_reference} of mandate ${mandate_id}`)
  return {status: 200, body: debitView(rec)}
}

export function finishDebit(core: Core, rec: DebitRec, status: Exclude<TxStatus, 'processing'>, detail: string | null = null): boolean {
  if (rec.status !== 'processing') return false
  rec.status = status
  rec.status_detail = detail
  rec.settle_at = null
  if (status === 'succeeded') creditCollection(core, rec.merchant_id, rec.currency, rec.amount)
  core.emit(rec.client_id, `mandate_debit.${status}`, debitView(rec))
  const sub = rec.subscription_id ? entry(core.state.subscriptions, rec.subscription_id) : undefined
  if (sub && sub.status === 'pending_approval') {
    if (status === 'succeeded') {
      sub.status = 'active'
      core.emit(sub.client_id, 'subscription.active', subscriptionView(sub))
    } else {
      sub.status = 'failed'
      // failure_reason: docs/assumptions.md (the sample of `pay webhook trigger` carries the same field)
      core.emit(sub.client_id, 'subscription.charge_failed', {...subscriptionView(sub), failure_reason: 'insufficient_funds'})
      core.emit(sub.client_id, 'subscription.failed', subscriptionView(sub))
    }
  }
  core.changed()
  return true
}

/** Due handler: approves one mandate whose approve_at has come. */
export function approveDueMandate(core: Core, id: string, now: number): void {
  const m = entry(core.state.mandates, id)
  if (m && m.status === 'processing' && m.approve_at !== null && m.approve_at <= now) approveMandate(core, m)
}

/** Due handler: settles one debit whose settle_at has come. */
export function settleDebit(core: Core, id: string, now: number): void {
  const d = entry(core.state.debits, id)
  if (!d || d.status !== 'processing' || d.settle_at === null || d.settle_at > now) return
  const mandate = entry(core.state.mandates, d.mandate_id)
  if (outcomeOf(mandate?.mobile) === 'fail') finishDebit(core, d, 'failed', 'the customer wallet has insufficient funds')
  else finishDebit(core, d, 'succeeded')
}
