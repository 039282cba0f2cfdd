/**
 * Idempotency per merchant: the same key with the same request replays the first successful answer
 * (status and body, no second side effect); the same key with a different request is 409 idempotency_key_mismatch.
 * Only 2xx answers are stored, so a request refused by validation can be corrected and retried with its key.
 */
import {hash} from 'node:crypto'
import {ApiError} from './errors.js'
import type {IdempotencyRec, State} from './state.js'
import {entry} from './state.js'

/** Sorts the keys of each object JSON.stringify visits (no recursion of ours; depth is capped by json-body.ts). */
function sortedKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value
  // no prototype: a key named __proto__ is kept as the body's own key, not taken as the copy's prototype
  const out: Record<string, unknown> = Object.create(null)
  for (const k of Object.keys(value).sort()) out[k] = (value as Record<string, unknown>)[k]
  return out
}

/** True when every object in `value` already lists its keys in sorted order (an iterative walk, no recursion). */
function keysInOrder(value: unknown): boolean {
  const stack: unknown[] = [value]
  while (stack.length > 0) {
    const v = stack.pop()
    if (v === null || typeof v !== 'object') continue
    if (Array.isArray(v)) {
      for (const x of v) if (x !== null && typeof x === 'object') stack.push(x)
      continue
    }
    let prev: string | undefined
    for (const k in v) {
      if ((prev !== undefined && !(prev < k)) || k === '__proto__') return false // __proto__: as the sorted copy treats it
      prev = k
      const x = (v as Record<string, unknown>)[k]
      if (x !== null && typeof x === 'object') stack.push(x)
    }
  }
  return true
}

/**
 * JSON with sorted keys, so whitespace and key order do not matter ("the same JSON body"). A body whose keys are
 * already in order (what most clients send) is stringified as it is, without sorted copies of its objects.
 */
function canonicalJson(value: unknown): string {
  if (value === undefined) return 'null'
  return keysInOrder(value) ? JSON.stringify(value) : (JSON.stringify(value, sortedKeys) ?? 'null')
}

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
