/**
 * pay verifications msisdn|bank-account, in-process against the sandbox (test/helpers/command-harness.ts). Each case checks the human
 * and --json output and, through the sandbox's request log, the exact method, path, query, headers and body sent.
 */
import {describe, expect, it} from 'vitest'
import {json} from '../helpers/cli.js'
import {expectServiceHeaders, kv, ok, only, useSandbox} from '../helpers/command-harness.js'

const h = useSandbox()

describe('pay verifications', () => {
  it('msisdn: verified with the name, invalid without; no Idempotency-Key on these POSTs', async () => {
    const [good, bad, asJson] = await Promise.all([
      h.run(['verifications', 'msisdn', '--mobile', '254712345671', '--provider', 'mpesa']),
      h.run(['verifications', 'msisdn', '--mobile', '254700000009']),
      h.run(['verifications', 'msisdn', '--mobile', '254711111111', '--json']),
    ])
    const v = kv(ok(good))
    expect(v.Result).toBe('verified')
    expect(v['Name on the account']).toMatch(/^\w+ \w+$/)
    expect(kv(ok(bad))).toMatchObject({Result: 'invalid', 'Name on the account': 'none (not verified)'})
    const j = json(ok(asJson))
    expect(j.status).toBe('verified')
    expect(Object.keys(j.profile).sort()).toEqual(['first_name', 'last_name'])

    const sent = h.requests((e) => e.path === '/v1/verifications/msisdn')
    expect(sent).toHaveLength(3)
    const first = sent.find((e) => (e.body as {mobile: string}).mobile === '254712345671')!
    expect([first.method, first.query]).toEqual(['POST', {}])
    expect(first.body).toEqual({mobile: '254712345671', provider: 'mpesa'})
    expectServiceHeaders(first, {idempotencyKey: 'none'})
  })

  it('bank-account: verified, and the upstream 502 gateway_error is exit 7', async () => {
    const [good, goodJson, upstream] = await Promise.all([
      h.run(['verifications', 'bank-account', '--bank-code', '68', '--account-number', '0123456781']),
      h.run(['verifications', 'bank-account', '--bank-code', '11', '--account-number', '5550001112', '--json']),
      h.run(['verifications', 'bank-account', '--bank-code', '01', '--account-number', '1100223345', '--json']),
    ])
    expect(kv(ok(good)).Result).toBe('verified')
    expect(kv(good)['Name on the account']).toMatch(/^\w+ \w+$/)
    expect(json(ok(goodJson))).toMatchObject({status: 'verified', profile: {first_name: expect.any(String), last_name: expect.any(String)}})
    expect(upstream.code).toBe(7)
    expect(json(upstream)).toMatchObject({status: 502, error: {code: 'gateway_error'}})
    const sent = h.requests((e) => e.path === '/v1/verifications/bank_accounts' && (e.body as {account_number: string}).account_number === '0123456781')
    const e = only(sent, 'bank account check')
    expect(e.body).toEqual({bank_code: '68', account_number: '0123456781'})
    expectServiceHeaders(e, {idempotencyKey: 'none'})
  })
})
