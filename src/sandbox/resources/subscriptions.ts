/**
 * Subscriptions: pending_approval at enrolment (mandate enrolment starts), active once the plan amount is
 * charged on approval, failed (subscription.charge_failed + subscription.failed) when that charge fails,
 * cancelled with the mandate. Requires the subscriptions product (403 otherwise).
 */
import type {Ctx, Handler} from '../context.js'
import {newestOwned} from '../context.js'
import {notFound} from '../errors.js'
import {newResourceId} from '../ids.js'
import type {MandateRec, PlanRec, SubscriptionRec} from '../state.js'
import {requireProduct, requireProvider} from './common.js'
import {activePlan, chargeSubscription, createMandateRecord} from './mandates.js'

export function subscriptionView(s: SubscriptionRec): Record<string, unknown> {
  return {
    object: 'subscription',
    subscription_id: s.subscription_id,
    status: s.status,
    merchant_reference: s.merchant_reference,
    customer_name: s.customer_name,
    customer_email: s.customer_email,
    plan_id: s.plan_id,
    plan_name: s.plan_name,
    mandate_id: s.mandate_id,
    mobile: s.mobile,
    provider: s.provider,
    starts_at: s.starts_at,
    ends_at: s.ends_at,
  }
}

export function planView(p: PlanRec) {
  return {object: 'subscription_plan', plan_id: p.plan_id, plan_name: p.plan_name, amount: p.amount, currency: p.currency, frequency: p.frequency, status: p.active ? 'active' : 'inactive'}
}

export const listPlans: Handler = (ctx) => {
  requireProduct(ctx.merchant, 'subscriptions')
  const data = Object.values(ctx.core.state.plans)
    .filter((p) => p.merchant_id === ctx.merchant.id && p.active)
    .map(planView)
  return {status: 200, body: {object: 'list', data}}
}

export function createSubscriptionRecord(
  ctx: Ctx,
  mandate: MandateRec,
  plan: PlanRec,
  input: {merchant_reference: string; customer_name: string; customer_email: string; notes?: string},
): SubscriptionRec {
  const {core} = ctx
  const start = new Date(core.now())
  const end = new Date(start)
  end.setUTCFullYear(end.getUTCFullYear() + 1)
  const sub: SubscriptionRec = {
    subscription_id: newResourceId('SUB_'),
    merchant_id: ctx.merchant.id,
    account_id: ctx.account.id,
    client_id: ctx.client.client_id,
    status: 'pending_approval',
    merchant_reference: input.merchant_reference,
    customer_name: input.customer_name,
    customer_email: input.customer_email,
    plan_id: plan.plan_id,
    plan_name: plan.plan_name,
    mandate_id: mandate.id,
    mobile: mandate.mobile,
    provider: mandate.provider,
    notes: input.notes,
    starts_at: start.toISOString().slice(0, 10),
    ends_at: end.toISOString().slice(0, 10),
    created_at: core.iso(),
  }
  core.state.subscriptions[sub.subscription_id] = sub
  mandate.subscription_id = sub.subscription_id
  core.emit(sub.client_id, 'subscription.created', subscriptionView(sub))
  return sub
}

export const createSubscription: Handler = (ctx) => {
  const {core, body} = ctx
  requireProduct(ctx.merchant, 'subscriptions')
  const plan = activePlan(ctx, body.plan_id)
  requireProvider(core, body.provider)
  const mandate = createMandateRecord(ctx, {
    mobile: body.mobile,
    provider: body.provider,
    currency: plan.currency,
    amount: plan.amount,
    frequency: plan.frequency,
    starts_at: core.iso(),
    merchant_reference: body.merchant_reference,
    notes: body.notes,
    plan_id: plan.plan_id,
  })
  const sub = createSubscriptionRecord(ctx, mandate, plan, body)
  const view = subscriptionView(sub)
  if (mandate.status === 'succeeded') chargeSubscription(core, mandate)
  return {status: 201, body: view}
}

export const getSubscription: Handler = (ctx) => {
  const ref = ctx.query.merchant_reference
  const rec = newestOwned(ctx, ctx.core.state.subscriptions, (s) => s.merchant_reference === ref)
  if (!rec) throw notFound(`subscription with merchant_reference ${ref}`)
  return {status: 200, body: subscriptionView(rec)}
}
