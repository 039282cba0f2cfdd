/**
 * Bulk runs (src/bulk/) in-process (runCommand) against the sandbox through the fault proxy, which loses answers
 * after the service committed and can answer a storm of 429s: checking every row first, row keys across edits of
 * the file, Retry-After, --wait. Exactly once is checked in the sandbox's state (one object per row) and its request
 * log (every request for a row carried the same key). Runs killed part-way, signals and stdin:
 * test/e2e/bulk.test.ts.
 */
import {readFileSync, readdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempConfigDir} from '../helpers/cli.js'
import {runCommand} from '../helpers/in-process.js'
import {referenceIn} from '../helpers/fault-proxy.js'
import {expectOncePerRow, ok, useFaultProxy, useSandbox, withPrefix, withReference, writeRows} from '../helpers/command-harness.js'
import {waitFor} from '../helpers/wait-for.js'

const h = useSandbox({rateLimits: {writePerMinute: 10_000_000, writePerHour: 100_000_000}})
const faults = useFaultProxy(h, {PAY_BULK_PROGRESS_MS: '500'})

const refOf = referenceIn
const csv = (file: string, header: string, rows: number, line: (i: number) => string) => writeRows(faults.dir, file, header, rows, line)

/** pay in-process (runCommand), with the sandbox's credentials, through the fault proxy. */
const run = (args: string[]) => runCommand(args, {env: {...h.env, ...faults.env}})

/** The collections with exactly this merchant reference. */
const objects = (ref: string) => withReference(h.sb.state.collections, ref)
const rowsIn = withPrefix

const expectExactlyOnce = (records: Record<string, {merchant_reference: string}>, prefix: string, n: number) => expectOncePerRow(h, records, prefix, n)

describe('pay collections create --from-file', () => {
  it('every bad row is listed with its line, flag and rule; exit 2 and nothing sent', async () => {
    const file = csv('bad.csv', 'amount,reference,mobile,provider,colour', 6, (i) =>
      [`10.00,bk-bad-${i},254712345678,mpesa,`, `ten,bk-bad-${i},254712345678,mpesa,`, `10.00,bk-bad-${i},,mpesa,`, `10.00,bk-bad-${i},254712345678,mpesa,`, `1.234,bk-bad-${i},12,mpesa,`, `10.00,bk-bad-${i},254712345678,mpesa,blue`][i - 1],
    )
    const sentBefore = h.requests().length
    const r = await run(['collections', 'create', '--from-file', file, '--currency', 'KES'])
    expect(r.code, r.stderr).toBe(2)
    expect(r.stderr).toMatch(/bad\.csv:3 --amount /)
    expect(r.stderr).toMatch(/bad\.csv:4 --mobile /)
    expect(r.stderr).toMatch(/bad\.csv:6 --amount /)
    expect(r.stderr).toMatch(/bad\.csv:6 --mobile /)
    expect(r.stderr).toMatch(/bad\.csv:1 column "colour" is not an input of `pay collections create`/) // the header's line
    expect(r.stderr).not.toMatch(/bad\.csv:(2|5) /)
    expect(r.stderr).toContain('nothing was sent')
    expect(h.requests().length).toBe(sentBefore)
  })

  it('a --results path that cannot be written, or two columns for one input: exit 2 before anything is sent (not a crash mid-run)', async () => {
    const good = csv('results-unwritable.csv', 'amount,reference,mobile,provider', 2, (i) => `10.00,bk-res-${i},254712345678,mpesa`)
    const twice = csv('twice.csv', 'amount,reference,mobile,provider,merchant_reference', 1, (i) => `10.00,bk-tw-${i},254712345678,mpesa,bk-tw-other`)
    const repeated = csv('repeated.csv', 'amount,reference,mobile,amount', 1, (i) => `10.00,bk-rp-${i},254712345670,11.00`)
    const sentBefore = h.requests().length
    const rp = await run(['collections', 'create', '--from-file', repeated, '--currency', 'KES'])
    expect(rp.code, rp.stderr).toBe(2)
    expect(rp.stderr).toMatch(/repeated\.csv:1 \(header\) has the column "amount" twice: keep one/)
    const r = await run(['collections', 'create', '--from-file', good, '--currency', 'KES', '--results', '/proc/no-such-faults.dir/results.csv'])
    expect(r.code, r.stderr).toBe(2)
    expect(r.stderr).toMatch(/--results cannot write \/proc\/no-such-faults.dir\/results\.csv/)
    const t = await run(['collections', 'create', '--from-file', twice, '--currency', 'KES'])
    expect(t.code, t.stderr).toBe(2)
    expect(t.stderr).toMatch(/twice\.csv:1 column "merchant_reference" gives the same input as column "reference"/) // the header's line
    // a mandate id that is a dot segment would move the request to another path (/v1/mandates/../cancel is /v1/cancel)
    const dots = csv('dots.csv', 'mandate_id,mobile,reason', 3, (i) => `${['MD_ok', '..', '.'][i - 1]},254712345678,bk-dots`)
    const d = await run(['mandates', 'cancel', '--from-file', dots])
    expect(d.code, d.stderr).toBe(2)
    expect(d.stderr).toMatch(/dots\.csv:3 MANDATE_ID must not be "\." or "\.\."/)
    expect(d.stderr).toMatch(/dots\.csv:4 MANDATE_ID must not be "\." or "\.\."/)
    expect(d.stderr).not.toMatch(/dots\.csv:2 /)
    expect(h.requests().length).toBe(sentBefore)
  })

  it('without a base URL the rows are still checked first: their problems, else the missing --base-url (exit 2)', async () => {
    const bad = csv('nobase-bad.csv', 'amount,reference,mobile,provider', 2, (i) => (i === 1 ? `ten,nb-${i},254712345678,mpesa` : `10.00,nb-${i},254712345678,mpesa`))
    const good = csv('nobase-good.csv', 'amount,reference,mobile,provider', 2, (i) => `10.00,nb-${i},254712345678,mpesa`)
    const run = (file: string) => runCommand(['collections', 'create', '--from-file', file, '--currency', 'KES'], {env: {PAY_CONFIG_DIR: tempConfigDir()}})
    const r1 = await run(bad)
    expect(r1.code, r1.stderr).toBe(2)
    expect(r1.stderr).toMatch(/nobase-bad\.csv:2 --amount /)
    expect(r1.stderr).not.toContain('--base-url')
    const r2 = await run(good)
    expect(r2.code, r2.stderr).toBe(2)
    expect(r2.stderr).toMatch(/--base-url is not set/)
  })

  it('a storm of 429s is absorbed: every row succeeds, and the retries stay few', async () => {
    const file = csv('storm.csv', 'amount,reference,mobile,provider', 300, (i) => `5.00,bk-s-${i},254712345678,mpesa`)
    let posts = 0
    let stormUntil = 0
    faults.proxy.rule = (r) => {
      if (r.method !== 'POST' || !refOf(r.body)?.startsWith('bk-s-')) return 'pass'
      posts++
      if (posts === 100) stormUntil = Date.now() + 2500
      return Date.now() < stormUntil ? {status: 429, retryAfter: 1} : 'pass'
    }
    const r = await run(['collections', 'create', '--from-file', file, '--currency', 'KES', '--concurrency', '16'])
    expect(r.code, r.stderr.slice(-2000)).toBe(0)
    expect(r.stderr).toMatch(/0 succeeded, 300 processing, 0 failed, 0 unknown; rate limited \d+ time/)
    const storm = faults.proxy.seen.filter((s) => typeof s.action === 'object').length
    expect(storm).toBeGreaterThan(0)
    // one pause per Retry-After, fewer senders after each: far from every sender retrying at once every time
    expect(storm).toBeLessThan(60)
    expectExactlyOnce(h.sb.state.collections, 'bk-s-', 300)
    faults.proxy.rule = () => 'pass'
  })
})

describe('row keys survive edits of the file', () => {
  it('one row edited, then the file re-saved with CRLF and a BOM, --currency in lower case: unchanged rows are never paid again', async () => {
    const row = (i: number, amount = '4.00', ref = `bk-e-${i}`) => `${amount},${ref},254712345678,mpesa`
    const header = 'amount,reference,mobile,provider'
    const file = csv('edit.csv', header, 5, (i) => row(i))
    ok(await run(['collections', 'create', '--from-file', file, '--currency', 'KES']))
    for (let i = 1; i <= 5; i++) expect(objects(`bk-e-${i}`)).toHaveLength(1)
    const keyOf = (ref: string) => new Set(h.requests((e) => e.method === 'POST' && (e.body as {merchant_reference?: string})?.merchant_reference === ref).map((e) => e.headers['idempotency-key']))

    // row 3's amount edited, and its reference with it (an accepted reference is a promise: kept with another amount,
    // the run is refused, test/e2e/bulk-outcomes.test.ts): a new file, a new run; row 3 is a new request, the others
    // are settled by the first run
    const edits = [header, row(1), row(2), row(3, '6.50', 'bk-e-3b'), row(4), row(5)]
    writeFileSync(file, edits.join('\n') + '\n')
    const edited = ok(await run(['collections', 'create', '--from-file', file, '--currency', 'KES']))
    expect(edited.stderr).toMatch(/0 succeeded, 5 processing, 0 failed, 0 unknown/)
    for (const i of [1, 2, 4, 5]) {
      expect(objects(`bk-e-${i}`)).toHaveLength(1)
      expect(keyOf(`bk-e-${i}`).size).toBe(1)
    }
    expect(objects('bk-e-3').map((c) => (c as unknown as {amount: string}).amount)).toEqual(['4.00'])
    expect(objects('bk-e-3b').map((c) => (c as unknown as {amount: string}).amount)).toEqual(['6.50'])

    // the same rows re-saved with CRLF and a BOM, the currency flag in lower case: nothing new in the service
    writeFileSync(file, '\uFEFF' + edits.join('\r\n') + '\r\n')
    ok(await run(['collections', 'create', '--from-file', file, '--currency', 'kes']))
    for (const ref of ['bk-e-1', 'bk-e-2', 'bk-e-3', 'bk-e-3b', 'bk-e-4', 'bk-e-5']) {
      expect(objects(ref)).toHaveLength(1)
      expect(keyOf(ref).size).toBe(1)
    }
  })

  it('two identical rows with one reference: refused (exit 2), nothing paid; without the repeat, paid once, and a re-run pays nothing', async () => {
    const header = 'amount,reference,mobile,provider'
    const file = csv('twins.csv', header, 2, () => '2.00,bk-t-1,254712345678,mpesa')
    const sentBefore = h.requests().length
    const refused = await run(['collections', 'create', '--from-file', file, '--currency', 'KES'])
    expect(refused.code, refused.stderr).toBe(2)
    expect(refused.stderr).toContain('twins.csv:3 reference "bk-t-1" is also on line 2: a reference names one payment')
    expect(h.requests().length).toBe(sentBefore)
    expect(objects('bk-t-1')).toHaveLength(0)
    writeFileSync(file, [header, '2.00,bk-t-1,254712345678,mpesa', '3.00,bk-t-2,254712345678,mpesa'].join('\n') + '\n')
    ok(await run(['collections', 'create', '--from-file', file, '--currency', 'KES']))
    ok(await run(['collections', 'create', '--from-file', file, '--currency', 'KES']))
    expect(objects('bk-t-1')).toHaveLength(1)
    expect(objects('bk-t-2')).toHaveLength(1)
  })

  it('--force-new: a new run whose message names the command that resumes it (without --force-new); that plain re-run sends nothing', async () => {
    const file = csv('forced.csv', 'amount,reference,mobile,provider', 3, (i) => `1.00,bk-f-${i},254712345678,mpesa`)
    const args = ['collections', 'create', '--from-file', file, '--currency', 'KES']
    ok(await run(args))
    const forced = ok(await run([...args, '--force-new']))
    expect(forced.stderr).toMatch(/without --force-new/i)
    for (let i = 1; i <= 3; i++) expect(objects(`bk-f-${i}`)).toHaveLength(2)
    // the plain re-run resumes the forced run: nothing sent again
    const before = h.requests().length
    const again = ok(await run(args))
    expect(again.stderr).toMatch(/resuming run/)
    expect(h.requests().length).toBe(before)
    for (let i = 1; i <= 3; i++) expect(objects(`bk-f-${i}`)).toHaveLength(2)
  })
})

describe('Retry-After', () => {
  it('a 429 with the wait only in the Retry-After header is waited out before the row is sent again', async () => {
    const file = csv('retry-after.csv', 'amount,reference,mobile,provider', 1, () => '1.00,bk-ra-1,254712345678,mpesa')
    const at: number[] = []
    faults.proxy.rule = (r) => {
      if (r.method !== 'POST' || refOf(r.body) !== 'bk-ra-1') return 'pass'
      at.push(Date.now())
      return at.length === 1 ? {status: 429, retryAfter: 3, headerOnly: true} : 'pass'
    }
    const r = await run(['collections', 'create', '--from-file', file, '--currency', 'KES'])
    faults.proxy.rule = () => 'pass'
    expect(r.code, r.stderr).toBe(0)
    expect(at).toHaveLength(2)
    // without the header the engine's own first pause is 1 s; the header asked for 3 s (a lower bound: load cannot shorten it)
    expect(at[1] - at[0]).toBeGreaterThanOrEqual(2900)
    expect(objects('bk-ra-1')).toHaveLength(1)
  })
})

describe('stdin, --dry-run, an unreachable service', () => {
  it('stops when the service does not answer, exit 7, saying how to resume', async () => {
    const file = csv('down.csv', 'amount,reference,mobile,provider', 200, (i) => `5.00,bk-down-${i},254712345678,mpesa`)
    faults.proxy.rule = (req) => (req.method === 'POST' && refOf(req.body)?.startsWith('bk-down-') ? 'drop' : 'pass')
    const r = await run(['collections', 'create', '--from-file', file, '--currency', 'KES', '--retries', '0'])
    faults.proxy.rule = () => 'pass'
    expect(r.code, r.stderr).toBe(7)
    expect(rowsIn(h.sb.state.collections, 'bk-down-')).toHaveLength(0)
    expect(r.stderr).toMatch(/stopped after \d+ of 200 rows/)
    expect(r.stderr).toMatch(/run the same command again/)
  })
})

describe('--wait', () => {
  it('each row waits for its final state: exit 1 when some transactions failed, each named', async () => {
    const file = csv('wait.csv', 'amount,reference,mobile', 12, (i) => `7.00,bk-w-${i},25471234567${i % 4 === 0 ? 9 : 1}`)
    const r = await run(['collections', 'create', '--from-file', file, '--currency', 'KES', '--provider', 'mpesa', '--wait', '--json'])
    expect(r.code, r.stderr).toBe(1)
    const rows = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as {reference: string; status: string; state: string; error_code: string | null})
    expect(rows).toHaveLength(12)
    for (const row of rows) {
      const failing = Number(row.reference.split('-').pop()) % 4 === 0
      expect(row, JSON.stringify(row)).toMatchObject(failing ? {status: 'failed', state: 'failed', error_code: 'transaction_failed'} : {status: 'succeeded', state: 'succeeded'})
    }
    expect(r.stderr).toMatch(/9 succeeded, 0 processing, 3 failed/)
  })
})

describe('pay payouts create --from-file', () => {
  it("--wait: a row whose lookup by reference answers ANOTHER payout keeps its own id and state as last seen, says both ids, exit 1", async () => {
    faults.proxy.rule = () => 'pass'
    const file = csv('payouts-other.csv', 'amount,reference,mobile,provider', 1, () => '100.00,bk-po-1,254712340008,mpesa') // ...8: stays processing
    const args = ['payouts', 'create', '--from-file', file, '--currency', 'KES', '--json']
    const first = await run(args)
    expect(first.code, first.stderr).toBe(0)
    const mine = (JSON.parse(first.stdout.trim()) as {id: string}).id
    const other = JSON.parse(ok(await run(['payouts', 'create', '--reference', 'bk-po-1', '--amount', '7.00', '--currency', 'KES', '--mobile', '254712340001', '--provider', 'mpesa', '--yes', '--force-new', '--json'])).stdout).id as string
    await waitFor(() => h.sb.state.payouts[other]?.status === 'succeeded', 10_000, 'the sandbox settles the other payout')
    await h.control(`/_sandbox/transactions/${mine}/fail`)
    const r = await run([...args, '--wait'])
    expect(r.code, r.stderr).toBe(1)
    const row = JSON.parse(r.stdout.trim()) as Record<string, unknown>
    expect(row).toMatchObject({id: mine, status: 'processing', state: 'processing', error_code: 'other_resource'})
    expect(row.error_message).toContain(`the lookup answered ${other}, another resource with the same reference, not ${mine}`)
    expect(r.stderr).not.toMatch(/succeeded rows/)
    expect(r.stderr).toMatch(/total amount of the rows still processing: 100\.00 KES/)
    expect(r.stderr).toMatch(/1 row\(s\) whose lookup by reference answered another resource/)
  })

  it('a payout run summary names the total of its rows by state (accepted payouts are still processing), not "money in"', async () => {
    const file = csv('payouts-summary.csv', 'amount,reference,mobile,provider', 2, (i) => `5.00,bk-ps-${i},254712345670,mpesa`)
    const r = await run(['payouts', 'create', '--from-file', file, '--currency', 'KES'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toMatch(/total amount of the rows still processing: 10\.00 KES/)
    expect(r.stderr).not.toMatch(/money in/)
  })
})

describe('a re-run of a row whose outcome is unknown', () => {
  const header = 'amount,reference,mobile,provider'
  type Row = {status: string; outcome: string; idempotency_key: string; id: string | null}
  const rowOf = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1)!) as Row
  const posts = (ref: string) => (r: {method: string; body: string}) => r.method === 'POST' && refOf(r.body) === ref
  const journalFile = () => join(faults.dir, 'state', 'journal', 'runs', readdirSync(join(faults.dir, 'state', 'journal', 'runs')).find((f) => /^[0-9a-f]{32}\.ndjson$/.test(f) && readFileSync(join(faults.dir, 'state', 'journal', 'runs', f), 'utf8').includes('bk-u429-k9'))!)

  it('a 429 on the re-run leaves it unknown (its key may have moved money), never "not sent"; the journal keeps it unknown', async () => {
    const file = csv('unknown-429.csv', header, 1, () => '3.00,bk-u429-1,254712345678,mpesa')
    const args = ['collections', 'create', '--from-file', file, '--currency', 'KES', '--json']
    // run 1: the service commits the row and its answer is lost
    faults.proxy.rule = (r) => (posts('bk-u429-1')(r) ? 'cut' : 'pass')
    const first = await run([...args, '--retries', '0'])
    expect(first.code, first.stderr).toBe(1)
    const unknown = rowOf(first.stdout)
    expect(unknown).toMatchObject({status: 'unknown', outcome: 'unknown'})
    expect(objects('bk-u429-1')).toHaveLength(1)
    // run 2: the service rate limits it for an hour
    faults.proxy.rule = (r) => (posts('bk-u429-1')(r) ? {status: 429, retryAfter: 3600} : 'pass')
    const again = await run(args)
    expect(again.code, again.stderr).toBe(1)
    expect(rowOf(again.stdout)).toMatchObject({status: 'unknown', outcome: 'unknown', idempotency_key: unknown.idempotency_key})
    expect(again.stderr).not.toMatch(/\d not sent|row\(s\) not sent/)
    expect(again.stderr).toMatch(/0 of 1 rows settled by an earlier run; the other 1 .* are sent again with their keys/)
    expect(again.stderr).toMatch(/1 row\(s\) with an unknown outcome: run the same command again/)
    faults.proxy.rule = () => 'pass'
    const journal = await run(['journal', '--outcome', 'unknown', '--json'])
    expect(journal.stdout).toContain(unknown.idempotency_key)
    // run 3: the service answers; the key's stored answer settles the row, nothing is paid twice
    const settled = await run(args)
    expect(settled.code, settled.stderr).toBe(0)
    expect(rowOf(settled.stdout)).toMatchObject({status: 'processing', outcome: 'accepted', idempotency_key: unknown.idempotency_key})
    expect(objects('bk-u429-1')).toHaveLength(1)
  })

  it('a row a killed run may have had in flight (no record, no end of run): a 429 on the re-run is unknown too', async () => {
    const file = csv('unknown-cut.csv', header, 1, () => '3.00,bk-u429-k9,254712345678,mpesa')
    const args = ['collections', 'create', '--from-file', file, '--currency', 'KES', '--json']
    faults.proxy.rule = (r) => (posts('bk-u429-k9')(r) ? 'cut' : 'pass')
    const first = await run([...args, '--retries', '0'])
    expect(rowOf(first.stdout)).toMatchObject({status: 'unknown'})
    // as a run killed (kill -9) with the row in flight leaves its journal: the header, no row record, no end record
    const path = journalFile()
    writeFileSync(path, readFileSync(path, 'utf8').split('\n').filter((l) => l.includes('"t":"run"')).join('\n') + '\n')
    faults.proxy.rule = (r) => (posts('bk-u429-k9')(r) ? {status: 429, retryAfter: 3600} : 'pass')
    const again = await run(args)
    faults.proxy.rule = () => 'pass'
    expect(again.code, again.stderr).toBe(1)
    expect(rowOf(again.stdout)).toMatchObject({status: 'unknown', outcome: 'unknown'})
    expect(again.stderr).not.toMatch(/\d not sent|row\(s\) not sent/)
    expect(objects('bk-u429-k9')).toHaveLength(1)
  })
})

describe('the money lines of mandates and subscriptions runs (what the requests move, not the amounts in the rows)', () => {
  it("a mandate's amount is no money moved; a row with a plan, or a subscription, charges its plan's amount, which is counted, not summed", async () => {
    faults.proxy.rule = () => 'pass'
    const mandates = csv('mandates-money.csv', 'mobile,provider,currency,amount,frequency,starts-at,reference,plan,customer-name,customer-email', 2, (i) =>
      i === 1 ? '254711000101,mpesa,KES,300.00,MONTHLY,2030-01-01T09:00:00Z,bk-md-1,PLN_ACMEGOLD,Jane,j@x.io' : '254711000102,mpesa,KES,400.00,MONTHLY,2030-01-01T09:00:00Z,bk-md-2,,,',
    )
    const m = await run(['mandates', 'create', '--from-file', mandates])
    expect(m.code, m.stderr).toBe(0)
    expect(m.stderr).not.toMatch(/total amount of/) // neither 300.00 (the plan is charged) nor 400.00 (no plan: no money moves)
    expect(m.stderr).toMatch(/rows that charge their plan's amount \(once approved; the service's answers do not show it, see `pay balance`\): 0 succeeded, 1 still processing, 0 failed/)

    const subs = csv('subscriptions-money.csv', 'plan,reference,customer-name,customer-email,mobile,provider', 2, (i) => `PLN_ACMEGOLD,bk-sb-${i},Jane,j@x.io,25472200010${i},mpesa`)
    const s = await run(['subscriptions', 'create', '--from-file', subs])
    expect(s.code, s.stderr).toBe(0)
    expect(s.stderr).toMatch(/rows that charge their plan's amount .*: \d succeeded, \d still processing, 0 failed/)
    const [, ok, processing] = /: (\d) succeeded, (\d) still processing/.exec(s.stderr)!
    expect(Number(ok) + Number(processing)).toBe(2)
  })
})
