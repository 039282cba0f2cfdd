/**
 * pay transactions verify, in-process against the sandbox (test/helpers/command-harness.ts). Each case checks the human
 * and --json output and, through the sandbox's request log, the exact method, path, query, headers and body sent.
 */
import {describe, expect, it} from 'vitest'
import {json} from '../helpers/cli.js'
import {expectServiceHeaders, kv, ok, useSandbox} from '../helpers/command-harness.js'

const h = useSandbox()

describe('pay transactions verify', () => {
  it('names the kind, state, amounts, rail, references and, for a bank transfer, the virtual account', async () => {
    const created = json(ok(await h.run(['collections', 'create', '--amount', '300', '--currency', 'KES', '--reference', 'order-42', '--rail', 'bank_transfer', '--json'])))
    const [human, asJson, missing] = await Promise.all([
      h.run(['transactions', 'verify', 'order-42']),
      h.run(['transactions', 'verify', 'order-42', '--json']),
      h.run(['transactions', 'verify', 'no-such-order']),
    ])
    const v = kv(ok(human))
    expect(v).toMatchObject({
      Kind: 'Collection (money in)',
      ID: created.id,
      State: 'processing',
      Amount: '300.00 KES',
      Rail: 'bank transfer (bank_transfer)',
      'Merchant reference': 'order-42',
      'Pay to account number': created.virtual_account.account_number,
      'Pay to account name': created.virtual_account.account_name,
      'Account valid until': created.virtual_account.expires_at,
    })
    expect(v['Pay to bank']).toBe(`${created.virtual_account.bank_name} (code ${created.virtual_account.bank_code})`)
    expect(json(ok(asJson))).toEqual(created.status === 'processing' ? expect.objectContaining({id: created.id, object: 'collection'}) : expect.anything())
    expect(missing.code).toBe(4)
    const sent = h.requests((e) => e.path === '/v1/transactions/verify/order-42')
    expect(sent).toHaveLength(2)
    expect([sent[0].method, sent[0].query]).toEqual(['GET', {}])
    expectServiceHeaders(sent[0])
  })
})
