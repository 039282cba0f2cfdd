/**
 * Fast random identifiers for the sandbox: `prefix` + upper-case alphanumerics.
 * Draws from a pooled crypto buffer (no per-character syscalls on the hot path).
 */
import {randomBytes} from 'node:crypto'

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'
let pool = randomBytes(4096)
let offset = 0

function nextByte(): number {
  if (offset >= pool.length) {
    pool = randomBytes(4096)
    offset = 0
  }
  return pool[offset++]
}

/** `prefix` followed by `length` uniformly random characters of [A-Z0-9]. */
export function randomId(prefix: string, length: number): string {
  let out = prefix
  while (out.length < prefix.length + length) {
    const b = nextByte()
    if (b < 252) out += ALNUM[b % 36] // 252 = 7 * 36: rejection keeps the draw uniform
  }
  return out
}

export const newRequestId = () => randomId('REQ_', 12)
export const newEventId = () => randomId('EVT_', 24)
/** Resource ids: prefix + 20 characters (the spec fixes only the prefix). */
export const newResourceId = (prefix: string) => randomId(prefix, 20)
/** Opaque 64-character bearer token (hex of 32 random bytes); not a JWT. */
export const newAccessToken = () => randomBytes(32).toString('hex')
/** Digits only (account numbers). */
export function randomDigits(length: number): string {
  let out = ''
  while (out.length < length) {
    const b = nextByte()
    if (b < 250) out += String(b % 10)
  }
  return out
}
