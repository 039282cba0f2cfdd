/**
 * Idempotency per merchant: the same key with the same request replays the first successful answer
 * (status and body, no second side effect); the same key with a different request is 409 idempotency_key_mismatch.
 * Only 2xx answers are stored, so a request refused by validation can be corrected and retried with its key.
 */
import {hash} from 'node:crypto'
import {canonicalJson} from '../base/canonical-json.js'
import {ApiError} from './errors.js'
import type {IdempotencyRec, State} from './state.js'
import {entry} from './state.js'

/** A fixed-size digest of the request (endpoint, path parameters, sub-account, canonical body): bounded memory per key. */
export function fingerprint(endpointId: string, params: Record<string, string>, accountId: string, body: unknown): string {
  return hash('sha256', `${endpointId}|${canonicalJson(params)}|${accountId}|${canonicalJson(body)}`, 'base64')
}

const storeKey = (merchantId: number, key: string) => `${merchantId}:${key}`

/** The stored answer to replay, undefined for a new key; throws 409 on a mismatch. */
export function lookup(state: State, merchantId: number, key: string, print: string): IdempotencyRec | undefined {
  const rec = entry(state.idempotency, storeKey(merchantId, key))
  if (!rec) return undefined
  if (rec.fingerprint !== print) {
    throw new ApiError(409, 'idempotency_key_mismatch', 'this Idempotency-Key was already used with a different request body; use a new key for a new request', {doc: 'idempotency'})
  }
  return rec
}

export function remember(state: State, merchantId: number, key: string, print: string, status: number, body: string, now: number): void {
  state.idempotency[storeKey(merchantId, key)] = {fingerprint: print, status, body, created_at: now}
}
