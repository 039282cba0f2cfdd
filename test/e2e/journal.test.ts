/**
 * The operation journal, end to end: the built CLI against the sandbox through a fault proxy that cuts the
 * connection (or never answers) AFTER the service has committed. Checked in the sandbox's state and request log.
 */
import {spawn} from 'node:child_process'
import {mkdirSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BIN, ROOT, cleanEnv, json, tempConfigDir} from '../helpers/cli.js'
import {type FaultProxy, referenceIn, startFaultProxy} from '../helpers/fault-proxy.js'
import {ok, useSandbox} from '../helpers/command-harness.js'

const h = useSandbox()
let proxy: FaultProxy
let env: Record<string, string>

beforeAll(async () => {
  proxy = await startFaultProxy(h.sb.url)
  env = {PAY_BASE_URL: proxy.url, PAY_CONFIG_DIR: tempConfigDir()}
})
afterAll(async () => {
  await proxy?.close()
})

const refOf = referenceIn
/** Cut every answer to a POST carrying this reference. */
const cutRef = (ref: string) => (proxy.rule = (r) => (r.method === 'POST' && refOf(r.body) === ref ? 'cut' : 'pass'))
const collectionsWith = (ref: string) => Object.values(h.sb.state.collections).filter((c) => c.merchant_reference === ref)
const payoutsWith = (ref: string) => Object.values(h.sb.state.payouts).filter((c) => c.merchant_reference === ref)
const keysSent = (ref: string) => new Set(h.requests((e) => e.method === 'POST' && (e.body as {merchant_reference?: string})?.merchant_reference === ref).map((e) => e.headers['idempotency-key']))

const collect = (ref: string, extra: string[] = []) => ['collections', 'create', '--amount', '150.00', '--currency', 'KES', '--reference', ref, '--mobile', '254712345678', '--provider', 'mpesa', '--retries', '1', ...extra]

describe('a create whose answer is cut after the service committed', () => {
  it('fails naming the key and the resume command; a plain re-run reuses the key, creates nothing new and prints the first result', async () => {
    cutRef('jr-col-1')
    const first = await h.pay(collect('jr-col-1', ['--json']), env)
    expect(first.code, first.stderr).toBe(7)
    const envelope = json(first)
    const key = envelope.error.idempotency_key as string
    expect(key).toMatch(/^[0-9a-f-]{36}$/)
    expect(envelope.error.resume_command).toContain(`--idempotency-key ${key}`)
    expect(first.stderr).toContain(`idempotency key: ${key}`)
    expect(first.stderr).toContain('pay transactions verify jr-col-1')
    expect(collectionsWith('jr-col-1')).toHaveLength(1)
    const created = collectionsWith('jr-col-1')[0]

    proxy.rule = () => 'pass'
    const again = ok(await h.pay(collect('jr-col-1', ['--json']), env))
    expect(again.stderr).toContain(`reusing its Idempotency-Key ${key}`)
    expect(json(again).id).toBe(created.id)
    expect(collectionsWith('jr-col-1')).toHaveLength(1)
    expect(keysSent('jr-col-1')).toEqual(new Set([key]))

    // after a known success: the earlier answer, nothing sent
    const sentBefore = h.requests().length
    const third = ok(await h.pay(collect('jr-col-1'), env))
    expect(third.stderr).toMatch(/already sent: .*accepted at .* as CL_.*nothing was sent now.*--force-new/)
    expect(third.stdout).toContain(created.id)
    // nothing sent: at most the one lookup of the collection's state (it had not ended when the answer came)
    expect(h.requests().slice(sentBefore).filter((e) => e.method !== 'GET')).toHaveLength(0)
    expect(h.requests().slice(sentBefore).length).toBeLessThanOrEqual(1)

    // --force-new sends it again as a new request (the service refuses the reference a second time or makes a new one)
    const forced = await h.pay(collect('jr-col-1', ['--force-new']), env)
    expect(forced.stderr).not.toContain('already sent')
    expect(keysSent('jr-col-1').size).toBe(2)
  })

  it('payouts: the payout wallet is debited once', async () => {
    cutRef('jr-po-1')
    const args = ['payouts', 'create', '--amount', '100.00', '--currency', 'KES', '--reference', 'jr-po-1', '--mobile', '254712345678', '--provider', 'mpesa', '--retries', '0']
    const first = await h.pay(args, env)
    expect(first.code).toBe(7)
    const key = /idempotency key: (\S+)/.exec(first.stderr)?.[1]
    expect(key, first.stderr).toBeDefined()
    expect(payoutsWith('jr-po-1')).toHaveLength(1)
    proxy.rule = () => 'pass'
    const again = ok(await h.pay([...args, '--json'], env))
    expect(json(again).id).toBe(payoutsWith('jr-po-1')[0].id)
    expect(payoutsWith('jr-po-1')).toHaveLength(1)
    expect(keysSent('jr-po-1')).toEqual(new Set([key]))
  })

  it('the same reference with a different body is a new request, with a warning about the earlier one', async () => {
    cutRef('jr-col-2')
    expect((await h.pay(collect('jr-col-2'), env)).code).toBe(7)
    proxy.rule = () => 'pass'
    const changed = await h.pay(['collections', 'create', '--amount', '151.00', '--currency', 'KES', '--reference', 'jr-col-2', '--mobile', '254712345678', '--provider', 'mpesa'], env)
    expect(changed.stderr).toMatch(/earlier request with reference jr-col-2 .* outcome is unknown/)
    expect(changed.stderr).toContain('pay transactions verify jr-col-2')
    expect(keysSent('jr-col-2').size).toBe(2)
  })

  it('pay journal lists and shows the operations and their outcome', async () => {
    const list = ok(await h.pay(['journal', '--json', '--limit', '100'], env))
    const rows = json<{reference: string; outcome: string; idempotency_key: string; endpoint: string}[]>(list)
    const po = rows.find((r) => r.reference === 'jr-po-1')
    expect(po).toMatchObject({outcome: 'accepted', endpoint: 'payouts.create', state: 'processing'})
    const show = ok(await h.pay(['journal', 'jr-po-1', '--json'], env))
    expect(json(show)).toMatchObject({idempotency_key: po!.idempotency_key, outcome: 'accepted', response: {merchant_reference: 'jr-po-1'}})
    const human = ok(await h.pay(['journal', '--outcome', 'unknown'], env))
    expect(human.stdout).toContain('jr-col-2')
  })

  it('journal files are 0600', () => {
    const dir = join(env.PAY_CONFIG_DIR, 'state', 'journal')
    const day = new Date().toISOString().slice(0, 10)
    expect(statSync(join(dir, `${day}.ndjson`)).mode & 0o777).toBe(0o600)
    expect(statSync(dir).mode & 0o777).toBe(0o700)
  })

  it('an unwritable state dir: one warning, and the command still works', async () => {
    const dir = tempConfigDir()
    writeFileSync(join(dir, 'state'), 'not a directory')
    const r = ok(await h.pay(collect('jr-col-3'), {...env, PAY_CONFIG_DIR: dir}))
    expect(r.stderr.match(/operation journal is off/g)).toHaveLength(1)
    expect(collectionsWith('jr-col-3')).toHaveLength(1)
  })
})

/** Today's segment of the journal of a config dir (its state dir made, as pay makes it). */
function segmentOf(configDir: string): string {
  const dir = join(configDir, 'state', 'journal')
  mkdirSync(join(dir, 'runs'), {recursive: true, mode: 0o700})
  return join(dir, `${new Date().toISOString().slice(0, 10)}.ndjson`)
}

/** A cut answer, then a plain re-run: one collection upstream, one key sent, the same id printed at the end. */
async function cutThenRerun(ref: string, configDir: string): Promise<{first: {code: number; stderr: string}; key: string}> {
  cutRef(ref)
  const first = await h.pay(collect(ref), {...env, PAY_CONFIG_DIR: configDir})
  expect(first.code, first.stderr).toBe(7)
  expect(collectionsWith(ref)).toHaveLength(1)
  proxy.rule = () => 'pass'
  const again = ok(await h.pay(collect(ref, ['--json']), {...env, PAY_CONFIG_DIR: configDir}))
  expect(json(again).id).toBe(collectionsWith(ref)[0].id)
  expect(collectionsWith(ref)).toHaveLength(1)
  expect(keysSent(ref).size).toBe(1)
  return {first, key: [...keysSent(ref)][0]}
}

describe('two facts: what the request came to, and the state of what it made', () => {
  const payout = (ref: string, amount: string, extra: string[] = []) => ['payouts', 'create', '--amount', amount, '--currency', 'KES', '--reference', ref, '--mobile', '254700000409', '--provider', 'mpesa', ...extra]
  const sentFor = (ref: string) => h.requests((e) => (e.body as {merchant_reference?: string} | undefined)?.merchant_reference === ref || e.path.endsWith(`/${ref}`))

  it('a re-run after an accepted payout that later failed: one GET, no money moves, "accepted … as PO_…; state now: failed"', async () => {
    proxy.rule = () => 'pass'
    const first = ok(await h.pay(payout('jr-2f-1', '12.00', ['--json']), env))
    expect(json(first).status).toBe('processing')
    await new Promise((r) => setTimeout(r, 1500)) // the sandbox settles it (failed, for this number)
    const before = sentFor('jr-2f-1').length
    const again = ok(await h.pay(payout('jr-2f-1', '12.00', ['--json']), env))
    expect(again.stderr).toMatch(new RegExp(`accepted \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} UTC as ${json(first).id}; state now: failed`))
    expect(again.stderr).not.toMatch(/succeeded/)
    expect(json(again).status).toBe('failed')
    const later = sentFor('jr-2f-1').slice(before)
    expect(later.map((e) => e.method)).toEqual(['GET'])
    // the journal keeps both facts; a third run needs no lookup (failed does not change any more)
    const shown = json(ok(await h.pay(['journal', 'jr-2f-1', '--json'], env)))
    expect(shown).toMatchObject({outcome: 'accepted', state: 'failed'})
    const third = ok(await h.pay(payout('jr-2f-1', '12.00'), env))
    expect(third.stderr).toMatch(/state: failed \(seen .*does not change any more\)/)
    expect(sentFor('jr-2f-1').length).toBe(before + 1)
  })

  it('a reference is a promise: the same --reference with another amount after an accepted payout is exit 5, nothing sent; --force-new sends it on purpose', async () => {
    proxy.rule = () => 'pass'
    const first = ok(await h.pay(payout('refund-981', '300', ['--json']), env))
    const refused = await h.pay(payout('refund-981', '301'), env)
    expect(refused.code, refused.stderr).toBe(5)
    expect(refused.stderr).toContain(`reference refund-981 already names another request: payouts.create accepted at`)
    expect(refused.stderr).toContain(json(first).id)
    expect(refused.stderr).toContain('--force-new')
    expect(payoutsWith('refund-981')).toHaveLength(1)
    ok(await h.pay(payout('refund-981', '301', ['--force-new']), env))
    expect(payoutsWith('refund-981')).toHaveLength(2)
  })

  it('one spelling of money: --amount 150 then 150.00 is the same request (sent once, the second run sends nothing)', async () => {
    proxy.rule = () => 'pass'
    ok(await h.pay(collect('jr-amt-1').map((a) => (a === '150.00' ? '150' : a)), env))
    const second = ok(await h.pay(collect('jr-amt-1'), env))
    expect(second.stderr).toContain('already sent')
    expect(collectionsWith('jr-amt-1')).toHaveLength(1)
    expect(collectionsWith('jr-amt-1')[0].amount).toBe('150.00')
  })
})

describe('one sender per request', () => {
  it('20 pairs of identical `pay collections create` started together: 20 collections upstream, and both of each pair print the same id', async () => {
    const dir = tempConfigDir()
    const ids: [string, string][] = []
    for (let batch = 0; batch < 4; batch++) {
      const pairs = Array.from({length: 5}, (_, i) => `jr-pair-${batch * 5 + i + 1}`)
      const runs = await Promise.all(pairs.flatMap((ref) => [h.pay(collect(ref, ['--json']), {PAY_CONFIG_DIR: dir}), h.pay(collect(ref, ['--json']), {PAY_CONFIG_DIR: dir})]))
      for (let i = 0; i < pairs.length; i++) {
        const [a, b] = [runs[2 * i], runs[2 * i + 1]]
        expect(a.code, a.stderr).toBe(0)
        expect(b.code, b.stderr).toBe(0)
        // one of the two sent it; the other waited for it and reports its answer
        expect([a, b].filter((r) => r.stderr.includes('already sent'))).toHaveLength(1)
        ids.push([json(a).id, json(b).id])
      }
    }
    for (const [a, b] of ids) expect(a).toBe(b)
    for (let i = 1; i <= 20; i++) {
      expect(collectionsWith(`jr-pair-${i}`)).toHaveLength(1)
      // the sandbox's request log: one create per pair (the other process sent none)
      expect(h.requests((e) => e.method === 'POST' && (e.body as {merchant_reference?: string})?.merchant_reference === `jr-pair-${i}`)).toHaveLength(1)
    }
  })

  it('a sender killed with SIGKILL while its request is in flight leaves its lock: the next run takes it over and resumes the key', async () => {
    proxy.rule = (r) => (r.method === 'POST' && refOf(r.body) === 'jr-lock-1' ? 'hold' : 'pass')
    const killed = await interrupt(collect('jr-lock-1'), 'jr-lock-1', 'SIGKILL')
    expect(killed.code).toBe(null)
    proxy.rule = () => 'pass'
    const started = Date.now()
    const again = ok(await h.pay(collect('jr-lock-1', ['--json']), env))
    expect(Date.now() - started).toBeLessThan(20_000) // taken over at once, not waited out
    expect(json(again).id).toBe(collectionsWith('jr-lock-1')[0].id)
    expect(collectionsWith('jr-lock-1')).toHaveLength(1)
    expect(keysSent('jr-lock-1').size).toBe(1)
  })
})

describe('a journal that cannot lose a record', () => {
  it('a torn last line (a crash mid-write) does not swallow the next record: cut answer, plain re-run, one object', async () => {
    const dir = tempConfigDir()
    writeFileSync(segmentOf(dir), '{"t":"op","at":"2026-01-01T00:00:00.000Z","key":"torn-', {mode: 0o600})
    const {first, key} = await cutThenRerun('jr-torn-1', dir)
    expect(first.stderr).toContain(`reuses Idempotency-Key ${key} from the journal`)
  })

  it('a NUL-padded tail (a crash after the file grew) does not swallow the next record: one object', async () => {
    const dir = tempConfigDir()
    const earlier = JSON.stringify({t: 'op', at: new Date().toISOString(), key: 'nul-earlier', match: 'm', endpoint: 'collections.create', method: 'POST', url: 'http://x/v1/collections', base_url: 'http://x', body_sha256: 'h', pid: 1})
    writeFileSync(segmentOf(dir), `${earlier}${'\0'.repeat(512)}`, {mode: 0o600})
    await cutThenRerun('jr-nul-1', dir)
    // the record before the NULs is read too
    const list = ok(await h.pay(['journal', '--json', '--limit', '100'], {...env, PAY_CONFIG_DIR: dir}))
    expect(json<{idempotency_key: string}[]>(list).map((e) => e.idempotency_key)).toContain('nul-earlier')
  })

  it('the request record cannot be written (the segment unwritable, as a full disk): nothing is sent, exit 1 with the reason; then a cut answer and a plain re-run: one object', async () => {
    const dir = tempConfigDir()
    const segment = segmentOf(dir)
    mkdirSync(segment) // a directory where the segment should be: every write of a record fails
    const refused = await h.pay(collect('jr-full-1'), {...env, PAY_CONFIG_DIR: dir})
    expect(refused.code, refused.stderr).toBe(1)
    expect(refused.stderr).toMatch(/could not record this request before sending it .*nothing was sent/)
    expect(h.requests((e) => e.method === 'POST' && (e.body as {merchant_reference?: string})?.merchant_reference === 'jr-full-1')).toHaveLength(0)
    rmSync(segment, {recursive: true})
    await cutThenRerun('jr-full-1', dir)
  })

  it('an unwritable state dir: the hint says to pass the key (the journal holds none); a plain re-run derives the same key: one object', async () => {
    const dir = tempConfigDir()
    writeFileSync(join(dir, 'state'), 'not a directory')
    const {first, key} = await cutThenRerun('jr-off-1', dir)
    expect(first.stderr).toMatch(/operation journal is off/)
    expect(first.stderr).toContain(`pass \`--idempotency-key ${key}\` when you run it again`)
    expect(first.stderr).not.toContain('from the journal')
  })
})

/** Runs pay, sends `signal` once the sandbox has the request, and collects the result. */
function interrupt(args: string[], ref: string, signal: NodeJS.Signals): Promise<{code: number | null; stdout: string; stderr: string}> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {cwd: ROOT, env: cleanEnv({...h.env, ...env}), stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    const started = Date.now()
    const poll = setInterval(() => {
      if (collectionsWith(ref).length > 0) {
        clearInterval(poll)
        child.kill(signal)
      } else if (Date.now() - started > 60_000) {
        clearInterval(poll)
        child.kill('SIGKILL')
        reject(new Error(`the request never reached the sandbox\n${stderr}`))
      }
    }, 50)
    child.on('close', (code) => resolve({code, stdout, stderr}))
  })
}

describe('SIGINT / SIGTERM during a create', () => {
  it('SIGINT prints the key and the resume command and exits 130; a re-run resumes with it', async () => {
    proxy.rule = (r) => (r.method === 'POST' && refOf(r.body) === 'jr-int-1' ? 'hold' : 'pass')
    const r = await interrupt(collect('jr-int-1'), 'jr-int-1', 'SIGINT')
    expect(r.code, r.stderr).toBe(130)
    const key = /idempotency key: (\S+)/.exec(r.stderr)?.[1]
    expect(key, r.stderr).toMatch(/^[0-9a-f-]{36}$/)
    expect(r.stderr).toMatch(/interrupted \(SIGINT\)/)
    expect(r.stderr).toContain(`--idempotency-key ${key}`)
    proxy.rule = () => 'pass'
    const again = ok(await h.pay(collect('jr-int-1', ['--json']), env))
    expect(json(again).id).toBe(collectionsWith('jr-int-1')[0].id)
    expect(collectionsWith('jr-int-1')).toHaveLength(1)
  })

  it('SIGTERM under --json: the envelope names the key; exit 143', async () => {
    proxy.rule = (r) => (r.method === 'POST' && refOf(r.body) === 'jr-int-2' ? 'hold' : 'pass')
    const r = await interrupt(collect('jr-int-2', ['--json']), 'jr-int-2', 'SIGTERM')
    expect(r.code, r.stderr).toBe(143)
    const envelope = JSON.parse(r.stdout)
    expect(envelope.error).toMatchObject({code: 'interrupted'})
    expect(envelope.error.idempotency_key).toMatch(/^[0-9a-f-]{36}$/)
    proxy.rule = () => 'pass'
  })
})

