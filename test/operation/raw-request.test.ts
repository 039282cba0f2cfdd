/**
 * `pay api` in-process (src/operation/raw-request.ts: runApi, through its command class) against the sandbox:
 * --paginate across all 47 of the seeded customer's collections (streamed items, one merged array with --slurp, --jq
 * per page), -i, -H, --dry-run, the body as sent (verbatim under --json), and the flags it refuses together. On a
 * terminal: test/output/printable.terminal.test.ts; the input rules of PATH, -H, -F: test/api/validate.hostile.test.ts.
 */
import {describe, expect, it} from 'vitest'
import {json} from '../helpers/cli.js'
import {useSandbox} from '../helpers/command-harness.js'

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
})
