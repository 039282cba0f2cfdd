/**
 * The tunnel health check's ping: `pay webhook listen` posts it to its own public URL every few seconds. It is
 * signed with a key made at start-up and known only to this process, so the listener can tell its own ping from
 * a delivery (it answers it, and neither counts nor prints it) and the checker can tell that the answer came
 * from this listener (it echoes the nonce), not from a tunnel server's error page.
 */
import {createHmac, randomBytes, timingSafeEqual} from 'node:crypto'

export const PING_HEADER = 'pay-listener-ping'

export interface PingKey {
  /** A new signed header value (`<nonce>.<hmac>`) and its nonce. */
  sign(): {header: string; nonce: string}
  /** The nonce when `value` is a ping signed with this key, else undefined. */
  check(value: string | string[] | undefined): string | undefined
}

export function createPingKey(secret: Buffer = randomBytes(32)): PingKey {
  const mac = (nonce: string) => createHmac('sha256', secret).update(nonce).digest('hex')
  return {
    sign() {
      const nonce = randomBytes(12).toString('hex')
      return {header: `${nonce}.${mac(nonce)}`, nonce}
    },
    check(value) {
      if (typeof value !== 'string') return undefined
      const dot = value.indexOf('.')
      if (dot <= 0) return undefined
      const nonce = value.slice(0, dot)
      const given = Buffer.from(value.slice(dot + 1))
      const expected = Buffer.from(mac(nonce))
      return given.length === expected.length && timingSafeEqual(given, expected) ? nonce : undefined
    },
  }
}
