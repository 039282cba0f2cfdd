/**
 * Bulk runs as processes: the built CLI against the sandbox through the fault proxy, which loses some answers
 * after the service committed, for what only a process shows: runs killed part-way (SIGKILL, Ctrl-C) and run
 * again, stdin. Exactly once is checked in the sandbox's state (one object per row) and its request log (every
 * request for a row carried the same key). The engine's logic in-process: test/bulk/engine.sandbox.test.ts.
 */
import {spawn} from 'node:child_process'
import {createHash} from 'node:crypto'
import {existsSync, readFileSync, readdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {BIN, ROOT, type CliResult, cleanEnv, tempConfigDir} from '../helpers/cli.js'
import {referenceIn} from '../helpers/fault-proxy.js'
import {expectOncePerRow, ok, useFaultProxy, useSandbox, withPrefix, withReference, writeRows} from '../helpers/command-harness.js'

const h = useSandbox({rateLimits: {writePerMinute: 10_000_000, writePerHour: 100_000_000}})
const faults = useFaultProxy(h, {PAY_BULK_PROGRESS_MS: '500'})

const refOf = referenceIn
/** Loses the answer of the first request of about one row in twenty (the service has committed it). */
function cutSomeAnswers(prefix: string): void {
  const cut = new Set<string>()
  faults.proxy.rule = (r) => {
    const ref = r.method === 'POST' ? refOf(r.body) : undefined
    if (!ref?.startsWith(prefix) || cut.has(ref)) return 'pass'
    if (createHash('sha256').update(ref).digest()[0] % 20 !== 0) return 'pass'
    cut.add(ref)
    return 'cut'
  }
}

const csv = (file: string, header: string, rows: number, line: (i: number) => string) => writeRows(faults.dir, file, header, rows, line)

/** Runs pay; `killWhen` is polled and the process sent `signal` (SIGKILL) once it holds. */
function payUntil(args: string[], killWhen?: () => boolean, signal: NodeJS.Signals = 'SIGKILL'): Promise<CliResult & {killed: boolean}> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {cwd: ROOT, env: cleanEnv({...h.env, ...faults.env}), stdio: ['ignore', 'pipe', 'pipe']})
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
const objects = (ref: string) => withReference(h.sb.state.collections, ref)
const rowsIn = withPrefix

const expectExactlyOnce = (records: Record<string, {merchant_reference: string}>, prefix: string, n: number) => expectOncePerRow(h, records, prefix, n)

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

    const results = join(faults.dir, 'collections-results.csv')
    const again = await payUntil([...args, '--json', '--results', results])
    expect(again.stderr).toMatch(/resuming run [0-9a-f]{32}/)
    expectExactlyOnce(h.sb.state.collections, 'bk-c-', 3000)

    const lines = again.stdout.trim().split('\n').map((l) => JSON.parse(l) as {row: number; status: string; id: string})
    expect(lines).toHaveLength(3000)
    expect(new Set(lines.map((l) => l.row)).size).toBe(3000)
    // accepted, and processing as far as pay saw; a row whose answer was lost, resent under its key, may be answered
    // with the first answer replayed and is looked up: it says what the sandbox says now (nothing says succeeded or
    // failed before the collection did); exit 1 only for rows that failed
    const ended = lines.filter((l) => l.status !== 'processing')
    expect(lines.every((l) => /^CL_/.test(l.id))).toBe(true)
    for (const l of ended) expect(h.sb.state.collections[l.id].status).toBe(l.status)
    const failed = ended.filter((l) => l.status === 'failed').length
    expect(again.code, again.stderr.slice(-2000)).toBe(failed > 0 ? 1 : 0)
    expect(again.stderr).toMatch(new RegExp(`3000 rows in .*: ${ended.length - failed} succeeded, ${3000 - ended.length} processing, ${failed} failed, 0 unknown`))
    const csvOut = readFileSync(results, 'utf8').trim().split('\n')
    expect(csvOut[0]).toBe('row,line,reference,status,outcome,http_status,id,state,state_at,error_code,error_message,idempotency_key,amount,currency,earlier')
    expect(csvOut).toHaveLength(3001)

    // a third run sends nothing
    const before = h.requests().length
    expect((await payUntil(args)).code).toBe(again.code)
    expect(h.requests().length).toBe(before)
  })

  it('Ctrl-C part-way: exit 130 naming how to resume, no spool file left behind; the plain re-run completes, once per row', async () => {
    const file = csv('interrupted.csv', 'amount,reference,mobile,provider', 60, (i) => `10.00,bk-int-${i},254712345678,mpesa`)
    // the first 20 rows are answered, then the service's answers are held: rows stay in flight until the signal
    let passed = 0
    faults.proxy.rule = (r) => (r.method === 'POST' && refOf(r.body)?.startsWith('bk-int-') && ++passed > 20 ? 'hold' : 'pass')
    const args = ['collections', 'create', '--from-file', file, '--currency', 'KES', '--concurrency', '4']
    const journal = join(faults.dir, 'state', 'journal')
    // spool files left by the SIGKILLed runs above (pruned with the journal later) are not this run's
    const spools = () => readdirSync(journal).filter((n) => n.startsWith('rows-') || n.startsWith('stdin-'))
    const leftBefore = spools()
    const first = await payUntil(args, () => rowsIn(h.sb.state.collections, 'bk-int-').length >= 24, 'SIGINT')
    expect(first.killed).toBe(true)
    expect(first.code, first.stderr).toBe(130)
    expect(first.stderr).toMatch(/interrupted \(SIGINT\) after \d+ of 60 rows; run the same command again to resume/)
    expect(spools()).toEqual(leftBefore)
    faults.proxy.rule = () => 'pass'
    const again = await payUntil(args)
    expect(again.code, again.stderr.slice(-2000)).toBe(0)
    expectExactlyOnce(h.sb.state.collections, 'bk-int-', 60)
    expect(spools()).toEqual(leftBefore)
  })

  it('a password in the base URL never reaches the disk: not in the spool of a killed run, not in its run journal', async () => {
    const file = csv('password.csv', 'amount,reference,mobile,provider', 120, (i) => `10.00,bk-pw-${i},254712345678,mpesa`)
    let passed = 0
    faults.proxy.rule = (r) => (r.method === 'POST' && refOf(r.body)?.startsWith('bk-pw-') && ++passed > 30 ? 'hold' : 'pass')
    const cfg = tempConfigDir()
    const base = faults.proxy.url.replace('http://', 'http://bulkuser:s3cretpw@')
    const args = ['collections', 'create', '--from-file', file, '--currency', 'KES', '--concurrency', '4', '--base-url', base]
    const saved = faults.env
    faults.env = {...faults.env, PAY_CONFIG_DIR: cfg}
    try {
      const r = await payUntil(args, () => rowsIn(h.sb.state.collections, 'bk-pw-').length >= 30)
      expect(r.killed, r.stderr).toBe(true)
    } finally {
      faults.env = saved
      faults.proxy.rule = () => 'pass'
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
    const child = spawn(process.execPath, [BIN, 'collections', 'create', '--from-file', '-', '--currency', 'KES'], {cwd: ROOT, env: cleanEnv({...h.env, ...faults.env, PAY_CONFIG_DIR: cfg}), stdio: ['pipe', 'pipe', 'pipe']})
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
})

describe('one spelling of money on the wire', () => {
  it('killed after 392 of 400 rows, the file re-saved by a spreadsheet (1200.00 -> 1200, 350.50 -> 350.5, CRLF): the re-run pays no row again', async () => {
    const amounts = ['1200.00', '350.50', '75.00', '12.30']
    const resaved = ['1200', '350.5', '75', '12.3']
    const row = (i: number, spelt: string[]) => `${spelt[i % 4]},bk-ss-${i},2547${String(20_000_000 + i)},mpesa`
    const file = csv('spreadsheet.csv', 'amount,reference,mobile,provider', 400, (i) => row(i, amounts))
    // the service never sees rows after the 392nd in the first run; the run is killed while it tries the 393rd
    const past392 = (r: {method: string; body: string}) => r.method === 'POST' && Number(refOf(r.body)?.replace('bk-ss-', '') ?? 0) > 392
    faults.proxy.rule = (r) => (past392(r) ? 'drop' : 'pass')
    const killed = await payUntil(['collections', 'create', '--from-file', file, '--currency', 'KES', '--concurrency', '1'], () => rowsIn(h.sb.state.collections, 'bk-ss-').length >= 392 && faults.proxy.seen.some((s) => past392(s.req)))
    expect(killed.killed, killed.stderr).toBe(true)
    expect(rowsIn(h.sb.state.collections, 'bk-ss-')).toHaveLength(392)

    faults.proxy.rule = () => 'pass'
    const lines = ['amount,reference,mobile,provider']
    for (let i = 1; i <= 400; i++) lines.push(row(i, resaved))
    writeFileSync(file, lines.join('\r\n') + '\r\n')
    const again = await payUntil(['collections', 'create', '--from-file', file, '--currency', 'KES', '--json'])
    // rows the killed run had sent are answered as replays and looked up: exit 1 only for those that failed since
    const failed = again.stdout.trim().split('\n').filter((l) => (JSON.parse(l) as {status: string}).status === 'failed').length
    expect(again.code, again.stderr.slice(-2000)).toBe(failed > 0 ? 1 : 0)
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
    faults.proxy.rule = (r) => (r.method !== 'POST' || !refOf(r.body)?.startsWith('bk-fl-') ? 'pass' : ++posts === 5 ? 'cut' : posts > 30 ? 'hold' : 'pass')
    const held = () => faults.proxy.seen.filter((s) => s.action === 'hold' && refOf(s.req.body)?.startsWith('bk-fl-')).length
    const args = ['collections', 'create', '--from-file', file, '--currency', 'KES', '--concurrency', '4']
    const first = await payUntil([...args, '--force-new'], () => held() >= 4)
    faults.proxy.rule = () => 'pass'
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

describe('stdin, --dry-run, an unreachable service', () => {
  it('NDJSON from stdin with --dry-run: the plan, nothing sent; then for real', async () => {
    const input = [1, 2, 3].map((i) => JSON.stringify({amount: '3.00', reference: `bk-in-${i}`, mobile: '254712345678', provider: 'mpesa'})).join('\n') + '\n'
    const args = ['collections', 'create', '--from-file', '-', '--format', 'ndjson', '--currency', 'KES']
    const dry = ok(await h.pay([...args, '--dry-run', '--json'], faults.env, input))
    expect(JSON.parse(dry.stdout)).toMatchObject({rows: 3, to_send: 3, method: 'POST', url: `${faults.proxy.url}/v1/collections`})
    expect(rowsIn(h.sb.state.collections, 'bk-in-')).toHaveLength(0)
    const real = ok(await h.pay([...args, '--json'], faults.env, input))
    expect(real.stdout.trim().split('\n')).toHaveLength(3)
    expectExactlyOnce(h.sb.state.collections, 'bk-in-', 3)
  })
})

describe('pay payouts create --from-file', () => {
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
