/**
 * Bulk runs end to end: the built CLI against the sandbox through the fault proxy, which loses some answers after
 * the service committed and can answer a storm of 429s. Exactly once is checked in the sandbox's state (one
 * object per row) and its request log (every request for a row carried the same key).
 */
import {spawn} from 'node:child_process'
import {createHash} from 'node:crypto'
import {existsSync, readFileSync, readdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BIN, ROOT, type CliResult, cleanEnv, tempConfigDir} from '../helpers/cli.js'
import {type FaultProxy, referenceIn, startFaultProxy} from '../helpers/fault-proxy.js'
import {ok, useSandbox} from '../helpers/command-harness.js'

const h = useSandbox({rateLimits: {writePerMinute: 10_000_000, writePerHour: 100_000_000}})
let proxy: FaultProxy
let env: Record<string, string>
let dir: string

beforeAll(async () => {
  proxy = await startFaultProxy(h.sb.url)
  dir = tempConfigDir()
  env = {PAY_BASE_URL: proxy.url, PAY_CONFIG_DIR: dir, PAY_BULK_PROGRESS_MS: '500'}
})
afterAll(async () => {
  await proxy?.close()
})

const refOf = referenceIn
/** Loses the answer of the first request of about one row in twenty (the service has committed it). */
function cutSomeAnswers(prefix: string): void {
  const cut = new Set<string>()
  proxy.rule = (r) => {
    const ref = r.method === 'POST' ? refOf(r.body) : undefined
    if (!ref?.startsWith(prefix) || cut.has(ref)) return 'pass'
    if (createHash('sha256').update(ref).digest()[0] % 20 !== 0) return 'pass'
    cut.add(ref)
    return 'cut'
  }
}

function csv(file: string, header: string, rows: number, line: (i: number) => string): string {
  const path = join(dir, file)
  const lines = [header]
  for (let i = 1; i <= rows; i++) lines.push(line(i))
  writeFileSync(path, lines.join('\n') + '\n')
  return path
}

/** Runs pay; `killWhen` is polled and the process sent `signal` (SIGKILL) once it holds. */
function payUntil(args: string[], killWhen?: () => boolean, signal: NodeJS.Signals = 'SIGKILL'): Promise<CliResult & {killed: boolean}> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {cwd: ROOT, env: cleanEnv({...h.env, ...env}), stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    let killed = false
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    const poll = killWhen
      ? setInterval(() => {
        if (!killed && killWhen()) {
          killed = true
          child.kill(signal)
        }
      }, 20)
      : undefined
    child.on('close', (code) => {
      if (poll) clearInterval(poll)
      resolve({code: code ?? -1, stdout, stderr, killed})
    })
  })
}

/** The collections with exactly this merchant reference. */
const objects = (ref: string) => rowsIn(h.sb.state.collections, ref).filter((c) => c.merchant_reference === ref)
const rowsIn = (records: Record<string, {merchant_reference: string}>, prefix: string) => Object.values(records).filter((c) => c.merchant_reference.startsWith(prefix))

/** Every reference of the prefix exactly once in `records`, and each sent with one key only. */
function expectExactlyOnce(records: Record<string, {merchant_reference: string}>, prefix: string, n: number): void {
  const refs = rowsIn(records, prefix).map((c) => c.merchant_reference)
  expect(refs).toHaveLength(n)
  expect(new Set(refs).size).toBe(n)
  const keys = new Map<string, Set<string>>()
  for (const e of h.requests((x) => x.method === 'POST' && String((x.body as {merchant_reference?: string})?.merchant_reference ?? '').startsWith(prefix))) {
    const ref = (e.body as {merchant_reference: string}).merchant_reference
    if (!keys.has(ref)) keys.set(ref, new Set())
    keys.get(ref)!.add(e.headers['idempotency-key'])
  }
  expect([...keys.values()].filter((k) => k.size !== 1)).toEqual([])
}

describe('pay collections create --from-file', () => {
  it('3,000 rows, answers lost, killed with SIGKILL part-way, run again: exactly one collection per row, exit 0', async () => {
    const file = csv('collections.csv', 'amount,reference,mobile,provider', 3000, (i) => `${(i % 900) + 1}.25,bk-c-${i},2547${String(10_000_000 + i)},mpesa`)
    cutSomeAnswers('bk-c-')
    const args = ['collections', 'create', '--from-file', file, '--currency', 'KES', '--concurrency', '8']
    const first = await payUntil(args, () => rowsIn(h.sb.state.collections, 'bk-c-').length >= 1000)
    expect(first.killed, first.stderr).toBe(true)
    const made = rowsIn(h.sb.state.collections, 'bk-c-').length
    expect(made).toBeGreaterThanOrEqual(1000)
    expect(made).toBeLessThan(3000)

    const results = join(dir, 'collections-results.csv')
    const again = await payUntil([...args, '--json', '--results', results])
    expect(again.code, again.stderr.slice(-2000)).toBe(0)
    expect(again.stderr).toMatch(/resuming run [0-9a-f]{32}/)
    expect(again.stderr).toMatch(/3000 rows in .*: 0 succeeded, 3000 processing, 0 failed, 0 unknown/)
    expectExactlyOnce(h.sb.state.collections, 'bk-c-', 3000)

    const lines = again.stdout.trim().split('\n').map((l) => JSON.parse(l) as {row: number; status: string; id: string})
    expect(lines).toHaveLength(3000)
    expect(new Set(lines.map((l) => l.row)).size).toBe(3000)
    // accepted, and processing as far as pay saw (nothing says succeeded before the collection did)
    expect(lines.every((l) => l.status === 'processing' && /^CL_/.test(l.id))).toBe(true)
    const csvOut = readFileSync(results, 'utf8').trim().split('\n')
    expect(csvOut[0]).toBe('row,line,reference,status,outcome,http_status,id,state,state_at,error_code,error_message,idempotency_key,amount,currency,earlier')
    expect(csvOut).toHaveLength(3001)

    // a third run sends nothing
    const before = h.requests().length
    ok(await payUntil(args))
    expect(h.requests().length).toBe(before)
  })

  it('every bad row is listed with its line, flag and rule; exit 2 and nothing sent', async () => {
    const file = csv('bad.csv', 'amount,reference,mobile,provider,colour', 6, (i) =>
      [`10.00,bk-bad-${i},254712345678,mpesa,`, `ten,bk-bad-${i},254712345678,mpesa,`, `10.00,bk-bad-${i},,mpesa,`, `10.00,bk-bad-${i},254712345678,mpesa,`, `1.234,bk-bad-${i},12,mpesa,`, `10.00,bk-bad-${i},254712345678,mpesa,blue`][i - 1],
    )
    const sentBefore = h.requests().length
    const r = await payUntil(['collections', 'create', '--from-file', file, '--currency', 'KES'])
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
    const rp = await payUntil(['collections', 'create', '--from-file', repeated, '--currency', 'KES'])
    expect(rp.code, rp.stderr).toBe(2)
    expect(rp.stderr).toMatch(/repeated\.csv:1 \(header\) has the column "amount" twice: keep one/)
    const r = await payUntil(['collections', 'create', '--from-file', good, '--currency', 'KES', '--results', '/proc/no-such-dir/results.csv'])
    expect(r.code, r.stderr).toBe(2)
    expect(r.stderr).toMatch(/--results cannot write \/proc\/no-such-dir\/results\.csv/)
    const t = await payUntil(['collections', 'create', '--from-file', twice, '--currency', 'KES'])
    expect(t.code, t.stderr).toBe(2)
    expect(t.stderr).toMatch(/twice\.csv:1 column "merchant_reference" gives the same input as column "reference"/) // the header's line
    // a mandate id that is a dot segment would move the request to another path (/v1/mandates/../cancel is /v1/cancel)
    const dots = csv('dots.csv', 'mandate_id,mobile,reason', 3, (i) => `${['MD_ok', '..', '.'][i - 1]},254712345678,bk-dots`)
    const d = await payUntil(['mandates', 'cancel', '--from-file', dots])
    expect(d.code, d.stderr).toBe(2)
    expect(d.stderr).toMatch(/dots\.csv:3 MANDATE_ID must not be "\." or "\.\."/)
    expect(d.stderr).toMatch(/dots\.csv:4 MANDATE_ID must not be "\." or "\.\."/)
    expect(d.stderr).not.toMatch(/dots\.csv:2 /)
    expect(h.requests().length).toBe(sentBefore)
  })

  it('without a base URL the rows are still checked first: their problems, else the missing --base-url (exit 2)', async () => {
    const bad = csv('nobase-bad.csv', 'amount,reference,mobile,provider', 2, (i) => (i === 1 ? `ten,nb-${i},254712345678,mpesa` : `10.00,nb-${i},254712345678,mpesa`))
    const good = csv('nobase-good.csv', 'amount,reference,mobile,provider', 2, (i) => `10.00,nb-${i},254712345678,mpesa`)
    const noBase = cleanEnv({PAY_CONFIG_DIR: tempConfigDir()})
    const run = (file: string) => new Promise<CliResult>((resolve) => {
      const child = spawn(process.execPath, [BIN, 'collections', 'create', '--from-file', file, '--currency', 'KES'], {cwd: ROOT, env: noBase, stdio: ['ignore', 'pipe', 'pipe']})
      let stdout = ''
      let stderr = ''
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
      child.on('close', (code) => resolve({code: code ?? -1, stdout, stderr}))
    })
    const r1 = await run(bad)
    expect(r1.code, r1.stderr).toBe(2)
    expect(r1.stderr).toMatch(/nobase-bad\.csv:2 --amount /)
    expect(r1.stderr).not.toContain('--base-url')
    const r2 = await run(good)
    expect(r2.code, r2.stderr).toBe(2)
    expect(r2.stderr).toMatch(/--base-url is not set/)
  })

  it('Ctrl-C part-way: exit 130 naming how to resume, no spool file left behind; the plain re-run completes, once per row', async () => {
    const file = csv('interrupted.csv', 'amount,reference,mobile,provider', 60, (i) => `10.00,bk-int-${i},254712345678,mpesa`)
    // the first 20 rows are answered, then the service's answers are held: rows stay in flight until the signal
    let passed = 0
    proxy.rule = (r) => (r.method === 'POST' && refOf(r.body)?.startsWith('bk-int-') && ++passed > 20 ? 'hold' : 'pass')
    const args = ['collections', 'create', '--from-file', file, '--currency', 'KES', '--concurrency', '4']
    const journal = join(dir, 'state', 'journal')
    // spool files left by the SIGKILLed runs above (pruned with the journal later) are not this run's
    const spools = () => readdirSync(journal).filter((n) => n.startsWith('rows-') || n.startsWith('stdin-'))
    const leftBefore = spools()
    const first = await payUntil(args, () => rowsIn(h.sb.state.collections, 'bk-int-').length >= 24, 'SIGINT')
    expect(first.killed).toBe(true)
    expect(first.code, first.stderr).toBe(130)
    expect(first.stderr).toMatch(/interrupted \(SIGINT\) after \d+ of 60 rows; run the same command again to resume/)
    expect(spools()).toEqual(leftBefore)
    proxy.rule = () => 'pass'
    const again = await payUntil(args)
    expect(again.code, again.stderr.slice(-2000)).toBe(0)
    expectExactlyOnce(h.sb.state.collections, 'bk-int-', 60)
    expect(spools()).toEqual(leftBefore)
  })

  it('a password in the base URL never reaches the disk: not in the spool of a killed run, not in its run journal', async () => {
    const file = csv('password.csv', 'amount,reference,mobile,provider', 120, (i) => `10.00,bk-pw-${i},254712345678,mpesa`)
    let passed = 0
    proxy.rule = (r) => (r.method === 'POST' && refOf(r.body)?.startsWith('bk-pw-') && ++passed > 30 ? 'hold' : 'pass')
    const cfg = tempConfigDir()
    const base = proxy.url.replace('http://', 'http://bulkuser:s3cretpw@')
    const args = ['collections', 'create', '--from-file', file, '--currency', 'KES', '--concurrency', '4', '--base-url', base]
    const saved = env
    env = {...env, PAY_CONFIG_DIR: cfg}
    try {
      const r = await payUntil(args, () => rowsIn(h.sb.state.collections, 'bk-pw-').length >= 30)
      expect(r.killed, r.stderr).toBe(true)
    } finally {
      env = saved
      proxy.rule = () => 'pass'
    }
    const journal = join(cfg, 'state', 'journal')
    const files = [...readdirSync(journal).filter((n) => n.endsWith('.ndjson')).map((n) => join(journal, n)), ...readdirSync(join(journal, 'runs')).map((n) => join(journal, 'runs', n))]
    expect(files.some((f) => f.includes('rows-'))).toBe(true) // the killed run's spool, left for pruning
    const text = files.map((f) => readFileSync(f, 'utf8')).join('')
    expect(text).toContain('bk-pw-1')
    expect(text).not.toContain('s3cretpw')
  })

  it('Ctrl-C before anything is sent (stdin still being read): exit 130, nothing sent, no spool file left', async () => {
    const cfg = tempConfigDir()
    const journal = join(cfg, 'state', 'journal')
    const child = spawn(process.execPath, [BIN, 'collections', 'create', '--from-file', '-', '--currency', 'KES'], {cwd: ROOT, env: cleanEnv({...h.env, ...env, PAY_CONFIG_DIR: cfg}), stdio: ['pipe', 'pipe', 'pipe']})
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    child.stdin.write('amount,reference,mobile,provider\n10.00,bk-early-1,254712345678,mpesa\n') // and stdin stays open
    const spooling = () => existsSync(journal) && readdirSync(journal).some((n) => n.startsWith('stdin-'))
    for (let i = 0; i < 500 && !spooling(); i++) await new Promise((r) => setTimeout(r, 20))
    expect(spooling()).toBe(true)
    const code = await new Promise<number | null>((resolve) => {
      child.on('close', resolve)
      child.kill('SIGINT')
    })
    expect(code, stderr).toBe(130)
    expect(stderr).toMatch(/interrupted \(SIGINT\) before any row was sent/)
    expect(readdirSync(journal).filter((n) => n.startsWith('stdin-') || n.startsWith('rows-'))).toEqual([])
    expect(rowsIn(h.sb.state.collections, 'bk-early-')).toEqual([])
  })

  it('a storm of 429s is absorbed: every row succeeds, and the retries stay few', async () => {
    const file = csv('storm.csv', 'amount,reference,mobile,provider', 300, (i) => `5.00,bk-s-${i},254712345678,mpesa`)
    let posts = 0
    let stormUntil = 0
    proxy.rule = (r) => {
      if (r.method !== 'POST' || !refOf(r.body)?.startsWith('bk-s-')) return 'pass'
      posts++
      if (posts === 100) stormUntil = Date.now() + 2500
      return Date.now() < stormUntil ? {status: 429, retryAfter: 1} : 'pass'
    }
    const r = await payUntil(['collections', 'create', '--from-file', file, '--currency', 'KES', '--concurrency', '16'])
    expect(r.code, r.stderr.slice(-2000)).toBe(0)
    expect(r.stderr).toMatch(/0 succeeded, 300 processing, 0 failed, 0 unknown; rate limited \d+ time/)
    const storm = proxy.seen.filter((s) => typeof s.action === 'object').length
    expect(storm).toBeGreaterThan(0)
    // one pause per Retry-After, fewer senders after each: far from every sender retrying at once every time
    expect(storm).toBeLessThan(60)
    expectExactlyOnce(h.sb.state.collections, 'bk-s-', 300)
    proxy.rule = () => 'pass'
  })
})

describe('row keys survive edits of the file', () => {
  it('one row edited, then the file re-saved with CRLF and a BOM, --currency in lower case: unchanged rows are never paid again', async () => {
    const row = (i: number, amount = '4.00', ref = `bk-e-${i}`) => `${amount},${ref},254712345678,mpesa`
    const header = 'amount,reference,mobile,provider'
    const file = csv('edit.csv', header, 5, (i) => row(i))
    ok(await h.pay(['collections', 'create', '--from-file', file, '--currency', 'KES'], env))
    for (let i = 1; i <= 5; i++) expect(objects(`bk-e-${i}`)).toHaveLength(1)
    const keyOf = (ref: string) => new Set(h.requests((e) => e.method === 'POST' && (e.body as {merchant_reference?: string})?.merchant_reference === ref).map((e) => e.headers['idempotency-key']))

    // row 3's amount edited, and its reference with it (an accepted reference is a promise: kept with another amount,
    // the run is refused, test/e2e/bulk-outcomes.test.ts): a new file, a new run; row 3 is a new request, the others
    // are settled by the first run
    const edits = [header, row(1), row(2), row(3, '6.50', 'bk-e-3b'), row(4), row(5)]
    writeFileSync(file, edits.join('\n') + '\n')
    const edited = ok(await h.pay(['collections', 'create', '--from-file', file, '--currency', 'KES'], env))
    expect(edited.stderr).toMatch(/0 succeeded, 5 processing, 0 failed, 0 unknown/)
    for (const i of [1, 2, 4, 5]) {
      expect(objects(`bk-e-${i}`)).toHaveLength(1)
      expect(keyOf(`bk-e-${i}`).size).toBe(1)
    }
    expect(objects('bk-e-3').map((c) => (c as unknown as {amount: string}).amount)).toEqual(['4.00'])
    expect(objects('bk-e-3b').map((c) => (c as unknown as {amount: string}).amount)).toEqual(['6.50'])

    // the same rows re-saved with CRLF and a BOM, the currency flag in lower case: nothing new in the service
    writeFileSync(file, '\uFEFF' + edits.join('\r\n') + '\r\n')
    ok(await h.pay(['collections', 'create', '--from-file', file, '--currency', 'kes'], env))
    for (const ref of ['bk-e-1', 'bk-e-2', 'bk-e-3', 'bk-e-3b', 'bk-e-4', 'bk-e-5']) {
      expect(objects(ref)).toHaveLength(1)
      expect(keyOf(ref).size).toBe(1)
    }
  })

  it('two identical rows are two requests (1st and 2nd occurrence), and stay two on a re-run of an edited file', async () => {
    const header = 'amount,reference,mobile,provider'
    const file = csv('twins.csv', header, 2, () => '2.00,bk-t-1,254712345678,mpesa')
    ok(await h.pay(['collections', 'create', '--from-file', file, '--currency', 'KES'], env))
    expect(objects('bk-t-1')).toHaveLength(2)
    writeFileSync(file, [header, '2.00,bk-t-1,254712345678,mpesa', '3.00,bk-t-2,254712345678,mpesa', '2.00,bk-t-1,254712345678,mpesa'].join('\n') + '\n')
    ok(await h.pay(['collections', 'create', '--from-file', file, '--currency', 'KES'], env))
    expect(objects('bk-t-1')).toHaveLength(2)
    expect(objects('bk-t-2')).toHaveLength(1)
  })

  it('--force-new: a new run whose message names the command that resumes it (without --force-new); that plain re-run sends nothing', async () => {
    const file = csv('forced.csv', 'amount,reference,mobile,provider', 3, (i) => `1.00,bk-f-${i},254712345678,mpesa`)
    const args = ['collections', 'create', '--from-file', file, '--currency', 'KES']
    ok(await h.pay(args, env))
    const forced = ok(await h.pay([...args, '--force-new'], env))
    expect(forced.stderr).toMatch(/without --force-new/i)
    for (let i = 1; i <= 3; i++) expect(objects(`bk-f-${i}`)).toHaveLength(2)
    // the plain re-run resumes the forced run: nothing sent again
    const before = h.requests().length
    const again = ok(await h.pay(args, env))
    expect(again.stderr).toMatch(/resuming run/)
    expect(h.requests().length).toBe(before)
    for (let i = 1; i <= 3; i++) expect(objects(`bk-f-${i}`)).toHaveLength(2)
  })
})

describe('one spelling of money on the wire', () => {
  it('killed after 392 of 400 rows, the file re-saved by a spreadsheet (1200.00 -> 1200, 350.50 -> 350.5, CRLF): the re-run pays no row again', async () => {
    const amounts = ['1200.00', '350.50', '75.00', '12.30']
    const resaved = ['1200', '350.5', '75', '12.3']
    const row = (i: number, spelt: string[]) => `${spelt[i % 4]},bk-ss-${i},2547${String(20_000_000 + i)},mpesa`
    const file = csv('spreadsheet.csv', 'amount,reference,mobile,provider', 400, (i) => row(i, amounts))
    // the service never sees rows after the 392nd in the first run; the run is killed while it tries the 393rd
    const past392 = (r: {method: string; body: string}) => r.method === 'POST' && Number(refOf(r.body)?.replace('bk-ss-', '') ?? 0) > 392
    proxy.rule = (r) => (past392(r) ? 'drop' : 'pass')
    const killed = await payUntil(['collections', 'create', '--from-file', file, '--currency', 'KES', '--concurrency', '1'], () => rowsIn(h.sb.state.collections, 'bk-ss-').length >= 392 && proxy.seen.some((s) => past392(s.req)))
    expect(killed.killed, killed.stderr).toBe(true)
    expect(rowsIn(h.sb.state.collections, 'bk-ss-')).toHaveLength(392)

    proxy.rule = () => 'pass'
    const lines = ['amount,reference,mobile,provider']
    for (let i = 1; i <= 400; i++) lines.push(row(i, resaved))
    writeFileSync(file, lines.join('\r\n') + '\r\n')
    const again = await payUntil(['collections', 'create', '--from-file', file, '--currency', 'KES', '--json'])
    expect(again.code, again.stderr.slice(-2000)).toBe(0)
    expectExactlyOnce(h.sb.state.collections, 'bk-ss-', 400)
    // every amount went out in the one spelling, whatever the file said
    const sent = h.requests((e) => e.method === 'POST' && String((e.body as {merchant_reference?: string})?.merchant_reference).startsWith('bk-ss-'))
    expect(new Set(sent.map((e) => (e.body as {amount: string}).amount))).toEqual(new Set(amounts))
  })
})

describe('--force-new across an edit of the file', () => {
  it('a first run with --force-new killed with SIGKILL part-way, one row edited, a plain run: the forced keys are resumed, one object per unchanged row', async () => {
    const header = 'amount,reference,mobile,provider'
    const row = (i: number, amount = '3.00') => `${amount},bk-fl-${i}${amount === '3.00' ? '' : 'b'},254712345678,mpesa`
    const n = 60
    const file = csv('forced-lineage.csv', header, n, (i) => row(i))
    // the 5th request's answer is cut (retried with its key), then after 30 answers every answer is held: the
    // service has committed those rows, the process never learns it
    let posts = 0
    proxy.rule = (r) => (r.method !== 'POST' || !refOf(r.body)?.startsWith('bk-fl-') ? 'pass' : ++posts === 5 ? 'cut' : posts > 30 ? 'hold' : 'pass')
    const held = () => proxy.seen.filter((s) => s.action === 'hold' && refOf(s.req.body)?.startsWith('bk-fl-')).length
    const args = ['collections', 'create', '--from-file', file, '--currency', 'KES', '--concurrency', '4']
    const first = await payUntil([...args, '--force-new'], () => held() >= 4)
    proxy.rule = () => 'pass'
    expect(first.killed, first.stderr).toBe(true)
    const sent = rowsIn(h.sb.state.collections, 'bk-fl-').length
    expect(sent).toBeGreaterThanOrEqual(30)
    expect(sent).toBeLessThan(n)
    const keyOf = (ref: string) => new Set(h.requests((e) => e.method === 'POST' && (e.body as {merchant_reference?: string})?.merchant_reference === ref).map((e) => e.headers['idempotency-key']))

    // row 2 (sent by the forced run) edited, amount and reference (an accepted reference is a promise): a new file
    // content, so a new run id; a plain run of it
    expect(objects('bk-fl-2')).toHaveLength(1)
    writeFileSync(file, [header, ...Array.from({length: n}, (_, k) => row(k + 1, k + 1 === 2 ? '9.75' : '3.00'))].join('\n') + '\n')
    const again = await payUntil(args)
    expect(again.code, again.stderr.slice(-2000)).toBe(0)
    expect(again.stderr).toMatch(new RegExp(`${n} rows in .*: 0 succeeded, ${n} processing, 0 failed, 0 unknown`))
    for (let i = 1; i <= n; i++) {
      if (i === 2) continue
      expect(objects(`bk-fl-${i}`), `bk-fl-${i}`).toHaveLength(1)
      expect(keyOf(`bk-fl-${i}`).size, `bk-fl-${i}`).toBe(1)
    }
    // the edited row is a new request (a new key), next to the forced run's
    expect(objects('bk-fl-2').map((c) => (c as unknown as {amount: string}).amount)).toEqual(['3.00'])
    expect(objects('bk-fl-2b').map((c) => (c as unknown as {amount: string}).amount)).toEqual(['9.75'])
    expect(keyOf('bk-fl-2').size).toBe(1)
    // and the run said whose keys it resumed
    expect(again.stderr).toMatch(/resuming the --force-new keys of run [0-9a-f]{32} of .*forced-lineage\.csv, which has changed since/)

    // the same file again: its own run journal settles every row, nothing is sent
    const before = h.requests().length
    ok(await payUntil(args))
    expect(h.requests().length).toBe(before)

    // edited once more (row 3): the plain run before recorded the forced salt in the lineage, so it carries on
    writeFileSync(file, [header, ...Array.from({length: n}, (_, k) => row(k + 1, k + 1 === 2 ? '9.75' : k + 1 === 3 ? '4.25' : '3.00'))].join('\n') + '\n')
    ok(await payUntil(args))
    for (let i = 4; i <= n; i++) expect(objects(`bk-fl-${i}`), `bk-fl-${i}`).toHaveLength(1)
    expect(objects('bk-fl-2b')).toHaveLength(1)
    expect(objects('bk-fl-3').map((c) => (c as unknown as {amount: string}).amount)).toEqual(['3.00'])
    expect(objects('bk-fl-3b').map((c) => (c as unknown as {amount: string}).amount)).toEqual(['4.25'])
  })
})

describe('Retry-After', () => {
  it('a 429 with the wait only in the Retry-After header is waited out before the row is sent again', async () => {
    const file = csv('retry-after.csv', 'amount,reference,mobile,provider', 1, () => '1.00,bk-ra-1,254712345678,mpesa')
    const at: number[] = []
    proxy.rule = (r) => {
      if (r.method !== 'POST' || refOf(r.body) !== 'bk-ra-1') return 'pass'
      at.push(Date.now())
      return at.length === 1 ? {status: 429, retryAfter: 3, headerOnly: true} : 'pass'
    }
    const r = await h.pay(['collections', 'create', '--from-file', file, '--currency', 'KES'], env)
    proxy.rule = () => 'pass'
    expect(r.code, r.stderr).toBe(0)
    expect(at).toHaveLength(2)
    // without the header the engine's own first pause is 1 s; the header asked for 3 s (a lower bound: load cannot shorten it)
    expect(at[1] - at[0]).toBeGreaterThanOrEqual(2900)
    expect(objects('bk-ra-1')).toHaveLength(1)
  })
})

describe('stdin, --dry-run, an unreachable service', () => {
  it('NDJSON from stdin with --dry-run: the plan, nothing sent; then for real', async () => {
    const input = [1, 2, 3].map((i) => JSON.stringify({amount: '3.00', reference: `bk-in-${i}`, mobile: '254712345678', provider: 'mpesa'})).join('\n') + '\n'
    const args = ['collections', 'create', '--from-file', '-', '--format', 'ndjson', '--currency', 'KES']
    const dry = ok(await h.pay([...args, '--dry-run', '--json'], env, input))
    expect(JSON.parse(dry.stdout)).toMatchObject({rows: 3, to_send: 3, method: 'POST', url: `${proxy.url}/v1/collections`})
    expect(rowsIn(h.sb.state.collections, 'bk-in-')).toHaveLength(0)
    const real = ok(await h.pay([...args, '--json'], env, input))
    expect(real.stdout.trim().split('\n')).toHaveLength(3)
    expectExactlyOnce(h.sb.state.collections, 'bk-in-', 3)
  })

  it('stops when the service does not answer, exit 7, saying how to resume', async () => {
    const file = csv('down.csv', 'amount,reference,mobile,provider', 200, (i) => `5.00,bk-down-${i},254712345678,mpesa`)
    proxy.rule = (req) => (req.method === 'POST' && refOf(req.body)?.startsWith('bk-down-') ? 'drop' : 'pass')
    const r = await h.pay(['collections', 'create', '--from-file', file, '--currency', 'KES', '--retries', '0'], env)
    proxy.rule = () => 'pass'
    expect(r.code, r.stderr).toBe(7)
    expect(rowsIn(h.sb.state.collections, 'bk-down-')).toHaveLength(0)
    expect(r.stderr).toMatch(/stopped after \d+ of 200 rows/)
    expect(r.stderr).toMatch(/run the same command again/)
  })
})

describe('--wait', () => {
  it('each row waits for its final state: exit 1 when some transactions failed, each named', async () => {
    const file = csv('wait.csv', 'amount,reference,mobile', 12, (i) => `7.00,bk-w-${i},25471234567${i % 4 === 0 ? 9 : 1}`)
    const r = await h.pay(['collections', 'create', '--from-file', file, '--currency', 'KES', '--provider', 'mpesa', '--wait', '--json'], env)
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
  it('a payout run summary names the total of its rows by state (accepted payouts are still processing), not "money in"', async () => {
    const file = csv('payouts-summary.csv', 'amount,reference,mobile,provider', 2, (i) => `5.00,bk-ps-${i},254712345670,mpesa`)
    const r = await payUntil(['payouts', 'create', '--from-file', file, '--currency', 'KES'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toMatch(/total amount of the rows still processing: 10\.00 KES/)
    expect(r.stderr).not.toMatch(/money in/)
  })

  it('3,000 rows killed part-way and run again: one payout per row, the wallet debited once per row', async () => {
    const wallet = () => h.sb.state.wallets[Object.keys(h.sb.state.wallets).find((k) => h.sb.state.merchants[k]?.key === 'acme') ?? '']?.KES?.payout_wallet
    const start = wallet()
    const file = csv('payouts.ndjson', '{"amount":"5.00","reference":"bk-p-0","mobile":"254712345678","provider":"mpesa"}', 2999, (i) => JSON.stringify({amount: '5.00', merchant_reference: `bk-p-${i}`, mobile: '254712345678', provider: 'mpesa'}))
    cutSomeAnswers('bk-p-')
    const args = ['payouts', 'create', '--from-file', file, '--currency', 'KES', '--concurrency', '8']
    const first = await payUntil(args, () => rowsIn(h.sb.state.payouts, 'bk-p-').length >= 800)
    expect(first.killed, first.stderr).toBe(true)
    const again = await payUntil(args)
    expect(again.code, again.stderr.slice(-2000)).toBe(0)
    expectExactlyOnce(h.sb.state.payouts, 'bk-p-', 3000)
    if (start !== undefined) expect(debitedMinor(start, wallet()!)).toBe(3000n * 1500n) // 5.00 + 10.00 fee per payout
  })
})

function debitedMinor(before: string, after: string): bigint {
  const minor = (s: string) => BigInt(s.replace('.', ''))
  return minor(before) - minor(after)
}
