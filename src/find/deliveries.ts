/**
 * The webhook deliveries this machine has seen for a merchant reference, for `pay find`'s timeline. They come from
 * the local webhook history that `pay webhook listen` keeps, when this version of pay has one; until then
 * `history` is false and the timeline says so (it never shows an empty list as if nothing had been delivered).
 */
export interface Delivery {
  /** When it was received (ISO 8601). */
  at: string
  event_id: string | null
  /** The event type (collection.succeeded, …). */
  type: string | null
  /** What the listener made of it: accepted, duplicate, rejected. */
  verdict: string
  /** The status the listener answered. */
  status: number | null
  detail: string | null
}

export interface DeliverySource {
  /** Whether a local history exists to read. */
  history: boolean
  /** What the timeline says about the source (always shown when `history` is false). */
  note: string
  byReference(reference: string): Delivery[]
}

export function webhookDeliveries(_env: NodeJS.ProcessEnv = process.env): DeliverySource {
  return {
    history: false,
    note: 'no webhook deliveries shown: this version of pay keeps no local history of the deliveries `pay webhook listen` receives',
    byReference: () => [],
  }
}
