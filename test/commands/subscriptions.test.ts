/**
 * pay plans list and pay subscriptions create|get, in-process against the sandbox (test/helpers/command-harness.ts). Each case checks the human
 * and --json output and, through the sandbox's request log, the exact method, path, query, headers and body sent.
 */
import {describe, expect, it} from 'vitest'
import {json} from '../helpers/cli.js'
import {byRef, expectServiceHeaders, kv, ok, only, rows, useSandbox} from '../helpers/command-harness.js'

const h = useSandbox()

describe('pay plans list, pay subscriptions', () => {
  it('plans list: table and --json', async () => {
    const [human, asJson] = await Promise.all([h.run(['plans', 'list']), h.run(['plans', 'list', '--json'])])
    const list = rows(ok(human))
    expect(list.map((r) => r.plan_id)).toContain('PLN_ACMEGOLD')
    expect(list.find((r) => r.plan_id === 'PLN_ACMEGOLD')).toMatchObject({plan_name: 'Gold (monthly)'})
    const body = json(ok(asJson))
    expect(body.object).toBe('list')
    expect(body.data.map((p: {plan_id: string}) => p.plan_id)).toEqual(list.map((r) => r.plan_id))
    const sent = h.requests((e) => e.path === '/v1/subscription_plans')
    expect(sent).toHaveLength(2)
    expect([sent[0].method, sent[0].query]).toEqual(['GET', {}])
    expectServiceHeaders(sent[0])
  })

  it('subscriptions create --wait → active (exit 0); get by reference, human and --json', async () => {
    const r = await h.run(['subscriptions', 'create', '--plan', 'PLN_ACMESILVER', '--reference', 'sub-1', '--customer-name', 'Jane Wanjiku', '--customer-email', 'jane@example.com', '--mobile', '254712340011', '--provider', 'mpesa', '--notes', 'via CLI', '--wait', '--wait-timeout', '20'])
    const v = kv(ok(r))
    expect(v).toMatchObject({Kind: 'Subscription', State: 'active', Plan: 'Silver (weekly) (PLN_ACMESILVER)', Customer: 'Jane Wanjiku <jane@example.com>', 'Merchant reference': 'sub-1'})
    expect(r.stderr).toMatch(/waiting for subscription sub-1: pending_approval/)
    const post = only(h.requests((e) => e.method === 'POST' && e.path === '/v1/subscriptions'), 'subscription create')
    expectServiceHeaders(post)
    expect(post.body).toEqual({plan_id: 'PLN_ACMESILVER', merchant_reference: 'sub-1', customer_name: 'Jane Wanjiku', customer_email: 'jane@example.com', mobile: '254712340011', provider: 'mpesa', notes: 'via CLI'})

    const [human, asJson, missing, createdJson] = await Promise.all([
      h.run(['subscriptions', 'get', '--reference', 'sub-1']),
      h.run(['subscriptions', 'get', '-r', 'sub-1', '--json']),
      h.run(['subscriptions', 'get', '--reference', 'sub-none']),
      h.run(['subscriptions', 'create', '--plan', 'PLN_ACMEGOLD', '--reference', 'sub-2', '--customer-name', 'Amina Hassan', '--customer-email', 'amina@example.com', '--mobile', '254712340012', '--provider', 'mpesa', '--json']),
    ])
    expect(json(ok(createdJson))).toMatchObject({status: 'pending_approval', plan_id: 'PLN_ACMEGOLD', merchant_reference: 'sub-2'})
    expect(kv(ok(human))['Subscription ID']).toMatch(/^SUB_/)
    expect(json(ok(asJson))).toMatchObject({status: 'active', plan_id: 'PLN_ACMESILVER', merchant_reference: 'sub-1'})
    expect(missing.code).toBe(4)
    const get = h.requests((e) => e.method === 'GET' && e.path === '/v1/subscriptions' && e.query.merchant_reference === 'sub-1')
    expect(get.length).toBeGreaterThanOrEqual(2)
    expect(get[0].query).toEqual({merchant_reference: 'sub-1'})
    expect(byRef('sub-1')(get[0])).toBe(true)
  })

  it('an inactive plan is the service\'s 422 (exit 1), shown with its code', async () => {
    const r = await h.run(['subscriptions', 'create', '--plan', 'PLN_ACMELEGACY', '--reference', 'sub-legacy', '--customer-name', 'Amina Hassan', '--customer-email', 'amina@example.com', '--mobile', '254700555666', '--provider', 'mpesa'])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/validation_error/)
  })
})
