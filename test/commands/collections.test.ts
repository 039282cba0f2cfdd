/**
 * pay collections create|get, in-process against the sandbox (test/helpers/command-harness.ts). Each case checks the human
 * and --json output and, through the sandbox's request log, the exact method, path, query, headers and body sent.
 */
import {describe, expect, it} from 'vitest'
import {json} from '../helpers/cli.js'
import {byRef, expectServiceHeaders, kv, ok, only, useSandbox} from '../helpers/command-harness.js'
import {waitFor} from '../helpers/wait-for.js'

const h = useSandbox()

describe('pay collections create', () => {
  it('charges a wallet: human view, --json body unchanged, and exactly the documented request', async () => {
    const [human, asJson] = await Promise.all([
      h.pay(['collections', 'create', '--amount', '1500.00', '--currency', 'kes', '--reference', 'col-h-1', '--mobile', '254712345671', '--provider', 'mpesa', '--description', 'Order 1', '--idempotency-key', 'key-col-h-1']),
      h.pay(['collections', 'create', '--amount', '99.5', '--currency', 'KES', '-r', 'col-j-1', '--mobile', '254712345672', '--provider', 'airtel', '--data', '{"metadata":{"order":"42"}}', '-F', 'description=from -F', '--json']),
    ])
    ok(human)
    const v = kv(human)
    expect(v).toMatchObject({Kind: 'Collection (money in)', State: 'processing', Amount: '1500.00 KES', 'Merchant reference': 'col-h-1', Provider: 'mpesa', Mobile: '254712345671', Rail: 'mobile money (mobile_money)'})
    expect(v.ID).toMatch(/^CL_/)

    ok(asJson)
    const body = json(asJson)
    expect(body).toMatchObject({object: 'collection', status: 'processing', merchant_reference: 'col-j-1', amount: '99.50', currency: 'KES'})
    expect(asJson.stdout.trim().split('\n')).toHaveLength(1)

    const sentH = only(h.requests(byRef('col-h-1')), 'col-h-1')
    expect([sentH.method, sentH.path, sentH.query]).toEqual(['POST', '/v1/collections', {}])
    expectServiceHeaders(sentH, {idempotencyKey: 'key-col-h-1'})
    expect(sentH.body).toEqual({amount: '1500.00', currency: 'KES', merchant_reference: 'col-h-1', mobile: '254712345671', provider: 'mpesa', description: 'Order 1'})

    const sentJ = only(h.requests(byRef('col-j-1')), 'col-j-1')
    expectServiceHeaders(sentJ)
    expect(sentJ.body).toEqual({amount: '99.50', currency: 'KES', merchant_reference: 'col-j-1', mobile: '254712345672', provider: 'airtel', description: 'from -F', metadata: {order: '42'}})
  })

  it('bank transfer: shows the account to pay into; --dry-run prints the request and sends nothing', async () => {
    const [bt, dry] = await Promise.all([
      h.run(['collections', 'create', '--amount', '25000', '--currency', 'KES', '--reference', 'col-bt-1', '--rail', 'bank_transfer', '--account-name', 'Acme INV 118']),
      h.run(['collections', 'create', '--amount', '10', '--currency', 'kes', '--reference', 'col-dry-1', '--mobile', '254712345671', '--provider', 'mpesa', '--dry-run', '--idempotency-key', 'dry-key']),
    ])
    ok(bt)
    const v = kv(bt)
    expect(v).toMatchObject({State: 'processing', Amount: '25000.00 KES', Rail: 'bank transfer (bank_transfer)', 'Pay to account name': 'Acme INV 118'})
    expect(v['Pay to account number']).toMatch(/^\d+$/)
    expect(v['Pay to bank']).toMatch(/\(code \w+\)/)
    expect(only(h.requests(byRef('col-bt-1')), 'col-bt-1').body).toEqual({amount: '25000.00', currency: 'KES', merchant_reference: 'col-bt-1', payment_rail: 'bank_transfer', account_name: 'Acme INV 118'})

    ok(dry)
    expect(dry.stdout).toContain(`POST ${h.sb.url}/v1/collections`)
    expect(dry.stdout).toContain('idempotency-key: dry-key')
    expect(dry.stdout).toContain('{"amount":"10.00","currency":"KES","merchant_reference":"col-dry-1","mobile":"254712345671","provider":"mpesa"}')
    expect(dry.stdout).toMatch(/curl -sS -X POST/)
    expect(dry.stdout).not.toContain(h.env.PAY_CLIENT_SECRET)
    expect(h.requests(byRef('col-dry-1'))).toHaveLength(0)
  })

  it('--wait: exit 0 when it succeeds, 8 when it fails, 9 when --wait-timeout runs out; polls GET /v1/collections/{id}', async () => {
    const base = ['collections', 'create', '--amount', '20', '--currency', 'KES', '--provider', 'mpesa', '--wait']
    const [good, bad, slow] = await Promise.all([
      h.run([...base, '--reference', 'col-w-ok', '--mobile', '254712345671']),
      h.run([...base, '--reference', 'col-w-fail', '--mobile', '254712345679', '--json']),
      h.run([...base, '--reference', 'col-w-slow', '--mobile', '254712345678', '--wait-timeout', '1']),
    ])
    ok(good)
    expect(kv(good).State).toBe('succeeded')
    expect(good.stderr).toMatch(/waiting for collection CL_\w+: processing/)
    expect(good.stderr).toMatch(/succeeded after \d+ s/)

    expect(bad.code, bad.stderr).toBe(8)
    expect(json(bad)).toMatchObject({object: 'collection', status: 'failed', merchant_reference: 'col-w-fail'})
    expect(bad.stderr).toMatch(/ended failed/)

    expect(slow.code, slow.stderr).toBe(9)
    expect(kv(slow).State).toBe('processing')
    expect(slow.stderr).toMatch(/still processing after --wait-timeout 1 s/)

    const id = kv(good).ID
    const polls = h.requests((e) => e.path === `/v1/collections/${id}`)
    expect(polls.length).toBeGreaterThanOrEqual(1)
    for (const p of polls) {
      expect(p.method).toBe('GET')
      expectServiceHeaders(p, {idempotencyKey: 'none'})
    }
  })
})

describe('pay collections get', () => {
  it('by id and by --reference, human and --json', async () => {
    const created = json(ok(await h.run(['collections', 'create', '--amount', '5', '--currency', 'KES', '--reference', 'col-get-1', '--mobile', '254712345671', '--provider', 'mpesa', '--json'])))
    const [byId, byReference, byIdJson] = await Promise.all([
      h.run(['collections', 'get', created.id]),
      h.run(['collections', 'get', '--reference', 'col-get-1']),
      h.run(['collections', 'get', created.id, '--json']),
    ])
    expect(kv(ok(byId))).toMatchObject({ID: created.id, Amount: '5.00 KES', 'Merchant reference': 'col-get-1'})
    expect(kv(ok(byReference)).ID).toBe(created.id)
    expect(json(ok(byIdJson))).toMatchObject({id: created.id, object: 'collection', merchant_reference: 'col-get-1'})

    const gets = h.requests((e) => e.method === 'GET' && (e.path === `/v1/collections/${created.id}` || e.query.merchant_reference === 'col-get-1'))
    expect(gets.filter((e) => e.path === `/v1/collections/${created.id}`).every((e) => Object.keys(e.query).length === 0)).toBe(true)
    const q = only(gets.filter((e) => e.path === '/v1/collections'), 'get by reference')
    expect(q.query).toEqual({merchant_reference: 'col-get-1'})
    expectServiceHeaders(q)
    expect(q.body ?? null).toBeNull()
  })

  it('--wait on a get: waits for a forced outcome (exit 0), and 404 is exit 4', async () => {
    const created = json(ok(await h.run(['collections', 'create', '--amount', '5', '--currency', 'KES', '--reference', 'col-get-w', '--mobile', '254712345678', '--provider', 'mpesa', '--json'])))
    const waiting = h.run(['collections', 'get', '--reference', 'col-get-w', '--wait', '--wait-timeout', '20', '--json'])
    // the outcome is forced once the command is waiting (its first lookup has been answered), not after a guessed time
    await waitFor(() => h.requests((e) => e.method === 'GET' && e.query.merchant_reference === 'col-get-w').length > 0, 20_000, 'the first lookup of --wait')
    await h.control(`/_sandbox/transactions/${created.id}/succeed`)
    const [r, missing] = await Promise.all([waiting, h.run(['collections', 'get', 'CL_DOESNOTEXIST'])])
    expect(json(ok(r))).toMatchObject({id: created.id, status: 'succeeded'})
    expect(missing.code).toBe(4)
    expect(missing.stderr).toMatch(/not_found/)
  })
})
