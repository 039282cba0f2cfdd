/**
 * The webhook deliveries this machine has seen for a merchant reference, for `pay find`'s timeline. They come from
 * the local webhook history that `pay webhook listen` keeps; without one, `history` is false and the timeline says
 * so (it never shows an empty list as if nothing had been delivered).
 */
import {existsSync} from 'node:fs'
import {deliveriesByReference, historyDir} from '../webhooks/history.js'

interface Delivery {
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

/**
 * The deliveries of the local webhook history (src/webhooks/history.ts, kept by `pay webhook listen`), when one
 * exists in the state dir of `env`.
 */
export function webhookDeliveries(env: NodeJS.ProcessEnv = process.env): DeliverySource {
  if (!existsSync(historyDir(env))) {
    return {history: false, note: 'no webhook deliveries shown: this machine has no local webhook history (`pay webhook listen` keeps one)', byReference: () => []}
  }
  return {
    history: true,
    note: `webhook deliveries from the local history (${historyDir(env)})`,
    byReference: (reference) =>
      deliveriesByReference(reference, env).map((d) => ({at: new Date(d.at).toISOString(), event_id: d.event_id ?? null, type: d.type ?? null, verdict: d.verdict, status: d.status ?? null, detail: d.reason ?? d.detail ?? null})),
  }
}
