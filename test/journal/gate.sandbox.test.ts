/**
 * The operation journal (src/journal/) on the path of every write: resource commands in-process (h.run) and
 * `pay journal` (runCommand) against the sandbox through a fault proxy that cuts the connection AFTER the service
 * has committed. Checked in the sandbox's state and request log. Several processes, kills and signals:
 * test/e2e/journal.test.ts.
 */
import {mkdirSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {json, tempConfigDir} from '../helpers/cli.js'
import {runCommand} from '../helpers/in-process.js'
import {referenceIn} from '../helpers/fault-proxy.js'
import {keysSent, ok, useFaultProxy, useSandbox, withReference} from '../helpers/command-harness.js'
import {waitFor} from '../helpers/wait-for.js'

const h = useSandbox()
const faults = useFaultProxy(h)

const refOf = referenceIn
/** Cut every answer to a POST carrying this reference. */
const cutRef = (ref: string) => (faults.proxy.rule = (r) => (r.method === 'POST' && refOf(r.body) === ref ? 'cut' : 'pass'))
const collectionsWith = (ref: string) => withReference(h.sb.state.collections, ref)
const payoutsWith = (ref: string) => withReference(h.sb.state.payouts, ref)
const keysOf = (ref: string) => keysSent(h, ref)

const collect = (ref: string, extra: string[] = []) => ['collections', 'create', '--amount', '150.00', '--currency', 'KES', '--reference', ref, '--mobile', '254712345678', '--provider', 'mpesa', '--retries', '1', ...extra]

/** `pay journal …` (or any command) in-process, with the sandbox's credentials. */
const journal = (args: string[], extra: Record<string, string>) => runCommand(args, {env: {...h.env, ...extra}})

describe('a create whose answer is cut after the service committed', () => {
  it('fails naming the key and the resume command; a plain re-run reuses the key, creates nothing new and prints the first result', async () => {
    cutRef('jr-col-1')
    const first = await h.run(collect('jr-col-1', ['--json']), faults.env)
    expect(first.code, first.stderr).toBe(7)
    const envelope = json(first)
    const key = envelope.error.idempotency_key as string
    expect(key).toMatch(/^[0-9a-f-]{36}$/)
    expect(envelope.error.resume_command).toContain(`--idempotency-key ${key}`)
    expect(first.stderr).toContain(`idempotency key: ${key}`)
    expect(first.stderr).toContain('pay collections get --reference jr-col-1')
    expect(collectionsWith('jr-col-1')).toHaveLength(1)
    const created = collectionsWith('jr-col-1')[0]

    faults.proxy.rule = () => 'pass'
    const again = ok(await h.run(collect('jr-col-1', ['--json']), faults.env))
    expect(again.stderr).toContain(`reusing its Idempotency-Key ${key}`)
    expect(json(again).id).toBe(created.id)
    expect(collectionsWith('jr-col-1')).toHaveLength(1)
    expect(keysOf('jr-col-1')).toEqual(new Set([key]))

    // after a known success: the earlier answer, nothing sent
    const sentBefore = h.requests().length
    const third = ok(await h.run(collect('jr-col-1'), faults.env))
    expect(third.stderr).toMatch(/already sent: .*accepted at .* as CL_.*nothing was sent now.*--force-new/)
    expect(third.stdout).toContain(created.id)
    // nothing sent: at most the one lookup of the collection's state (it had not ended when the answer came)
    expect(h.requests().slice(sentBefore).filter((e) => e.method !== 'GET')).toHaveLength(0)
    expect(h.requests().slice(sentBefore).length).toBeLessThanOrEqual(1)

    // --force-new sends it again as a new request (the service refuses the reference a second time or makes a new one)
    const forced = await h.run(collect('jr-col-1', ['--force-new']), faults.env)
    expect(forced.stderr).not.toContain('already sent')
    expect(keysOf('jr-col-1').size).toBe(2)
  })

  it('a re-run with the base URL spelled another way (scheme case, a trailing slash) reuses the key', async () => {
    cutRef('jr-spell-1')
    const first = await h.run(collect('jr-spell-1'), faults.env)
    expect(first.code, first.stderr).toBe(7)
    const key = /idempotency key: (\S+)/.exec(first.stderr)?.[1]
    expect(key, first.stderr).toBeDefined()
    faults.proxy.rule = () => 'pass'
    const respelled = {...faults.env, PAY_BASE_URL: `${faults.env.PAY_BASE_URL.replace(/^http:/, 'HTTP:')}/`}
    const again = ok(await h.run(collect('jr-spell-1', ['--json']), respelled))
    expect(again.stderr).toContain(`reusing its Idempotency-Key ${key}`)
    expect(collectionsWith('jr-spell-1')).toHaveLength(1)
    expect(keysOf('jr-spell-1')).toEqual(new Set([key]))
  })

  it('pay api: the same JSON body in another key order and spacing is the same request (its key resumed)', async () => {
    cutRef('jr-order-1')
    const fields = {amount: '70.00', currency: 'KES', merchant_reference: 'jr-order-1', payment_rail: 'mobile_money', mobile: '254712345678', provider: 'mpesa'}
    const first = await journal(['api', 'POST', '/v1/collections', '--data', JSON.stringify(fields), '--retries', '0'], faults.env)
    expect(first.code, first.stderr).toBe(7)
    const key = /idempotency key: (\S+)/.exec(first.stderr)?.[1]
    expect(key, first.stderr).toBeDefined()
    faults.proxy.rule = () => 'pass'
    const reordered = Object.fromEntries(Object.entries(fields).reverse())
    const again = ok(await journal(['api', 'POST', '/v1/collections', '--data', JSON.stringify(reordered, null, 2)], faults.env))
    expect(again.stderr).toContain(`reusing its Idempotency-Key ${key}`)
    expect(collectionsWith('jr-order-1')).toHaveLength(1)
    expect(keysOf('jr-order-1')).toEqual(new Set([key]))
  })

  it('payouts: the payout wallet is debited once', async () => {
    cutRef('jr-po-1')
    const args = ['payouts', 'create', '--amount', '100.00', '--currency', 'KES', '--reference', 'jr-po-1', '--mobile', '254712345678', '--provider', 'mpesa', '--retries', '0']
    const first = await h.run(args, faults.env)
    expect(first.code).toBe(7)
    const key = /idempotency key: (\S+)/.exec(first.stderr)?.[1]
    expect(key, first.stderr).toBeDefined()
    expect(payoutsWith('jr-po-1')).toHaveLength(1)
    faults.proxy.rule = () => 'pass'
    const again = ok(await h.run([...args, '--json'], faults.env))
    expect(json(again).id).toBe(payoutsWith('jr-po-1')[0].id)
    expect(payoutsWith('jr-po-1')).toHaveLength(1)
    expect(keysOf('jr-po-1')).toEqual(new Set([key]))
  })

  it('the same reference with a different body while the earlier request is unknown: refused (exit 5), naming it; nothing sent', async () => {
    cutRef('jr-col-2')
    expect((await h.run(collect('jr-col-2'), faults.env)).code).toBe(7)
    faults.proxy.rule = () => 'pass'
    const changed = await h.run(['collections', 'create', '--amount', '151.00', '--currency', 'KES', '--reference', 'jr-col-2', '--mobile', '254712345678', '--provider', 'mpesa'], faults.env)
    expect(changed.code, changed.stderr).toBe(5)
    expect(changed.stderr).toMatch(/reference jr-col-2 already names another request: .*outcome is unknown/)
    expect(changed.stderr).toContain('pay collections get --reference jr-col-2')
    expect(keysOf('jr-col-2').size).toBe(1)
  })

  it('pay journal lists and shows the operations and their outcome', async () => {
    const list = ok(await journal(['journal', '--json', '--limit', '100'], faults.env))
    const rows = json<{reference: string; outcome: string; idempotency_key: string; endpoint: string}[]>(list)
    const po = rows.find((r) => r.reference === 'jr-po-1')
    expect(po).toMatchObject({outcome: 'accepted', endpoint: 'payouts.create', state: 'processing'})
    const show = ok(await journal(['journal', 'jr-po-1', '--json'], faults.env))
    expect(json(show)).toMatchObject({idempotency_key: po!.idempotency_key, outcome: 'accepted', response: {merchant_reference: 'jr-po-1'}})
    const human = ok(await journal(['journal', '--outcome', 'unknown'], faults.env))
    expect(human.stdout).toContain('jr-col-2')
  })

  it('journal files are 0600', () => {
    const dir = join(faults.env.PAY_CONFIG_DIR, 'state', 'journal')
    const day = new Date().toISOString().slice(0, 10)
    expect(statSync(join(dir, `${day}.ndjson`)).mode & 0o777).toBe(0o600)
    expect(statSync(dir).mode & 0o777).toBe(0o700)
  })

  it('an unwritable state dir: one warning, and the command still works', async () => {
    const dir = tempConfigDir()
    writeFileSync(join(dir, 'state'), 'not a directory')
    const r = ok(await h.run(collect('jr-col-3'), {...faults.env, PAY_CONFIG_DIR: dir}))
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
  const first = await h.run(collect(ref), {...faults.env, PAY_CONFIG_DIR: configDir})
  expect(first.code, first.stderr).toBe(7)
  expect(collectionsWith(ref)).toHaveLength(1)
  faults.proxy.rule = () => 'pass'
  const again = ok(await h.run(collect(ref, ['--json']), {...faults.env, PAY_CONFIG_DIR: configDir}))
  expect(json(again).id).toBe(collectionsWith(ref)[0].id)
  expect(collectionsWith(ref)).toHaveLength(1)
  expect(keysOf(ref).size).toBe(1)
  return {first, key: [...keysOf(ref)][0]}
}

describe('two facts: what the request came to, and the state of what it made', () => {
  const payout = (ref: string, amount: string, extra: string[] = []) => ['payouts', 'create', '--amount', amount, '--currency', 'KES', '--reference', ref, '--mobile', '254700000409', '--provider', 'mpesa', ...extra]
  const sentFor = (ref: string) => h.requests((e) => (e.body as {merchant_reference?: string} | undefined)?.merchant_reference === ref || e.path.endsWith(`/${ref}`))

  it('a re-run after an accepted payout that later failed: one GET, no money moves, "accepted … as PO_…; state now: failed", exit 8', async () => {
    faults.proxy.rule = () => 'pass'
    const first = ok(await h.run(payout('jr-2f-1', '12.00', ['--json']), faults.env))
    expect(json(first).status).toBe('processing')
    await waitFor(() => h.sb.state.payouts[json(first).id]?.status === 'failed', 10_000, 'the sandbox settles it (failed, for this number)')
    const before = sentFor('jr-2f-1').length
    // a re-run reports the resource's state: failed is exit 8, as the create answered failed would be
    const again = await h.run(payout('jr-2f-1', '12.00', ['--json']), faults.env)
    expect(again.code, again.stderr).toBe(8)
    expect(again.stderr).toMatch(new RegExp(`accepted \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} UTC as ${json(first).id}; state now: failed`))
    expect(again.stderr).not.toMatch(/succeeded/)
    expect(json(again).status).toBe('failed')
    const later = sentFor('jr-2f-1').slice(before)
    expect(later.map((e) => e.method)).toEqual(['GET'])
    // the journal keeps both facts; a third run needs no lookup (failed does not change any more)
    const shown = json(ok(await journal(['journal', 'jr-2f-1', '--json'], faults.env)))
    expect(shown).toMatchObject({outcome: 'accepted', state: 'failed'})
    const third = await h.run(payout('jr-2f-1', '12.00'), faults.env)
    expect(third.code, third.stderr).toBe(8)
    expect(third.stderr).toMatch(/state: failed \(seen .*does not change any more\)/)
    expect(sentFor('jr-2f-1').length).toBe(before + 1)
  })

  it("a re-run's lookup that answers ANOTHER payout of the same reference: both ids named, this one's state as last seen and not recorded; --wait exits 9", async () => {
    faults.proxy.rule = () => 'pass'
    const held = payout('jr-other-1', '100.00').map((a) => (a === '254700000409' ? '254700000408' : a)) // ...8: stays processing
    const mine = json(ok(await h.run([...held, '--json'], faults.env))).id as string
    // another payout with the same reference, on purpose; it succeeds, and this one fails upstream
    const forced = payout('jr-other-1', '7.00', ['--force-new', '--json']).map((a) => (a === '254700000409' ? '254700000401' : a))
    const other = json(ok(await h.run(forced, faults.env))).id as string
    await waitFor(() => h.sb.state.payouts[other]?.status === 'succeeded', 10_000, 'the sandbox settles the other payout')
    await h.control(`/_sandbox/transactions/${mine}/fail`)
    expect(h.sb.state.payouts[mine].status).toBe('failed')

    const again = ok(await h.run([...held, '--json'], faults.env))
    expect(json(again)).toMatchObject({id: mine, status: 'processing', amount: '100.00'})
    expect(again.stderr).toContain(`the lookup answered ${other}, another resource with the same reference, not ${mine}`)
    expect(again.stderr).toContain('stays as last seen: processing')
    expect(again.stderr).not.toMatch(/state now: succeeded/)
    // nothing of the other payout recorded as this request's: the next re-run still names this one, and --wait is unresolved
    const waited = await h.run([...held, '--wait', '--json'], faults.env)
    expect(waited.code, waited.stderr).toBe(9)
    expect(waited.stderr).toMatch(new RegExp(`accepted .* as ${mine};`))
    expect(json(waited)).toMatchObject({id: mine, status: 'processing'})
    expect(payoutsWith('jr-other-1')).toHaveLength(2)
  })

  it('a reference is a promise: the same --reference with another amount after an accepted payout is exit 5, nothing sent; --force-new sends it on purpose', async () => {
    faults.proxy.rule = () => 'pass'
    const first = ok(await h.run(payout('refund-981', '300', ['--json']), faults.env))
    const refused = await h.run(payout('refund-981', '301'), faults.env)
    expect(refused.code, refused.stderr).toBe(5)
    expect(refused.stderr).toContain(`reference refund-981 already names another request: a single command, payouts.create accepted at`)
    expect(refused.stderr).toContain(json(first).id)
    expect(refused.stderr).toContain('--force-new')
    expect(payoutsWith('refund-981')).toHaveLength(1)
    ok(await h.run(payout('refund-981', '301', ['--force-new']), faults.env))
    expect(payoutsWith('refund-981')).toHaveLength(2)
  })

  it('one spelling of money: --amount 150 then 150.00 is the same request (sent once, the second run sends nothing)', async () => {
    faults.proxy.rule = () => 'pass'
    ok(await h.run(collect('jr-amt-1').map((a) => (a === '150.00' ? '150' : a)), faults.env))
    const second = ok(await h.run(collect('jr-amt-1'), faults.env))
    expect(second.stderr).toContain('already sent')
    expect(collectionsWith('jr-amt-1')).toHaveLength(1)
    expect(collectionsWith('jr-amt-1')[0].amount).toBe('150.00')
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
    const list = ok(await journal(['journal', '--json', '--limit', '100'], {...faults.env, PAY_CONFIG_DIR: dir}))
    expect(json<{idempotency_key: string}[]>(list).map((e) => e.idempotency_key)).toContain('nul-earlier')
  })

  it('the request record cannot be written (the segment unwritable, as a full disk): nothing is sent, exit 1 with the reason; then a cut answer and a plain re-run: one object', async () => {
    const dir = tempConfigDir()
    const segment = segmentOf(dir)
    mkdirSync(segment) // a directory where the segment should be: every write of a record fails
    const refused = await h.run(collect('jr-full-1'), {...faults.env, PAY_CONFIG_DIR: dir})
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

  it('cut with the state dir unwritable, run again once it is fixed: the journal has no record, the derived key resumes it: one object', async () => {
    const dir = tempConfigDir()
    writeFileSync(join(dir, 'state'), 'not a directory')
    cutRef('jr-off-2')
    const first = await h.run(collect('jr-off-2'), {...faults.env, PAY_CONFIG_DIR: dir})
    expect(first.code, first.stderr).toBe(7)
    expect(collectionsWith('jr-off-2')).toHaveLength(1)
    faults.proxy.rule = () => 'pass'
    rmSync(join(dir, 'state'))
    const again = ok(await h.run(collect('jr-off-2', ['--json']), {...faults.env, PAY_CONFIG_DIR: dir}))
    expect(again.stderr).not.toMatch(/operation journal is off/)
    expect(json(again).id).toBe(collectionsWith('jr-off-2')[0].id)
    expect(collectionsWith('jr-off-2')).toHaveLength(1)
    expect(keysOf('jr-off-2').size).toBe(1)
  })
})
