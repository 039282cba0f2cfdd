/**
 * pay mandates create|get|cancel and pay debits create|status, in-process against the sandbox (test/helpers/command-harness.ts). Each case checks the human
 * and --json output and, through the sandbox's request log, the exact method, path, query, headers and body sent.
 */
import {describe, expect, it} from 'vitest'
import {json} from '../helpers/cli.js'
import {expectServiceHeaders, kv, ok, only, useSandbox} from '../helpers/command-harness.js'

const h = useSandbox()

describe('pay mandates, pay debits', () => {
  it('create → wait for approval → debit with --wait → status → cancel → get --wait ends cancelled (exit 8)', async () => {
    const create = await h.pay([
      'mandates', 'create', '--mobile', '254712340001', '--provider', 'mpesa', '--currency', 'kes', '--amount', '1500.00', '--frequency', 'monthly',
      '--starts-at', '2026-12-01T09:00:00Z', '--reference', 'md-flow-1', '--description', 'Gym', '--notes', 'VIP', '--wait', '--wait-timeout', '20',
    ])
    const m = kv(ok(create))
    expect(m).toMatchObject({Kind: 'Direct-debit mandate', State: 'succeeded', Amount: '1500.00 KES', Frequency: 'MONTHLY', 'Merchant reference': 'md-flow-1'})
    expect(create.stderr).toMatch(/mandate md-flow-1 succeeded/)
    const post = only(h.requests((e) => e.method === 'POST' && e.path === '/v1/mandates'), 'mandate create')
    expectServiceHeaders(post)
    expect(post.body).toEqual({mobile: '254712340001', provider: 'mpesa', currency: 'KES', amount: '1500.00', frequency: 'MONTHLY', starts_at: '2026-12-01T09:00:00Z', merchant_reference: 'md-flow-1', description: 'Gym', notes: 'VIP'})
    const poll = h.requests((e) => e.method === 'GET' && e.path === '/v1/mandates')[0]
    expect(poll.query).toEqual({merchant_reference: 'md-flow-1'})
    expectServiceHeaders(poll)

    const got = json(ok(await h.run(['mandates', 'get', '--reference', 'md-flow-1', '--json'])))
    expect(got.status).toBe('succeeded')
    const mandateId = String(got.mandate_id)
    expect(mandateId).toMatch(/^MD_/)
    expect(m['Mandate ID']).toBe(mandateId)

    const debit = await h.run(['debits', 'create', mandateId, '--amount', '1500.00', '--currency', 'kes', '--reference', 'md-flow-1-dec', '--provider', 'mpesa', '--idempotency-key', 'debit-key-1', '--wait'])
    expect(kv(ok(debit))).toMatchObject({Kind: 'Mandate debit', State: 'succeeded', Amount: '1500.00 KES', 'Mandate ID': mandateId})
    const d = only(h.requests((e) => e.method === 'POST' && e.path === `/v1/mandates/${mandateId}/debits`), 'debit create')
    expectServiceHeaders(d, {idempotencyKey: 'debit-key-1'})
    expect(d.body).toEqual({amount: '1500.00', currency: 'KES', merchant_reference: 'md-flow-1-dec', provider: 'mpesa'})

    const [status, statusHuman, debitJson] = await Promise.all([
      h.run(['debits', 'status', '--mandate', mandateId, '--reference', 'md-flow-1-dec', '--json']),
      h.run(['debits', 'status', '-m', mandateId, '-r', 'md-flow-1-dec']),
      h.run(['debits', 'create', mandateId, '--amount', '20', '--currency', 'KES', '--reference', 'md-flow-1-extra', '--provider', 'mpesa', '--json']),
    ])
    expect(json(ok(debitJson))).toMatchObject({merchant_reference: 'md-flow-1-extra', amount: '20.00', currency: 'KES'})
    expect(json(ok(status))).toMatchObject({status: 'succeeded', merchant_reference: 'md-flow-1-dec'})
    expect(kv(ok(statusHuman)).State).toBe('succeeded')
    const s = h.requests((e) => e.path === '/v1/mandate_debits/status')
    expect(s.length).toBeGreaterThanOrEqual(2)
    expect(s.map((e) => e.query)).toContainEqual({mandate_id: mandateId, merchant_reference: 'md-flow-1-dec'})
    expect(s.at(-1)!.query).toEqual({mandate_id: mandateId, merchant_reference: 'md-flow-1-dec'})
    expect(s.at(-1)!.method).toBe('GET')

    const cancel = await h.run(['mandates', 'cancel', mandateId, '--mobile', '254712340001', '--reason', 'Customer asked to stop', '--json'])
    expect(json(ok(cancel))).toMatchObject({object: 'mandate_cancellation', mandate_id: mandateId})
    const c = only(h.requests((e) => e.path === `/v1/mandates/${mandateId}/cancel`), 'cancel')
    expect([c.method, c.query]).toEqual(['POST', {}])
    expectServiceHeaders(c)
    expect(c.body).toEqual({mobile: '254712340001', reason: 'Customer asked to stop'})

    const after = await h.run(['mandates', 'get', '--reference', 'md-flow-1', '--wait', '--wait-timeout', '20'])
    expect(after.code, after.stderr).toBe(8)
    expect(kv(after).State).toBe('cancelled')
    expect(after.stderr).toMatch(/ended cancelled/)
  })

  it('a mandate awaiting approval: human create view says what is next; a second create is a 409 (exit 5); --wait times out (exit 9)', async () => {
    const args = ['mandates', 'create', '--mobile', '254712340008', '--provider', 'mpesa', '--currency', 'KES', '--amount', '400', '--frequency', 'WEEKLY', '--starts-at', '2026-12-07T08:00:00+03:00']
    const first = await h.run([...args, '--reference', 'md-hold-1'])
    const v = kv(ok(first))
    expect(v).toMatchObject({State: 'processing', 'Merchant reference': 'md-hold-1'})
    expect(v.Next).toContain('pay mandates get --reference md-hold-1 --wait')
    const [second, waited] = await Promise.all([
      h.run([...args, '--reference', 'md-hold-2', '--json']),
      h.run(['mandates', 'get', '--reference', 'md-hold-1', '--wait', '--wait-timeout', '1', '--json']),
    ])
    expect(second.code).toBe(5)
    expect(json(second).status).toBe(409)
    expect(waited.code).toBe(9)
    const pending = json(waited)
    expect(pending.status).toBe('processing')

    // the same mandate cancelled, human view; and a create with --json
    const [cancel, created] = await Promise.all([
      h.run(['mandates', 'cancel', String(pending.mandate_id), '--mobile', '254712340008', '--reason', 'Duplicate']),
      h.run(['mandates', 'create', '--mobile', '254712340002', '--provider', 'mpesa', '--currency', 'KES', '--amount', '50', '--frequency', 'DAILY', '--starts-at', '2026-12-01T00:00:00+03:00', '--reference', 'md-json-1', '--json']),
    ])
    expect(kv(ok(cancel))).toMatchObject({Kind: 'Mandate cancellation', 'Mandate ID': String(pending.mandate_id)})
    expect(json(ok(created))).toMatchObject({object: 'mandate', merchant_reference: 'md-json-1', status: expect.stringMatching(/processing|succeeded/)})
  })
})
