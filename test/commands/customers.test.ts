/**
 * pay customers get|collections (one page, --all streaming through every page), in-process against the sandbox (test/helpers/command-harness.ts). Each case checks the human
 * and --json output and, through the sandbox's request log, the exact method, path, query, headers and body sent.
 */
import {describe, expect, it} from 'vitest'
import {json} from '../helpers/cli.js'
import {expectServiceHeaders, kv, ok, only, rows, useSandbox} from '../helpers/command-harness.js'

const h = useSandbox()

describe('pay customers', () => {
  it('get: human and --json, GET /v1/customers/{id}', async () => {
    const [human, asJson] = await Promise.all([h.pay(['customers', 'get', 'MC_ACME0001']), h.pay(['customers', 'get', 'MC_ACME0001', '--json'])])
    expect(kv(ok(human))).toMatchObject({Kind: 'Customer', ID: 'MC_ACME0001', Name: 'Jane Wanjiku', Email: 'jane@example.com', Mobile: '254712345678', 'Merchant reference': 'cust-jane'})
    expect(json(ok(asJson))).toMatchObject({id: 'MC_ACME0001', object: 'customer', name: 'Jane Wanjiku'})
    const sent = h.requests((e) => e.path === '/v1/customers/MC_ACME0001')
    expect(sent).toHaveLength(2)
    expect([sent[0].method, sent[0].query]).toEqual(['GET', {}])
    expectServiceHeaders(sent[0])
  })

  it('sends X-Service-Account-Ref when the merchant has sub-accounts and a ref is configured', async () => {
    const globex = h.sb.seed.merchants.find((m) => m.key === 'globex')!
    const r = await h.run(['customers', 'get', 'MC_GLOBEX0001', '--json'], {PAY_CLIENT_ID: globex.clients[0].client_id, PAY_CLIENT_SECRET: globex.clients[0].client_secret, PAY_ACCOUNT_REF: globex.account_refs[0]})
    expect(json(ok(r))).toMatchObject({id: 'MC_GLOBEX0001', object: 'customer'})
    const sent = only(h.sb.requests.filter((e) => e.path === '/v1/customers/MC_GLOBEX0001'), 'globex customer')
    expect(sent.headers['x-service-account-ref']).toBe(globex.account_refs[0])
  })

  it('collections: one page with the total; --all follows page + per_page to the end and streams every row', async () => {
    const [page, all, allJson] = await Promise.all([
      h.run(['customers', 'collections', 'MC_ACME0001', '--per-page', '5', '--page', '2']),
      h.run(['customers', 'collections', 'MC_ACME0001', '--all', '--per-page', '10']),
      h.run(['customers', 'collections', 'MC_ACME0002', '--all', '--per-page', '2', '--json']),
    ])
    const one = rows(ok(page))
    expect(one).toHaveLength(5)
    expect(one[0]).toMatchObject({status: 'succeeded', amount: '250.00', currency: 'KES'})
    expect(page.stdout).toMatch(/5 of 47 \(more: --all or --page\)/)
    const single = only(h.requests((e) => e.path === '/v1/customers/MC_ACME0001/collections' && e.query.per_page === '5'), 'one page')
    expect([single.method, single.query]).toEqual(['GET', {per_page: '5', page: '2'}])
    expectServiceHeaders(single)

    const every = rows(ok(all))
    expect(every).toHaveLength(47)
    expect(new Set(every.map((r) => r.id)).size).toBe(47)
    expect(all.stderr).toMatch(/47 collection\(s\) of 47/)
    const pages = h.requests((e) => e.path === '/v1/customers/MC_ACME0001/collections' && e.query.per_page === '10')
    expect(pages.map((e) => e.query)).toEqual([1, 2, 3, 4, 5].map((n) => ({per_page: '10', page: String(n)})))

    const lines = ok(allJson).stdout.trim().split('\n')
    expect(lines).toHaveLength(2)
    const bodies = lines.map((l) => JSON.parse(l))
    expect(bodies[0]).toMatchObject({object: 'list', customer_id: 'MC_ACME0002', has_more: true, total: 3})
    expect(bodies[1].has_more).toBe(false)
    expect(bodies.flatMap((b) => b.data)).toHaveLength(3)
  })
})
