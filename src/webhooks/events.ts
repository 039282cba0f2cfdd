/**
 * The webhook event types of the spec (Events) and the event envelope.
 * ASSUMPTION (docs/assumptions.md): body `{"id":"EVT_…","object":"event","type":"…","created_at":"…","data":{…the resource…}}`.
 */
import {randomBytes} from 'node:crypto'
import {EVENT_TYPES} from './event-types.js'

export {EVENT_TYPES} from './event-types.js'
export type EventType = (typeof EVENT_TYPES)[number]

export interface WebhookEvent<T = Record<string, unknown>> {
  id: string
  object: 'event'
  type: EventType | string
  created_at: string
  data: T
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'
let pool = randomBytes(4096)
let offset = 0

/** One random byte from a pooled crypto buffer (no per-character system calls on a hot path). */
export function randomByte(): number {
  if (offset >= pool.length) {
    pool = randomBytes(4096)
    offset = 0
  }
  return pool[offset++]
}

const ALNUM_CODES = Buffer.from(ALNUM, 'latin1')
let idBuf = Buffer.alloc(64)

/**
 * `prefix` followed by `length` uniformly random upper-case alphanumerics (EVT_ + 24, REQ_ + 12, CL_ + 20).
 * Written into a buffer and decoded once: one flat string (appending character by character would leave a chain
 * of concatenated strings behind every stored id).
 */
export function randomId(prefix: string, length: number): string {
  const size = prefix.length + length
  if (idBuf.length < size) idBuf = Buffer.alloc(size)
  let i = idBuf.write(prefix, 'latin1')
  while (i < size) {
    const b = randomByte()
    if (b < 252) idBuf[i++] = ALNUM_CODES[b % 36] // 252 = 7 * 36: rejection keeps the draw uniform
  }
  return idBuf.toString('latin1', 0, size)
}

/** The one event-id helper (the sandbox and `pay webhook trigger` both use it). */
export const newEventId = () => randomId('EVT_', 24)
export const EVENT_ID_PATTERN = /^EVT_[A-Z0-9]{24}$/

/** The one event envelope builder: `{id, object: "event", type, created_at, data}`. */
export function eventEnvelope<T>(id: string, type: string, createdAt: string, data: T): WebhookEvent<T> {
  return {id, object: 'event', type, created_at: createdAt, data}
}

export function makeEvent<T extends Record<string, unknown>>(type: string, data: T, createdAt = new Date()): WebhookEvent<T> {
  return eventEnvelope(newEventId(), type, createdAt.toISOString(), data)
}
