/**
 * Idempotency per merchant: the same key with the same request replays the first successful answer
 * (status and body, no second side effect); the same key with a different request is 409 idempotency_key_mismatch.
 * Only 2xx answers are stored, so a request refused by validation can be corrected and retried with its key.
 */
import {ApiError} from './errors.js'
import type {IdempotencyRec, State} from './state.js'

/** JSON with sorted keys, so whitespace and key order do not matter ("the same JSON body"). */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null'
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  const keys = Object.keys(value as Record<string, unknown>).sort()
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`
}

export function fingerprint(endpointId: string, params: Record<string, string>, accountId: string, body: unknown): string {
  return `${endpointId}|${canonicalJson(params)}|${accountId}|${canonicalJson(body)}`
}

const storeKey = (merchantId: number, key: string) => `${merchantId}:${key}`

/** The stored answer to replay, undefined for a new key; throws 409 on a mismatch. */
export function lookup(state: State, merchantId: number, key: string, print: string): IdempotencyRec | undefined {
  const rec = state.idempotency[storeKey(merchantId, key)]
  if (!rec) return undefined
  if (rec.fingerprint !== print) {
    throw new ApiError(409, 'idempotency_key_mismatch', 'this Idempotency-Key was already used with a different request body; use a new key for a new request', {doc: 'idempotency'})
  }
  return rec
}

export function remember(state: State, merchantId: number, key: string, print: string, status: number, body: string, now: number): void {
  state.idempotency[storeKey(merchantId, key)] = {fingerprint: print, status, body, created_at: now}
}
