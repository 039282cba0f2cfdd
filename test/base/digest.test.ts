/** src/base/digest.ts: sha256 and random UUIDs without node:crypto give what node:crypto gives. */
import {createHash} from 'node:crypto'
import {describe, expect, it} from 'vitest'
import {randomUUID, sha256Hex} from '../../src/base/digest.js'

describe('digest', () => {
  it('sha256Hex is node:crypto sha256 of the UTF-8 bytes, in hex', () => {
    for (const text of ['', 'abc', 'Mpesa – Jambo ✓ 🙂', 'x'.repeat(10_000)]) {
      expect(sha256Hex(text)).toBe(createHash('sha256').update(text, 'utf8').digest('hex'))
    }
  })

  it('randomUUID makes version 4 UUIDs (RFC 9562 variant), all different', () => {
    const ids = Array.from({length: 2000}, () => randomUUID())
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(new Set(ids).size).toBe(ids.length)
    // every hex digit outside the fixed version/variant bits turns up: the bytes are random, not a counter
    const free = ids.map((id) => id.replace(/-/g, '').slice(13, 16)).join('')
    expect(new Set(free).size).toBe(16)
  })
})
