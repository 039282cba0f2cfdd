/**
 * Realistic sample events of every type of the spec, for `pay webhook trigger` and `pay webhook events`.
 * The resource in `data` has the fields the spec lists for it (Resources and their fields) and the state the
 * event type names; what the spec leaves open follows docs/assumptions.md.
 */
import {EVENT_TYPES, type EventType, makeEvent, randomId, type WebhookEvent} from './events.js'
import type {Output} from '../output/output.js'

interface EventTypeInfo {
  type: EventType
  resource: string
  operation: string
  /** The resource state carried by the sample. */
  state: string
  description: string
}

const OPERATION: Record<string, [string, string]> = {
  collection: ['Collection (CL_)', 'POST /v1/collections'],
  checkout_session: ['Checkout session (CS_)', 'POST /v1/checkout/sessions'],
  payout: ['Payout (PO_)', 'POST /v1/payouts'],
  mandate: ['Mandate (MD_)', 'POST /v1/mandates and its cancel'],
  mandate_debit: ['Mandate debit', 'POST /v1/mandates/{mandate_id}/debits'],
  subscription: ['Subscription (SUB_)', 'POST /v1/subscriptions (plans)'],
}

const DESCRIPTION: Record<EventType, string> = {
  'collection.processing': 'a collection was accepted and waits for the customer or the rail',
  'collection.succeeded': 'the money of a collection arrived',
  'collection.failed': 'a collection failed (declined, timed out, insufficient funds)',
  'checkout_session.processing': 'a hosted checkout session was created',
  'checkout_session.succeeded': 'the customer paid on the hosted page',
  'checkout_session.failed': 'the payment on the hosted page failed',
  'payout.processing': 'a payout was accepted and is on its way',
  'payout.succeeded': 'a payout reached the recipient',
  'payout.failed': 'a payout failed; status_detail says why',
  'mandate.processing': 'a mandate waits for the customer\'s approval',
  'mandate.succeeded': 'the customer approved the mandate; debits may be created',
  'mandate.cancelled': 'a mandate was cancelled',
  'mandate_debit.processing': 'a debit against a mandate was accepted',
  'mandate_debit.succeeded': 'a debit against a mandate succeeded',
  'mandate_debit.failed': 'a debit against a mandate failed',
  'subscription.created': 'a subscriber was enrolled; mandate approval pending',
  'subscription.active': 'the mandate was approved and the first charge succeeded',
  'subscription.cancelled': 'a subscription was cancelled',
  'subscription.failed': 'enrolment failed (mandate not approved)',
  'subscription.charge_failed': 'a charge of an active subscription failed',
}

function stateOf(type: string): string {
  const action = type.split('.').pop() ?? ''
  if (type === 'subscription.created') return 'pending_approval'
  if (type === 'subscription.charge_failed') return 'active'
  return action
}

function eventTypeInfo(): EventTypeInfo[] {
  return EVENT_TYPES.map((type) => {
    const [resource, operation] = OPERATION[type.split('.')[0]]
    return {type, resource, operation, state: stateOf(type), description: DESCRIPTION[type]}
  })
}

const iso = (ms: number) => new Date(ms).toISOString()

/**
 * The resource of a sample event: the fields the sandbox sends for the same type (its views), the state named by
 * the type. test/api/schemas.shapes.test.ts checks both against the response schemas of src/api/schemas.ts and holds
 * the field lists equal, so samples, sandbox and schemas cannot drift apart.
 */
function sampleData(type: EventType, now = Date.now()): Record<string, unknown> {
  const kind = type.split('.')[0]
  const status = stateOf(type)
  const created = iso(now - 60_000)
  switch (kind) {
    case 'collection':
      return {
        id: randomId('CL_', 20),
        object: 'collection',
        status,
        currency: 'KES',
        amount: '1500.00',
        merchant_reference: 'order-1042',
        payment_rail: 'mobile_money',
        mobile: '254712345678',
        provider: 'mpesa',
        status_detail: status === 'failed' ? 'the customer declined or the wallet has insufficient funds' : null,
        created_at: created,
      }
    case 'checkout_session': {
      const id = randomId('CS_', 20)
      return {
        id,
        object: 'checkout_session',
        status,
        url: `https://checkout.example.com/pay/${id}`,
        expires_at: iso(now + 30 * 60_000),
        amount_mode: 'fixed',
        amount: '2999.00',
        currency: 'KES',
        merchant_reference: 'cart-88213',
        payment_rail: null,
        success_url: 'https://shop.example.com/checkout/done',
        cancel_url: 'https://shop.example.com/checkout/cancelled',
        created_at: created,
      }
    }
    case 'payout':
      return {
        id: randomId('PO_', 20),
        object: 'payout',
        status,
        currency: 'KES',
        amount: '2500.00',
        fee_amount: '10.00',
        amount_debited: '2510.00',
        merchant_reference: 'payout-2026-0007',
        status_detail: status === 'failed' ? 'recipient account closed' : null,
        payment_rail: 'mobile_money',
        created_at: created,
        mobile: '254712345678',
        provider: 'mpesa',
      }
    case 'mandate':
      return {
        object: 'mandate',
        mandate_id: randomId('MD_', 20),
        status,
        merchant_reference: 'mandate-5512',
        mobile: '254712345678',
        provider: 'mpesa',
        currency: 'KES',
        amount: '500.00',
        frequency: 'MONTHLY',
        starts_at: iso(now + 24 * 3600_000),
        description: null,
        plan_id: null,
        subscription_id: null,
        message_id: randomId('MSG_', 16),
        created_at: created,
        approved_at: status === 'processing' ? null : iso(now - 30_000),
        cancelled_at: status === 'cancelled' ? iso(now) : null,
      }
    case 'mandate_debit':
      return {
        object: 'mandate_debit',
        id: randomId('DB_', 20),
        status,
        mandate_id: randomId('MD_', 20),
        merchant_reference: 'debit-2026-11',
        amount: '500.00',
        currency: 'KES',
        provider: 'mpesa',
        status_detail: status === 'failed' ? 'the customer wallet has insufficient funds' : null,
        created_at: created,
      }
    default: {
      const start = new Date(now)
      const end = new Date(now)
      end.setUTCFullYear(end.getUTCFullYear() + 1)
      return {
        object: 'subscription',
        subscription_id: randomId('SUB_', 20),
        status,
        merchant_reference: 'sub-7781',
        customer_name: 'Amina Otieno',
        customer_email: 'amina@example.com',
        plan_id: randomId('PLN_', 20),
        plan_name: 'Pro monthly',
        mandate_id: randomId('MD_', 20),
        mobile: '254712345678',
        provider: 'mpesa',
        starts_at: start.toISOString().slice(0, 10),
        ends_at: end.toISOString().slice(0, 10),
        ...(type === 'subscription.charge_failed' ? {failure_reason: 'insufficient_funds'} : {}),
      }
    }
  }
}

export function isEventType(type: string): type is EventType {
  return (EVENT_TYPES as readonly string[]).includes(type)
}

/** A sample event; `overrides` are merged into `data` (nested objects merged key by key). */
export function sampleEvent(type: EventType, overrides: Record<string, unknown> = {}, now = new Date()): WebhookEvent {
  return makeEvent(type, deepMerge(sampleData(type, now.getTime()), overrides), now)
}

function deepMerge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out = {...a}
  for (const [k, v] of Object.entries(b)) {
    const cur = out[k]
    out[k] =
      v && typeof v === 'object' && !Array.isArray(v) && cur && typeof cur === 'object' && !Array.isArray(cur)
        ? deepMerge(cur as Record<string, unknown>, v as Record<string, unknown>)
        : v
  }
  return out
}

/** `pay webhook events`: the event types, the resource each carries, and the sample's state. */
export function runWebhookEvents(out: Output): ReturnType<typeof eventTypeInfo> {
  const rows = eventTypeInfo()
  if (out.json) out.data(JSON.stringify(rows))
  else out.data(out.list(rows as unknown as Record<string, unknown>[], ['type', 'resource', 'operation', 'state', 'description']))
  return rows
}
