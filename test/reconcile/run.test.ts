/**
 * pay reconcile against the sandbox: 2,000 collections made by a real bulk run, a file of 2,000 expected rows in
 * which known rows were made to differ (amount and currency in the file, state through the control API, references
 * never created, references repeated), classed in-process by runReconcile; a bulk run's --results file as it is; and
 * the built CLI killed with SIGKILL mid-run, then resumed.
 */
import {spawn} from 'node:child_process'
import {existsSync, readFileSync, readdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {fromMinor, toMinor} from '../../src/api/money.js'
import type {ReconcileClass, RowResult} from '../../src/reconcile/expected.js'
import {runReconcile} from '../../src/reconcile/run.js'
import {BIN, ROOT, cleanEnv, json, tempConfigDir} from '../helpers/cli.js'
import {runWithContext} from '../helpers/in-process.js'
import {ok, runInPty, useSandbox} from '../helpers/command-harness.js'
import {waitFor} from '../helpers/wait-for.js'
import {scriptedEnv, useScriptedServer} from '../helpers/scripted-server.js'

/** What `pay reconcile --json` prints, as a script reads it: the output is the contract, not src's types. */
interface ReconcileSummary {
  file: string
  rows: number
  run: string
  resumed: number
  classes: Record<ReconcileClass, {rows: number; expected: Record<string, string>; found: Record<string, string>}>
  mismatches: RowResult[]
}

const h = useSandbox({rateLimits: {writePerMinute: 10_000_000, writePerHour: 100_000_000, readPerMinute: 10_000_000}})
const CREATED = 1996
let dir: string
let expectedFile: string
let createdResults: string
/** The classes the file was made to have: row → class (every other row matched). */
const made = new Map<number, string>()
const rows: {reference: string; amount: string; currency: string; kind: string; state: string}[] = []

const amountOf = (i: number) => `${(i % 900) + 1}.${String(i % 100).padStart(2, '0')}`
/** The sandbox's outcome is the wallet's last digit: 1 succeeds, 8 stays processing (docs/sandbox.md). */
const mobileOf = (i: number) => `2547${String(i).padStart(7, '0')}${[300, 301, 400].includes(i) ? 8 : 1}`

beforeAll(async () => {
  dir = tempConfigDir()
  const create = join(dir, 'create.csv')
  const lines = ['reference,amount,mobile,provider']
  for (let i = 1; i <= CREATED; i++) lines.push(`rec-${i},${amountOf(i)},${mobileOf(i)},mpesa`)
  writeFileSync(create, lines.join('\n') + '\n')
  createdResults = join(dir, 'created.csv')
  ok(await h.command(['collections', 'create', '--from-file', create, '--currency', 'KES', '--concurrency', '16', '--results', createdResults]))
  // row 400 made to fail through the control API; 300 and 301 stay processing (wallets ending in 8)
  const id400 = Object.values(h.sb.state.collections).find((c) => c.merchant_reference === 'rec-400')!.id
  expect(await h.control(`/_sandbox/transactions/${id400}/fail`)).toMatchObject({status: 'failed'})
  // every other collection has settled (succeeded) before the file is reconciled
  await waitFor(() => Object.values(h.sb.state.collections).filter((c) => c.status === 'processing').length <= 2, 30_000, 'the collections to settle')

  for (let i = 1; i <= CREATED; i++) rows.push({reference: `rec-${i}`, amount: amountOf(i), currency: 'KES', kind: i % 2 === 0 ? 'collection' : '', state: ''})
  rows[100 - 1].amount = '1.00' // amount differs
  rows[200 - 1].currency = 'UGX' // currency differs
  rows[300 - 1].state = 'processing' // expected to be processing: it is, so it matches
  rows[500 - 1].state = 'failed' // expected failed; it succeeded
  rows.push({reference: 'rec-never-1', amount: '10.00', currency: 'KES', kind: 'collection', state: ''}, {reference: 'rec-never-2', amount: '20.50', currency: 'KES', kind: '', state: ''})
  rows.push({...rows[10 - 1]}, {...rows[20 - 1]}) // repeated references: rows 1999 and 2000
  for (const [row, cls] of [[100, 'amount_differs'], [200, 'amount_differs'], [301, 'state_differs'], [400, 'state_differs'], [500, 'state_differs'], [1997, 'missing'], [1998, 'missing'], [1999, 'duplicated'], [2000, 'duplicated']] as const) made.set(row, cls)
  expectedFile = join(dir, 'expected.csv')
  writeFileSync(expectedFile, ['reference,amount,currency,kind,state', ...rows.map((r) => `${r.reference},${r.amount},${r.currency},${r.kind},${r.state}`)].join('\n') + '\n')
}, 240_000)

/** The sum of amounts (decimal strings) of these rows, per currency. */
function totals(of: {amount: string; currency: string}[]): Record<string, string> {
  const sums = new Map<string, bigint>()
  for (const r of of) sums.set(r.currency, (sums.get(r.currency) ?? 0n) + toMinor(r.amount))
  return Object.fromEntries([...sums].sort(([a], [b]) => a.localeCompare(b)).map(([c, m]) => [c, fromMinor(m)]))
}

const reconcile = (file: string, extra: {kind?: string; results?: string; env?: Record<string, string>} = {}) =>
  runWithContext((ctx) => runReconcile(ctx, {file, kind: extra.kind, results: extra.results, concurrency: 8, env: {...h.env, ...extra.env}}), {env: {...h.env, NO_COLOR: '1', ...extra.env}, json: true})

describe('pay reconcile', () => {
  it('a 2,000-row file: exactly the rows made to differ are reported, each in its class, with the right totals', async () => {
    const out = join(dir, 'check.csv')
    const r = await reconcile(expectedFile, {results: out})
    expect(r.code, r.stderr).toBe(1)
    const s = json<ReconcileSummary>(r)
    expect(s.rows).toBe(2000)
    expect(new Map(s.mismatches.map((m) => [m.row, m.class]))).toEqual(made)
    expect(s.classes.matched.rows).toBe(2000 - made.size)
    const byClass = (cls: string) => [...made].filter(([, c]) => c === cls).map(([row]) => rows[row - 1])
    for (const cls of ['amount_differs', 'state_differs', 'missing', 'duplicated']) expect(s.classes[cls as 'missing'].expected, cls).toEqual(totals(byClass(cls)))
    expect(s.classes.matched.expected).toEqual(totals(rows.filter((_, i) => !made.has(i + 1))))
    // what the service shows for the rows whose amount differs: their real amounts, in KES
    expect(s.classes.amount_differs.found).toEqual(totals([{amount: amountOf(100), currency: 'KES'}, {amount: amountOf(200), currency: 'KES'}]))
    expect(s.classes.amount_differs.expected).toEqual({KES: '1.00', UGX: amountOf(200)})
    const detail = new Map(s.mismatches.map((m) => [m.row, m.detail]))
    expect(detail.get(100)).toBe(`amount ${amountOf(100)}, expected 1.00`)
    expect(detail.get(200)).toBe('currency KES, expected UGX')
    expect(detail.get(301)).toBe('processing: still in progress')
    expect(detail.get(400)).toBe('failed: it failed')
    expect(detail.get(500)).toBe('succeeded: expected failed')
    expect(detail.get(1999)).toMatch(/same reference as row 10/)
    expect(s.mismatches.find((m) => m.row === 400)).toMatchObject({kind: 'collection', state: 'failed', id: expect.stringMatching(/^CL_/)})
    // --results: every row, in file order, as CSV
    const csv = readFileSync(out, 'utf8').trim().split('\n')
    expect(csv[0]).toBe('row,line,reference,kind,class,expected_amount,expected_currency,expected_state,id,amount,currency,state,detail')
    expect(csv).toHaveLength(2001)
    expect(csv[100]).toMatch(/^100,101,rec-100,collection,amount_differs,1\.00,KES,,CL_\w+,/)
    // read only: nothing but GETs of the service
    expect(h.sb.requests.filter((e) => e.path.startsWith('/v1/') && e.method !== 'GET' && e.path !== '/v1/oauth/token' && e.path !== '/v1/collections')).toEqual([])
  })

  it("a bulk run's --results file as it is: its rows' kinds from their ids, every row matched but those still processing or failed", async () => {
    const r = await reconcile(createdResults)
    const s = json<ReconcileSummary>(r)
    expect(r.code).toBe(1)
    expect(s.rows).toBe(CREATED)
    expect(s.mismatches.map((m) => [m.reference, m.class, m.kind])).toEqual([
      ['rec-300', 'state_differs', 'collection'],
      ['rec-301', 'state_differs', 'collection'],
      ['rec-400', 'state_differs', 'collection'],
    ])
  })

  it("a mandates run's --results file (its create answer has no id: the row's id is its reference) is reconciled as mandates; a debits run's, whose id names no kind, is no verdict", async () => {
    const mandates = join(dir, 'mandates.csv')
    writeFileSync(mandates, 'mobile,provider,currency,amount,frequency,starts-at,reference\n254711000001,mpesa,KES,300.00,MONTHLY,2030-01-01T09:00:00Z,rec-md-1\n')
    const mandateResults = join(dir, 'mandates.results.csv')
    ok(await h.command(['mandates', 'create', '--from-file', mandates, '--yes', '--wait', '--results', mandateResults]))
    expect(readFileSync(mandateResults, 'utf8')).toContain(',rec-md-1,succeeded,accepted,201,rec-md-1,')
    const md = json<ReconcileSummary>(await reconcile(mandateResults))
    expect(md.mismatches).toEqual([])
    expect(md.classes.matched.rows).toBe(1)

    const mandateId = Object.values(h.sb.state.mandates).find((m) => m.merchant_reference === 'rec-md-1')!.id
    const debits = join(dir, 'debits.csv')
    writeFileSync(debits, `mandate_id,amount,currency,reference,provider\n${mandateId},10.00,KES,rec-dd-1,mpesa\n`)
    const debitResults = join(dir, 'debits.results.csv')
    ok(await h.command(['debits', 'create', '--from-file', debits, '--yes', '--wait', '--results', debitResults]))
    const dd = json<ReconcileSummary>(await reconcile(debitResults))
    expect(dd.mismatches).toMatchObject([{reference: 'rec-dd-1', class: 'lookup_failed'}])
    expect(dd.mismatches[0].detail).toMatch(/names no kind pay knows by its prefix .*give the row a kind column \(a debit: kind debit and its mandate_id\)/)
  })

  it('--results CSV: a cell that would run as a spreadsheet formula is neutralised', async () => {
    const file = join(dir, 'formula.csv')
    writeFileSync(file, 'reference,amount,currency\n"=HYPERLINK(""x"")",1.00,KES\n')
    const out = join(dir, 'formula-results.csv')
    const r = await reconcile(file, {results: out})
    expect(r.code).toBe(1)
    expect(readFileSync(out, 'utf8').split('\n')[1]).toMatch(/^1,2,"'=HYPERLINK\(""x""\)",,missing,/)
  })

  it('bad rows: every problem listed at once, exit 2, nothing looked up', async () => {
    const bad = join(dir, 'bad.ndjson')
    writeFileSync(bad, ['{"reference":"a","amount":10,"currency":"KES"}', '{"reference":"b","amount":"1.005","currency":"KESH"}', '{"amount":"1.00","currency":"KES","kind":"loan"}', 'not json', '{"reference":"..","amount":"1.00","currency":"KES"}'].join('\n') + '\n')
    const before = h.sb.requests.length
    const r = await runWithContext((ctx) => runReconcile(ctx, {file: bad, env: h.env}), {env: {...h.env, NO_COLOR: '1'}})
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('bad.ndjson:1 column "amount" must be a string (quote numbers in NDJSON')
    expect(r.stderr).toContain('bad.ndjson:2 column "amount" must be a positive decimal string')
    expect(r.stderr).toContain('bad.ndjson:2 column "currency" must be a 3-letter code')
    expect(r.stderr).toContain('bad.ndjson:3 column "reference" is required')
    expect(r.stderr).toContain('bad.ndjson:3 column "kind" must be one of')
    expect(r.stderr).toContain('bad.ndjson:4 (row) is not valid JSON')
    // its lookup would put ".." in the path (GET /v1/transactions/verify/..): refused as a command's is
    expect(r.stderr).toContain('bad.ndjson:5 column "reference" must not be "." or ".."')
    expect(h.sb.requests.length).toBe(before)
  })

  it('on a terminal: a progress bar on stderr, then the summary and the mismatches as tables', async () => {
    const small = join(dir, 'small.csv')
    writeFileSync(small, 'reference,amount,currency\nrec-1,' + amountOf(1) + ',KES\nrec-2,9.99,KES\nrec-never-9,1.00,KES\n')
    const r = await runInPty(['reconcile', small], {...h.env, NO_COLOR: '1'}, [])
    expect(r.code).toBe(1)
    expect(r.screen).toMatch(/3\/3 rows \| ETA \S+ \| 1 matched, 1 differ, 1 missing/)
    expect(r.screen).toMatch(/│ matched +│ 1 +│ 2\.01 KES │ 2\.01 KES │/)
    expect(r.screen).toMatch(/│ amount_differs │ 1 +│ 9\.99 KES │ 3\.02 KES │/)
    expect(r.screen).toMatch(/mismatches \(2\)\r?\n┌/)
    expect(r.screen).toMatch(/│ 2 +│ rec-2 +│/)
  })

  it('killed with SIGKILL mid-run, the same command resumes: rows classed before are not looked up again', async () => {
    const cfg = tempConfigDir()
    const env = {...h.env, PAY_CONFIG_DIR: cfg, CI: 'true', NO_COLOR: '1'}
    const args = ['reconcile', expectedFile, '--concurrency', '2', '--json']
    const runs = join(cfg, 'state', 'journal', 'runs')
    const classed = () => {
      const file = existsSync(runs) ? readdirSync(runs).find((n) => n.startsWith('reconcile-')) : undefined
      if (!file) return new Set<number>()
      const done = new Set<number>()
      for (const line of readFileSync(join(runs, file), 'utf8').split('\n')) {
        try {
          const rec = JSON.parse(line) as {t?: string; row?: number; class?: string}
          if (rec.t === 'row' && rec.class !== 'lookup_failed') done.add(rec.row!)
        } catch {
          // torn by the kill
        }
      }
      return done
    }
    await fetch(`${h.sb.url}/_sandbox/faults`, {method: 'PUT', headers: {'content-type': 'application/json'}, body: JSON.stringify({latency_ms: 4})})
    try {
      const killed = await new Promise<{code: number | null; signal: string | null}>((resolve) => {
        const child = spawn(process.execPath, [BIN, ...args], {cwd: ROOT, env: cleanEnv(env), stdio: ['ignore', 'ignore', 'ignore']})
        const poll = setInterval(() => {
          if (classed().size >= 300) child.kill('SIGKILL')
        }, 20)
        child.on('close', (code, signal) => {
          clearInterval(poll)
          resolve({code, signal})
        })
      })
      expect(killed.signal).toBe('SIGKILL')
    } finally {
      await fetch(`${h.sb.url}/_sandbox/faults`, {method: 'PUT', headers: {'content-type': 'application/json'}, body: JSON.stringify({latency_ms: 0})})
    }
    const before = classed()
    expect(before.size).toBeGreaterThanOrEqual(300)
    expect(before.size).toBeLessThan(2000)
    const mark = h.sb.requests.length
    const again = await new Promise<{code: number | null; stdout: string; stderr: string}>((resolve) => {
      const child = spawn(process.execPath, [BIN, ...args], {cwd: ROOT, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe']})
      let stdout = ''
      let stderr = ''
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
      child.on('close', (code) => resolve({code, stdout, stderr}))
    })
    expect(again.code, again.stderr).toBe(1)
    expect(again.stderr).toContain(`resuming: ${before.size} of 2000 rows classed by an earlier run`)
    const s = JSON.parse(again.stdout) as ReconcileSummary
    expect(s.resumed).toBe(before.size)
    expect(new Map(s.mismatches.map((m) => [m.row, m.class]))).toEqual(made)
    // the lookups of the second run: only the rows not classed before (a repeated reference is never looked up)
    const looked = h.sb.requests.slice(mark).filter((e) => e.method === 'GET' && e.path.startsWith('/v1/'))
    const refs = new Set(looked.map((e) => String(e.query?.merchant_reference ?? decodeURIComponent(e.path.split('/').pop()!))))
    const notBefore = rows.map((r, i) => ({...r, row: i + 1})).filter((r) => !before.has(r.row) && r.row < 1999)
    expect(looked).toHaveLength(notBefore.length)
    expect(refs).toEqual(new Set(notBefore.map((r) => r.reference)))
  })
})

describe('pay reconcile: rows, columns and files that name one thing twice', () => {
  const write = (name: string, text: string) => {
    const file = join(dir, name)
    writeFileSync(file, text)
    return file
  }

  it('two rows that find the same collection (one naming its kind, one found by the verify lookup): one matched, one duplicated, its money counted once', async () => {
    const amount = amountOf(3)
    const file = write('same-object.csv', `reference,amount,currency,kind\nrec-3,${amount},KES,collection\nrec-3,${amount},KES,\n`)
    const r = await reconcile(file)
    expect(r.code, r.stderr).toBe(1)
    const s = json<ReconcileSummary>(r)
    expect(s.classes.matched).toEqual({rows: 1, expected: {KES: amount}, found: {KES: amount}})
    expect(s.classes.duplicated).toEqual({rows: 1, expected: {KES: amount}, found: {}})
    expect(s.mismatches).toHaveLength(1)
    expect(s.mismatches[0]).toMatchObject({row: 2, class: 'duplicated', kind: 'collection', id: expect.stringMatching(/^CL_/), amount: null})
    expect(s.mismatches[0].detail).toMatch(/^the same collection CL_\w+ as row 1: counted once, on that row$/)
  })

  it('two rows with one reference and two ids are two objects: each looked up, neither counted as the other (the one the reference finds is matched, the other not seen)', async () => {
    const amount = amountOf(5)
    const id = Object.values(h.sb.state.collections).find((c) => c.merchant_reference === 'rec-5')!.id
    const file = write('one-reference-two-ids.csv', `reference,amount,currency,kind,id\nrec-5,${amount},KES,collection,CL_SENTAGAINWITHFORCENEW\nrec-5,${amount},KES,collection,${id}\n`)
    const r = await reconcile(file)
    const s = json<ReconcileSummary>(r)
    expect(s.classes.duplicated.rows).toBe(0)
    expect(s.classes.matched).toEqual({rows: 1, expected: {KES: amount}, found: {KES: amount}})
    expect(s.mismatches).toHaveLength(1)
    expect(s.mismatches[0]).toMatchObject({row: 1, class: 'lookup_failed'})
    expect(s.mismatches[0].detail).toContain(`answered ${id}, not CL_SENTAGAINWITHFORCENEW`)
  })

  it('a file with both reference and merchant_reference columns is refused (exit 2, both named), as a bulk file is; nothing is looked up', async () => {
    const file = write('two-references.csv', 'reference,merchant_reference,amount,currency,kind\ninv-77,rec-1,1.00,KES,collection\ninv-78,rec-2,1.00,KES,collection\n')
    const before = h.sb.requests.length
    const r = await reconcile(file)
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('two-references.csv:1 column "merchant_reference" gives the same input as column "reference": keep one of them')
    expect(r.stderr.match(/gives the same input/g)).toHaveLength(1) // the header's problem, told once
    expect(h.sb.requests.length).toBe(before)
  })

  it("a bulk run's --results CSV, whose references starting with - @ = + were neutralised, and reconcile's own --results read back: every row matched", async () => {
    const refs = ['-neg-r1', '@at-r1', '=eq-r1', '+plus-r1', "'-quoted-r1", 'plain-r1']
    const create = write('awkward.csv', ['reference,amount,mobile,provider', ...refs.map((ref, i) => `"${ref.replaceAll('"', '""')}",1${i}.00,254700000001,mpesa`)].join('\n') + '\n')
    const created = join(dir, 'awkward-created.csv')
    ok(await h.command(['collections', 'create', '--from-file', create, '--currency', 'KES', '--results', created]))
    expect(readFileSync(created, 'utf8')).toContain(`,'-neg-r1,`)
    expect(readFileSync(created, 'utf8')).toContain(`,''-quoted-r1,`)
    await waitFor(() => refs.every((ref) => Object.values(h.sb.state.collections).some((c) => c.merchant_reference === ref && c.status === 'succeeded')), 30_000, 'the collections to settle')
    const own = join(dir, 'awkward-reconciled.csv')
    const first = await reconcile(created, {results: own})
    expect(first.code, first.stdout).toBe(0)
    expect(json<ReconcileSummary>(first).classes.matched.rows).toBe(refs.length)
    expect(readFileSync(own, 'utf8')).toContain(`,'=eq-r1,`)
    const again = await reconcile(own)
    expect(again.code, again.stdout).toBe(0)
    expect(json<ReconcileSummary>(again).classes.matched).toEqual({rows: refs.length, expected: {KES: '75.00'}, found: {KES: '75.00'}})
  })
})

describe('pay reconcile: a finished run is never resumed', () => {
  /** The run journal of a summary's run, and its lines. */
  const journalOf = (s: ReconcileSummary) => join(h.env.PAY_CONFIG_DIR, 'state', 'journal', 'runs', `reconcile-${s.run}.ndjson`)
  const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as {t: string; row?: number; class?: string; state?: string; detail?: string})
  /** The journal of one run, its row 1 made stale (processing then) and its row 2 a lookup that failed; ended or not. */
  const staleJournal = (file: string, ended: boolean) => {
    const changed = lines(file).filter((r) => r.t !== 'end').map((r) => (r.row === 1 ? {...r, class: 'state_differs', state: 'processing', detail: 'processing: still in progress'} : r.row === 2 ? {...r, class: 'lookup_failed', detail: 'down'} : r))
    writeFileSync(file, [...changed, ...(ended ? [{t: 'end', at: new Date().toISOString()}] : [])].map((r) => JSON.stringify(r)).join('\n') + '\n')
  }
  /** A file of two collections that match, reconciled once (exit 0); then its journal made stale, ended or not. */
  const reconciledThenStale = async (name: string, first: number, ended: boolean) => {
    const file = join(dir, name)
    writeFileSync(file, `reference,amount,currency,kind\nrec-${first},${amountOf(first)},KES,collection\nrec-${first + 1},${amountOf(first + 1)},KES,collection\n`)
    const r = await reconcile(file)
    expect(r.code, r.stderr).toBe(0)
    const journal = journalOf(json<ReconcileSummary>(r))
    staleJournal(journal, ended)
    return {file, journal}
  }

  it('a run that ended with a lookup_failed row: the next run looks every row up afresh', async () => {
    const {file} = await reconciledThenStale('finished.csv', 5, true)
    const mark = h.sb.requests.length
    const again = await reconcile(file)
    expect(again.stderr).not.toContain('resuming')
    expect(again.code, again.stdout).toBe(0)
    const s = json<ReconcileSummary>(again)
    expect(s.resumed).toBe(0)
    expect(s.classes.matched.rows).toBe(2)
    expect(h.sb.requests.slice(mark).filter((e) => e.method === 'GET' && e.path.startsWith('/v1/'))).toHaveLength(2)
  })

  it('a run cut short (no end record) is resumed: its classed rows kept, its failed lookup done again; resumed again, nothing is lost', async () => {
    const {file, journal} = await reconciledThenStale('cut.csv', 7, false)
    const again = await reconcile(file)
    expect(again.stderr).toContain('resuming: 1 of 2 rows classed by an earlier run')
    const s = json<ReconcileSummary>(again)
    expect(s.resumed).toBe(1)
    expect(new Map(s.mismatches.map((m) => [m.row, m.class]))).toEqual(new Map([[1, 'state_differs']]))
    // this run journaled the row it took as well: cut short in turn, the run after it still has both rows
    const recs = lines(journal)
    writeFileSync(journal, recs.filter((r) => r.t !== 'end').map((r) => JSON.stringify(r)).join('\n') + '\n')
    const third = await reconcile(file)
    expect(json<ReconcileSummary>(third).resumed).toBe(2)
  })
})

describe('pay reconcile: a 404 that is not the service\'s not_found', () => {
  const server = useScriptedServer()

  it("a gateway's HTML 404 is a failed lookup (lookup_failed), never \"missing\"; the service's own not_found is missing", async () => {
    const page = {handle: (_req: unknown, res: import('node:http').ServerResponse) => res.writeHead(404, {'content-type': 'text/html'}).end('<html><body><h1>404 Not Found</h1><hr>nginx</body></html>')}
    server.script('GET /v1/transactions/verify/gw-a1', page)
    const file = join(tempConfigDir(), 'gateway.csv')
    // gw-a2 is looked up on an unscripted route: the scripted service's own 404 not_found
    writeFileSync(file, 'reference,amount,currency\ngw-a1,1200.00,KES\ngw-a2,1200.00,KES\n')
    const env = {...scriptedEnv(server), NO_COLOR: '1'}
    const r = await runWithContext((ctx) => runReconcile(ctx, {file, concurrency: 2, env}), {env, flags: {retries: 0}, json: true})
    const s = json<ReconcileSummary>(r)
    expect(s.classes.lookup_failed.rows).toBe(1)
    expect(s.classes.missing.rows).toBe(1)
    expect(s.mismatches.find((m) => m.reference === 'gw-a1')).toMatchObject({class: 'lookup_failed'})
    expect(s.mismatches.find((m) => m.reference === 'gw-a2')).toMatchObject({class: 'missing'})
  })
})

/**
 * A file as a spreadsheet saves it: `;`-separated (Excel where the decimal separator is a comma), its header as a
 * person typed it (`Reference`, `Amount `): read, never refused for its column names, nor a row read falsely.
 */
describe('pay reconcile: a spreadsheet file', () => {
  const server = useScriptedServer()
  const run = (text: string) => {
    const file = join(tempConfigDir(), 'sheet.csv')
    writeFileSync(file, text)
    const env = {...scriptedEnv(server), NO_COLOR: '1'}
    return runWithContext((ctx) => runReconcile(ctx, {file, concurrency: 2, env}), {env, flags: {retries: 0}, json: true})
  }

  it('a ;-separated file with the header Reference;Amount ;Currency: every row read and looked up', async () => {
    const r = await run('Reference;Amount ;Currency\r\nxl-r1;1200.00;KES\r\nxl-r2;3.50;kes\r\n')
    expect(r.code, r.stderr).toBe(1) // neither exists on this service: both missing
    const s = json<ReconcileSummary>(r)
    expect(s.rows).toBe(2)
    expect(s.classes.missing).toEqual({rows: 2, expected: {KES: '1203.50'}, found: {}})
    expect(server.apiRequests().map((q) => q.path).sort()).toEqual(['/v1/transactions/verify/xl-r1', '/v1/transactions/verify/xl-r2'])
  })

  it('an amount with a decimal comma is refused (exit 2, its line and column named), nothing looked up', async () => {
    const r = await run('reference;amount;currency\nxl-r3;1200,50;KES\n')
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('sheet.csv:2 column "amount" must be a positive decimal string')
    expect(server.apiRequests()).toHaveLength(0)
  })
})
