/**
 * What a bulk run says about money is true: pay against the sandbox (its default settle time), on the journey of a
 * payout that is accepted, then fails, across plain, --wait and --retry-failed re-runs. Each row's verdict is the
 * request's outcome (accepted / refused / unknown) read with the resource's latest known state. The runs are
 * in-process (h.command) but where only processes show it: two runs of one file at once, a run killed with SIGKILL.
 */
import {spawn} from 'node:child_process'
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {BIN, ROOT, cleanEnv, tempConfigDir} from '../helpers/cli.js'
import {byRef, useSandbox} from '../helpers/command-harness.js'
import {waitFor} from '../helpers/wait-for.js'

const h = useSandbox({settleMs: 1500})

type Row = Record<string, unknown> & {status: string; outcome: string; state: string | null}
const rows = (stdout: string): Row[] => stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Row)

/** A fresh config dir and a CSV of `n` collection rows (references PREFIX-1…), 1.00, 2.00, … */
function collectionsFile(name: string, prefix: string, n: number, mobileBase: number): {dir: string; file: string} {
  const dir = tempConfigDir()
  const file = join(dir, name)
  const lines = ['amount,reference,mobile,provider']
  for (let i = 1; i <= n; i++) lines.push(`${i}.00,${prefix}-${i},2547${String(mobileBase + i)},mpesa`)
  writeFileSync(file, lines.join('\n') + '\n')
  return {dir, file}
}

describe('a bulk payout that is accepted and then fails', () => {
  it('is reported processing, then failed by --wait (exit 1), and --retry-failed never turns it into succeeded', async () => {
    const dir = tempConfigDir()
    const env = {PAY_CONFIG_DIR: dir}
    const file = join(dir, 'rw.csv')
    writeFileSync(file, 'amount,reference,mobile,provider\n12.00,rw-1,254700000409,mpesa\n')
    const args = ['payouts', 'create', '--from-file', file, '--currency', 'KES']

    const first = await h.command([...args, '--json'], env)
    expect(first.code, first.stderr).toBe(0)
    const [sent] = rows(first.stdout)
    expect(sent).toMatchObject({status: 'processing', outcome: 'accepted', state: 'processing', earlier: false})
    expect(first.stderr).toMatch(/0 succeeded, 1 processing, 0 failed/)
    expect(first.stderr).toContain('total amount of the rows still processing: 12.00 KES')
    expect(first.stderr).not.toMatch(/of the succeeded rows/)

    // the sandbox settles it (failed, for this number): waited for in its state, not for a guessed time
    await waitFor(() => Object.values(h.sb.state.payouts).some((p) => p.merchant_reference === 'rw-1' && p.status === 'failed'), 30_000, 'the payout to fail')
    const waited = await h.command([...args, '--wait', '--json'], env)
    expect(waited.code, waited.stderr).toBe(1)
    const [polled] = rows(waited.stdout)
    expect(polled).toMatchObject({status: 'failed', outcome: 'accepted', state: 'failed', earlier: true, error_code: 'transaction_failed'})
    expect(Object.keys(polled)).toEqual(Object.keys(sent))
    expect(waited.stderr).toContain('total amount of the failed rows: 12.00 KES')
    expect((await h.command(['payouts', 'get', 'rw-1', '--json'], env)).stdout).toContain('"status":"failed"')

    const retried = await h.command([...args, '--retry-failed', '--json'], env)
    expect(retried.code, retried.stderr).toBe(1)
    expect(rows(retried.stdout)[0]).toMatchObject({status: 'failed', state: 'failed'})
    expect(retried.stderr).toMatch(/0 succeeded, 0 processing, 1 failed/)
    expect(retried.stderr).toContain('--retry-failed does not send them again')

    const again = await h.command([...args, '--wait'], env)
    expect(again.code).toBe(1)
    expect(again.stderr).toMatch(/0 succeeded, 0 processing, 1 failed/)
    // one payout upstream, whatever ran after
    expect(h.requests((e) => e.method === 'POST' && byRef('rw-1')(e))).toHaveLength(1)
    // pay journal sees the row, by reference and by key, with both facts and its run
    const byReference = await h.command(['journal', 'rw-1', '--json'], env)
    expect(byReference.code, byReference.stderr).toBe(0)
    expect(JSON.parse(byReference.stdout)).toMatchObject({reference: 'rw-1', outcome: 'accepted', state: 'failed', id: sent.id, idempotency_key: sent.idempotency_key, line: 2})
    const byKey = await h.command(['journal', String(sent.idempotency_key), '--json'], env)
    expect(JSON.parse(byKey.stdout)).toMatchObject({reference: 'rw-1', run: expect.stringMatching(/^[0-9a-f]{32}$/)})
  })

  it('with the same file: the CSV --results of a first run and of a re-run have the same columns', async () => {
    const dir = tempConfigDir()
    const env = {PAY_CONFIG_DIR: dir}
    const file = join(dir, 'ok.csv')
    writeFileSync(file, 'amount,reference,mobile,provider\n5.00,rw-ok-1,254700000001,mpesa\n')
    const out1 = join(dir, 'r1.csv')
    const out2 = join(dir, 'r2.csv')
    expect((await h.command(['payouts', 'create', '--from-file', file, '--currency', 'KES', '--results', out1], env)).code).toBe(0)
    expect((await h.command(['payouts', 'create', '--from-file', file, '--currency', 'KES', '--results', out2], env)).code).toBe(0)
    const {readFileSync} = await import('node:fs')
    const header = (p: string) => readFileSync(p, 'utf8').split('\n')[0]
    expect(header(out1)).toBe('row,line,reference,status,outcome,http_status,id,state,state_at,error_code,error_message,idempotency_key,amount,currency,earlier')
    expect(header(out2)).toBe(header(out1))
  })
})

describe('a reference is a promise within one file', () => {
  it('two rows with one reference and different bodies: exit 2 naming both lines, nothing sent', async () => {
    const dir = tempConfigDir()
    const file = join(dir, 'dup.csv')
    writeFileSync(file, 'amount,reference,mobile,provider\n10.00,dup-1,254700000001,mpesa\n7.00,dup-2,254700000001,mpesa\n11.00,dup-1,254700000001,mpesa\n')
    const r = await h.command(['payouts', 'create', '--from-file', file, '--currency', 'KES'], {PAY_CONFIG_DIR: dir})
    expect(r.code, r.stderr).toBe(2)
    expect(r.stderr).toContain('dup.csv:4 reference "dup-1" is also on line 2: a reference names one payment')
    expect(h.requests((e) => e.method === 'POST' && (byRef('dup-1')(e) || byRef('dup-2')(e)))).toHaveLength(0)
  })
})

describe('one run of a file at a time', () => {
  it('two bulk runs of one file started together: every row sent once, both report the same ids', async () => {
    const {dir, file} = collectionsFile('twice.csv', 'tw', 40, 30_000_000)
    const args = ['collections', 'create', '--from-file', file, '--currency', 'KES', '--json']
    const [a, b] = await Promise.all([h.pay(args, {PAY_CONFIG_DIR: dir}), h.pay(args, {PAY_CONFIG_DIR: dir})])
    expect(a.code, a.stderr).toBe(0)
    expect(b.code, b.stderr).toBe(0)
    const idsOf = (stdout: string) => new Map(rows(stdout).map((r) => [r.row, r.id]))
    expect(idsOf(a.stdout)).toEqual(idsOf(b.stdout))
    for (let i = 1; i <= 40; i++) expect(h.requests((e) => e.method === 'POST' && byRef(`tw-${i}`)(e))).toHaveLength(1)
  })
})

describe('pay journal sees bulk runs', () => {
  it('a run killed with SIGKILL is listed by --outcome unknown until the same command ends it', async () => {
    const {dir, file} = collectionsFile('killed.csv', 'kj', 400, 40_000_000)
    const args = ['collections', 'create', '--from-file', file, '--currency', 'KES', '--concurrency', '1']
    const made = () => Object.values(h.sb.state.collections).filter((c) => c.merchant_reference.startsWith('kj-')).length
    await new Promise<void>((resolve) => {
      const child = spawn(process.execPath, [BIN, ...args], {cwd: ROOT, env: cleanEnv({...h.env, PAY_CONFIG_DIR: dir}), stdio: 'ignore'})
      const poll = setInterval(() => made() >= 30 && child.kill('SIGKILL'), 10)
      child.on('close', () => {
        clearInterval(poll)
        resolve()
      })
    })
    expect(made()).toBeLessThan(400)
    const unknown = await h.command(['journal', '--outcome', 'unknown', '--json'], {PAY_CONFIG_DIR: dir})
    const listed = JSON.parse(unknown.stdout) as {error: {code: string} | null; run?: string; file?: string}[]
    expect(listed.some((e) => e.error?.code === 'run_cut' && e.file === file), unknown.stdout).toBe(true)
    const again = await h.command(args, {PAY_CONFIG_DIR: dir})
    expect(again.code, again.stderr).toBe(0)
    expect(made()).toBe(400)
    const after = JSON.parse((await h.command(['journal', '--outcome', 'unknown', '--json'], {PAY_CONFIG_DIR: dir})).stdout) as {error: {code: string} | null}[]
    expect(after.filter((e) => e.error?.code === 'run_cut')).toEqual([])
    const row = JSON.parse((await h.command(['journal', 'kj-400', '--json'], {PAY_CONFIG_DIR: dir})).stdout)
    expect(row).toMatchObject({reference: 'kj-400', outcome: 'accepted', endpoint: 'collections.create'})
  })
})

describe('a reference is a promise across runs and commands', () => {
  it('a file edited after an accepted run, a row keeping its reference with another amount: the re-run is refused (exit 5, the line named), nothing sent', async () => {
    const {dir, file} = collectionsFile('edited.csv', 'pe', 3, 50_000_000)
    const env = {PAY_CONFIG_DIR: dir}
    const args = ['collections', 'create', '--from-file', file, '--currency', 'KES']
    expect((await h.pay(args, env)).code).toBe(0)
    writeFileSync(file, ['amount,reference,mobile,provider', '1.00,pe-1,254750000001,mpesa', '7.50,pe-2,254750000002,mpesa', '3.00,pe-3,254750000003,mpesa'].join('\n') + '\n')
    const posts = () => h.requests((e) => e.method === 'POST' && String((e.body as {merchant_reference?: string})?.merchant_reference).startsWith('pe-')).length
    const before = posts()
    const refused = await h.pay(args, env)
    expect(refused.code, refused.stderr).toBe(5)
    expect(refused.stderr).toMatch(/edited\.csv:3 reference pe-2: line 3 of .*edited\.csv \(bulk run [0-9a-f]{32}\), accepted at .* as CL_/)
    expect(refused.stderr).toContain('nothing was sent')
    expect(refused.stderr).toContain('--force-new')
    expect(posts()).toBe(before)
    // the same under --dry-run: it says what a run would do
    expect((await h.pay([...args, '--dry-run'], env)).code).toBe(5)
    // the edited row under a reference of its own: sent; the unchanged rows are settled by the first run, not sent again
    writeFileSync(file, ['amount,reference,mobile,provider', '1.00,pe-1,254750000001,mpesa', '7.50,pe-2b,254750000002,mpesa', '3.00,pe-3,254750000003,mpesa'].join('\n') + '\n')
    const fixed = await h.pay([...args, '--json'], env)
    expect(fixed.code, fixed.stderr).toBe(0)
    expect(posts()).toBe(before + 1)
    expect(rows(fixed.stdout).sort((x, y) => Number(x.row) - Number(y.row)).map((r) => r.earlier)).toEqual([true, false, true])
  })

  it('a single command whose --reference a bulk row had accepted with another body: exit 5 naming the row; --force-new sends it', async () => {
    const {dir, file} = collectionsFile('single-after.csv', 'ps', 2, 51_000_000)
    const env = {PAY_CONFIG_DIR: dir}
    expect((await h.pay(['collections', 'create', '--from-file', file, '--currency', 'KES'], env)).code).toBe(0)
    const single = ['collections', 'create', '--amount', '9.00', '--currency', 'KES', '--mobile', '254751000001', '--provider', 'mpesa', '--reference', 'ps-1']
    const refused = await h.pay(single, env)
    expect(refused.code, refused.stderr).toBe(5)
    expect(refused.stderr).toMatch(/reference ps-1 already names another request: line 2 of .*single-after\.csv \(bulk run [0-9a-f]{32}\), collections\.create accepted at .* as CL_/)
    expect(h.requests((e) => e.method === 'POST' && byRef('ps-1')(e))).toHaveLength(1)
    const forced = await h.pay([...single, '--force-new'], env)
    expect(forced.code, forced.stderr).toBe(0)
    expect(h.requests((e) => e.method === 'POST' && byRef('ps-1')(e))).toHaveLength(2)
  })

  it('a bulk row whose reference a single command had accepted: the run is refused (exit 5), nothing sent', async () => {
    const {dir, file} = collectionsFile('bulk-after.csv', 'pb', 3, 52_000_000)
    const env = {PAY_CONFIG_DIR: dir}
    const single = await h.pay(['collections', 'create', '--amount', '2.00', '--currency', 'KES', '--mobile', '254752000002', '--provider', 'mpesa', '--reference', 'pb-2'], env)
    expect(single.code, single.stderr).toBe(0)
    const refused = await h.pay(['collections', 'create', '--from-file', file, '--currency', 'KES'], env)
    expect(refused.code, refused.stderr).toBe(5)
    expect(refused.stderr).toMatch(/bulk-after\.csv:3 reference pb-2: a single command, accepted at .* as CL_/)
    for (const ref of ['pb-1', 'pb-2', 'pb-3']) expect(h.requests((e) => e.method === 'POST' && byRef(ref)(e))).toHaveLength(ref === 'pb-2' ? 1 : 0)
  })
})

describe('one run of a file path at a time', () => {
  it('two versions of one file run together: the second waits for the first, every row is paid once, shared rows are not sent again', async () => {
    const {dir, file} = collectionsFile('versions.csv', 'vv', 60, 53_000_000)
    const env = {PAY_CONFIG_DIR: dir}
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n')
    const v2 = join(dir, 'v2.csv')
    // version 2: the same path once version 1 started; it adds rows 61-70
    writeFileSync(v2, [...lines, ...Array.from({length: 10}, (_, k) => `${61 + k}.00,vv-${61 + k},2547${String(53_000_061 + k)},mpesa`)].join('\n') + '\n')
    const args = ['collections', 'create', '--from-file', file, '--currency', 'KES', '--concurrency', '1', '--json']
    // 100 ms a request: the first run still sends (about 6 s) when the second starts, however busy the machine
    const faults = (latency_ms: number) => fetch(h.sb.url + '/_sandbox/faults', {method: 'PUT', headers: {'content-type': 'application/json'}, body: JSON.stringify({latency_ms})})
    await faults(100)
    const first = h.pay(args, env).finally(() => faults(0))
    // the first run holds the file's lock once it sends; then the file is replaced by version 2 and run again
    const sent = () => h.requests((e) => e.method === 'POST' && String((e.body as {merchant_reference?: string})?.merchant_reference).startsWith('vv-')).length
    while (sent() < 3) await new Promise((r) => setTimeout(r, 10))
    writeFileSync(file, readFileSync(v2))
    const second = await h.pay(args, env)
    const a = await first
    expect(a.code, a.stderr).toBe(0)
    expect(second.code, second.stderr).toBe(0)
    expect(second.stderr).toMatch(/waiting: another pay process \(pid \d+\) is running this file/)
    for (let i = 1; i <= 70; i++) expect(h.requests((e) => e.method === 'POST' && byRef(`vv-${i}`)(e)), `vv-${i}`).toHaveLength(1)
    const ids = new Map(rows(a.stdout).map((r) => [r.reference, r.id]))
    for (const r of rows(second.stdout)) if (ids.has(r.reference)) expect(r).toMatchObject({id: ids.get(r.reference), earlier: true})
  })
})
