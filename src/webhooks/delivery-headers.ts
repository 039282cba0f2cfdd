/**
 * The headers of a webhook delivery, in one place: the sandbox's deliveries (src/sandbox/webhooks-delivery.ts)
 * and `pay webhook trigger` send the same set, so an app tested with one sees what the other sends:
 * Service-Signature over the exact body, Service-Event-Id, Service-Event-Type and Service-Delivery-Attempt
 * (1 for the first attempt; retries and duplicates count on).
 */
import {SIGNATURE_HEADER, signatureHeader} from './signature.js'

export const EVENT_ID_HEADER = 'Service-Event-Id'
export const EVENT_TYPE_HEADER = 'Service-Event-Type'
const DELIVERY_ATTEMPT_HEADER = 'Service-Delivery-Attempt'

interface DeliveryHeaderOptions {
  userAgent: string
  /** 1-based (default 1). */
  attempt?: number
  /** Unix seconds to sign with (default now). */
  timestamp?: number
}

export function deliveryHeaders(event: {id: string; type: string}, body: string | Buffer, secrets: string | string[], options: DeliveryHeaderOptions): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': options.userAgent,
    [SIGNATURE_HEADER]: signatureHeader(secrets, body, options.timestamp),
    [EVENT_ID_HEADER]: event.id,
    [EVENT_TYPE_HEADER]: event.type,
    [DELIVERY_ATTEMPT_HEADER]: String(options.attempt ?? 1),
  }
}
