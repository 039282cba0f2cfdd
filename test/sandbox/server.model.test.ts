/**
 * The sandbox against a model of the interface (test/helpers/payments-model.ts): seeded random sequences of
 * operations (fast-check), each run on the sandbox in this process and on the model, and after every step the
 * answer, the wallets of both merchants, every resource's state and the events emitted since the last step
 * (type, receiving client, status) compared. A failure is shrunk to a short sequence and printed with its seed.
 *
 *   npm test                    60 runs of up to 60 steps (30 on average; about 5 s on a quiet 2-core machine)
 *   npm run test:model          1000 runs (PAY_MODEL_RUNS=N for another count, PAY_MODEL_STEPS=N for longer runs)
 *   PAY_MODEL_SEED=s PAY_MODEL_PATH=p npm run test:model    replays a failure (fast-check prints its seed and path)
 *   PAY_MODEL_NO_SHRINK=1       report the first failure as found, without shrinking it
 */
import {randomUUID} from 'node:crypto'
import fc from 'fast-check'
import {request} from 'undici'
import {afterAll, beforeAll, expect, it} from 'vitest'
import {type Sandbox, startSandbox} from '../../src/sandbox/index.js'
import {CHECKOUT_TTL_S, CLIENTS, DYNAMIC_VA_TTL_S, HOLD_S, type Merchant, Model, PLANS, type Rail, SETTLE_S, SUBSCRIPTIONS, TESTING, TESTING_CAP, type Who, money, outcomeOf} from '../helpers/payments-model.js'

const RUNS = Number(process.env.PAY_MODEL_RUNS ?? (process.env.PAY_MODEL_LONG ? 1000 : 60))
const STEPS = Number(process.env.PAY_MODEL_STEPS ?? 60)
const SEED = process.env.PAY_MODEL_SEED === undefined ? undefined : Number(process.env.PAY_MODEL_SEED)
const PATH = process.env.PAY_MODEL_PATH

const SECRETS: Record<string, string> = {sb_acme_client: 'sb_acme_secret_4f8a2c1e9b7d', sb_acme_ops_client: 'sb_acme_ops_secret_6b3e9d2a7c1f', sb_globex_client: 'sb_globex_secret_7d2b9e4a1c6f'}
/** Numbers whose last digit decides (docs/sandbox.md): 0 and 1 succeed, 8 waits, 9 fails. */
const MANDATE_MOBILES = ['254711000010', '254711000021', '254711000038', '254711000049']
const WHO: Who[] = ['A1', 'A2', 'GE', 'GW']
/** Clock moves: within a day (settlement, nothing else), and about a day (the T+1 hold, its last minute, checkout expiry). */
const SHORT_MOVES = [60, SETTLE_S, 3600]
const DAY_MOVES = [23 * 3600, 24 * 3600 - 60, 24 * 3600, 25 * 3600]

interface Reply {
  status: number
  body: any
  text: string
  headers: Record<string, string | string[] | undefined>
}

let sb: Sandbox
beforeAll(async () => {
  sb = await startSandbox({
    port: 0,
    settleMs: SETTLE_S * 1000, // settles only when the clock is moved: the model knows when
    tokenTtlSeconds: 400 * 86_400,
    webhookRetryBaseMs: 600_000,
    rateLimits: {writePerMinute: 0, writePerHour: 0, readPerMinute: 0, metadataPerMinute: 0, verificationPerMinute: 0, verificationPerHour: 0, tokenPerMinutePerIp: 0, tokenPerMinutePerClient: 0},
  })
})
afterAll(() => sb?.close())

/** One run: the model, the tokens, what was already compared, the idempotent requests sent. */
class World {
  model = new Model()
  tokens: Partial<Record<Who, string>> = {}
  eventsSeen = 0
  expectedSeen = 0
  refs = 0
  idempotent: {who: Who; path: string; body: unknown; key: string; reply: Reply}[] = []

  ref(prefix: string): string {
    return `${prefix}-${++this.refs}`
  }

  async send(method: string, path: string, o: {who?: Who; body?: unknown; key?: string; form?: string} = {}): Promise<Reply> {
    const headers: Record<string, string> = {accept: 'application/json', 'content-type': o.form === undefined ? 'application/json' : 'application/x-www-form-urlencoded'}
    if (o.who) {
      headers.authorization = `Bearer ${this.tokens[o.who]}`
      if (CLIENTS[o.who].merchant === 'B') headers['x-service-account-ref'] = CLIENTS[o.who].account
    }
    if (o.key) headers['idempotency-key'] = o.key
    const res = await request(sb.url + path, {method: method as 'GET', headers, body: o.form ?? (o.body === undefined ? undefined : JSON.stringify(o.body))})
    const text = await res.body.text()
    let body: any
    try {
      body = JSON.parse(text)
    } catch {
      body = undefined
    }
    return {status: res.statusCode, body, text, headers: res.headers}
  }

  /** An idempotent POST with a fresh key; a 2xx is kept for replays. */
  async create(who: Who, path: string, body: unknown): Promise<Reply> {
    const key = randomUUID()
    const reply = await this.send('POST', path, {who, body, key})
    if (reply.status >= 200 && reply.status < 300) this.idempotent.push({who, path, body, key, reply})
    return reply
  }

  get = (who: Who, path: string) => this.send('GET', path, {who})
}

/** The n-th newest (0: the newest), so that steps tend to act on what the last steps made. */
const pick = <T>(list: T[], n: number): T | undefined => (list.length === 0 ? undefined : list[list.length - 1 - (n % list.length)])
const merchantOf = (who: Who): Merchant => CLIENTS[who].merchant
/** Another client of the same merchant and sub-account (A's two clients), else the same one. */
const sibling = (who: Who): Who => (who === 'A1' ? 'A2' : who === 'A2' ? 'A1' : who)
/** A client that must not see `who`'s resources: the other merchant, or B's other sub-account. */
const outsider = (who: Who, n: number): Who => (merchantOf(who) === 'A' ? (n % 2 ? 'GE' : 'GW') : n % 2 ? 'A1' : who === 'GE' ? 'GW' : 'GE')

function expectError(r: Reply, status: number, code: string, what: string): void {
  expect({status: r.status, code: r.body?.error?.code}, `${what}: ${r.text}`).toEqual({status, code})
}

// ---- the operations ----------------------------------------------------------------------------------------------

type Op =
  | {op: 'collect'; who: Who; cents: number; digit: number; rail: Rail; ugx: boolean}
  | {op: 'checkout'; who: Who; cents: number; bank: boolean}
  | {op: 'payBank'; n: number}
  | {op: 'payMobile'; n: number; digit: number}
  | {op: 'transfer'; n: number; open: boolean; how: 'exact' | 'under' | 'over'; delta: number}
  | {op: 'payout'; who: Who; cents: number; rail: Rail; digit: number; ugx: boolean}
  | {op: 'mandate'; who: Who; mobile: number}
  | {op: 'approve'; n: number}
  | {op: 'cancel'; n: number}
  | {op: 'debit'; n: number; approved: boolean; sibling: boolean; cents: number}
  | {op: 'subscribe'; who: Who; plan: string; mobile: number}
  | {op: 'staticVa'; who: Who; customer: boolean}
  | {op: 'balance'; who: Who; ugx: boolean}
  | {op: 'verify'; n: number; cross: boolean}
  | {op: 'lookup'; n: number; cross: boolean}
  | {op: 'replay'; n: number; same: boolean}
  | {op: 'force'; n: number; outcome: 'succeed' | 'fail'}
  | {op: 'advance'; seconds: number}
  | {op: 'holdEdge'; n: number; before: boolean}

async function collect(w: World, o: Extract<Op, {op: 'collect'}>): Promise<void> {
  const merchant = merchantOf(o.who)
  const currency = merchant === 'A' && o.ugx ? 'UGX' : 'KES'
  const ref = w.ref('cl')
  const body =
    o.rail === 'mobile_money'
      ? {amount: money(BigInt(o.cents)), currency, merchant_reference: ref, mobile: `25471200000${o.digit}`, provider: 'mpesa'}
      : {amount: money(BigInt(o.cents)), currency, merchant_reference: ref, payment_rail: 'bank_transfer'}
  const r = await w.create(o.who, '/v1/collections', body)
  if (TESTING[merchant] && BigInt(o.cents) > TESTING_CAP[currency]) return expectError(r, 400, 'invalid_parameter', 'over the Testing-mode cap')
  expect(r.status, r.text).toBe(201)
  expect(r.body).toMatchObject({object: 'collection', status: 'processing', amount: body.amount, currency, merchant_reference: ref})
  const tx = w.model.open(
    {kind: 'collection', id: r.body.id, key: r.body.id, who: o.who, amount: BigInt(o.cents), currency, ref, outcome: outcomeOf(body.mobile ?? '8')},
    o.rail === 'bank_transfer',
  )
  if (o.rail === 'bank_transfer') {
    tx.va = r.body.virtual_account.account_number
    tx.expiresAt = w.model.now + DYNAMIC_VA_TTL_S
  }
}

async function checkout(w: World, o: Extract<Op, {op: 'checkout'}>): Promise<void> {
  const ref = w.ref('cs')
  const body = {amount: money(BigInt(o.cents)), currency: 'KES', merchant_reference: ref, success_url: 'https://shop.example/ok', cancel_url: 'https://shop.example/cancel'}
  const r = await w.create(o.who, '/v1/checkout/sessions', body)
  if (TESTING[merchantOf(o.who)] && BigInt(o.cents) > TESTING_CAP.KES) return expectError(r, 400, 'invalid_parameter', 'over the Testing-mode cap')
  expect(r.status, r.text).toBe(201)
  expect(r.body).toMatchObject({object: 'checkout_session', status: 'processing'})
  const tx = w.model.open({kind: 'checkout', id: r.body.id, key: r.body.id, who: o.who, amount: BigInt(o.cents), currency: 'KES', ref, outcome: 'hold'}, true)
  tx.expiresAt = w.model.now + CHECKOUT_TTL_S
  if (o.bank) await payBank(w, {op: 'payBank', n: 0}) // the customer opens the link at once and chooses bank transfer
}

const checkouts = (w: World) => w.model.txs.filter((t) => t.kind === 'checkout')

/** The customer chooses bank transfer on the hosted page: a dynamic account is shown (once; then the same one). */
async function payBank(w: World, o: Extract<Op, {op: 'payBank'}>): Promise<void> {
  const tx = pick(checkouts(w), o.n)
  if (!tx) return
  const r = await w.send('POST', `/pay/${tx.id}`, {form: 'rail=bank_transfer'})
  const shown = /id="account_number">(\d+)</.exec(r.text)?.[1]
  if (tx.status !== 'processing') return void expect(shown, 'a finished session shows no account').toBeUndefined()
  expect(shown, r.text).toBeDefined()
  if (tx.va) expect(shown).toBe(tx.va)
  tx.va = shown
}

/** The customer pays with a wallet number on the hosted page: the last digit decides at once (8: approve on the phone). */
async function payMobile(w: World, o: Extract<Op, {op: 'payMobile'}>): Promise<void> {
  const tx = pick(checkouts(w), o.n)
  if (!tx) return
  const mobile = `25472200000${o.digit}`
  const r = await w.send('POST', `/pay/${tx.id}`, {form: `rail=mobile_money&mobile=${mobile}&provider=mpesa`})
  if (tx.status !== 'processing' || tx.va) return void expect(r.status).not.toBe(303) // nothing to pay (finished, or waiting for the transfer)
  const outcome = outcomeOf(mobile)
  if (outcome === 'hold') return void expect(r.text).toContain('data-status="processing"')
  expect(r.status).toBe(303)
  w.model.finish(tx, outcome === 'fail' ? 'failed' : 'succeeded')
}

async function transfer(w: World, o: Extract<Op, {op: 'transfer'}>): Promise<void> {
  // mostly an account still waiting for its transfer; sometimes any (a paid or failed one must refuse it)
  const dynamic = w.model.txs.filter((t) => t.va !== undefined && (!o.open || t.status === 'processing'))
  const statics = Object.values(w.model.staticVas)
  const n = o.n % Math.max(1, dynamic.length + statics.length)
  if (n < dynamic.length) {
    const tx = dynamic[dynamic.length - 1 - n]
    const due = tx.amount
    const received = o.how === 'exact' ? due : o.how === 'under' ? 1n + (BigInt(o.delta) % (due - 1n)) : due + 1n + BigInt(o.delta)
    const r = await w.send('POST', `/_sandbox/virtual-accounts/${tx.va}/transfers`, {body: {amount: money(received)}})
    const want = w.model.transfer(tx, received)
    if (want.status === 409) return expectError(r, 409, 'invalid_state', 'a transfer into a closed dynamic account')
    expect(r.status, r.text).toBe(200)
    expect({credited: r.body.credited, returned: r.body.returned}).toEqual({credited: money(want.credited), returned: money(want.returned)})
    return
  }
  const va = statics[n - dynamic.length]
  if (!va) return
  const amount = BigInt(100 + o.delta)
  const ref = w.ref('va')
  const r = await w.send('POST', `/_sandbox/virtual-accounts/${va.number}/transfers`, {body: {amount: money(amount), currency: 'KES', merchant_reference: ref}})
  expect(r.status, r.text).toBe(200)
  expect(r.body.collection).toMatchObject({status: 'succeeded', amount: money(amount), merchant_reference: ref})
  expect(r.body.credited).toBe(money(amount))
  // a static account's transfer is one new collection, created succeeded: one event, to the account's creator
  const id: string = r.body.collection.id
  w.model.txs.push({kind: 'collection', id, key: id, who: va.who, status: 'succeeded', amount, currency: 'KES', ref, dueAt: null, outcome: 'succeed'})
  w.model.credit(merchantOf(va.who), 'KES', amount)
  w.model.emit(id, 'collection.succeeded', va.who, 'succeeded')
}

async function payout(w: World, o: Extract<Op, {op: 'payout'}>): Promise<void> {
  const currency = merchantOf(o.who) === 'A' && o.ugx ? 'UGX' : 'KES'
  const ref = w.ref('po')
  const number = o.rail === 'mobile_money' ? `25473300000${o.digit}` : `0012345${o.digit}`
  const amount = money(BigInt(o.cents))
  const body =
    o.rail === 'mobile_money'
      ? {amount, currency, merchant_reference: ref, mobile: number, provider: 'mpesa'}
      : {amount, currency, merchant_reference: ref, payment_rail: 'bank_transfer', bank_code: '01', account_number: number, account_name: 'Model Supplier'}
  const r = await w.create(o.who, '/v1/payouts', body)
  expect(r.status, r.text).toBe(201)
  const tx = w.model.payout({id: r.body.id, key: r.body.id, who: o.who, amount: BigInt(o.cents), currency, ref, outcome: outcomeOf(number)}, o.rail)
  expect(r.body).toMatchObject({object: 'payout', status: tx.status, amount, fee_amount: money(tx.fee!), amount_debited: tx.status === 'failed' ? '0.00' : money(BigInt(o.cents) + tx.fee!)})
  if (tx.status === 'failed') expect(r.body.status_detail).toMatch(/^insufficient_funds/)
}

async function mandate(w: World, o: Extract<Op, {op: 'mandate'}>): Promise<void> {
  const mobile = MANDATE_MOBILES[o.mobile % MANDATE_MOBILES.length]
  const ref = w.ref('md')
  const body = {mobile, provider: 'mpesa', currency: 'KES', amount: '500.00', frequency: 'MONTHLY', starts_at: '2026-12-01T09:00:00Z', merchant_reference: ref}
  const r = await w.create(o.who, '/v1/mandates', body)
  const earlier = w.model.mandateFor(merchantOf(o.who), mobile)
  if (earlier === 'pending') return expectError(r, 409, 'mandate_pending_approval', 'a create while another awaits approval')
  expect(r.status, r.text).toBe(201)
  expect(r.body).toMatchObject({object: 'mandate', status: earlier ? 'succeeded' : 'processing', merchant_reference: ref})
  // the create answer has no id (interface): the lookup by reference gives it
  const got = await w.get(o.who, `/v1/mandates?merchant_reference=${ref}`)
  expect(got.status, got.text).toBe(200)
  w.model.createMandate(got.body.mandate_id, o.who, mobile, ref, earlier)
}

async function approve(w: World, o: Extract<Op, {op: 'approve'}>): Promise<void> {
  const m = pick(w.model.mandates, o.n)
  if (!m) return
  const r = await w.send('POST', `/_sandbox/mandates/${m.id}/approve`)
  if (w.model.approve(m)) expect(r.status, r.text).toBe(200)
  else expectError(r, 409, 'invalid_state', 'approving a mandate not awaiting approval')
}

async function cancel(w: World, o: Extract<Op, {op: 'cancel'}>): Promise<void> {
  const m = pick(w.model.mandates, o.n)
  if (!m) return
  const r = await w.create(m.who, `/v1/mandates/${m.id}/cancel`, {mobile: m.mobile, reason: 'model test'})
  expect(r.status, r.text).toBe(200)
  expect(r.body).toMatchObject({object: 'mandate_cancellation', mandate_id: m.id, status: m.status === 'cancelled' ? 'cancelled' : 'processing'})
  if (m.status !== 'cancelled') w.model.cancel(m)
}

async function debit(w: World, o: Extract<Op, {op: 'debit'}>): Promise<void> {
  // mostly an approved mandate; sometimes any (a debit against one awaiting approval or cancelled is refused)
  const m = pick(
    w.model.mandates.filter((x) => !o.approved || x.status === 'succeeded'),
    o.n,
  )
  if (!m) return
  const who = o.sibling ? sibling(m.who) : m.who
  const ref = w.ref('db')
  const amount = money(BigInt(o.cents))
  const r = await w.create(who, `/v1/mandates/${m.id}/debits`, {amount, currency: 'KES', merchant_reference: ref, provider: 'mpesa'})
  if (m.status !== 'succeeded') return expectError(r, 422, 'validation_error', `a debit against a ${m.status} mandate`)
  expect(r.status, r.text).toBe(201)
  expect(r.body).toMatchObject({status: 'processing', amount, mandate_id: m.id})
  w.model.open({kind: 'debit', id: r.body.id, key: r.body.id, who, amount: BigInt(o.cents), currency: 'KES', ref, outcome: outcomeOf(m.mobile), mandateId: m.id})
}

async function subscribe(w: World, o: Extract<Op, {op: 'subscribe'}>): Promise<void> {
  const mobile = MANDATE_MOBILES[o.mobile % MANDATE_MOBILES.length]
  const ref = w.ref('sub')
  const r = await w.create(o.who, '/v1/subscriptions', {plan_id: o.plan, merchant_reference: ref, customer_name: 'Model Customer', customer_email: 'model@example.com', mobile, provider: 'mpesa'})
  const merchant = merchantOf(o.who)
  if (!SUBSCRIPTIONS[merchant]) return expectError(r, 403, 'forbidden', 'subscriptions not enabled')
  const earlier = w.model.mandateFor(merchant, mobile)
  if (earlier === 'pending') return expectError(r, 409, 'mandate_pending_approval', 'enrolment while a mandate awaits approval')
  expect(r.status, r.text).toBe(201)
  expect(r.body).toMatchObject({object: 'subscription', status: 'pending_approval', plan_id: o.plan, merchant_reference: ref})
  const m = w.model.createMandate(r.body.mandate_id, o.who, mobile, ref, earlier)
  const sub = {id: r.body.subscription_id as string, who: o.who, ref, status: 'pending_approval' as const, plan: o.plan, mandateId: m.id}
  w.model.subs.push(sub)
  m.subId = sub.id
  w.model.emit(sub.id, 'subscription.created', o.who)
  // interface: charged at once when the number already has an approved mandate
  if (m.status === 'succeeded') w.model.charge(m)
}

const CUSTOMER: Record<Merchant, string> = {A: 'MC_ACME0003', B: 'MC_GLOBEX0001'}

async function staticVa(w: World, o: Extract<Op, {op: 'staticVa'}>): Promise<void> {
  const merchant = merchantOf(o.who)
  const path = o.customer ? `/v1/customers/${CUSTOMER[merchant]}/virtual-account` : '/v1/virtual-accounts/merchant'
  const r = await w.create(o.who, path, [])
  // the seeded customer of B belongs to globex-east: from globex-west it does not exist
  if (o.customer && o.who === 'GW') return expectError(r, 404, 'not_found', "another sub-account's customer")
  expect(r.status, r.text).toBe(200)
  expect(r.body.virtual_account).toMatchObject({account_type: 'STATIC', status: 'ACTIVE', expires_at: null})
  // one standing account per merchant account (a sub-account is one: its MAC_ id, GET /v1/account)
  const key = o.customer ? `customer:${CUSTOMER[merchant]}` : `merchant:${CLIENTS[o.who].account}`
  const known = w.model.staticVas[key]
  if (known) expect(r.body.virtual_account.account_number, 'repeat calls return the existing account').toBe(known.number)
  else w.model.staticVas[key] = {number: r.body.virtual_account.account_number, who: o.who}
}

async function balance(w: World, o: Extract<Op, {op: 'balance'}>): Promise<void> {
  const merchant = merchantOf(o.who)
  const currency = o.ugx ? 'UGX' : 'KES'
  const r = await w.get(o.who, `/v1/balance?currency=${currency}`)
  const want = w.model.balance(merchant)[currency]
  if (!want) return expectError(r, 400, 'invalid_parameter', 'a currency the merchant has no wallet in')
  expect(r.status, r.text).toBe(200)
  expect(r.body.data).toMatchObject([{currency, ...want}])
}

/** GET /v1/transactions/verify/{ref}: the snapshot from the owner's sub-account, 404 from anyone else. */
async function verify(w: World, o: Extract<Op, {op: 'verify'}>): Promise<void> {
  const tx = pick(
    w.model.txs.filter((t) => t.kind !== 'debit'),
    o.n,
  )
  if (!tx) return
  const who = o.cross ? outsider(tx.who, o.n) : sibling(tx.who)
  const r = await w.get(who, `/v1/transactions/verify/${tx.ref}`)
  if (o.cross) return expectError(r, 404, 'not_found', `${who} verifying ${tx.who}'s ${tx.kind}`)
  expect(r.status, r.text).toBe(200)
  expect(r.body).toMatchObject({object: tx.kind === 'checkout' ? 'checkout_session' : tx.kind, id: tx.id, status: tx.status})
}

/** Each resource's own lookup: 200 with the model's state for its tenant, 404 across merchants and sub-accounts. */
async function lookup(w: World, o: Extract<Op, {op: 'lookup'}>): Promise<void> {
  const items: {who: Who; path: string; status: string; id: string; field: string}[] = [
    ...w.model.txs
      .filter((t) => t.id && !t.key.startsWith('charge:'))
      .map((t) => ({
        who: t.who,
        status: t.status,
        id: t.id!,
        field: 'id',
        path:
          t.kind === 'collection'
            ? `/v1/collections/${t.id}`
            : t.kind === 'checkout'
              ? `/v1/checkout/sessions/${t.id}`
              : t.kind === 'payout'
                ? `/v1/payouts/${t.ref}`
                : `/v1/mandate_debits/status?mandate_id=${t.mandateId}&merchant_reference=${t.ref}`,
      })),
    ...w.model.mandates.map((m) => ({who: m.who, status: m.status, id: m.id, field: 'mandate_id', path: `/v1/mandates?merchant_reference=${m.ref}`})),
    ...w.model.subs.map((s) => ({who: s.who, status: s.status, id: s.id, field: 'subscription_id', path: `/v1/subscriptions?merchant_reference=${s.ref}`})),
  ]
  const item = pick(items, o.n)
  if (!item) return
  const who = o.cross ? outsider(item.who, o.n) : sibling(item.who)
  const r = await w.get(who, item.path)
  if (o.cross) return expectError(r, 404, 'not_found', `${who} reading ${item.path} of ${item.who}`)
  expect(r.status, r.text).toBe(200)
  expect({id: r.body[item.field], status: r.body.status}).toEqual({id: item.id, status: item.status})
}

/** The same key: the same body replays the first answer (nothing happens again); another body is 409. */
async function replay(w: World, o: Extract<Op, {op: 'replay'}>): Promise<void> {
  const first = pick(w.idempotent, o.n)
  if (!first) return
  const body = o.same ? first.body : Array.isArray(first.body) ? [{changed: true}] : {...(first.body as object), merchant_reference: 'changed-body'}
  const r = await w.send('POST', first.path, {who: first.who, body, key: first.key})
  if (!o.same) return expectError(r, 409, 'idempotency_key_mismatch', 'the same key with another body')
  expect({status: r.status, body: r.text, replayed: r.headers['idempotent-replayed']}).toEqual({status: first.reply.status, body: first.reply.text, replayed: 'true'})
}

async function force(w: World, o: Extract<Op, {op: 'force'}>): Promise<void> {
  const tx = pick(
    w.model.txs.filter((t) => t.id),
    o.n,
  )
  if (!tx) return
  const r = await w.send('POST', `/_sandbox/transactions/${tx.id}/${o.outcome}`)
  if (w.model.finish(tx, o.outcome === 'succeed' ? 'succeeded' : 'failed')) expect(r.status, r.text).toBe(200)
  else expectError(r, 409, 'invalid_state', `forcing a ${tx.status} ${tx.kind}`)
}

async function advance(w: World, o: Extract<Op, {op: 'advance'}>): Promise<void> {
  const r = await w.send('POST', '/_sandbox/clock/advance', {body: {seconds: o.seconds}})
  expect(r.status, r.text).toBe(200)
  w.model.advance(o.seconds)
}

/** The clock to the end of a held credit's T+1 hold (or a minute before it): the boundary a shorter or longer hold moves. */
async function holdEdge(w: World, o: Extract<Op, {op: 'holdEdge'}>): Promise<void> {
  const held = w.model.heldCredits()
  const credit = pick(held, o.n)
  const seconds = credit === undefined ? 60 : Math.max(0, credit.at + HOLD_S - w.model.now - (o.before ? 60 : 0))
  await advance(w, {op: 'advance', seconds})
}

const PERFORM: {[K in Op['op']]: (w: World, o: Extract<Op, {op: K}>) => Promise<void>} = {
  collect,
  checkout,
  payBank,
  payMobile,
  transfer,
  payout,
  mandate,
  approve,
  cancel,
  debit,
  subscribe,
  staticVa,
  balance,
  verify,
  lookup,
  replay,
  force,
  advance,
  holdEdge,
}

// ---- the comparison after every step -------------------------------------------------------------------------------

const byKey = (list: {key: string; line: string}[]) => {
  const out: Record<string, string[]> = {}
  for (const e of list) (out[e.key] ??= []).push(e.line)
  return out
}

async function compare(w: World): Promise<void> {
  const {model} = w
  // events since the last step: per resource, the same types in the same order, to the same client, same status
  const fresh = sb.events.slice(w.eventsSeen)
  w.eventsSeen += fresh.length
  const actual = fresh.map((e) => {
    const prefix = e.type.slice(0, e.type.lastIndexOf('.'))
    const data = JSON.parse(e.body).data
    let key: string = prefix === 'mandate' ? data.mandate_id : prefix === 'subscription' ? data.subscription_id : data.id
    if (prefix === 'mandate_debit') {
      const known = model.txs.find((t) => t.id === data.id)
      if (known) key = known.key
      else {
        key = `charge:${data.mandate_id}` // a subscription's charge: the model learns its id from its first event
        const charge = model.tx(key)
        if (charge) charge.id ??= data.id
      }
    }
    return {key, line: `${e.type} -> ${e.client_id}${prefix === 'subscription' ? '' : ` (${data.status})`}`}
  })
  const expected = model.events.slice(w.expectedSeen).map((e) => ({key: e.key, line: `${e.type} -> ${e.client}${e.status === undefined ? '' : ` (${e.status})`}`}))
  w.expectedSeen = model.events.length
  expect(byKey(actual), 'events of this step, per resource').toEqual(byKey(expected))

  // every wallet of both merchants
  for (const who of ['A1', 'GE'] as const) {
    const r = await w.get(who, '/v1/balance')
    expect(r.status, r.text).toBe(200)
    const got = Object.fromEntries(r.body.data.map(({currency, collection_wallet, collection_wallet_actual, collection_wallet_held, payout_wallet}: any) => [currency, {collection_wallet, collection_wallet_actual, collection_wallet_held, payout_wallet}]))
    expect(got, `balance of merchant ${merchantOf(who)} at +${model.now} s`).toEqual(model.balance(merchantOf(who)))
  }

  // every resource's state (read from the running sandbox's state, sb.state)
  const s = sb.state
  for (const t of model.txs) {
    if (!t.id) continue
    const table = {collection: s.collections, checkout: s.checkouts, payout: s.payouts, debit: s.debits}[t.kind]
    expect(table[t.id]?.status, `${t.kind} ${t.ref}`).toBe(t.status)
  }
  for (const m of model.mandates) expect(s.mandates[m.id]?.status, `mandate ${m.ref}`).toBe(m.status)
  for (const sub of model.subs) expect(s.subscriptions[sub.id]?.status, `subscription ${sub.ref}`).toBe(sub.status)
}

// ---- the generators ------------------------------------------------------------------------------------------------

const who = fc.constantFrom<Who>(...WHO)
/** Which resource a step acts on: mostly the newest. */
const n = fc.oneof({arbitrary: fc.constant(0), weight: 3}, {arbitrary: fc.nat(50), weight: 2})
const digit = fc.constantFrom(0, 1, 8, 9)
const cents = fc.oneof(fc.integer({min: 100, max: 300_000}), fc.constantFrom(100_000, 153_675))
const rail = fc.constantFrom<Rail>('mobile_money', 'bank_transfer')
/** true three times in four */
const often = fc.constantFrom(true, true, true, false)

/** Each operation's arguments, and how often it comes (weight; the clock moves and money movements most). */
const OPS: {[K in Op['op']]: [weight: number, args: fc.Arbitrary<Omit<Extract<Op, {op: K}>, 'op'>>]} = {
  collect: [3, fc.record({who, cents, digit, rail, ugx: fc.boolean()})],
  checkout: [3, fc.record({who, cents, bank: fc.boolean()})],
  payBank: [2, fc.record({n})],
  payMobile: [1, fc.record({n, digit})],
  transfer: [6, fc.record({n, open: often, how: fc.constantFrom<'exact' | 'under' | 'over'>('exact', 'under', 'under', 'over'), delta: fc.nat(50_000)})],
  payout: [3, fc.record({who, cents: fc.oneof(cents, fc.integer({min: 5_000_000, max: 20_000_000})), rail, digit, ugx: fc.boolean()})],
  mandate: [3, fc.record({who, mobile: fc.nat(3)})],
  approve: [1, fc.record({n})],
  cancel: [1, fc.record({n})],
  debit: [4, fc.record({n, approved: often, sibling: fc.boolean(), cents})],
  subscribe: [1, fc.record({who, plan: fc.constantFrom(...Object.keys(PLANS)), mobile: fc.nat(3)})],
  staticVa: [1, fc.record({who, customer: fc.boolean()})],
  balance: [1, fc.record({who, ugx: fc.boolean()})],
  verify: [1, fc.record({n, cross: fc.boolean()})],
  lookup: [1, fc.record({n, cross: fc.boolean()})],
  replay: [2, fc.record({n, same: fc.boolean()})],
  force: [1, fc.record({n, outcome: fc.constantFrom<'succeed' | 'fail'>('succeed', 'fail')})],
  holdEdge: [2, fc.record({n, before: fc.boolean()})],
  advance: [5, fc.record({seconds: fc.oneof({arbitrary: fc.constantFrom(...SHORT_MOVES), weight: 3}, {arbitrary: fc.constantFrom(...DAY_MOVES), weight: 2})})],
}
const step: fc.Arbitrary<Op> = fc.oneof(...Object.entries(OPS).map(([op, [weight, args]]) => ({weight, arbitrary: args.map((a) => ({op, ...a}) as Op)})))

async function newWorld(): Promise<World> {
  sb.reset()
  const w = new World()
  for (const [who, client] of [['A1', 'sb_acme_client'], ['A2', 'sb_acme_ops_client'], ['GE', 'sb_globex_client']] as const) {
    const r = await w.send('POST', '/v1/oauth/token', {body: {grant_type: 'client_credentials', client_id: client, client_secret: SECRETS[client]}})
    if (r.status !== 200) throw new Error(`token for ${client}: ${r.status} ${r.text}`)
    w.tokens[who] = r.body.access_token
  }
  w.tokens.GW = w.tokens.GE
  return w
}

it(`the sandbox keeps the interface's state and money rules (${RUNS} runs of up to ${STEPS} steps)`, async () => {
  // fc.array rather than fc.commands: lengths spread evenly up to STEPS (fc.commands' are mostly short), and the
  // shrinker drops steps and simplifies each one; a failure prints the steps as JSON with the seed and path to replay.
  // No minLength: it would keep a shrunk sequence that long.
  await fc.assert(
    fc.asyncProperty(fc.array(step, {maxLength: STEPS, size: 'max'}), async (steps) => {
      const w = await newWorld()
      for (const o of steps) {
        await (PERFORM[o.op] as (w: World, o: Op) => Promise<void>)(w, o)
        await compare(w)
      }
    }),
    {numRuns: RUNS, seed: SEED, path: PATH, endOnFailure: process.env.PAY_MODEL_NO_SHRINK === '1'},
  )
}, 600_000)
