/**
 * What a bulk run's send stage says of its failed rows (src/bulk/send.ts): the service's words, made printable on
 * one line each; a row answered failed at once carries the service's reason; a row whose --wait lookups fail is
 * said to be not followed, as last seen. In-process against a scripted node:http server on port 0 (the sandbox's
 * messages are plain, and its faults are not per path).
 */
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempConfigDir} from '../helpers/cli.js'
import {runCommand} from '../helpers/in-process.js'
import {TEST_CLIENT_ID, TEST_CLIENT_SECRET, useScriptedServer} from '../helpers/scripted-server.js'

const server = useScriptedServer()
const HOSTILE = 'EVIL\u001B]0;PWNED\u0007\u001B[2J\nline: forged'

describe('the failed rows of a run', () => {
  it("quote the service's error message and a failed row's status_detail escaped, one line each", async () => {
    const dir = tempConfigDir()
    const env = {PAY_CONFIG_DIR: dir, PAY_BASE_URL: server.url, PAY_CLIENT_ID: TEST_CLIENT_ID, PAY_CLIENT_SECRET: TEST_CLIENT_SECRET, NO_COLOR: '1'}
    const collection = (status: string, more = {}) => ({id: 'CL_2', object: 'collection', status, currency: 'KES', amount: '10.00', merchant_reference: 'pf-2', ...more})
    server.script(
      'POST /v1/collections',
      {status: 400, body: {error: {code: 'invalid_parameter', message: `nope ${HOSTILE}`, request_id: 'REQ_F'}}},
      {status: 201, body: collection('processing')},
    )
    for (let i = 0; i < 5; i++) server.script('GET /v1/collections/CL_2', {status: 200, body: collection('failed', {status_detail: `declined ${HOSTILE}`})})
    const file = join(dir, 'rows.csv')
    writeFileSync(file, 'reference,amount,currency,mobile,provider\npf-1,10.00,KES,254700000001,mpesa\npf-2,10.00,KES,254700000002,mpesa\n')
    const r = await runCommand(['collections', 'create', '--from-file', file, '--concurrency', '1', '--wait', '--wait-timeout', '30'], {env})
    expect(r.code, r.stderr).toBe(1)
    expect(r.stderr).toContain('  line 2 (pf-1): invalid_parameter nope EVIL\\u001b]0;PWNED\\u0007\\u001b[2J\\u000aline: forged')
    expect(r.stderr).toContain('  line 3 (pf-2): transaction_failed declined EVIL\\u001b]0;PWNED\\u0007\\u001b[2J\\u000aline: forged')
    // eslint-disable-next-line no-control-regex -- finding raw control characters is the point
    expect(r.stderr).not.toMatch(/[\u0000-\u0009\u000B-\u001F]/)
    expect(r.stderr).not.toMatch(/^line: forged/m)
  })
})

describe('a row answered failed at once', () => {
  it("carries the service's reason in --json, --results and the summary (transaction_failed, as --wait would say)", async () => {
    const dir = tempConfigDir()
    const env = {PAY_CONFIG_DIR: dir, PAY_BASE_URL: server.url, PAY_CLIENT_ID: TEST_CLIENT_ID, PAY_CLIENT_SECRET: TEST_CLIENT_SECRET, NO_COLOR: '1'}
    const reason = 'insufficient_funds: payout_wallet holds KES 100.00, 1010.00 needed (amount + fee)'
    server.script('POST /v1/payouts', {status: 201, body: {id: 'PO_BIG', object: 'payout', status: 'failed', status_detail: reason, currency: 'KES', amount: '1000.00', fee_amount: '10.00', amount_debited: '0.00', merchant_reference: 'big-1'}})
    const file = join(dir, 'rows.csv')
    const results = join(dir, 'results.ndjson')
    writeFileSync(file, 'amount,reference,mobile,provider\n1000.00,big-1,254700000001,mpesa\n')
    const r = await runCommand(['payouts', 'create', '--from-file', file, '--currency', 'KES', '--yes', '--json', '--results', results], {env})
    expect(r.code, r.stderr).toBe(1)
    const row = JSON.parse(r.stdout.trim()) as Record<string, unknown>
    expect(row).toMatchObject({status: 'failed', outcome: 'accepted', state: 'failed', error_code: 'transaction_failed', error_message: reason})
    expect(JSON.parse(readFileSync(results, 'utf8').trim())).toMatchObject({error_code: 'transaction_failed', error_message: reason})
    expect(r.stderr).toContain(`  line 2 (big-1): transaction_failed ${reason}`)
  })
})

describe('--wait whose lookups fail', () => {
  it('says the row could not be followed, as last seen (not "still processing"), and exits 1', async () => {
    const dir = tempConfigDir()
    const env = {PAY_CONFIG_DIR: dir, PAY_BASE_URL: server.url, PAY_CLIENT_ID: TEST_CLIENT_ID, PAY_CLIENT_SECRET: TEST_CLIENT_SECRET, NO_COLOR: '1'}
    const payout = (status: string) => ({id: 'PO_LF', object: 'payout', status, currency: 'KES', amount: '13.00', fee_amount: '10.00', amount_debited: '23.00', status_detail: null, merchant_reference: 'lf-1'})
    server.script('POST /v1/payouts', {status: 201, body: payout('processing')})
    for (let i = 0; i < 4; i++) server.script('GET /v1/payouts/lf-1', {status: 500, body: {error: {code: 'internal_error', message: 'upstream down', request_id: 'REQ_LF'}}})
    const file = join(dir, 'rows.csv')
    writeFileSync(file, 'amount,reference,mobile,provider\n13.00,lf-1,254700000001,mpesa\n')
    const r = await runCommand(['payouts', 'create', '--from-file', file, '--currency', 'KES', '--yes', '--json', '--wait', '--wait-timeout', '30', '--retries', '1'], {env})
    expect(r.code, r.stderr).toBe(1)
    const row = JSON.parse(r.stdout.trim()) as Record<string, string>
    expect(row).toMatchObject({status: 'processing', state: 'processing', error_code: 'lookup_failed'})
    expect(row.error_message).toMatch(/^could not follow it: upstream down .*internal_error, HTTP 500.*; it was processing when last seen \(\d{4}-\d\d-\d\dT/)
    expect(row.error_message).toContain(row.state_at) // the state is the create's, seen when it was answered
    expect(r.stderr).toContain('1 row(s) could not be followed')
    expect(r.stderr).not.toMatch(/still processing after/)
    expect(server.apiRequests().filter((q) => q.method === 'GET')).toHaveLength(2) // one lookup and its one retry: then not followed
    // the service answers again: the re-run follows the row (nothing sent) to its end, and what was said of it before goes
    server.script('GET /v1/payouts/lf-1', {status: 200, body: payout('succeeded')})
    const again = await runCommand(['payouts', 'create', '--from-file', file, '--currency', 'KES', '--yes', '--json', '--wait', '--wait-timeout', '30'], {env})
    expect(again.code, again.stderr).toBe(0)
    expect(JSON.parse(again.stdout.trim())).toMatchObject({status: 'succeeded', state: 'succeeded', error_code: null, error_message: null, earlier: true})
    expect(server.apiRequests().filter((q) => q.method === 'POST')).toHaveLength(1)
  })
})

describe("a row's id", () => {
  it("is its kind's own id field where the answer has no `id` (a mandate cancellation's mandate_id): what reconcile reads the kind from", async () => {
    const dir = tempConfigDir()
    const env = {PAY_CONFIG_DIR: dir, PAY_BASE_URL: server.url, PAY_CLIENT_ID: TEST_CLIENT_ID, PAY_CLIENT_SECRET: TEST_CLIENT_SECRET, NO_COLOR: '1'}
    server.script('POST /v1/mandates/MD_CANCEL1/cancel', {status: 200, body: {object: 'mandate_cancellation', status: 'processing', mandate_id: 'MD_CANCEL1', message_id: 'MSG_1'}})
    const file = join(dir, 'cancel.csv')
    writeFileSync(file, 'mandate_id,mobile,reason\nMD_CANCEL1,254700000001,closing\n')
    const r = await runCommand(['mandates', 'cancel', '--from-file', file, '--json'], {env})
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout.trim())).toMatchObject({outcome: 'accepted', id: 'MD_CANCEL1'})
  })
})

describe('a row resent under its key (its outcome was unknown)', () => {
  it("answered with the service's first answer replayed (processing) while the payout has failed: looked up once, reported failed, not sent a third time", async () => {
    const dir = tempConfigDir()
    const env = {PAY_CONFIG_DIR: dir, PAY_BASE_URL: server.url, PAY_CLIENT_ID: TEST_CLIENT_ID, PAY_CLIENT_SECRET: TEST_CLIENT_SECRET, NO_COLOR: '1'}
    const payout = (status: string) => ({id: 'PO_B5', object: 'payout', status, currency: 'KES', amount: '12.00', fee_amount: '0.00', amount_debited: '12.00', merchant_reference: 'bu-5', status_detail: status === 'failed' ? 'the recipient account rejected the transfer' : null})
    server.script('POST /v1/payouts', {drop: true}, {status: 201, body: payout('processing'), headers: {'idempotent-replayed': 'true'}})
    server.script('GET /v1/payouts/bu-5', {status: 200, body: payout('failed')})
    const file = join(dir, 'rows.csv')
    writeFileSync(file, 'amount,reference,mobile,provider\n12.00,bu-5,254700000409,mpesa\n')
    const args = ['payouts', 'create', '--from-file', file, '--currency', 'KES', '--yes', '--retries', '0', '--json']
    const first = await runCommand(args, {env})
    expect(first.code, first.stderr).toBe(1)
    expect(JSON.parse(first.stdout)).toMatchObject({outcome: 'unknown'})
    const again = await runCommand(args, {env})
    const row = JSON.parse(again.stdout)
    expect(row).toMatchObject({outcome: 'accepted', id: 'PO_B5', status: 'failed', state: 'failed', error_code: 'transaction_failed'})
    expect(again.code, again.stderr).toBe(1)
    expect(again.stderr).not.toMatch(/still processing/)
    const sent = server.apiRequests()
    expect(sent.filter((q) => q.path === '/v1/payouts/bu-5')).toHaveLength(1)
    const posts = sent.filter((q) => q.method === 'POST' && q.path === '/v1/payouts')
    expect(posts).toHaveLength(2)
    expect(new Set(posts.map((q) => q.headers['idempotency-key'])).size).toBe(1)
  })
})
