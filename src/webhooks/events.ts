/**
 * The webhook event types of the spec (Events) and the event envelope.
 * ASSUMPTION (docs/assumptions.md): body `{"id":"EVT_…","object":"event","type":"…","created_at":"…","data":{…the resource…}}`.
 */
import {randomInt} from 'node:crypto'

export const EVENT_TYPES = [
  'collection.processing',
  'collection.succeeded',
  'collection.failed',
  'checkout_session.processing',
  'checkout_session.succeeded',
  'checkout_session.failed',
  'payout.processing',
  'payout.succeeded',
  'payout.failed',
  'mandate.processing',
  'mandate.succeeded',
  'mandate.cancelled',
  'mandate_debit.processing',
  'mandate_debit.succeeded',
  'mandate_debit.failed',
  'subscription.created',
  'subscription.active',
  'subscription.cancelled',
  'subscription.failed',
  'subscription.charge_failed',
] as const
export type EventType = (typeof EVENT_TYPES)[number]

export interface WebhookEvent<T = Record<string, unknown>> {
  id: string
  object: 'event'
  type: EventType | string
  created_at: string
  data: T
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'
/** `prefix` followed by `length` random upper-case alphanumerics (EVT_ + 24, REQ_ + 12). */
export function randomId(prefix: string, length: number): string {
  let out = prefix
  for (let i = 0; i < length; i++) out += ALNUM[randomInt(ALNUM.length)]
  return out
}

export const newEventId = () => randomId('EVT_', 24)
export const EVENT_ID_PATTERN = /^EVT_[A-Z0-9]{24}$/

export function makeEvent<T extends Record<string, unknown>>(type: string, data: T, createdAt = new Date()): WebhookEvent<T> {
  return {id: newEventId(), object: 'event', type, created_at: createdAt.toISOString(), data}
}
