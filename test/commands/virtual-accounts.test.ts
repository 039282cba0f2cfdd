/**
 * pay virtual-accounts create|get, for a customer and for the merchant, in-process against the sandbox (test/helpers/command-harness.ts). Each case checks the human
 * and --json output and, through the sandbox's request log, the exact method, path, query, headers and body sent.
 */
import {describe, expect, it} from 'vitest'
import {json} from '../helpers/cli.js'
import {expectServiceHeaders, kv, ok, only, useSandbox} from '../helpers/command-harness.js'

const h = useSandbox()

describe('pay virtual-accounts', () => {
  it('create and get for a customer and for the merchant: body [], idempotent, repeat returns the same account', async () => {
    const [cust, merch] = await Promise.all([
      h.run(['virtual-accounts', 'create', '--customer', 'MC_ACME0002', '--idempotency-key', 'va-key-1']),
      h.run(['virtual-accounts', 'create', '--merchant', '--json']),
    ])
    const c = kv(ok(cust))
    expect(c).toMatchObject({Kind: 'Static bank account', Owner: 'customer MC_ACME0002', 'Account type': 'STATIC', State: 'ACTIVE', Expires: 'never (static account)'})
    expect(c['Account number']).toMatch(/^\d+$/)
    const m = json(ok(merch))
    expect(m).toMatchObject({object: 'virtual_account', owner: 'merchant'})

    const [custGet, merchGet] = await Promise.all([
      h.run(['virtual-accounts', 'get', '--customer', 'MC_ACME0002', '--json']),
      h.run(['virtual-accounts', 'get', '--merchant']),
    ])
    expect(json(ok(custGet)).virtual_account.account_number).toBe(c['Account number'])
    expect(kv(ok(merchGet))).toMatchObject({Owner: 'the merchant', 'Account number': m.virtual_account.account_number})

    const cPost = only(h.requests((e) => e.method === 'POST' && e.path === '/v1/customers/MC_ACME0002/virtual-account'), 'customer VA create')
    expectServiceHeaders(cPost, {idempotencyKey: 'va-key-1'})
    expect(cPost.body).toEqual([])
    const mPost = only(h.requests((e) => e.method === 'POST' && e.path === '/v1/virtual-accounts/merchant'), 'merchant VA create')
    expectServiceHeaders(mPost)
    expect(mPost.body).toEqual([])
    const gets = h.requests((e) => e.method === 'GET' && (e.path === '/v1/virtual-accounts/merchant' || e.path === '/v1/customers/MC_ACME0002/virtual-account'))
    expect(gets).toHaveLength(2)
    for (const g of gets) expect(g.query).toEqual({})
  })
})
