/** `pay webhook verify`'s logic in-process (src/webhooks/verify-delivery.ts): which variant matched, --explain, the masked shape. */
import {describe, expect, it} from 'vitest'
import {parseSchemeId, sign} from '../../src/webhooks/signature.js'
import {verifyDelivery} from '../../src/webhooks/verify-delivery.js'
import {memoryOutput} from '../helpers/in-process.js'

const SECRET = 'whsec_verify_test'
const T = 1_767_225_600
const BODY = Buffer.from('{"id":"EVT_ABCDEFGHIJKL0123456789AB","object":"event","type":"payout.succeeded","data":{}}')

describe('verifyDelivery', () => {
  it('says which variant matched (table and JSON) and how to pin it', () => {
    const h = sign(SECRET, BODY, {timestamp: T, scheme: parseSchemeId('header-base64-sha256')})
    const io = memoryOutput(false)
    expect(verifyDelivery(io.out, {header: `Service-Signature: ${h.signature}`, timestampHeader: h.timestamp, body: BODY, secrets: [SECRET], toleranceSeconds: 300, now: T})).toBe(0)
    expect(io.stderr()).toMatch(/valid: signature matches as header-base64-sha256 \(<base64 HMAC-SHA-256> in Service-Signature, timestamp in Service-Timestamp\)/)
    expect(io.stderr()).toMatch(/webhook_signature=header-base64-sha256/)
    expect(JSON.parse(io.stdout()).type).toBe('payout.succeeded')
    const json = memoryOutput(true)
    expect(verifyDelivery(json.out, {header: h.signature, timestampHeader: h.timestamp, body: BODY, secrets: [SECRET], toleranceSeconds: 300, now: T})).toBe(0)
    expect(JSON.parse(json.stdout())).toMatchObject({valid: true, timestamp: T, scheme: 'header-base64-sha256'})
  })

  it('--explain lists the candidates tried, and for an unreadable header the formats recognised', () => {
    const h = sign('whsec_other', BODY, {timestamp: T, scheme: parseSchemeId('inline-hex-sha512')})
    const io = memoryOutput(false)
    expect(verifyDelivery(io.out, {header: h.signature, body: BODY, secrets: [SECRET], toleranceSeconds: 300, now: T, explain: true})).toBe(1)
    expect(io.stderr()).toMatch(/signature candidates tried:\n {2}inline-hex-sha512 +t=…,v1=<hex HMAC-SHA-512> in Service-Signature: no match/)
    expect(io.stderr()).toMatch(/invalid: no_matching_signature/)

    const bad = memoryOutput(true)
    expect(verifyDelivery(bad.out, {header: 'signature="k1:Zm9v"', body: BODY, secrets: [SECRET], toleranceSeconds: 300, now: T, explain: true})).toBe(1)
    expect(bad.stderr()).toMatch(/the formats pay recognises/)
    expect(bad.stderr()).toMatch(/header-base64-sha512 +<base64 HMAC-SHA-512> in Service-Signature, timestamp in Service-Timestamp/)
    expect(JSON.parse(bad.stdout())).toMatchObject({valid: false, reason: 'malformed_header', detail: expect.stringContaining('unrecognised Service-Signature format: xxxxxxxxx="x0:xx0x"')})
  })

  it('a replayed delivery is outside the window unless --ignore-timestamp', () => {
    const h = sign(SECRET, BODY, {timestamp: T})
    const io = memoryOutput(false)
    expect(verifyDelivery(io.out, {header: h.signature, body: BODY, secrets: [SECRET], toleranceSeconds: 300, now: T + 3600})).toBe(1)
    expect(io.stderr()).toMatch(/timestamp_outside_tolerance/)
    expect(verifyDelivery(memoryOutput(false).out, {header: h.signature, body: BODY, secrets: [SECRET], toleranceSeconds: 300, now: T + 3600, ignoreTimestamp: true})).toBe(0)
  })
})
