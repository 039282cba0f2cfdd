/**
 * pay find against the sandbox, in-process (runFind with a real client; the journal in the test's config dir): by
 * each id prefix, by reference for each kind, by pay-page URL, a reference two kinds carry, not found; and the
 * built CLI once for its exit code.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {runFind} from '../../src/find/find.js'
import {HistoryWriter, historyDir} from '../../src/webhooks/history.js'
import {parseQuery} from '../../src/find/query.js'
import {json} from '../helpers/cli.js'
import {runWithContext} from '../helpers/in-process.js'
import {ok, useSandbox} from '../helpers/command-harness.js'
import {scriptedEnv, useScriptedServer} from '../helpers/scripted-server.js'

const h = useSandbox()

/** What `pay find --json` prints, as a script reads it: the output is the contract, not src/find/find.ts's types. */
interface FindResult {
  query: string
  looked_up_as: string
  matches: Record<string, unknown>[]
  timeline: Record<string, unknown>[]
  tried: Record<string, unknown>[]
  webhooks: {history: boolean; note: string}
}

const find = (query: string, extra: {mandate?: string[]; reference?: boolean; json?: boolean} = {}) =>
  runWithContext((ctx) => runFind(ctx, {query, mandate: extra.mandate, reference: extra.reference, env: h.env}), {env: {...h.env, NO_COLOR: '1'}, json: extra.json ?? true})
const found = async (query: string, extra: {mandate?: string[]} = {}): Promise<FindResult> => json<FindResult>(ok(await find(query, extra)))

const collection = (ref: string, mobile = '254712345670') => h.run(['collections', 'create', '--amount', '100.00', '--currency', 'KES', '--reference', ref, '--mobile', mobile, '--provider', 'mpesa', '--json'])
const payout = (ref: string) => h.run(['payouts', 'create', '--amount', '50.00', '--currency', 'KES', '--reference', ref, '--mobile', '254712345670', '--provider', 'mpesa', '--json'])
const checkout = (ref: string) =>
  h.run(['checkout', 'create', '--amount', '75.00', '--currency', 'KES', '--reference', ref, '--success-url', 'https://shop.example/ok', '--cancel-url', 'https://shop.example/no', '--json'])
const subscription = (ref: string, mobile: string) =>
  h.run(['subscriptions', 'create', '--plan', 'PLN_ACMESILVER', '--reference', ref, '--customer-name', 'Jane Wanjiku', '--customer-email', 'jane@example.com', '--mobile', mobile, '--provider', 'mpesa', '--json'])

describe('the query', () => {
  it('is a pay-page URL, an id by its prefix, or else a merchant reference', () => {
    expect(parseQuery('https://pay.example.com/pay/CS_ABC123')).toMatchObject({type: 'url', id: 'CS_ABC123', kind: {name: 'checkout_session'}})
    expect(parseQuery('CL_ABC')).toMatchObject({type: 'id', kind: {name: 'collection'}})
    expect(parseQuery('PO_ABC')).toMatchObject({type: 'id', kind: {name: 'payout'}})
    expect(parseQuery('MD_ABC')).toMatchObject({type: 'id', kind: {name: 'mandate'}})
    expect(parseQuery('SUB_ABC')).toMatchObject({type: 'id', kind: {name: 'subscription'}})
    expect(parseQuery('MC_ABC')).toMatchObject({type: 'id', other: 'customer'})
    expect(parseQuery('PLN_ABC')).toMatchObject({type: 'id', other: 'plan'})
    expect(parseQuery('MAC_ABC')).toMatchObject({type: 'id', other: 'account'})
    expect(parseQuery('CL_ABC', true)).toMatchObject({type: 'reference', reference: 'CL_ABC'})
    expect(parseQuery('CL_order 42')).toMatchObject({type: 'reference'})
    expect(parseQuery('order-42')).toMatchObject({type: 'reference', reference: 'order-42'})
    expect(() => parseQuery('https://shop.example/cart')).toThrow(/not a pay page/)
    expect(() => parseQuery('..')).toThrow(/QUERY as a merchant reference must not be/)
    expect(() => parseQuery(' ')).toThrow(/QUERY must not be empty/)
  })
})

describe('pay find', () => {
  it('by reference, for each kind; and by each id prefix', async () => {
    const [c, p, s, sub] = await Promise.all([collection('find-col-1'), payout('find-po-1'), checkout('find-cs-1'), subscription('find-sub-1', '254712349001')])
    const [col, po, cs, su] = [json(ok(c)), json(ok(p)), json(ok(s)), json(ok(sub))]
    const mandate = await h.run(['mandates', 'create', '--mobile', '254712349002', '--provider', 'mpesa', '--currency', 'KES', '--amount', '300.00', '--frequency', 'MONTHLY', '--starts-at', '2026-12-01T09:00:00Z', '--reference', 'find-md-1', '--wait', '--wait-timeout', '20', '--json'])
    const md = json(ok(mandate))
    const mandateId = String(json(ok(await h.run(['mandates', 'get', '--reference', 'find-md-1', '--json']))).mandate_id)
    ok(await h.run(['debits', 'create', mandateId, '--amount', '120.00', '--currency', 'KES', '--reference', 'find-db-1', '--provider', 'mpesa', '--json']))
    expect(md.merchant_reference).toBe('find-md-1')

    const byRef = await Promise.all(['find-col-1', 'find-po-1', 'find-cs-1', 'find-md-1', 'find-db-1'].map((r) => found(r)))
    expect(byRef.map((r) => r.matches.map((m) => [m.kind, m.merchant_reference]))).toEqual([
      [['collection', 'find-col-1']],
      [['payout', 'find-po-1']],
      [['checkout_session', 'find-cs-1']],
      [['mandate', 'find-md-1']],
      [['debit', 'find-db-1']],
    ])
    expect(byRef[0].matches[0]).toMatchObject({id: col.id, amount: '100.00', currency: 'KES', found_by: '/v1/collections?merchant_reference=find-col-1'.replace(/^/, 'GET ')})
    expect(byRef[1].matches[0]).toMatchObject({id: po.id, amount: '50.00', label: `payout ${po.id}`})
    expect(byRef[2].matches[0]).toMatchObject({id: cs.id, label: `checkout session ${cs.id}`})
    expect(byRef[3].matches[0]).toMatchObject({id: mandateId, state: 'succeeded', amount: '300.00'})
    expect(byRef[4].matches[0]).toMatchObject({amount: '120.00', currency: 'KES'})
    // the debit's mandate came from the journal (the debit this machine created under it)
    expect(byRef[4].tried).toContainEqual(expect.objectContaining({lookup: `debit of mandate ${mandateId} by reference`, result: 'found'}))
    // a subscription carries its reference, and so does the mandate its enrolment started: two kinds, each labelled
    const subs = await found('find-sub-1')
    expect(subs.matches.map((m) => m.kind).sort()).toEqual(['mandate', 'subscription'])
    expect(subs.matches.find((m) => m.kind === 'subscription')).toMatchObject({id: su.subscription_id, label: `subscription ${su.subscription_id}`})

    // by id: CL_ and CS_ by the id lookups; PO_, SUB_, MD_ through the references this machine journaled, with the
    // objects that name the id (a subscription's mandate, a mandate's debits and subscription)
    const byId = await Promise.all([col.id, cs.id, po.id, su.subscription_id, mandateId, su.mandate_id].map((id) => found(String(id))))
    expect(byId.map((r) => [r.looked_up_as, r.matches.map((m) => m.kind).sort()])).toEqual([
      ['id', ['collection']],
      ['id', ['checkout_session']],
      ['id', ['payout']],
      ['id', ['mandate', 'subscription']],
      ['id', ['debit', 'mandate']],
      ['id', ['mandate', 'subscription']],
    ])
    expect(byId[0].matches[0].found_by).toBe(`GET /v1/collections/${col.id}`)
    expect(byId[2].matches[0]).toMatchObject({id: po.id, found_by: 'GET /v1/payouts/find-po-1'})

    // the other prefixes: a customer, a plan, the merchant account
    const acme = h.sb.seed.merchants.find((m) => m.key === 'acme')!
    const customerId = Object.values(h.sb.state.customers).find((x) => x.merchant_id === acme.id)!.id
    const account = json(ok(await h.run(['account', '--json']))) as {account: {id: string}}
    const [customer, plan, acct] = await Promise.all([found(customerId), found('PLN_ACMEGOLD'), found(account.account.id)])
    expect(customer.matches[0]).toMatchObject({kind: 'customer', id: customerId, found_by: `GET /v1/customers/${customerId}`})
    expect(plan.matches[0]).toMatchObject({kind: 'plan', id: 'PLN_ACMEGOLD', amount: '1500.00', currency: 'KES'})
    expect(acct.matches[0]).toMatchObject({kind: 'account', id: account.account.id})
  })

  it('by pay-page URL; a reference two kinds carry, both shown and labelled, with their journal entries on one timeline', async () => {
    const cs = json(ok(await checkout('find-url-1')))
    const byUrl = await found(String(cs.url))
    expect(byUrl).toMatchObject({looked_up_as: 'pay-page URL', matches: [{kind: 'checkout_session', id: cs.id, state: 'processing'}]})

    const [c, p] = await Promise.all([collection('find-two-1'), payout('find-two-1')])
    const [col, po] = [json(ok(c)), json(ok(p))]
    const r = await found('find-two-1')
    expect(r.matches.map((m) => m.label).sort()).toEqual([`collection ${col.id}`, `payout ${po.id}`].sort())
    const journal = r.timeline.filter((t) => t.source === 'journal')
    expect(journal.map((t) => [t.match, t.event, t.outcome, t.status]).sort()).toEqual(
      [
        [`collection ${col.id}`, 'POST collections.create', 'accepted', 201],
        [`payout ${po.id}`, 'POST payouts.create', 'accepted', 201],
      ].sort(),
    )
    expect(journal.every((t) => /^[0-9a-f-]{36}$/.test(String(t.idempotency_key)))).toBe(true)
    expect(r.timeline.filter((t) => t.source === 'service').map((t) => t.match).sort()).toEqual(r.matches.map((m) => m.label).sort())
    // oldest first: the requests before what the service says now
    expect(r.timeline.at(-1)!.source).toBe('service')
    expect(r.webhooks).toMatchObject({history: false, note: expect.stringMatching(/no local webhook history/)})

    // for people: a table per match and the timeline, labels in it
    const human = ok(await find('find-two-1', {json: false}))
    expect(human.stderr).toMatch(/2 matches for "find-two-1" \(as a merchant reference\)/)
    expect(human.stdout).toContain(`collection ${col.id}`)
    expect(human.stdout).toContain(`payout ${po.id}`)
    expect(human.stdout).toMatch(/journal\tcollection CL_\w+\tPOST collections.create\taccepted\t201/)
  })

  it('not found: exit 4, naming every lookup tried; an id of a kind without a lookup by id says why', async () => {
    const r = await find('find-nothing-1', {json: false})
    expect(r.code).toBe(4)
    for (const path of ['/v1/collections?merchant_reference=find-nothing-1', '/v1/payouts/find-nothing-1', '/v1/transactions/verify/find-nothing-1', '/v1/mandates?merchant_reference=find-nothing-1', '/v1/subscriptions?merchant_reference=find-nothing-1']) {
      expect(r.stderr).toContain(`(GET ${path}): not found`)
    }
    expect(r.stderr).toMatch(/debit by reference: not asked: a debit is looked up with its mandate id/)
    const asJson = await find('find-nothing-1')
    expect(asJson.code).toBe(4)
    expect(json(asJson).error.message).toMatch(/^nothing found for "find-nothing-1"/)

    const po = await find('PO_NOSUCHPAYOUT0000000', {json: false})
    expect(po.code).toBe(4)
    expect(po.stderr).toMatch(/payout by id: not asked: the interface looks a payout up by merchant reference only/)
    const cl = await find('CL_NOSUCHCOLLECTION0000', {json: false})
    expect(cl.code).toBe(4)
    expect(cl.stderr).toContain('collection by id (GET /v1/collections/CL_NOSUCHCOLLECTION0000): not found')
  })

  it('a reference created by a bulk run: found, and the timeline holds what `pay journal` holds for it', async () => {
    const file = join(h.env.PAY_CONFIG_DIR, 'find-bulk.csv')
    writeFileSync(file, 'reference,amount,mobile,provider\nfind-bulk-1,12.00,254712345671,mpesa\nfind-bulk-2,13.00,254712345671,mpesa\n')
    ok(await h.command(['collections', 'create', '--from-file', file, '--currency', 'KES']))
    const r = await found('find-bulk-1')
    expect(r.matches).toMatchObject([{kind: 'collection', merchant_reference: 'find-bulk-1', amount: '12.00'}])
    // the journal as `pay journal` reads it (the one read function): its entries for the reference are the timeline's
    const journal = json<{reference: string | null; idempotency_key: string}[]>(ok(await h.command(['journal', '--json', '--limit', '1000'])))
    const keys = journal.filter((e) => e.reference === 'find-bulk-1').map((e) => e.idempotency_key)
    expect(keys).toHaveLength(1) // the bulk row, now in the journal pay journal reads (issue 22)
    expect(r.timeline.filter((t) => t.source === 'journal').map((t) => t.idempotency_key).sort()).toEqual(keys.sort())
    expect(r.timeline.filter((t) => t.source === 'journal').every((t) => t.match === r.matches[0].label)).toBe(true)
  })

  it('two payouts under one reference (the second --force-new): both shown, each request labelled with its own, the first found by its id as last seen', async () => {
    const send = (mobile: string, ...extra: string[]) => h.run(['payouts', 'create', '--amount', '12.00', '--currency', 'KES', '--reference', 'find-two-po', '--mobile', mobile, '--provider', 'mpesa', '--json', ...extra])
    const first = json(ok(await send('254712345671')))
    const second = json(ok(await send('254712345672', '--force-new')))
    const r = await found('find-two-po')
    // the service's lookup by reference answers the newest; the first is the journal's, never dropped nor called absent
    expect(r.matches.map((m) => [m.id, m.source])).toEqual([[second.id, 'service'], [first.id, 'journal']])
    expect(r.matches[1]).toMatchObject({label: `payout ${first.id}`, state: 'processing', amount: '12.00', currency: 'KES'})
    expect(r.matches[1].found_by).toContain(`the lookup by reference answers payout ${second.id}`)
    expect(r.matches[1].state_at).toEqual(expect.any(String))
    const requests = r.timeline.filter((t) => t.event === 'POST payouts.create')
    expect(requests.map((t) => [t.id, t.match])).toEqual([[first.id, `payout ${first.id}`], [second.id, `payout ${second.id}`]])
    // by the first one's id: found (exit 0), as the journal last saw it, with the request that made it
    const byId = await find(String(first.id))
    const result = json<FindResult>(ok(byId))
    expect(result.matches).toMatchObject([{id: first.id, source: 'journal', state: 'processing'}])
    expect(result.timeline.filter((t) => t.event === 'POST payouts.create').map((t) => [t.id, t.match])).toEqual([[first.id, `payout ${first.id}`], [second.id, null]])
    expect(byId.stderr).toContain(`payout ${first.id}: shown as this machine last saw it`)
  })

  it('a debit sent as a --from-file row (the journal keeps no URL for it): looked up under the mandates this machine knows', async () => {
    ok(await h.run(['mandates', 'create', '--mobile', '254712349012', '--provider', 'mpesa', '--currency', 'KES', '--amount', '300.00', '--frequency', 'MONTHLY', '--starts-at', '2026-12-01T09:00:00Z', '--reference', 'find-bulk-md', '--wait', '--wait-timeout', '20', '--json']))
    const mandateId = String(json(ok(await h.run(['mandates', 'get', '--reference', 'find-bulk-md', '--json']))).mandate_id)
    const file = join(h.env.PAY_CONFIG_DIR, 'find-debits.csv')
    writeFileSync(file, `mandate_id,amount,currency,reference,provider\n${mandateId},10.00,KES,find-bulk-db,mpesa\n`)
    ok(await h.command(['debits', 'create', '--from-file', file, '--yes']))
    const r = await found('find-bulk-db')
    expect(r.matches).toMatchObject([{kind: 'debit', source: 'service', merchant_reference: 'find-bulk-db', amount: '10.00'}])
    expect(String(r.matches[0].found_by)).toContain(`mandate_id=${mandateId}`)
    expect(r.timeline.filter((t) => t.source === 'journal').every((t) => t.match === r.matches[0].label)).toBe(true)
  })

  it("another merchant's (or service's) requests with the same reference are not on this profile's timeline: one line says how many were left out", async () => {
    const mine = json(ok(await collection('find-other-1')))
    const globex = {PAY_CLIENT_ID: 'sb_globex_client', PAY_CLIENT_SECRET: 'sb_globex_secret_7d2b9e4a1c6f', PAY_ACCOUNT_REF: 'globex-east'}
    // a reference is one promise per service, whatever the client: another merchant's sends it on purpose
    const theirs = json(ok(await h.run(['collections', 'create', '--amount', '77.00', '--currency', 'KES', '--reference', 'find-other-1', '--mobile', '254712345670', '--provider', 'mpesa', '--json', '--force-new'], globex)))
    const r = await find('find-other-1')
    const result = json<FindResult>(ok(r))
    const journal = result.timeline.filter((t) => t.source === 'journal')
    expect(journal.map((t) => t.id)).toEqual([mine.id])
    expect(JSON.stringify(result)).not.toContain(String(theirs.id))
    expect(r.stderr).toContain('1 journal entry for "find-other-1" belongs to another client id, sub-account or service than this profile\'s')
    // as globex: its own only, and acme's counted
    const asGlobex = await runWithContext((ctx) => runFind(ctx, {query: 'find-other-1', env: h.env}), {env: {...h.env, ...globex, NO_COLOR: '1'}, json: true})
    expect(json<FindResult>(ok(asGlobex)).timeline.filter((t) => t.source === 'journal').map((t) => t.id)).toEqual([theirs.id])
    expect(asGlobex.stderr).toContain('1 journal entry')
    // none left out: no line
    ok(await collection('find-other-2'))
    expect((await find('find-other-2')).stderr).not.toContain('left out')
  })

  it('the built CLI: exit 0 and JSON on stdout; exit 4 with the error envelope', async () => {
    ok(await collection('find-cli-1'))
    const yes = await h.command(['find', 'find-cli-1', '--json'])
    expect(json(ok(yes)).matches[0]).toMatchObject({kind: 'collection', merchant_reference: 'find-cli-1'})
    const no = await h.command(['find', 'find-cli-none', '--json'])
    expect(no.code).toBe(4)
    expect(json(no).error.message).toMatch(/nothing found/)
  })

  it('webhook deliveries of the local history are on the timeline of the reference they carry, labelled', async () => {
    const col = json(ok(await collection('find-wh-1')))
    const w = new HistoryWriter(historyDir(h.env), {sync: 'none'})
    expect(w.open()).toBe(true)
    w.delivery({event_id: 'EVT_FINDWH000000000000000001', type: 'collection.succeeded', reference: 'find-wh-1', verdict: 'accepted', status: 200, verified: true}, [], Buffer.from('{}'))
    w.delivery({event_id: 'EVT_FINDWH000000000000000001', type: 'collection.succeeded', reference: 'find-wh-1', verdict: 'duplicate', status: 200, verified: true}, [], Buffer.from('{}'))
    w.delivery({event_id: 'EVT_FINDWH000000000000000002', type: 'collection.succeeded', reference: 'find-wh-other', verdict: 'accepted', status: 200, verified: true}, [], Buffer.from('{}'))
    await w.close()
    const r = await found('find-wh-1')
    expect(r.webhooks.history).toBe(true)
    expect(r.timeline.filter((t) => t.source === 'webhook').map((t) => [t.event, t.outcome, t.id, t.match])).toEqual([
      ['collection.succeeded', 'accepted', 'EVT_FINDWH000000000000000001', `collection ${col.id}`],
      ['collection.succeeded', 'duplicate', 'EVT_FINDWH000000000000000001', `collection ${col.id}`],
    ])
    expect(r.timeline.map((t) => t.source)).toEqual(['journal', 'webhook', 'webhook', 'service'])
  })
})

describe('a lookup that fails', () => {
  const server = useScriptedServer()

  it("is said after what was found, the service's message made printable", async () => {
    const hostile = 'boom \u001B]0;PWNED\u0007\u001B[2J\u001B[31mred'
    server.script('GET /v1/collections', {status: 200, body: {id: 'CL_F1', object: 'collection', status: 'succeeded', currency: 'KES', amount: '10.00', merchant_reference: 'fz-1'}})
    server.script('GET /v1/payouts/fz-1', {status: 500, body: {error: {code: 'internal_error', message: hostile, request_id: 'REQ_FAKE1'}}})
    const env = {...scriptedEnv(server), NO_COLOR: '1'}
    const r = await runWithContext((ctx) => runFind(ctx, {query: 'fz-1', env}), {env, flags: {retries: 0}})
    expect(r.stdout).toContain('CL_F1')
    expect(r.stderr).toContain('error: not every lookup answered, so this may not be everything: boom \\u001b]0;PWNED\\u0007\\u001b[2J\\u001b[31mred')
    expect(r.stderr).not.toContain('\u001B')
    expect(r.code).not.toBe(0)
  })

  it("a gateway's HTML 404 (not the service's not_found) is a failed lookup, never \"nothing found\" (exit 7, not 4)", async () => {
    const page = {handle: (_req: unknown, res: import('node:http').ServerResponse) => res.writeHead(404, {'content-type': 'text/html'}).end('<html><body><h1>404 Not Found</h1><hr>nginx</body></html>')}
    // the collections route is one the gateway lacks; every other lookup is the service's own not_found
    server.script('GET /v1/collections', page)
    const env = {...scriptedEnv(server), NO_COLOR: '1'}
    const r = await runWithContext((ctx) => runFind(ctx, {query: 'gw-1', env}), {env, flags: {retries: 0}, json: true})
    expect(r.code, r.stderr).toBe(7)
    expect(r.stderr).not.toMatch(/nothing found/)
    expect(r.stderr).toMatch(/404 Not Found/)
  })
})
