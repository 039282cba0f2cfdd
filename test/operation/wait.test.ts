/**
 * --wait and states the interface does not list (src/operation/wait.ts): shown as they are, a notice once, never final;
 * and polls that answer another resource than the one waited for (a lookup by a shared reference). In-process against a scripted node:http server on port 0 (the sandbox only uses the listed states).
 */
import {describe, expect, it} from 'vitest'
import {classifyState} from '../../src/operation/wait.js'
import {tempConfigDir} from '../helpers/cli.js'
import {runCommand, runInProcess} from '../helpers/in-process.js'
import {TEST_CLIENT_ID, TEST_CLIENT_SECRET, useScriptedServer} from '../helpers/scripted-server.js'

const server = useScriptedServer()
const env = () => ({PAY_CONFIG_DIR: tempConfigDir(), PAY_BASE_URL: server.url, PAY_CLIENT_ID: TEST_CLIENT_ID, PAY_CLIENT_SECRET: TEST_CLIENT_SECRET, NO_COLOR: '1'})
const collection = (status: string) => ({status: 200, body: {id: 'CL_7', object: 'collection', status, currency: 'KES', amount: '5.00', merchant_reference: 'w-7'}})

describe('--wait with a state the interface does not list', () => {
  it('is shown as it is, said once, and polling goes on to a listed final state (exit 0); a listed state is not said', async () => {
    server.script('GET /v1/collections/CL_7', collection('processing'), collection('on_hold'), collection('on_hold'), collection('succeeded'))
    const r = await runInProcess(['collections', 'get', 'CL_7', '--wait', '--wait-timeout', '30', '--retries', '0'], {env: env()})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr.match(/state "on_hold", which the interface does not list \(processing, succeeded, failed\); pay treats it as not final/g)).toHaveLength(1)
    expect(r.stderr).not.toMatch(/state "processing"/)
    expect(r.stdout).toMatch(/succeeded/)
    expect(server.apiRequests().filter((q) => q.path === '/v1/collections/CL_7')).toHaveLength(4)
  })

  it('an unlisted word that sounds final (expired) is not taken as failed: exit 9 at --wait-timeout, the body shown as sent', async () => {
    for (let i = 0; i < 20; i++) server.script('GET /v1/collections/CL_7', collection('expired'))
    const r = await runInProcess(['collections', 'get', 'CL_7', '--wait', '--wait-timeout', '1', '--retries', '0', '--json'], {env: env()})
    expect(r.code, r.stderr).toBe(9)
    expect(JSON.parse(r.stdout).status).toBe('expired')
    expect(r.stderr).toMatch(/state "expired", which the interface does not list/)
  })

  it('classifyState: the resource states decide; without them the common words do', () => {
    const states = {succeeded: ['active'], failed: ['failed', 'cancelled'], pending: ['pending_approval']}
    expect(classifyState('active', states)).toBe('succeeded')
    expect(classifyState('cancelled', states)).toBe('failed')
    expect(classifyState('expired', states)).toBeUndefined()
    expect(classifyState('expired')).toBe('failed')
  })
})

describe('--wait whose lookup by reference answers another resource', () => {
  const payout = (id: string, status: string, amount: string) => ({status: 200, body: {id, object: 'payout', status, currency: 'KES', amount, fee_amount: '0.00', amount_debited: amount, merchant_reference: 'w-8', status_detail: null}})

  it("never takes its state for this one's: both ids named, the last body of this one printed, exit 9", async () => {
    server.script('POST /v1/payouts', {...payout('PO_MINE', 'processing', '100.00'), status: 201})
    for (let i = 0; i < 5; i++) server.script('GET /v1/payouts/w-8', payout('PO_OTHER', 'succeeded', '7.00'))
    const args = ['payouts', 'create', '--amount', '100.00', '--currency', 'KES', '--reference', 'w-8', '--mobile', '254700000001', '--provider', 'mpesa']
    const r = await runInProcess([...args, '--yes', '--wait', '--wait-timeout', '30', '--retries', '0', '--json'], {env: env()})
    expect(r.code, r.stderr).toBe(9)
    expect(JSON.parse(r.stdout)).toMatchObject({id: 'PO_MINE', status: 'processing', amount: '100.00'})
    expect(r.stderr).toContain('payout w-8: the lookup answered PO_OTHER, another resource with the same reference, not PO_MINE')
    expect(r.stderr).toContain('stays as last seen: processing')
    expect(r.stderr).toContain('pay webhook history --reference w-8')
    expect(r.stderr).not.toMatch(/succeeded after/)
    expect(server.apiRequests().filter((q) => q.path === '/v1/payouts/w-8')).toHaveLength(1)
  })
})

describe('--wait quotes the service printable', () => {
  const HOSTILE = 'EVIL\u001B]0;PWNED\u0007\u001B[2J'

  it('the progress lines (an unlisted state) and the failed end with its status_detail: escaped, never raw', async () => {
    const mine = (status: string, more = {}) => ({status: 200, body: {...collection(status).body, id: 'CL_8', ...more}})
    server.script('GET /v1/collections/CL_8', mine(`on_hold${HOSTILE}`), mine('failed', {status_detail: `declined ${HOSTILE}`}))
    const r = await runInProcess(['collections', 'get', 'CL_8', '--wait', '--wait-timeout', '30', '--retries', '0'], {env: env()})
    expect(r.code, r.stderr).toBe(8)
    expect(r.stderr).toContain('waiting for collection CL_8: on_holdEVIL\\u001b]0;PWNED\\u0007\\u001b[2J')
    expect(r.stderr).toContain('error: collection CL_8 ended failed: declined EVIL\\u001b]0;PWNED\\u0007\\u001b[2J')
    // eslint-disable-next-line no-control-regex -- finding raw control characters is the point
    expect(r.stderr).not.toMatch(/[\u0000-\u0009\u000B-\u001F]/)
  })
})

describe('--wait whose poll fails after the create was answered', () => {
  const create = ['collections', 'create', '--amount', '5.00', '--currency', 'KES', '--reference', 'w-9', '--mobile', '254700000001', '--provider', 'mpesa']
  // CL_9: scripts left over from the tests above (answers to CL_7) are not taken
  const created = (status: string) => ({status: 200, body: {id: 'CL_9', object: 'collection', status, currency: 'KES', amount: '5.00', merchant_reference: 'w-9'}})
  const notFound = {status: 404, body: {error: {code: 'not_found', message: 'no such collection', request_id: 'req_404'}}}

  it('a 404 is taken as not visible yet: said once, polling goes on to the final state (exit 0)', async () => {
    server.script('POST /v1/collections', {...created('processing'), status: 201})
    server.script('GET /v1/collections/CL_9', notFound, notFound, created('succeeded'))
    const r = await runInProcess([...create, '--wait', '--wait-timeout', '60', '--retries', '0', '--json'], {env: env()})
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({id: 'CL_9', status: 'succeeded'})
    expect(r.stderr.match(/collection CL_9 is not found by its lookup yet \(no such collection \(not_found, HTTP 404, request req_404\)\); it was answered before, so pay keeps polling/g)).toHaveLength(1)
    expect(server.apiRequests().filter((q) => q.path === '/v1/collections/CL_9')).toHaveLength(3)
  })

  it('another failure ends the wait, not the report: the created collection on stdout, the failure and how to wait again (exit 9)', async () => {
    server.script('POST /v1/collections', {...created('processing'), status: 201})
    server.script('GET /v1/collections/CL_9', {status: 503, body: {error: {code: 'unavailable', message: 'try later', request_id: 'req_503'}}})
    const r = await runInProcess([...create, '--wait', '--wait-timeout', '60', '--retries', '0', '--json'], {env: env()})
    expect(r.code, r.stderr).toBe(9)
    expect(JSON.parse(r.stdout)).toMatchObject({id: 'CL_9', status: 'processing'})
    expect(r.stderr).toContain('could not follow collection CL_9: try later (unavailable, HTTP 503, request req_503); it was processing when last seen; to wait again: pay collections get --wait CL_9')
  })
})

describe('--wait-timeout without --wait', () => {
  it('is refused before anything is sent (exit 2), naming the flag, for a single command and a bulk run alike', async () => {
    const {mkdtempSync, writeFileSync} = await import('node:fs')
    const {join} = await import('node:path')
    const {tmpdir} = await import('node:os')
    const create = ['collections', 'create', '--amount', '5.00', '--currency', 'KES', '--reference', 'w-10', '--mobile', '254700000001', '--provider', 'mpesa']
    const single = await runInProcess([...create, '--wait-timeout', '30'], {env: env()})
    expect(single.code, single.stderr).toBe(2)
    expect(single.stderr).toContain('--wait-timeout applies only with --wait')
    const file = join(mkdtempSync(join(tmpdir(), 'pay-wait-')), 'rows.csv')
    writeFileSync(file, 'amount,currency,reference,mobile,provider\n5.00,KES,w-11,254700000001,mpesa\n')
    const bulk = await runInProcess(['collections', 'create', '--from-file', file, '--wait-timeout', '30', '--yes'], {env: env()})
    expect(bulk.code, bulk.stderr).toBe(2)
    expect(bulk.stderr).toContain('--wait-timeout applies only with --wait')
    expect(server.apiRequests().filter((q) => q.method === 'POST')).toEqual([])
    // a get command too (with --wait, the tests above take it as ever)
    expect((await runInProcess(['collections', 'get', 'CL_10', '--wait-timeout', '1'], {env: env()})).stderr).toContain('--wait-timeout applies only with --wait')
  })
})

describe('--wait whose polls stop answering', () => {
  it('journals the state as seen when the last poll answered, not when the wait gave up', async () => {
    const e = env()
    const payout = (status: string) => ({status: 200, body: {id: 'PO_9', object: 'payout', status, currency: 'KES', amount: '10.00', fee_amount: '0.00', amount_debited: '10.00', merchant_reference: 'w-9', status_detail: null}})
    server.script('POST /v1/payouts', {...payout('processing'), status: 201})
    server.script('GET /v1/payouts/w-9', payout('processing'), {delayMs: 1500, status: 500, body: {error: {code: 'internal_error', message: 'down'}}})
    const args = ['payouts', 'create', '--amount', '10.00', '--currency', 'KES', '--reference', 'w-9', '--mobile', '254700000001', '--provider', 'mpesa']
    const r = await runInProcess([...args, '--yes', '--wait', '--wait-timeout', '60', '--retries', '0'], {env: e})
    const ended = Date.now()
    expect(r.code, r.stderr).toBe(9)
    expect(r.stderr).toMatch(/could not follow/)
    const j = await runCommand(['journal', 'w-9', '--json'], {env: e})
    const entry = JSON.parse(j.stdout) as {state: string; state_at: string}
    expect(entry.state).toBe('processing')
    // the failing poll took 1.5 s to answer: the state was seen at least that long before the wait ended
    expect(ended - Date.parse(entry.state_at)).toBeGreaterThanOrEqual(1400)
  })
})
