/**
 * Subscriptions: pending_approval at enrolment (mandate enrolment starts), active once the plan amount is
 * charged on approval, failed (subscription.charge_failed + subscription.failed) when that charge fails,
 * cancelled with the mandate. Requires the subscriptions product (403 otherwise).
 */
import type {Handler} from '../context.js'
import {newestByRef} from '../context.js'
import {notFound} from '../errors.js'
import {requireProduct, requireProvider} from './common.js'
import {chargeSubscription, createMandateRecord} from './mandates.js'
import {activePlan, createSubscriptionRecord, planView, subscriptionView} from './subscription-records.js'

export {planView, subscriptionView} from './subscription-records.js'

export const listPlans: Handler = (ctx) => {
  requireProduct(ctx.merchant, 'subscriptions')
  const data = Object.values(ctx.core.state.plans)
    .filter((p) => p.merchant_id === ctx.merchant.id && p.active)
    .map(planView)
  return {status: 200, body: {object: 'list', data}}
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
  const rec = newestByRef(ctx, 'subscriptions', ref)
  if (!rec) throw notFound(`subscription with merchant_reference ${ref}`)
  return {status: 200, body: subscriptionView(rec)}
}
