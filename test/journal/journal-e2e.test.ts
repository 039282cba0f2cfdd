/**
 * The operation journal, end to end: the built CLI against the sandbox through a fault proxy that cuts the
 * connection (or never answers) AFTER the service has committed. Checked in the sandbox's state and request log.
 */
import {spawn} from 'node:child_process'
import {statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BIN, ROOT, cleanEnv, json, tempConfigDir} from '../helpers/cli.js'
import {type FaultProxy, referenceIn, startFaultProxy} from '../helpers/fault-proxy.js'
import {ok, useSandbox} from '../commands/support.js'

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
    expect(third.stderr).toMatch(/already done: .*nothing was sent.*--force-new/)
    expect(third.stdout).toContain(created.id)
    expect(h.requests().length).toBe(sentBefore)

    // --force-new sends it again as a new request (the service refuses the reference a second time or makes a new one)
    const forced = await h.pay(collect('jr-col-1', ['--force-new']), env)
    expect(forced.stderr).not.toContain('already done')
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
    expect(po).toMatchObject({outcome: 'succeeded', endpoint: 'payouts.create'})
    const show = ok(await h.pay(['journal', 'jr-po-1', '--json'], env))
    expect(json(show)).toMatchObject({idempotency_key: po!.idempotency_key, outcome: 'succeeded', response: {merchant_reference: 'jr-po-1'}})
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

