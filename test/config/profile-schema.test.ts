/**
 * The profiles file is read by its stored plan (src/config/profile-plans.generated.ts) before zod: a yes must be
 * zod's yes, and zod's output must then be the file's value itself (nothing dropped, filled in or rewritten), since
 * the reader returns the value as zod would have given it.
 */
import {isDeepStrictEqual} from 'node:util'
import {describe, expect, it} from 'vitest'
import {SECRET_FIELDS, profilesFileSchema} from '../../src/config/profile-schema.js'
import {exactPlans} from '../../src/config/profile-plans.generated.js'
import {exactPlansModule, storedCheck} from '../../src/api/sure-match.js'

const THIS = 'test/config/profile-schema.test.ts'

it('src/config/profile-plans.generated.ts is what the schema gives (else: run this file with -u)', async () => {
  await expect(exactPlansModule({profilesFile: profilesFileSchema()}, THIS)).toMatchFileSnapshot('../../src/config/profile-plans.generated.ts')
})

/** A small seeded generator (the same cases every run). */
function random(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

const URLS = ['http://127.0.0.1:4010', 'https://api.example.test', 'https://api.example.test/v1/', ' https://x.test', 'https://x.test ', 'https://x.\ttest', 'https://x.test/\n', 'not a url', 'http:x.test', 'mailto:a@b.test', '', 'https://exa mple.test', 'https://x.test/\u00e9']
const STRINGS = ['', 'x', 'client-1', 'sb_acme_secret', '\u{1F600}', ' ', 'KES']

function profile(pick: () => number): Record<string, unknown> {
  const one = <T,>(xs: readonly T[]): T => xs[Math.floor(pick() * xs.length)]
  const p: Record<string, unknown> = {}
  if (pick() < 0.9) p.base_url = one(URLS)
  for (const key of ['client_id', 'client_secret', 'account_ref', 'webhook_secret', 'webhook_signature']) if (pick() < 0.5) p[key] = one(STRINGS)
  for (const key of ['live', 'mcp_allow_money']) if (pick() < 0.3) p[key] = one([true, false, 'true', 1])
  if (pick() < 0.3) {
    p.keyring = {
      id: one(['0b7d6a2e-3f0c-4c55-9a1e-1d2f3a4b5c6d', 'not-an-id', '']),
      fields: one([[], ['client_secret'], [...SECRET_FIELDS], ['password'], 'client_secret']),
      ...(pick() < 0.5 ? {client_secret_sha256: one(['a'.repeat(64), 'A'.repeat(64), 'a'.repeat(63)])} : {}),
      ...(pick() < 0.2 ? {extra: 1} : {}),
    }
  }
  if (pick() < 0.15) p[one(['extra', 'constructor', 'toString', 'password'])] = one(['x', 1, null])
  if (pick() < 0.05) return one([null, [], 'x', 1]) as never
  return p
}

function file(pick: () => number): unknown {
  const f: Record<string, unknown> = {}
  if (pick() < 0.7) f.active = pick() < 0.9 ? 'default' : 1
  if (pick() < 0.9) {
    const profiles: Record<string, unknown> = {}
    const n = Math.floor(pick() * 3)
    for (let i = 0; i < n; i++) profiles[['default', 'sandbox', 'live', '__proto__', 'constructor'][Math.floor(pick() * 5)]] = profile(pick)
    f.profiles = pick() < 0.05 ? [] : profiles
  }
  if (pick() < 0.1) f.version = 2
  // as the reader sees it: JSON text parsed (an own __proto__ key included)
  return JSON.parse(JSON.stringify(f).replace('"constructor"', pick() < 0.5 ? '"__proto__"' : '"constructor"'))
}

describe("the profiles file's stored plan", () => {
  const sure = storedCheck(exactPlans, 'profilesFile')!

  it('says yes only where zod accepts the file and gives back the very same value', () => {
    const pick = random(5)
    let yes = 0
    let accepted = 0
    for (let i = 0; i < 20_000; i++) {
      const value = file(pick)
      const parsed = profilesFileSchema().safeParse(value)
      if (parsed.success) accepted++
      if (sure(value)) {
        yes++
        expect(parsed.success, JSON.stringify(value)).toBe(true)
        // (node's deep equality: prototypes and own keys; a profile named `constructor` defeats vitest's strict check)
        expect(isDeepStrictEqual(parsed.data, value), JSON.stringify(value)).toBe(true)
      }
    }
    expect(yes).toBeGreaterThan(1000)
    expect(accepted).toBeGreaterThan(yes)
  })

  it('is sure of the file pay writes, and leaves to zod one it would change or may judge otherwise', () => {
    const usual = {active: 'sandbox', profiles: {sandbox: {base_url: 'http://127.0.0.1:4010', client_id: 'sb_acme_client', client_secret: 'sb_acme_secret', live: false}}}
    expect(sure(usual)).toBe(true)
    for (const changed of [
      {...usual, extra: 1}, // dropped by zod
      {active: 'sandbox'}, // profiles filled in by zod
      {profiles: {sandbox: {base_url: ' http://127.0.0.1:4010'}}}, // trimmed by zod
      {profiles: {sandbox: {base_url: 'http://127.0.0.1:40\t10'}}}, // a tab dropped by zod
      JSON.parse('{"profiles": {"__proto__": {"client_id": "x"}}}'), // a key zod drops
      {profiles: {sandbox: {base_url: 'https://m\u00fcnchen.example/'}}}, // not ASCII: zod's to judge
    ]) {
      expect(sure(changed), JSON.stringify(changed)).toBe(false)
    }
  })
})
