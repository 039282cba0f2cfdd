/**
 * The two tiers of response checking (src/api/schemas.ts, `assumed`): an answer of another plausible shape where the
 * interface says "not shown" is shown with the generic view (table) or verbatim (--json), exit 0; an answer that
 * breaks a rule the interface states is exit 7. Each answer comes from a scripted node:http server on port 0 (not the
 * sandbox, whose shapes are our assumptions); the commands run in-process.
 */
import {describe, expect, it} from 'vitest'
import {driftOf} from '../../src/api/drift.js'
import {endpoints} from '../../src/api/endpoints.js'
import {statedReading} from '../../src/api/schemas.js'
import {runInProcess} from '../helpers/in-process.js'
import {TEST_CLIENT_ID, TEST_CLIENT_SECRET, useScriptedServer} from '../helpers/scripted-server.js'
import {tempConfigDir} from '../helpers/cli.js'

const server = useScriptedServer()
const env = () => ({PAY_CONFIG_DIR: tempConfigDir(), PAY_BASE_URL: server.url, PAY_CLIENT_ID: TEST_CLIENT_ID, PAY_CLIENT_SECRET: TEST_CLIENT_SECRET, NO_COLOR: '1'})

/** Runs the command twice against the same scripted answer: as a table, and with --json. */
async function both(route: string, body: unknown, argv: string[]) {
  server.script(route, {status: 200, body}, {status: 200, body})
  const table = await runInProcess([...argv, '--retries', '0'], {env: env()})
  const json = await runInProcess([...argv, '--json', '--retries', '0'], {env: env()})
  return {table, json}
}

/**
 * One plausible other shape for every response shape docs/assumptions.md lists as assumed, with values the generic
 * view must show.
 */
const OTHER_SHAPES: {what: string; route: string; argv: string[]; body: unknown; shows: string[]}[] = [
  {
    what: 'balance: one flat object, no data array',
    route: 'GET /v1/balance',
    argv: ['balance'],
    body: {object: 'balance', currency: 'GHS', collection_wallet: '10.00', collection_wallet_actual: '12.00', collection_wallet_held: '2.00', payout_wallet: '5.00'},
    shows: ['collection_wallet', '10.00', 'GHS', 'payout_wallet'],
  },
  {
    what: 'balance: wallets nested per currency',
    route: 'GET /v1/balance',
    argv: ['balance'],
    body: {object: 'balance', wallets: {KES: {collection_wallet: '100.00', payout_wallet: '7.50'}}},
    shows: ['wallets.KES.collection_wallet', '100.00', '7.50'],
  },
  {
    what: 'full checkout session: the amount as an object',
    route: 'GET /v1/checkout/sessions/CS_1',
    argv: ['checkout', 'get', 'CS_1'],
    body: {id: 'CS_1', object: 'checkout_session', status: 'processing', url: 'https://pay.example/pay/CS_1', expires_at: '2026-12-01T00:00:00Z', amount: {value: '150.00', currency: 'KES'}},
    shows: ['amount.value', '150.00', 'CS_1'],
  },
  {
    what: 'verify snapshot of a payout: other field names',
    route: 'GET /v1/transactions/verify/po-1',
    argv: ['transactions', 'verify', 'po-1'],
    body: {object: 'payout', reference: 'po-1', state: 'processing', money: {amount: '20.00', fee: '1.00'}},
    shows: ['reference', 'po-1', 'money.fee'],
  },
  {
    what: 'verify snapshot of a checkout: other field names',
    route: 'GET /v1/transactions/verify/cs-1',
    argv: ['transactions', 'verify', 'cs-1'],
    body: {object: 'checkout_session', session: 'CS_9', paid: false},
    shows: ['session', 'CS_9', 'paid'],
  },
  {
    what: 'plans: other item fields',
    route: 'GET /v1/subscription_plans',
    argv: ['plans', 'list'],
    body: {object: 'list', data: [{id: 'PLN_1', name: 'Gold', price: {amount: '10.00', currency: 'KES'}}, {id: 'PLN_2', name: 'Silver', price: {amount: '5.00', currency: 'KES'}}]},
    shows: ['PLN_1', 'Gold', 'Silver', 'data:'],
  },
  {
    what: 'mandate get: a nested object instead of flat fields',
    route: 'GET /v1/mandates',
    argv: ['mandates', 'get', '--reference', 'md-1'],
    body: {mandate: {id: 'MD_1', state: 'approved'}, debits: [{id: 'DB_1', amount: '3.00'}]},
    shows: ['mandate.id', 'MD_1', 'DB_1', 'debits:'],
  },
  {
    what: 'debit status: other field names',
    route: 'GET /v1/mandate_debits/status',
    argv: ['debits', 'status', '--mandate', 'MD_1', '--reference', 'db-1'],
    body: {debit_id: 'DB_1', state: 'settled', amount_charged: '3.00'},
    shows: ['debit_id', 'settled', '3.00'],
  },
  {
    what: 'payout: its destination as another type',
    route: 'GET /v1/payouts/po-2',
    argv: ['payouts', 'get', 'po-2'],
    body: {id: 'PO_2', object: 'payout', status: 'succeeded', currency: 'KES', amount: '20.00', fee_amount: '1.00', amount_debited: '21.00', merchant_reference: 'po-2', status_detail: null, bank_code: 68, created_at: 1767225600},
    shows: ['bank_code', '68', 'PO_2', '21.00'],
  },
  {
    what: 'collection: created_at as a number, status_detail as an object',
    route: 'GET /v1/collections/CL_2',
    argv: ['collections', 'get', 'CL_2'],
    body: {id: 'CL_2', object: 'collection', status: 'failed', currency: 'KES', amount: '5.00', merchant_reference: 'c-2', status_detail: {code: 'insufficient_funds'}, created_at: 1767225600},
    shows: ['status_detail.code', 'insufficient_funds', 'CL_2'],
  },
  {
    what: 'customer collections: the page as a string, with a cursor',
    route: 'GET /v1/customers/MC_1/collections',
    argv: ['customers', 'collections', 'MC_1'],
    body: {object: 'list', customer_id: 'MC_1', data: [{id: 'CL_5', object: 'collection', status: 'succeeded', currency: 'KES', amount: '2.00', merchant_reference: 'c-5'}], has_more: false, total: 1, page: '1', next_cursor: null},
    shows: ['CL_5', 'page', 'data:'],
  },
  {
    what: 'debit create: other field names',
    route: 'POST /v1/mandates/MD_1/debits',
    argv: ['debits', 'create', 'MD_1', '--amount', '3.00', '--currency', 'KES', '--reference', 'db-3', '--provider', 'mpesa'],
    body: {debit: {reference: 'db-3', state: 'queued'}},
    shows: ['debit.reference', 'queued'],
  },
  {
    what: 'banks: the kind of an item as an object',
    route: 'GET /v1/metadata/banks',
    argv: ['metadata', 'banks'],
    body: {object: 'list', data: [{bank_code: '01', bank_name: 'First Bank', object: {kind: 'bank'}}]},
    shows: ['First Bank', '01'],
  },
]

describe('an assumed shape that does not fit: any JSON object, generic view, --json verbatim, exit 0', () => {
  it.each(OTHER_SHAPES.map((c) => [c.what, c]))('%s', async (_what, c) => {
    const {table, json} = await both(c.route, c.body, c.argv)
    expect(table.code, table.stderr).toBe(0)
    for (const text of c.shows) expect(table.stdout).toContain(text)
    expect(table.stderr).toMatch(/differs from what pay assumes/)
    expect(json.code, json.stderr).toBe(0)
    expect(JSON.parse(json.stdout)).toEqual(c.body)
  })

  it('the stated reading is derived from the mark: every schema with an assumed part has one, the others none', () => {
    expect(statedReading(endpoints['balance.get'].response)).toBeDefined()
    expect(statedReading(endpoints['plans.list'].response)).toBeDefined()
    expect(statedReading(endpoints['account.get'].response)).toBeUndefined()
    expect(statedReading(endpoints['mandates.create'].response)).toBeUndefined()
  })
})

/** For every rule the interface states of a response, an answer that breaks it. */
const BROKEN: {rule: string; route: string; argv: string[]; body: unknown; names: RegExp}[] = [
  {rule: 'an id carries its prefix (CL_)', route: 'GET /v1/collections/CL_3', argv: ['collections', 'get', 'CL_3'], body: {id: 'XX_3', object: 'collection', status: 'processing', currency: 'KES', amount: '1.00', merchant_reference: 'r'}, names: /id/},
  {rule: 'object names the kind', route: 'GET /v1/customers/MC_1', argv: ['customers', 'get', 'MC_1'], body: {id: 'MC_1', object: 'client', name: 'Jane', created_at: '2026-01-01T00:00:00Z'}, names: /object/},
  {rule: 'amounts are decimal strings', route: 'GET /v1/payouts/po-3', argv: ['payouts', 'get', 'po-3'], body: {id: 'PO_3', object: 'payout', status: 'processing', currency: 'KES', amount: '20.00', fee_amount: '1,00', amount_debited: '21.00', merchant_reference: 'po-3', status_detail: null}, names: /fee_amount/},
  {rule: 'a status is a string', route: 'GET /v1/subscriptions', argv: ['subscriptions', 'get', '--reference', 's-1'], body: {subscription_id: 'SUB_1', status: 3, merchant_reference: 's-1', customer_name: 'J', customer_email: 'j@example.com', plan_id: 'PLN_1', mobile: '254700000001', provider: 'mpesa'}, names: /status/},
  {rule: 'a list is object=list with a data array', route: 'GET /v1/subscription_plans', argv: ['plans', 'list'], body: {object: 'list', data: {PLN_1: {}}}, names: /data/},
  {rule: 'the snapshot names its kind (collection, payout or checkout_session)', route: 'GET /v1/transactions/verify/x-1', argv: ['transactions', 'verify', 'x-1'], body: {object: 'refund', status: 'succeeded'}, names: /object/},
  {rule: 'a collection snapshot has the fields of Collection', route: 'GET /v1/transactions/verify/c-1', argv: ['transactions', 'verify', 'c-1'], body: {object: 'collection', status: 'succeeded'}, names: /id|amount/},
  {rule: 'a balance is a JSON object', route: 'GET /v1/balance', argv: ['balance'], body: [{currency: 'KES'}], names: /body|expected/},
  {rule: 'mandate debits are free-form JSON objects', route: 'GET /v1/mandate_debits/status', argv: ['debits', 'status', '--mandate', 'MD_1', '--reference', 'db-2'], body: 'settled', names: /expected/},
  {rule: 'account context: merchant.id is an integer', route: 'GET /v1/account', argv: ['account'], body: {object: 'account_context', merchant: {id: '1', name: 'S', sub_accounts_enabled: false}, account: {id: 'MAC_1', object: 'merchant_account', account_ref: 'main', name: 'Main', status: 'active'}}, names: /merchant\.id/},
  {rule: 'a verification result is verified or invalid', route: 'POST /v1/verifications/msisdn', argv: ['verifications', 'msisdn', '--mobile', '254700000001'], body: {status: 'maybe', profile: null}, names: /status/},
  {rule: 'the customer collection list has has_more and total', route: 'GET /v1/customers/MC_1/collections', argv: ['customers', 'collections', 'MC_1'], body: {object: 'list', customer_id: 'MC_1', data: []}, names: /has_more|total/},
]

describe('an answer that breaks a stated rule: exit 7 naming the field', () => {
  it.each(BROKEN.map((c) => [c.rule, c]))('%s', async (_rule, c) => {
    const {table, json} = await both(c.route, c.body, c.argv)
    expect(table.code, table.stderr).toBe(7)
    expect(table.stdout.trim()).toBe('')
    expect(json.code, json.stderr).toBe(7)
    const envelope = JSON.parse(json.stdout)
    expect(envelope.error.code).toBe('invalid_response')
    expect(envelope.error.problems.join('\n')).toMatch(c.names)
  })
})

describe('driftOf: where an answer differs from the assumed shape', () => {
  it('names missing, extra, other types and other shapes by path, once per list path', () => {
    const drift = driftOf(endpoints['plans.list'].response, {object: 'list', data: [{plan_id: 1, name: 'x'}, {plan_id: 2, name: 'y', plan_name: []}]})
    expect(drift).toEqual([
      {path: 'data[].plan_id', kind: 'type', expected: 'string', actual: 'number'},
      {path: 'data[].plan_name', kind: 'missing', expected: 'string', actual: 'absent'},
      {path: 'data[].name', kind: 'extra', expected: 'absent', actual: 'string'},
      {path: 'data[].plan_name', kind: 'shape', expected: 'string', actual: 'array'},
    ])
    expect(driftOf(endpoints['balance.get'].response, {object: 'balance', data: [{currency: 'KES', collection_wallet: '1.00', collection_wallet_actual: '1.00', collection_wallet_held: '0.00', payout_wallet: '0.00'}]})).toEqual([])
  })
})
