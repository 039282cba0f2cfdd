/**
 * `pay api` in-process (src/operation/raw-request.ts: runApi, through its command class) against the sandbox:
 * --paginate across all 47 of the seeded customer's collections (streamed items, one merged array with --slurp, --jq
 * per page), -i, -H, --dry-run, the body as sent (verbatim under --json), and the flags it refuses together. On a
 * terminal: test/output/printable.terminal.test.ts; the input rules of PATH, -H, -F: test/api/validate.hostile.test.ts.
 */
import {describe, expect, it} from 'vitest'
import {json, tempConfigDir} from '../helpers/cli.js'
import {keysSent, useSandbox} from '../helpers/command-harness.js'
import {GLOBEX} from '../../src/sandbox/seed.js'
import {waitFor} from '../helpers/wait-for.js'

const h = useSandbox()
const COLLECTIONS = '/v1/customers/MC_ACME0001/collections?per_page=10'

describe('pay api --paginate', () => {
  it('follows the pages: 47 collections, one per line; --slurp gives one array; --jq runs per page', async () => {
    const lines = await h.command(['api', 'GET', COLLECTIONS, '--paginate'])
    expect(lines.code, lines.stderr).toBe(0)
    const items = lines.stdout.trim().split('\n').map((l) => JSON.parse(l) as {id: string})
    expect(items).toHaveLength(47)
    expect(new Set(items.map((i) => i.id)).size).toBe(47)
    expect(h.requests((e) => e.path === '/v1/customers/MC_ACME0001/collections' && e.query?.per_page === '10').length).toBeGreaterThanOrEqual(5)
    const slurp = await h.command(['api', 'GET', COLLECTIONS, '--paginate', '--slurp'])
    expect((JSON.parse(slurp.stdout) as unknown[]).map((i) => (i as {id: string}).id)).toEqual(items.map((i) => i.id))
    const csv = await h.command(['api', 'GET', COLLECTIONS, '--paginate', '-o', 'csv', '--fields', 'id,amount'])
    expect(csv.stdout.trim().split('\r\n')).toHaveLength(48)
    const bad = await h.command(['api', 'POST', '/v1/collections', '--paginate'])
    expect(bad.code).toBe(2)
    expect((await h.command(['api', 'GET', COLLECTIONS, '--paginate', '--slurp', '--jq', '.'])).code).toBe(2)
  })

  it('cuts the path where the request is cut: a #fragment is dropped, never read as part of the query', async () => {
    // before: `#x?per_page=10` kept the page parameter behind the fragment, page 1 came back forever
    const since = h.sb.requests.length
    const frag = await h.command(['api', 'GET', '/v1/customers/MC_ACME0001/collections#x?per_page=10', '--paginate'])
    expect(frag.code, frag.stderr).toBe(0)
    const ids = frag.stdout.trim().split('\n').map((l) => (JSON.parse(l) as {id: string}).id)
    expect(new Set(ids).size).toBe(47)
    const pages = h.sb.requests.slice(since).filter((e) => e.path === '/v1/customers/MC_ACME0001/collections')
    expect(pages.map((e) => e.query)).toEqual(pages.map((_, i) => ({page: String(i + 1)})))
    expect(pages.length).toBeLessThan(10)
    // the query before a fragment is sent as without --paginate
    const before = h.sb.requests.length
    const ref = await h.command(['api', 'GET', '/v1/customers/MC_ACME0001/collections?merchant_reference=a#b', '--paginate'])
    expect(ref.code, ref.stderr).toBe(0)
    const sent = h.sb.requests.slice(before).filter((e) => e.path === '/v1/customers/MC_ACME0001/collections')
    expect(sent.map((e) => e.query?.merchant_reference)).toEqual(sent.map(() => 'a'))
    expect(sent.length).toBeGreaterThan(0)
  })
})

describe('pay api', () => {
  it('prints the body pretty for people and verbatim under --json; -i puts the status and headers on stderr; -H is sent', async () => {
    const pretty = await h.command(['api', 'GET', '/v1/customers/MC_ACME0001', '-i', '-H', 'X-Trace: t-1'])
    expect(pretty.code, pretty.stderr).toBe(0)
    expect(pretty.stdout).toMatch(/^\{\n {2}"/)
    expect(JSON.parse(pretty.stdout)).toMatchObject({id: 'MC_ACME0001'})
    expect(pretty.stderr).toMatch(/^HTTP 200\n(.+: .+\n)*content-type: application\/json/m)
    const sent = h.requests((e) => e.path === '/v1/customers/MC_ACME0001').at(-1)!
    expect(sent.headers['x-trace']).toBe('t-1')
    const verbatim = await h.command(['api', 'GET', '/v1/customers/MC_ACME0001', '--json'])
    expect(verbatim.stdout).not.toMatch(/^\{\n/)
    expect(json(verbatim)).toEqual(JSON.parse(pretty.stdout))
  })

  it('--dry-run prints the request and sends nothing; an error answer keeps its exit code, -i shows its status', async () => {
    const before = h.requests().length
    const dry = await h.command(['api', 'POST', '/v1/collections', '-F', 'amount=10.00', '-F', 'currency=KES', '--idempotency-key', 'raw-dry-1', '--dry-run'])
    expect(dry.code, dry.stderr).toBe(0)
    expect(dry.stdout).toMatch(/POST .*\/v1\/collections/)
    expect(dry.stdout).toContain('raw-dry-1')
    expect(dry.stdout).toContain('"amount":"10.00"')
    expect(h.requests().length).toBe(before)
    const missing = await h.command(['api', 'GET', '/v1/customers/MC_NOPE', '-i'])
    expect(missing.code).toBe(4)
    expect(missing.stderr).toMatch(/^HTTP 404/m)
  })

  it('a re-run of an accepted create that failed since: looked up (one GET, nothing sent), "state now: failed", the resource as it is now', async () => {
    const env = {PAY_CONFIG_DIR: tempConfigDir()}
    const data = JSON.stringify({amount: '12.00', currency: 'KES', merchant_reference: 'raw-since-1', mobile: '254700000409', provider: 'mpesa'})
    const first = await h.command(['api', 'POST', '/v1/payouts', '--data', data, '--json'], env)
    expect(first.code, first.stderr).toBe(0)
    const {id} = json<{id: string; status: string}>(first)
    expect(json<{status: string}>(first).status).toBe('processing')
    await waitFor(() => h.sb.state.payouts[id]?.status === 'failed', 10_000, 'the sandbox settles it (failed, for this number)')
    const before = h.requests().length
    const again = await h.command(['api', 'POST', '/v1/payouts', '--data', data, '--json'], env)
    expect(again.code, again.stderr).toBe(0) // pay api prints the answer, whatever its state (as for a create answered failed)
    expect(again.stderr).toContain('already sent')
    expect(again.stderr).toMatch(new RegExp(`accepted \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC as ${id}; state now: failed`))
    expect(json<{id: string; status: string}>(again)).toMatchObject({id, status: 'failed'})
    expect(h.requests().slice(before).map((e) => `${e.method} ${e.path}`)).toEqual(['GET /v1/payouts/raw-since-1'])
  })

  it("a resumed key's answer (maybe the service's first one, replayed) of a payout that failed since: looked up, \"state now: failed\"", async () => {
    const env = {PAY_CONFIG_DIR: tempConfigDir()}
    const data = JSON.stringify({amount: '12.00', currency: 'KES', merchant_reference: 'raw-resumed-1', mobile: '254700000409', provider: 'mpesa'})
    expect((await fetch(`${h.sb.url}/_sandbox/faults`, {method: 'PUT', headers: {'content-type': 'application/json'}, body: JSON.stringify({drop_next: 1})})).status).toBe(200)
    const first = await h.command(['api', 'POST', '/v1/payouts', '--data', data, '--retries', '0', '--json'], env)
    expect(first.code, first.stderr).toBe(7)
    const id = Object.values(h.sb.state.payouts).find((p) => p.merchant_reference === 'raw-resumed-1')!.id
    await waitFor(() => h.sb.state.payouts[id]?.status === 'failed', 10_000, 'the sandbox settles it (failed, for this number)')
    const before = h.requests().length
    const again = await h.command(['api', 'POST', '/v1/payouts', '--data', data, '--json'], env)
    expect(again.code, again.stderr).toBe(0)
    expect(again.stderr).toMatch(new RegExp(`accepted as ${id} \\(its key was first sent .*replayed\\); state now: failed`))
    expect(json<{id: string; status: string}>(again)).toMatchObject({id, status: 'failed'})
    expect(h.requests().slice(before).map((e) => `${e.method} ${e.path}`)).toEqual(['POST /v1/payouts', 'GET /v1/payouts/raw-resumed-1'])
  })

  it('sends --data and -F key:=json numbers as written (a JS number would round them), and knows it again in another key order', async () => {
    const data = '{"amount":"10.00","currency":"KES","merchant_reference":"raw-num-1","mobile":"254712345670","provider":"mpesa","metadata":{"order_total":12345678901234567890,"rate":1.50}}'
    const dry = await h.command(['api', 'POST', '/v1/collections', '--data', data, '-F', 'metadata.big:=98765432109876543210', '--dry-run'])
    expect(dry.code, dry.stderr).toBe(0)
    expect(dry.stdout).toContain('"metadata":{"order_total":12345678901234567890,"rate":1.50,"big":98765432109876543210}')
    const sent = await h.command(['api', 'POST', '/v1/collections', '--data', data, '--json'])
    expect(sent.code, sent.stderr).toBe(0)
    // the same request, its keys in another order: the journal's answer, nothing sent
    const before = h.requests().length
    const reordered = '{"metadata":{"rate":1.50,"order_total":12345678901234567890},"provider":"mpesa","mobile":"254712345670","merchant_reference":"raw-num-1","currency":"KES","amount":"10.00"}'
    const again = await h.command(['api', 'POST', '/v1/collections', '--data', reordered, '--json'])
    expect(again.code, again.stderr).toBe(0)
    expect(again.stderr).toContain('already sent')
    // nothing sent: at most the lookup of its state now (a GET: it had not ended when it was accepted)
    expect(h.requests().slice(before).filter((e) => e.method !== 'GET')).toEqual([])
    // another number that one double would read as the same: another request, refused for its reference (exit 5)
    const other = await h.command(['api', 'POST', '/v1/collections', '--data', data.replace('67890,', '67891,'), '--json'])
    expect(other.code, other.stderr).toBe(5)
  })
})

describe('pay api -H X-Service-Account-Ref', () => {
  const globex = () => ({PAY_CLIENT_ID: GLOBEX.clientId, PAY_CLIENT_SECRET: GLOBEX.clientSecret, PAY_CONFIG_DIR: tempConfigDir()})
  const body = (ref: string) => JSON.stringify({amount: '10.00', currency: 'KES', merchant_reference: ref, mobile: '254712345670', provider: 'mpesa'})
  const [east, west] = GLOBEX.accountRefs
  const header = (ref: string) => ['-H', `X-Service-Account-Ref: ${ref}`]

  it('is the sub-account the journal knows the request by: the same body to two sub-accounts is two collections', async () => {
    const env = globex()
    const toEast = await h.command(['api', 'POST', '/v1/collections', '--data', body('hdr-a'), ...header(east), '--json'], env)
    expect(toEast.code, toEast.stderr).toBe(0)
    const toWest = await h.command(['api', 'POST', '/v1/collections', '--data', body('hdr-a'), ...header(west), '--json'], env)
    expect(toWest.code, toWest.stderr).toBe(0)
    expect(toWest.stderr).not.toContain('already sent')
    expect(json<{id: string}>(toWest).id).not.toBe(json<{id: string}>(toEast).id)
    const sent = h.requests((e) => e.method === 'POST' && (e.body as {merchant_reference?: string})?.merchant_reference === 'hdr-a')
    expect(sent.map((e) => e.headers['x-service-account-ref'])).toEqual([east, west])
  })

  it("a re-run looks the resource up in the sub-account the request named, not the settings' one", async () => {
    const env = globex()
    const payout = JSON.stringify({amount: '12.00', currency: 'KES', merchant_reference: 'hdr-po', mobile: '254700000409', provider: 'mpesa'})
    const first = await h.command(['api', 'POST', '/v1/payouts', '--data', payout, ...header(west), '--json'], env)
    expect(first.code, first.stderr).toBe(0)
    const {id} = json<{id: string}>(first)
    await waitFor(() => h.sb.state.payouts[id]?.status === 'failed', 10_000, 'the sandbox settles it (failed, for this number)')
    const before = h.requests().length
    const again = await h.command(['api', 'POST', '/v1/payouts', '--data', payout, ...header(west), '--json'], env)
    expect(again.code, again.stderr).toBe(0)
    expect(again.stderr).toMatch(new RegExp(`as ${id}; state now: failed`))
    const lookups = h.requests().slice(before)
    expect(lookups.map((e) => `${e.method} ${e.path} ${e.status} ${e.headers['x-service-account-ref']}`)).toEqual([`GET /v1/payouts/hdr-po 200 ${west}`])
  })

  it('overrides the settings for the journal as on the wire: the same collection later by --account-ref is recognised, not sent again', async () => {
    const env = globex()
    const first = await h.command(['api', 'POST', '/v1/collections', '--data', body('hdr-b'), ...header(west), '--json'], {...env, PAY_ACCOUNT_REF: east})
    expect(first.code, first.stderr).toBe(0)
    const again = await h.command(['collections', 'create', '--amount', '10.00', '--currency', 'KES', '--reference', 'hdr-b', '--mobile', '254712345670', '--provider', 'mpesa', '--account-ref', west, '--json'], env)
    expect(again.code, again.stderr).toBe(0)
    expect(again.stderr).toContain('already sent')
    expect(json<{id: string}>(again).id).toBe(json<{id: string}>(first).id)
    expect(keysSent(h, 'hdr-b').size).toBe(1)
    const journal = json<{reference?: string; account_ref?: string}[]>(await h.command(['journal', '--json'], env))
    expect(journal.filter((e) => e.reference === 'hdr-b').map((e) => e.account_ref)).toEqual([west])
  })
})
