/**
 * runOperation in-process with an injected transport (no server, no process): the spec's wait target and its
 * terminal states, the endpoint alternatives, and the record functions the bulk engine and flows read
 * (columns named by flag or by field, problems named by flag).
 */
import {afterEach, describe, expect, it, vi} from 'vitest'
import {operations} from '../../src/api/operations.js'
import type {HttpRequest, HttpResponse} from '../../src/client/transport.js'
import {columnsOf, inputFromRecord, requestFromRecord, validateRecord, valuesFromRecord} from '../../src/operation/operation-input.js'
import {tempConfigDir} from '../helpers/cli.js'
import {fakeBrowser} from '../helpers/fake-browser.js'
import {runCommand, runInProcess} from '../helpers/in-process.js'

/**
 * A transport answering from a script: the token endpoint always, then each listed answer in turn by "METHOD path";
 * `cut`: the connection reset after the request was sent (its outcome unknown).
 */
function scripted(answers: Record<string, ({status?: number; body: unknown; headers?: Record<string, string>} | {cut: true})[]>) {
  const seen: HttpRequest[] = []
  return {
    seen,
    async send(req: HttpRequest): Promise<HttpResponse> {
      seen.push(req)
      const url = new URL(req.url)
      if (url.pathname === '/v1/oauth/token') return {status: 200, headers: {}, text: JSON.stringify({access_token: 't'.repeat(64), token_type: 'Bearer', expires_in: 3600})}
      const queue = answers[`${req.method} ${url.pathname}`] ?? []
      const next = queue.length > 1 ? queue.shift()! : queue[0]
      if (!next) return {status: 404, headers: {}, text: JSON.stringify({error: {code: 'not_found', message: 'nothing scripted'}})}
      if ('cut' in next) throw Object.assign(new Error('socket hang up'), {code: 'ECONNRESET'})
      return {status: next.status ?? 200, headers: next.headers ?? {}, text: JSON.stringify(next.body)}
    },
    async close() {},
  }
}

/** Credentials and a fresh config dir (the token cache) for each run. */
const envOf = () => ({PAY_BASE_URL: 'http://127.0.0.1:9', PAY_CLIENT_ID: 'id', PAY_CLIENT_SECRET: 'secret', PAY_CONFIG_DIR: tempConfigDir()})

describe('runOperation with an injected transport', () => {
  it('a re-run answered from the journal quotes the state and the failure of its fresh lookup printable', async () => {
    const HOSTILE = '\u001B]0;PWNED\u0007\u001B[2J'
    const collection = (status: string) => ({id: 'CL_R1', object: 'collection', status, currency: 'KES', amount: '5.00', merchant_reference: 'rr-1'})
    const transport = scripted({
      'POST /v1/collections': [{status: 201, body: collection('processing')}],
      'GET /v1/collections/CL_R1': [{body: collection(`on_hold${HOSTILE}`)}, {status: 400, body: {error: {code: 'bad', message: `nope${HOSTILE}`, request_id: 'REQ_1'}}}],
    })
    const env = envOf()
    const args = ['collections', 'create', '--amount', '5.00', '--currency', 'KES', '-r', 'rr-1', '--mobile', '254700000001', '--provider', 'mpesa', '--retries', '0']
    expect((await runInProcess(args, {env, transport})).code).toBe(0)
    const fresh = await runInProcess(args, {env, transport})
    expect(fresh.stderr).toContain('as CL_R1; state now: on_hold\\u001b]0;PWNED\\u0007\\u001b[2J')
    const failed = await runInProcess(args, {env, transport})
    expect(failed.stderr).toMatch(/as CL_R1; its state could not be looked up now \(nope\\u001b\]0;PWNED/)
    for (const r of [fresh, failed]) expect(r.stderr).not.toContain('\u001B')
  })

  describe('checkout create --open', () => {
    afterEach(() => vi.unstubAllEnvs())
    const session = (url: string) => ({id: 'CS_1', object: 'checkout_session', status: 'processing', url, expires_at: '2026-11-27T10:00:00Z'})
    const create = (url: string) => {
      const browser = fakeBrowser()
      vi.stubEnv('BROWSER', browser.command)
      const transport = scripted({'POST /v1/checkout/sessions': [{status: 201, body: session(url)}]})
      const args = ['checkout', 'create', '--amount', '10', '--currency', 'KES', '-r', 'co-1', '--success-url', 'https://a.example/s', '--cancel-url', 'https://a.example/c', '--open']
      return {run: () => runInProcess(args, {env: envOf(), transport}), opened: browser.opened}
    }

    it('refuses a link that is not an http(s) URL: the session shown, an error naming the link, exit 1, nothing opened', async () => {
      for (const url of ['file:///etc/passwd', '--version']) {
        const c = create(url)
        const r = await c.run()
        expect(r.code, r.stderr).toBe(1)
        expect(r.stdout).toContain('CS_1')
        expect(r.stderr).toContain(`error: the pay link the service gave is not an absolute http(s) URL, so it was not opened: ${url}`)
        await new Promise((res) => setTimeout(res, 200))
        expect(c.opened()).toBeUndefined()
      }
    })

    it('says which link it opened printable, and opened it as the URL parser writes it', async () => {
      const c = create('https://pay.example/pay/CS_1\u001B]0;PWNED\u0007\u001B[2J')
      const r = await c.run()
      expect(r.code, r.stderr).toBe(0)
      expect(r.stderr).toContain('Opened https://pay.example/pay/CS_1%1B]0;PWNED%07%1B[2J in the browser')
      expect(r.stderr).not.toContain('\u001B')
      for (let i = 0; i < 100 && c.opened() === undefined; i++) await new Promise((res) => setTimeout(res, 20))
      expect(c.opened()).toBe('https://pay.example/pay/CS_1%1B]0;PWNED%07%1B[2J')
    })
  })

  it('--wait polls the spec’s get until one of the resource’s terminal states (subscription: active → exit 0)', async () => {
    const sub = {subscription_id: 'SUB_1', merchant_reference: 's-1', customer_name: 'J', customer_email: 'j@x.io', plan_id: 'PLN_1', mobile: '254700000001', provider: 'mpesa'}
    const transport = scripted({
      'POST /v1/subscriptions': [{status: 201, body: {...sub, status: 'pending_approval'}}],
      'GET /v1/subscriptions': [{body: {...sub, status: 'pending_approval'}}, {body: {...sub, status: 'active'}}],
    })
    const r = await runInProcess(['subscriptions', 'create', '--plan', 'PLN_1', '-r', 's-1', '--customer-name', 'J', '--customer-email', 'j@x.io', '--mobile', '254700000001', '--provider', 'mpesa', '--wait', '--json'], {env: envOf(), transport})
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout).status).toBe('active')
    const polls = transport.seen.filter((q) => q.method === 'GET')
    expect(polls.map((q) => new URL(q.url).search)).toEqual(['?merchant_reference=s-1', '?merchant_reference=s-1'])
    expect(r.stderr).toMatch(/subscription s-1 active after/)
  }, 20_000)

  it('a mandate that ends cancelled is a failed wait (exit 8)', async () => {
    const transport = scripted({'GET /v1/mandates': [{body: {object: 'mandate', status: 'cancelled', merchant_reference: 'm-1'}}]})
    const r = await runInProcess(['mandates', 'get', '--reference', 'm-1', '--wait'], {env: envOf(), transport})
    expect(r.code).toBe(8)
    expect(r.stderr).toContain('mandate m-1 ended cancelled')
  })

  it('a create answered in a final failed state exits 8 with its state and reason, with or without --wait; a lookup of it exits 0', async () => {
    const payout = (ref: string) => ({id: `PO_${ref}`, object: 'payout', status: 'failed', currency: 'KES', amount: '200000.00', merchant_reference: ref, fee_amount: '0.00', amount_debited: '0.00', status_detail: 'insufficient_funds: the payout wallet holds 1000.00'})
    const transport = scripted({'POST /v1/payouts': [{status: 201, body: payout('p-1')}], 'GET /v1/payouts/p-1': [{body: payout('p-1')}]})
    const args = ['payouts', 'create', '--amount', '200000.00', '--currency', 'KES', '-r', 'p-1', '--mobile', '254700000001', '--provider', 'mpesa', '--json']
    const env = envOf()
    for (const extra of [[], ['--wait']]) {
      const r = await runInProcess([...args, ...extra], {env, transport})
      expect(r.code, `${extra.join(' ')}: ${r.stderr}`).toBe(8)
      expect(JSON.parse(r.stdout).status).toBe('failed')
      expect(r.stderr).toContain('payout p-1 ended failed: insufficient_funds: the payout wallet holds 1000.00')
    }
    // the second run was the journal's answer (nothing sent again): a re-run reports the resource's state, by the same rule
    expect(transport.seen.filter((q) => q.method === 'POST' && new URL(q.url).pathname === '/v1/payouts')).toHaveLength(1)
    const looked = await runInProcess(['payouts', 'get', 'p-1', '--json'], {env, transport})
    expect(looked.code, looked.stderr).toBe(0)
  })

  it('a re-run of an accepted create whose resource has failed since says "state now: failed" and exits 8', async () => {
    const collection = (status: string) => ({id: 'CL_F1', object: 'collection', status, currency: 'KES', amount: '5.00', merchant_reference: 'rf-1', status_detail: status === 'failed' ? 'insufficient_balance' : null})
    const transport = scripted({'POST /v1/collections': [{status: 201, body: collection('processing')}], 'GET /v1/collections/CL_F1': [{body: collection('failed')}]})
    const env = envOf()
    const args = ['collections', 'create', '--amount', '5.00', '--currency', 'KES', '-r', 'rf-1', '--mobile', '254700000001', '--provider', 'mpesa']
    expect((await runInProcess(args, {env, transport})).code).toBe(0)
    const again = await runInProcess(args, {env, transport})
    expect(again.stderr).toContain('as CL_F1; state now: failed')
    expect(again.stderr).toContain('collection CL_F1 ended failed: insufficient_balance')
    expect(again.code).toBe(8)
  })

  it('a resumed key answered with the first answer replayed (processing) while the payout has failed: one GET, both facts, exit 8, the journal says failed', async () => {
    const payout = (status: string) => ({id: 'PO_R5', object: 'payout', status, currency: 'KES', amount: '12.00', fee_amount: '0.00', amount_debited: '12.00', merchant_reference: 'rp-1', status_detail: status === 'failed' ? 'the recipient account rejected the transfer' : null})
    const transport = scripted({
      'POST /v1/payouts': [{cut: true}, {status: 201, body: payout('processing'), headers: {'idempotent-replayed': 'true'}}],
      'GET /v1/payouts/rp-1': [{body: payout('failed')}],
    })
    const env = envOf()
    const args = ['payouts', 'create', '--amount', '12.00', '--currency', 'KES', '-r', 'rp-1', '--mobile', '254700000409', '--provider', 'mpesa', '--yes', '--retries', '0']
    const first = await runInProcess(args, {env, transport})
    expect(first.code, first.stderr).toBe(7)
    const sentAt = JSON.parse((await runCommand(['journal', 'rp-1', '--json'], {env})).stdout).at as string
    const again = await runInProcess([...args, '--json'], {env, transport})
    expect(again.stderr).toMatch(/reusing its Idempotency-Key/)
    expect(again.stderr).toMatch(new RegExp(`accepted as PO_R5 \\(its key was first sent ${sentAt.slice(0, 16).replace('T', ' ')} UTC; the answer may be the service's first one, replayed\\); state now: failed`))
    expect(again.stderr).toContain('payout rp-1 ended failed: the recipient account rejected the transfer')
    expect(again.code).toBe(8)
    expect(JSON.parse(again.stdout).status).toBe('failed')
    expect(transport.seen.filter((q) => q.method === 'GET' && new URL(q.url).pathname === '/v1/payouts/rp-1')).toHaveLength(1)
    const journaled = JSON.parse((await runCommand(['journal', 'rp-1', '--json'], {env})).stdout)
    expect(journaled).toMatchObject({outcome: 'accepted', id: 'PO_R5', state: 'failed'})
    expect(journaled.state_at > sentAt).toBe(true)
  })

  it("--wait: the state the wait saw last is journaled (pay journal REF), not the create answer's", async () => {
    const payout = (status: string) => ({id: 'PO_W2', object: 'payout', status, currency: 'KES', amount: '12.00', fee_amount: '0.00', amount_debited: '12.00', merchant_reference: 'wp-1', status_detail: status === 'failed' ? 'rejected' : null})
    const transport = scripted({'POST /v1/payouts': [{status: 201, body: payout('processing')}], 'GET /v1/payouts/wp-1': [{body: payout('processing')}, {body: payout('failed')}]})
    const env = envOf()
    const args = ['payouts', 'create', '--amount', '12.00', '--currency', 'KES', '-r', 'wp-1', '--mobile', '254700000409', '--provider', 'mpesa', '--yes', '--wait', '--wait-timeout', '30']
    const waited = await runInProcess(args, {env, transport})
    expect(waited.code, waited.stderr).toBe(8)
    expect(JSON.parse((await runCommand(['journal', 'wp-1', '--json'], {env})).stdout)).toMatchObject({outcome: 'accepted', state: 'failed'})
    // a re-run knows it ended: no lookup, exit 8
    const before = transport.seen.length
    const again = await runInProcess(args.filter((a) => a !== '--wait' && a !== '--wait-timeout' && a !== '30'), {env, transport})
    expect(again.code).toBe(8)
    expect(again.stderr).toMatch(/state: failed \(seen .*does not change any more\)/)
    expect(transport.seen.slice(before).filter((q) => !q.url.endsWith('/v1/oauth/token'))).toHaveLength(0)
  })

  it('picks the alternative endpoint by its flag (collections get --reference)', async () => {
    const transport = scripted({'GET /v1/collections': [{body: {id: 'CL_1', object: 'collection', status: 'processing', currency: 'KES', amount: '1.00', merchant_reference: 'o-1'}}]})
    const r = await runInProcess(['collections', 'get', '--reference', 'o-1', '--json'], {env: envOf(), transport})
    expect(r.code, r.stderr).toBe(0)
    expect(transport.seen.map((q) => `${q.method} ${new URL(q.url).pathname}${new URL(q.url).search}`)).toEqual(['POST /v1/oauth/token', 'GET /v1/collections?merchant_reference=o-1'])
  })

  it('bad input sends nothing, not even a token request', async () => {
    const transport = scripted({})
    const r = await runInProcess(['payouts', 'create', '--amount', '1.001', '--currency', 'KES', '-r', 'p'], {env: envOf(), transport})
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('error: --amount must be a positive decimal string')
    expect(transport.seen).toEqual([])
  })
})

describe('records (bulk rows, flow steps)', () => {
  const op = operations['collections:create']

  it('accepts flag names and field names as columns, upper-cases like the flag, and skips empty cells', () => {
    const {values, unknown} = valuesFromRecord(op, {amount: '10.00', currency: 'kes', reference: 'r-1', payment_rail: '', mobile: '254700000001', provider: 'mpesa', note: 'x'})
    expect(values).toEqual({amount: '10.00', currency: 'kes', reference: 'r-1', mobile: '254700000001', provider: 'mpesa'})
    expect(unknown).toEqual(['note'])
    const {endpoint, input} = inputFromRecord(op, {amount: '10.00', currency: 'kes', merchant_reference: 'r-1', mobile: '254700000001', provider: 'mpesa'})
    expect(endpoint).toBe('collections.create')
    expect(input.body).toEqual({amount: '10.00', currency: 'KES', merchant_reference: 'r-1', mobile: '254700000001', provider: 'mpesa'})
    // two columns for one input (a flag name and the spec's field name): both named, whichever order
    const twice = valuesFromRecord(op, {amount: '1.00', reference: 'r-A', merchant_reference: 'r-B'})
    expect(twice.repeated).toEqual([['merchant_reference', 'reference']])
    expect(validateRecord(op, {amount: '1.00', currency: 'KES', mobile: '254700000001', provider: 'mpesa', merchant_reference: 'r-B', reference: ''})).toContainEqual({flag: 'reference', rule: 'gives the same input as merchant_reference: keep one of them'})
  })

  it('names every problem by flag, unknown columns included', () => {
    expect(validateRecord(op, {amount: '10', currency: 'KES', reference: 'r', rail: 'bank_transfer', mobile: '123', colour: 'red'})).toEqual([
      {flag: 'colour', rule: 'is not an input of `pay collections create`'},
      {flag: '--mobile', rule: 'must be 10 to 15 digits'},
    ])
    expect(() => inputFromRecord(op, {})).toThrow(/--amount is required/)
  })

  it('lists its columns by flag name', () => {
    expect(columnsOf(op)).toEqual(['amount', 'currency', 'reference', 'rail', 'mobile', 'provider', 'account-name', 'description'])
    expect(columnsOf(operations['virtual-accounts:create'])).toEqual(['customer', 'merchant'])
    expect(columnsOf(operations['debits:create'])[0]).toBe('mandate_id')
  })

  it('selects alternatives and fills path arguments from a record', () => {
    expect(requestFromRecord(operations['virtual-accounts:get'], {merchant: true})).toMatchObject({endpoint: 'merchantVirtualAccount.get', problems: []})
    expect(requestFromRecord(operations['debits:create'], {MANDATE_ID: 'MD_1', amount: '5', currency: 'KES', reference: 'd-1', provider: 'mpesa'})).toMatchObject({
      endpoint: 'debits.create',
      input: {path: {mandate_id: 'MD_1'}},
      problems: [],
    })
  })
})
