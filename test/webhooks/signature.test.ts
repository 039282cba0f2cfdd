/** The signature scheme against an independent signer (openssl), not only against our own signing code. */
import {describe, expect, it} from 'vitest'
import {explainSignature, parseSchemeId, pinnedScheme, SCHEME_IDS, sign, signingScheme, verifySignature} from '../../src/webhooks/signature.js'
import {opensslDigest, opensslHeader, opensslSign} from '../helpers/webhooks.js'

const SECRET = 'whsec_test_5b0c1f'
const T = 1_767_225_600
/** The hex HMAC-SHA256 that `sign` puts in the default header (`t=…,v1=<hex>`). */
const computeSignature = (secret: string, timestamp: number, body: Buffer | string): string => sign(secret, body, {timestamp}).signature.split(',v1=')[1]
const BODY = '{"id":"EVT_ABCDEFGHIJKL0123456789AB","object":"event","type":"collection.succeeded","created_at":"2026-01-01T00:00:00.000Z","data":{"id":"CL_1","status":"succeeded","amount":"1500.00","currency":"KES","merchant_reference":"café-1"}}'

describe('signature scheme vs openssl', () => {
  it('computes the same HMAC-SHA256 hex as openssl over "<t>.<raw body>" (UTF-8 key and body)', () => {
    expect(computeSignature(SECRET, T, BODY)).toBe(opensslSign(SECRET, T, BODY))
    expect(computeSignature('ключ-ü', T, Buffer.from(BODY))).toBe(opensslSign('ключ-ü', T, BODY))
  })

  it('the HMAC made of two digests agrees with openssl for keys shorter than, as long as, and longer than a block, small and large bodies, secrets alternating', () => {
    const secrets = ['k', 'x'.repeat(63), 'y'.repeat(64), 'z'.repeat(65), 'ключ'.repeat(20), 'whsec_'.padEnd(200, 'q')]
    const bodies = [BODY, '', 'é'.repeat(3000), `{"pad":"${'p'.repeat(70 * 1024)}"}`] // the last one is over the reused buffer's limit
    for (const body of bodies) {
      for (const secret of [...secrets, ...secrets.slice().reverse()]) {
        expect(computeSignature(secret, T, body), `${secret.length}-char secret, ${body.length}-char body`).toBe(opensslSign(secret, T, body))
      }
    }
    // a header signed with one of several configured secrets, tried in turn
    const header = opensslHeader([secrets[4]], T, BODY)
    expect(verifySignature(header, BODY, secrets, {now: T}).ok).toBe(true)
    expect(verifySignature(header, `${BODY} `, secrets, {now: T})).toMatchObject({ok: false, reason: 'no_matching_signature'})
  })

  it('a fixed vector: key "k", t=1700000000, body {"a":1}', () => {
    // printf '%s' '1700000000.{"a":1}' | openssl dgst -sha256 -hmac k
    const expected = '1b6ad1bc9bf48c52ce01939866d5877c6cc4e87ddad27e16673cb8c4964394a3'
    expect(opensslSign('k', 1_700_000_000, '{"a":1}')).toBe(expected)
    expect(verifySignature(`t=1700000000,v1=${expected}`, '{"a":1}', 'k', {now: 1_700_000_000})).toEqual({ok: true, timestamp: 1_700_000_000, scheme: {place: 'inline', encoding: 'hex', algorithm: 'sha256'}})
  })

  it('accepts an openssl-signed header; our header equals it', () => {
    const header = opensslHeader([SECRET], T, BODY)
    expect(verifySignature(header, Buffer.from(BODY), SECRET, {now: T + 10}).ok).toBe(true)
    expect(sign(SECRET, BODY, {timestamp: T}).signature).toBe(header)
  })

  it('rotation: two v1 entries, either secret passes; several configured secrets, any passes', () => {
    const header = opensslHeader(['old-secret', 'new-secret'], T, BODY)
    expect(verifySignature(header, BODY, 'old-secret', {now: T}).ok).toBe(true)
    expect(verifySignature(header, BODY, 'new-secret', {now: T}).ok).toBe(true)
    expect(verifySignature(header, BODY, ['other', 'new-secret'], {now: T}).ok).toBe(true)
    expect(verifySignature(header, BODY, 'third', {now: T})).toMatchObject({ok: false, reason: 'no_matching_signature'})
  })

  it('rejects a tampered body, a re-serialised body and a wrong secret', () => {
    const header = opensslHeader([SECRET], T, BODY)
    expect(verifySignature(header, BODY.replace('1500.00', '9500.00'), SECRET, {now: T})).toMatchObject({ok: false, reason: 'no_matching_signature'})
    expect(verifySignature(header, JSON.stringify(JSON.parse(BODY), null, 1), SECRET, {now: T})).toMatchObject({ok: false, reason: 'no_matching_signature'})
    expect(verifySignature(header, `${BODY}\n`, SECRET, {now: T})).toMatchObject({ok: false, reason: 'no_matching_signature'})
    expect(verifySignature(header, BODY, 'whsec_wrong', {now: T})).toMatchObject({ok: false, reason: 'no_matching_signature'})
  })

  it('rejects stale and future timestamps beyond the tolerance (300 s default, either direction)', () => {
    const header = opensslHeader([SECRET], T, BODY)
    expect(verifySignature(header, BODY, SECRET, {now: T + 300}).ok).toBe(true)
    expect(verifySignature(header, BODY, SECRET, {now: T - 300}).ok).toBe(true)
    expect(verifySignature(header, BODY, SECRET, {now: T + 301})).toMatchObject({ok: false, reason: 'timestamp_outside_tolerance', detail: expect.stringContaining('301 s old')})
    expect(verifySignature(header, BODY, SECRET, {now: T - 301})).toMatchObject({ok: false, reason: 'timestamp_outside_tolerance', detail: expect.stringContaining('in the future')})
    expect(verifySignature(header, BODY, SECRET, {now: T + 1000, toleranceSeconds: 1000}).ok).toBe(true)
  })

  it('rejects missing and malformed headers with their own reasons', () => {
    expect(verifySignature(undefined, BODY, SECRET)).toMatchObject({ok: false, reason: 'missing_header'})
    expect(verifySignature('  ', BODY, SECRET)).toMatchObject({ok: false, reason: 'missing_header'})
    for (const bad of ['garbage', `t=${T}`, `v1=${'a'.repeat(64)}`, `t=abc,v1=${'a'.repeat(64)}`, `t=${T},v1=abc`, `t=${T},t=${T},v1=${'a'.repeat(64)}`]) {
      expect(verifySignature(bad, BODY, SECRET, {now: T}), bad).toMatchObject({ok: false, reason: 'malformed_header'})
    }
  })

  it('the usual header read without a regular expression: same verdicts as the general parser, at every position of a wrong character', () => {
    const sig = opensslSign(SECRET, T, BODY)
    const header = `t=${T},v1=${sig}`
    const scheme = {place: 'inline', encoding: 'hex', algorithm: 'sha256'}
    expect(verifySignature(header, BODY, SECRET, {now: T})).toEqual({ok: true, timestamp: T, scheme})
    expect(explainSignature(header, BODY, SECRET, {now: T}).candidates).toEqual([{scheme: 'inline-hex-sha256', description: expect.any(String), matched: true}])
    // a leading zero, and the largest timestamp allowed (12 digits); 13 digits is malformed
    expect(verifySignature(`t=0${T},v1=${sig}`, BODY, SECRET, {now: T})).toEqual({ok: true, timestamp: T, scheme})
    const largest = explainSignature(`t=999999999999,v1=${sig}`, BODY, SECRET, {now: 999_999_999_999})
    expect(largest).toMatchObject({timestamp: 999_999_999_999, result: {ok: false, reason: 'no_matching_signature'}})
    expect(verifySignature(`t=1999999999999,v1=${sig}`, BODY, SECRET, {now: T})).toMatchObject({ok: false, reason: 'malformed_header'})
    expect(verifySignature(`t=,v1=${sig}`, BODY, SECRET, {now: T})).toMatchObject({ok: false, reason: 'malformed_header'})
    // the general parser still takes what the usual form does not: spaces, another order
    expect(verifySignature(` t=${T} , v1=${sig} `, BODY, SECRET, {now: T}).ok).toBe(true)
    expect(verifySignature(`v1=${sig},t=${T}`, BODY, SECRET, {now: T}).ok).toBe(true)
    for (const bad of [`t=${T},v1=${sig}0`, `t=${T},v1=${sig.slice(1)}`, `t=${T};v1=${sig}`, `T=${T},v1=${sig}`, `t=${T},v2=${sig}`, `t=${T},v1=${sig.slice(0, 63)}g`, `t=1${'x'.repeat(9)},v1=${sig}`]) {
      expect(verifySignature(bad, BODY, SECRET, {now: T}), bad).toMatchObject({ok: false, reason: 'malformed_header'})
    }
    // a signature that is not a digest is malformed, whatever else is wrong (a timestamp outside the tolerance, a
    // second secret tried); upper-case hex is the same digest
    expect(verifySignature(`t=${T},v1=${sig.toUpperCase()}`, BODY, SECRET, {now: T}).ok).toBe(true)
    for (const tail of [`${sig.slice(0, 63)}g`, `G${sig.slice(1)}`, `${sig.slice(0, 40)},v1=${sig.slice(45)}`]) {
      for (const now of [T, T + 10_000]) {
        expect(verifySignature(`t=${T},v1=${tail}`, BODY, [SECRET, 'other'], {now}), `${tail} ${now}`).toMatchObject({ok: false, reason: 'malformed_header'})
      }
    }
    // a character that is not hex at any place of the 64 (the usual form relies on the hex decoding stopping there)
    for (let at = 0; at < 64; at++) {
      for (const wrong of ['g', 'x', ' ', '=']) {
        expect(verifySignature(`t=${T},v1=${sig.slice(0, at)}${wrong}${sig.slice(at + 1)}`, BODY, SECRET, {now: T}), `${wrong} at ${at}`).toMatchObject({ok: false, reason: 'malformed_header'})
      }
    }
    // one hex digit changed, first, middle or last: no match
    for (const at of [0, 31, 63]) {
      const changed = `${sig.slice(0, at)}${sig[at] === '0' ? '1' : '0'}${sig.slice(at + 1)}`
      expect(verifySignature(`t=${T},v1=${changed}`, BODY, SECRET, {now: T}), `digit ${at}`).toMatchObject({ok: false, reason: 'no_matching_signature'})
    }
  })

  it('ignores unknown schemes beside v1 (a future v2 can be added)', () => {
    const header = `${opensslHeader([SECRET], T, BODY)},v0=deadbeef`
    expect(explainSignature(header, BODY, SECRET, {now: T}).candidates).toHaveLength(1)
    expect(verifySignature(header, BODY, SECRET, {now: T}).ok).toBe(true)
  })
})


/**
 * Every signature variant pay recognises, each signed by openssl (not our code): the header (and the separate
 * timestamp header) a service using it would send.
 */
const VARIANTS: {name: string; scheme: string; headers: (secret: string, t: number, body: string) => {signature: string; timestamp?: string}}[] = [
  {name: 't=,v1= hex SHA-256 (as pay signs)', scheme: 'inline-hex-sha256', headers: (k, t, b) => ({signature: `t=${t},v1=${opensslDigest('sha256', k, t, b).toString('hex')}`})},
  {name: 't=,v1= hex SHA-512', scheme: 'inline-hex-sha512', headers: (k, t, b) => ({signature: `t=${t},v1=${opensslDigest('sha512', k, t, b).toString('hex')}`})},
  {name: 't=,v1= base64 SHA-256', scheme: 'inline-base64-sha256', headers: (k, t, b) => ({signature: `t=${t},v1=${opensslDigest('sha256', k, t, b).toString('base64')}`})},
  {name: 't=,v1= base64 SHA-512', scheme: 'inline-base64-sha512', headers: (k, t, b) => ({signature: `t=${t},v1=${opensslDigest('sha512', k, t, b).toString('base64')}`})},
  {name: 'bare hex SHA-256, timestamp apart', scheme: 'header-hex-sha256', headers: (k, t, b) => ({signature: opensslDigest('sha256', k, t, b).toString('hex'), timestamp: String(t)})},
  {name: 'bare hex SHA-512, timestamp apart', scheme: 'header-hex-sha512', headers: (k, t, b) => ({signature: opensslDigest('sha512', k, t, b).toString('hex'), timestamp: String(t)})},
  {name: 'bare base64 SHA-256, timestamp apart', scheme: 'header-base64-sha256', headers: (k, t, b) => ({signature: opensslDigest('sha256', k, t, b).toString('base64'), timestamp: String(t)})},
  {name: 'bare base64 SHA-512, timestamp apart', scheme: 'header-base64-sha512', headers: (k, t, b) => ({signature: opensslDigest('sha512', k, t, b).toString('base64'), timestamp: String(t)})},
  {name: 'sha256=<hex>, timestamp apart', scheme: 'header-hex-sha256', headers: (k, t, b) => ({signature: `sha256=${opensslDigest('sha256', k, t, b).toString('hex')}`, timestamp: String(t)})},
  {name: 'sha512=<base64url, unpadded>, timestamp apart', scheme: 'header-base64-sha512', headers: (k, t, b) => ({signature: `sha512=${opensslDigest('sha512', k, t, b).toString('base64url')}`, timestamp: String(t)})},
  {name: 't=,v1= base64 SHA-256 unpadded', scheme: 'inline-base64-sha256', headers: (k, t, b) => ({signature: `t=${t},v1=${opensslDigest('sha256', k, t, b).toString('base64').replace(/=+$/, '')}`})},
]

describe('signature variants of a service whose format is not shown', () => {
  it.each(VARIANTS.map((v) => [v.name, v]))('%s: matches and says which; a wrong secret and a replayed timestamp are rejected', (_name, v) => {
    const h = v.headers(SECRET, T, BODY)
    const result = verifySignature(h.signature, BODY, SECRET, {now: T + 5, timestampHeader: h.timestamp})
    expect(result).toEqual({ok: true, timestamp: T, scheme: parseSchemeId(v.scheme)})
    // the wrong secret, with the same header shape
    const wrong = v.headers('whsec_wrong', T, BODY)
    expect(verifySignature(wrong.signature, BODY, SECRET, {now: T, timestampHeader: wrong.timestamp})).toMatchObject({ok: false, reason: 'no_matching_signature', detail: expect.stringContaining(v.scheme)})
    // a delivery replayed later: its timestamp is outside the window, whatever the signature
    expect(verifySignature(h.signature, BODY, SECRET, {now: T + 301, timestampHeader: h.timestamp})).toMatchObject({ok: false, reason: 'timestamp_outside_tolerance'})
    // a tampered body
    expect(verifySignature(h.signature, BODY.replace('1500.00', '1.00'), SECRET, {now: T, timestampHeader: h.timestamp})).toMatchObject({ok: false, reason: 'no_matching_signature'})
    // pinned to its own scheme: still matches; pinned to another: refused as not the pinned format
    expect(verifySignature(h.signature, BODY, SECRET, {now: T, timestampHeader: h.timestamp, pinned: parseSchemeId(v.scheme)}).ok).toBe(true)
    const other = SCHEME_IDS.find((id) => id !== v.scheme)!
    expect(verifySignature(h.signature, BODY, SECRET, {now: T, timestampHeader: h.timestamp, pinned: parseSchemeId(other)})).toMatchObject({ok: false, reason: 'malformed_header', detail: expect.stringContaining(`pinned format ${other}`)})
  })

  it('pay signs every scheme the way openssl does (sign(), for tests and a pinned sender)', () => {
    for (const id of SCHEME_IDS) {
      const scheme = parseSchemeId(id)!
      const h = sign([SECRET], BODY, {timestamp: T, scheme})
      expect(verifySignature(h.signature, BODY, SECRET, {now: T, timestampHeader: h.timestamp}), id).toEqual({ok: true, timestamp: T, scheme})
    }
    expect(sign(SECRET, BODY, {timestamp: T}).signature).toBe(opensslHeader([SECRET], T, BODY))
  })

  it('the scheme pay signs in: the pinned one, else the one a delivery was verified in, else the default', () => {
    expect(signingScheme(undefined)).toEqual(parseSchemeId('inline-hex-sha256'))
    expect(signingScheme('', 'header-base64-sha256')).toEqual(parseSchemeId('header-base64-sha256'))
    expect(signingScheme('Inline-Hex-SHA512', 'header-base64-sha256')).toEqual(parseSchemeId('inline-hex-sha512'))
    expect(signingScheme(undefined, 'not-a-scheme')).toEqual(parseSchemeId('inline-hex-sha256'))
    expect(() => signingScheme('md5')).toThrow(/webhook_signature/)
  })

  it('a timestamp apart is required when the header has none; a separate timestamp beyond the window is a replay', () => {
    const digest = opensslDigest('sha256', SECRET, T, BODY).toString('hex')
    expect(verifySignature(digest, BODY, SECRET, {now: T})).toMatchObject({ok: false, reason: 'malformed_header', detail: expect.stringContaining('no timestamp')})
    expect(verifySignature(digest, BODY, SECRET, {now: T + 1000, timestampHeader: String(T)})).toMatchObject({ok: false, reason: 'timestamp_outside_tolerance'})
    // a timestamp header that says another time than the one signed: no match
    expect(verifySignature(digest, BODY, SECRET, {now: T, timestampHeader: String(T + 1)})).toMatchObject({ok: false, reason: 'no_matching_signature'})
  })

  it('an unrecognised header shape: the clear message, with the shape masked (no digit or letter of the value)', () => {
    const shapes: [string, string][] = [
      ['scheme=hmac; sig=0a1b2c', 'xxxxxx=xxxx; xxx=0x0x0x'],
      [`t:${T} v1:abcdef`, 'x:0000000000 x0:xxxxxx'],
      ['Bearer abc.def.ghi', 'xxxxxx xxx.xxx.xxx'],
      [`t=${T},v1=${'ab'.repeat(20)}`, `x=0000000000,x0=${'x'.repeat(40)}`],
      [`t=${T},v1=Ab9+/=`, 'x=0000000000,x0=xx0+/='],
    ]
    for (const [header, shape] of shapes) {
      const r = verifySignature(header, BODY, SECRET, {now: T})
      expect(r, header).toMatchObject({ok: false, reason: 'malformed_header'})
      const detail = (r as {detail: string}).detail
      expect(detail).toContain(`unrecognised Service-Signature format: ${shape} (`)
      expect(detail).not.toMatch(/abc|[1-9]/)
    }
  })

  it('rotation: several digests of one scheme, any secret of several', () => {
    const h = sign(['old', 'new'], BODY, {timestamp: T, scheme: parseSchemeId('header-base64-sha512')})
    expect(h.signature.split(',')).toHaveLength(2)
    expect(verifySignature(h.signature, BODY, ['x', 'new'], {now: T, timestampHeader: h.timestamp}).ok).toBe(true)
    expect(verifySignature(h.signature, BODY, ['x', 'y'], {now: T, timestampHeader: h.timestamp}).ok).toBe(false)
  })

  it('explain lists every candidate tried and which matched; pinning needs a known scheme', () => {
    const h = `t=${T},v1=${opensslDigest('sha256', 'other', T, BODY).toString('hex')},v1=${opensslDigest('sha512', SECRET, T, BODY).toString('base64')}`
    const e = explainSignature(h, BODY, SECRET, {now: T})
    expect(e.result).toMatchObject({ok: true, scheme: parseSchemeId('inline-base64-sha512')})
    expect(e.candidates.map((c) => [c.scheme, c.matched])).toEqual([
      ['inline-hex-sha256', false],
      ['inline-base64-sha512', true],
    ])
    expect(pinnedScheme('inline-hex-sha256').scheme).toEqual(parseSchemeId('inline-hex-sha256'))
    expect(pinnedScheme('hmac').problem).toMatch(/must be one of inline-hex-sha256/)
  })
})
