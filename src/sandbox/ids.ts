/**
 * Identifiers of the sandbox: `prefix` + upper-case alphanumerics, drawn by the shared generator of
 * src/webhooks/events.ts (one event-id helper for the sandbox and `pay webhook trigger`).
 */
import {randomBytes} from 'node:crypto'
import {randomByte, randomId} from '../webhooks/events.js'

export {newEventId, randomId} from '../webhooks/events.js'

export const newRequestId = () => randomId('REQ_', 12)
/** Resource ids: prefix + 20 characters (the spec fixes only the prefix). */
export const newResourceId = (prefix: string) => randomId(prefix, 20)
/** Opaque 64-character bearer token (hex of 32 random bytes); not a JWT. */
export const newAccessToken = () => randomBytes(32).toString('hex')
/** Digits only (account numbers). */
export function randomDigits(length: number): string {
  let out = ''
  while (out.length < length) {
    const b = randomByte()
    if (b < 250) out += String(b % 10)
  }
  return out
}
