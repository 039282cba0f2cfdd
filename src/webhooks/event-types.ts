/**
 * The webhook event types of the spec (Events). Light (no imports): the trigger command declares them as the
 * choices of its TYPE argument, which the command surface and shell completion offer.
 */
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
