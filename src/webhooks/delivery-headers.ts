/**
 * The headers of a webhook delivery, in one place: the sandbox's deliveries (src/sandbox/webhooks-delivery.ts)
 * and `pay webhook trigger` send the same set, so an app tested with one sees what the other sends:
 * Service-Signature over the exact body, Service-Event-Id, Service-Event-Type and Service-Delivery-Attempt
 * (1 for the first attempt; retries and duplicates count on).
 */
import {type Scheme, sign, SIGNATURE_HEADER, TIMESTAMP_HEADER} from './signature.js'

export const EVENT_ID_HEADER = 'Service-Event-Id'
export const EVENT_TYPE_HEADER = 'Service-Event-Type'
const DELIVERY_ATTEMPT_HEADER = 'Service-Delivery-Attempt'

interface DeliveryHeaderOptions {
  userAgent: string
  /** 1-based (default 1). */
  attempt?: number
  /** Unix seconds to sign with (default now). */
  timestamp?: number
  /** The scheme to sign in (default pay's: src/webhooks/signature.ts signingScheme chooses). */
  scheme?: Scheme
}

/** The signature headers of a body: Service-Signature, and Service-Timestamp in the schemes that carry it apart. */
function signatureHeaders(body: string | Buffer, secrets: string | string[], options: {timestamp?: number; scheme?: Scheme}): Record<string, string> {
  const signed = sign(secrets, body, options)
  return signed.timestamp === undefined ? {[SIGNATURE_HEADER]: signed.signature} : {[SIGNATURE_HEADER]: signed.signature, [TIMESTAMP_HEADER]: signed.timestamp}
}

export function deliveryHeaders(event: {id: string; type: string}, body: string | Buffer, secrets: string | string[], options: DeliveryHeaderOptions): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': options.userAgent,
    ...signatureHeaders(body, secrets, options),
    [EVENT_ID_HEADER]: event.id,
    [EVENT_TYPE_HEADER]: event.type,
    [DELIVERY_ATTEMPT_HEADER]: String(options.attempt ?? 1),
  }
}
