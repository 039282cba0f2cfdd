/**
 * --quiet, and the confirmation before money moves with a live profile: asked on a pseudo-terminal (through /dev/tty
 * when stdin is a file or a pipe), skipped with --yes, refused where no one can be asked. Where no terminal is
 * involved the commands run in-process. `pay api --paginate`: test/operation/raw-request.test.ts.
 */
import {spawnSync} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempConfigDir} from '../helpers/cli.js'
import {runCommand} from '../helpers/in-process.js'
import {byRef, runInPty, useSandbox} from '../helpers/command-harness.js'

const h = useSandbox()
const hasScript = spawnSync('script', ['--version']).status === 0

describe('--quiet', () => {
  it('drops notices on stderr, keeps errors', async () => {
    const ok = await h.run(['customers', 'collections', 'MC_ACME0001', '--all', '--quiet'])
    expect(ok.code).toBe(0)
    expect(ok.stderr).toBe('')
    const bad = await h.run(['customers', 'get', 'MC_NOPE', '--quiet'])
    expect(bad.code).toBe(4)
    expect(bad.stderr).toMatch(/not found/)
  })
})

describe('live profiles: asked before money moves', () => {
  async function liveProfile(): Promise<Record<string, string>> {
    const dir = tempConfigDir()
    const env = {PAY_CONFIG_DIR: dir, PAY_CLIENT_SECRET: h.env.PAY_CLIENT_SECRET}
    const add = await runCommand(['profiles', 'add', 'prod', '--base-url', h.env.PAY_BASE_URL, '--client-id', h.env.PAY_CLIENT_ID, '--live', '--use'], {env})
    expect(add.code, add.stderr).toBe(0)
    return {PAY_CONFIG_DIR: dir}
  }
  const payout = (ref: string, ...more: string[]) => ['payouts', 'create', '--amount', '120.00', '--currency', 'KES', '--reference', ref, '--mobile', '254712345678', '--provider', 'mpesa', ...more]

  it('the sandbox profile cannot be marked live', async () => {
    const r = await runCommand(['profiles', 'add', 'sandbox', '--base-url', h.env.PAY_BASE_URL, '--live'], {env: {PAY_CONFIG_DIR: tempConfigDir()}})
    expect(r.code).toBe(2)
  })

  it.skipIf(!hasScript)('on a terminal: shows amount, currency, destination, reference and asks; "no" sends nothing', async () => {
    const env = await liveProfile()
    const no = await runInPty(payout('live-no'), env, [{expect: /Send it\?/, send: 'n\r'}])
    expect(no.screen).toMatch(/LIVE profile "prod"/)
    expect(no.screen).toMatch(/amount\s+120\.00 KES/)
    expect(no.screen).toMatch(/destination\s+mobile 254712345678, provider mpesa/)
    expect(no.screen).toMatch(/reference\s+live-no/)
    expect(no.code).toBe(2)
    expect(h.requests(byRef('live-no'))).toHaveLength(0)
    const yes = await runInPty(payout('live-yes'), env, [{expect: /Send it\?/, send: 'y\r'}])
    expect(yes.code, yes.screen).toBe(0)
    expect(h.requests(byRef('live-yes'))).toHaveLength(1)
  })

  it.skipIf(!hasScript)('pay smoke --money on a terminal: asked as collections create is; "no" sends no collection, "yes" does', async () => {
    const env = await liveProfile()
    const collections = () => h.requests((e) => e.method === 'POST' && e.path === '/v1/collections').length
    const before = collections()
    const no = await runInPty(['smoke', '--money', '--mobile', '254712345670'], env, [{expect: /Send it\?/, send: 'n\r'}])
    expect(no.screen).toMatch(/LIVE profile "prod"/)
    expect(no.screen).toMatch(/amount\s+10\.00 KES/)
    expect(no.code, no.screen).toBe(2)
    expect(collections()).toBe(before)
    const yes = await runInPty(['smoke', '--money', '--mobile', '254712345670'], env, [{expect: /Send it\?/, send: 'y\r'}])
    expect(yes.code, yes.screen).toBe(0)
    expect(collections()).toBe(before + 1)
  })

  it.skipIf(!hasScript)('a bulk run (--from-file) asks once, after every row passed, with the row count and totals; "no" sends nothing', async () => {
    const env = await liveProfile()
    const file = join(tempConfigDir(), 'payouts.csv')
    writeFileSync(file, 'amount,reference,mobile\n100.00,live-bulk-1,254712345678\n20.50,live-bulk-2,254712345678\n')
    const run = (...more: string[]) => ['payouts', 'create', '--from-file', file, '--currency', 'KES', '--provider', 'mpesa', ...more]
    const no = await runInPty(run(), env, [{expect: /Send it\?/, send: 'n\r'}])
    expect(no.screen).toMatch(/LIVE profile "prod"/)
    expect(no.screen).toMatch(/rows\s+2 \(2 to send/)
    expect(no.screen).toMatch(/amounts\s+120\.50 KES in all rows/)
    expect(no.code).toBe(2)
    expect(h.requests(byRef('live-bulk-1'))).toHaveLength(0)
    const yes = await runInPty(run('--yes'), env, [])
    expect(yes.code, yes.screen).toBe(0)
    expect(yes.screen).not.toMatch(/Send it\?/)
    expect(h.requests(byRef('live-bulk-1'))).toHaveLength(1)
    expect(h.requests(byRef('live-bulk-2'))).toHaveLength(1)
  })

  it.skipIf(!hasScript)('--yes skips the question; where no one can be asked (--no-input, CI, no terminal) it is refused naming --yes', async () => {
    const env = await liveProfile()
    const yes = await runInPty(payout('live-flag-yes', '--yes'), env, [])
    expect(yes.code, yes.screen).toBe(0)
    expect(yes.screen).not.toMatch(/Send it\?/)
    const noInput = await runInPty(payout('live-no-input', '--no-input'), env, [])
    expect(noInput.code, noInput.screen).toBe(2)
    expect(noInput.screen).toMatch(/LIVE profile "prod": this moves real money and no one can be asked.*nothing was sent/)
    expect(noInput.screen).toMatch(/--yes/)
    const piped = await runCommand(payout('live-piped'), {env}) // CI is set: no one is asked
    expect(piped.code, piped.stderr).toBe(2)
    expect(piped.stderr).toMatch(/--yes/)
    // no controlling terminal at all (a new session), CI unset
    const {spawn} = await import('node:child_process')
    const {BIN, cleanEnv} = await import('../helpers/cli.js')
    const child = spawn(process.execPath, [BIN, ...payout('live-no-tty')], {env: cleanEnv({...env, CI: undefined}), detached: true, stdio: ['ignore', 'pipe', 'pipe']})
    let stderr = ''
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    const code = await new Promise((resolve) => child.on('close', resolve))
    expect(code, stderr).toBe(2)
    expect(stderr).toMatch(/no one can be asked \(no terminal\).*nothing was sent/)
    const scripted = await runCommand(payout('live-scripted', '--yes'), {env})
    expect(scripted.code, scripted.stderr).toBe(0)
    for (const ref of ['live-no-input', 'live-piped', 'live-no-tty']) expect(h.requests(byRef(ref)), ref).toHaveLength(0)
    expect(h.requests(byRef('live-flag-yes'))).toHaveLength(1)
    expect(h.requests(byRef('live-scripted'))).toHaveLength(1)
  })

  it('pay api: a path the URL parser resolves to a money endpoint (., .., %2e) is that endpoint; an unknown write is asked too', async () => {
    const env = await liveProfile()
    const fields = (ref: string) => ['-F', 'amount=61.00', '-F', 'currency=KES', '-F', `merchant_reference=${ref}`, '-F', 'payment_rail=mobile_money', '-F', 'mobile=254712345678', '-F', 'provider=mpesa']
    for (const [ref, path] of [['dot-1', '/v1/./payouts'], ['dot-2', '/v1/x/../payouts'], ['dot-3', '/v1/%2e/payouts'], ['dot-4', '/v1/payouts-elsewhere']]) {
      const r = await runCommand(['api', 'POST', path, '--allow-any-path', '-H', 'Idempotency-Key: 9b2f4c1e-0000-4000-8000-000000000001', ...fields(ref)], {env}) // CI is set: no one is asked
      expect(r.code, `${path}\n${r.stderr}`).toBe(2)
      expect(r.stderr, path).toMatch(/LIVE profile "prod".*nothing was sent/)
      expect(r.stderr, path).toMatch(/--yes/)
      expect(h.requests(byRef(ref)), path).toHaveLength(0)
    }
    // with --yes: sent as the payouts create it is, with a key pay derived and journaled
    const sent = await runCommand(['api', 'POST', '/v1/./payouts', '--allow-any-path', '--yes', ...fields('dot-5')], {env})
    expect(sent.code, sent.stderr).toBe(0)
    const [req] = h.requests(byRef('dot-5'))
    expect(req.path).toBe('/v1/payouts')
    expect(req.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/)
    const journal = await runCommand(['journal', 'dot-5', '--json'], {env})
    expect(journal.code, journal.stderr).toBe(0)
    expect(journal.stdout).toContain(req.headers['idempotency-key'])
  })

  it.skipIf(!hasScript)('a person at the terminal with stdin a file or a pipe is asked through /dev/tty: resource command, bulk from stdin, pay api, flow', async () => {
    const env = await liveProfile()
    const dir = tempConfigDir()
    const csv = join(dir, 'rows.csv')
    writeFileSync(csv, 'amount,reference,mobile\n100.00,tty-bulk-1,254712345678\n')
    const flow = join(dir, 'payout.yaml')
    writeFileSync(flow, 'name: money\nsteps:\n  - id: pay\n    call: payouts.create\n    body: {amount: "70.00", currency: KES, merchant_reference: tty-flow, payment_rail: mobile_money, mobile: "254712345678", provider: mpesa}\n')
    const api = ['api', 'POST', '/v1/payouts', '-F', 'amount=60.00', '-F', 'currency=KES', '-F', 'merchant_reference=tty-api', '-F', 'payment_rail=mobile_money', '-F', 'mobile=254712345678', '-F', 'provider=mpesa']
    const cases: {ref: string; args: string[]; shell: {before?: string; after?: string}; shows: RegExp}[] = [
      {ref: 'tty-devnull', args: payout('tty-devnull'), shell: {after: '</dev/null'}, shows: /amount\s+120\.00 KES/},
      {ref: 'tty-bulk-1', args: ['payouts', 'create', '--from-file', '-', '--currency', 'KES', '--provider', 'mpesa'], shell: {before: `cat '${csv}' |`}, shows: /rows\s+1 \(1 to send/},
      {ref: 'tty-api', args: api, shell: {after: '</dev/null'}, shows: /amount\s+60\.00 KES/},
      {ref: 'tty-flow', args: ['flow', 'run', flow], shell: {after: '</dev/null'}, shows: /money: step pay \(send money/},
    ]
    for (const c of cases) {
      const no = await runInPty(c.args, env, [{expect: /Send it\?/, send: 'n\r'}], 30_000, c.shell)
      expect(no.screen, c.ref).toMatch(/LIVE profile "prod"/)
      expect(no.screen, c.ref).toMatch(c.shows)
      expect(no.code, `${c.ref}\n${no.screen}`).toBe(2)
      expect(h.requests(byRef(c.ref)), c.ref).toHaveLength(0)
    }
    const yes = await runInPty(api, env, [{expect: /Send it\?/, send: 'y\r'}], 30_000, {after: '</dev/null'})
    expect(yes.code, yes.screen).toBe(0)
    expect(h.requests(byRef('tty-api'))).toHaveLength(1)
  })
})
