/**
 * Subscription records and their views, shared by the mandates and subscriptions endpoints (a mandate created
 * with a plan_id enrols a subscriber). Both import this module; neither imports the other's records.
 */
import type {Ctx} from '../context.js'
import {validationError} from '../errors.js'
import {newResourceId} from '../ids.js'
import type {MandateRec, PlanRec, SubscriptionRec} from '../state.js'
import {entry} from '../state.js'

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

export function activePlan(ctx: Ctx, planId: string) {
  const plan = entry(ctx.core.state.plans, planId)
  if (!plan || plan.merchant_id !== ctx.merchant.id) throw validationError('plan_id', `no subscription plan ${planId}`)
  if (!plan.active) throw validationError('plan_id', `subscription plan ${planId} is not active`)
  return plan
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
  core.insert('subscriptions', sub)
  mandate.subscription_id = sub.subscription_id
  core.emit(sub.client_id, 'subscription.created', subscriptionView(sub))
  return sub
}
