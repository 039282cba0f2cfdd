/**
 * The zod schema of a `--state` file, checked when one is loaded (never at a start without one): a file of the
 * wrong shape is refused naming the file and the first bad path, instead of answering 500 to every request. The
 * compile-time checks at the end keep it and the State interface of src/sandbox/state.ts the same shape.
 */
import * as z from 'zod'
import {productsSchema} from './seed-schema.js'
import type {State} from './state.js'

const currency = z.string().regex(/^[A-Z]{3}$/)
const money = z.string().regex(/^-?\d+(\.\d+)?$/, 'must be a decimal string')
const tx = z.enum(['processing', 'succeeded', 'failed'])
const stamp = z.number().nullable()
const owned = {merchant_id: z.number(), account_id: z.string(), client_id: z.string().nullable()}
const optional = z.string().optional()

const merchant = z.object({id: z.number(), key: z.string(), name: z.string(), testing: z.boolean(), products: productsSchema, accounts: z.array(z.object({id: z.string(), account_ref: z.string(), name: z.string()}))})
const client = z.object({client_id: z.string(), client_secret: z.string(), webhook_secret: z.string(), merchant_id: z.number(), enabled: z.boolean(), webhook_url: z.string().nullable()})
const wallet = z.object({currency, released: money, payout_wallet: money, credits: z.array(z.object({amount: money, at: z.number()})), held: money.optional()})
const virtualAccount = z.object({
  ...owned,
  account_number: z.string(),
  account_name: z.string(),
  account_type: z.enum(['STATIC', 'DYNAMIC']),
  bank_code: z.string(),
  bank_name: z.string(),
  status: z.literal('ACTIVE'),
  expires_at: z.string().nullable(),
  single_deposit_limit: z.string().nullable(),
  owner: z.discriminatedUnion('kind', [
    z.object({kind: z.literal('customer'), customer_id: z.string()}),
    z.object({kind: z.literal('merchant')}),
    z.object({kind: z.literal('collection'), id: z.string()}),
    z.object({kind: z.literal('checkout'), id: z.string()}),
  ]),
})
/** What collections and payouts share (resources/common.ts newTransaction builds it). */
const transaction = {
  ...owned,
  id: z.string(),
  status: tx,
  currency,
  amount: money,
  merchant_reference: z.string(),
  payment_rail: z.enum(['mobile_money', 'bank_transfer']),
  mobile: optional,
  provider: optional,
  account_name: optional,
  description: optional,
  status_detail: z.string().nullable(),
  created_at: z.string(),
  settle_at: stamp,
}
const collection = z.object({...transaction, customer_id: optional, va_number: optional})
const checkout = z.object({
  ...owned,
  id: z.string(),
  status: tx,
  amount_mode: z.enum(['fixed', 'open']),
  amount: money.nullable(),
  currency,
  merchant_reference: z.string(),
  payment_rail: z.string().nullable(),
  mobile: z.string().nullable(),
  provider: z.string().nullable(),
  success_url: z.string(),
  cancel_url: z.string(),
  description: optional,
  origin: z.enum(['api', 'portal']),
  va_number: optional,
  created_at: z.string(),
  expires_at: z.string(),
})
const payout = z.object({...transaction, fee_amount: money, amount_debited: money, bank_code: optional, account_number: optional})
const mandate = z.object({
  ...owned,
  id: z.string(),
  status: z.enum(['processing', 'succeeded', 'cancelled']),
  upstream_id: z.string(),
  mobile: z.string(),
  provider: z.string(),
  currency,
  amount: money,
  frequency: z.string(),
  starts_at: z.string(),
  merchant_reference: z.string(),
  description: optional,
  notes: optional,
  plan_id: optional,
  subscription_id: optional,
  message_id: z.string(),
  created_at: z.string(),
  approved_at: z.string().nullable(),
  cancelled_at: z.string().nullable(),
  approve_at: stamp,
})
const debit = z.object({
  ...owned,
  id: z.string(),
  status: tx,
  mandate_id: z.string(),
  amount: money,
  currency,
  merchant_reference: z.string(),
  provider: z.string(),
  subscription_id: optional,
  status_detail: z.string().nullable(),
  created_at: z.string(),
  settle_at: stamp,
})
const subscription = z.object({
  ...owned,
  subscription_id: z.string(),
  status: z.enum(['pending_approval', 'active', 'cancelled', 'failed']),
  merchant_reference: z.string(),
  customer_name: z.string(),
  customer_email: z.string(),
  plan_id: z.string(),
  plan_name: z.string(),
  mandate_id: z.string(),
  mobile: z.string(),
  provider: z.string(),
  notes: optional,
  starts_at: z.string(),
  ends_at: z.string(),
  created_at: z.string(),
})
const customer = z.object({id: z.string(), merchant_id: z.number(), account_id: z.string(), merchant_reference: z.string(), name: z.string(), email: z.string(), mobile: z.string(), provider: z.string(), created_at: z.string()})
const plan = z.object({merchant_id: z.number(), plan_id: z.string(), plan_name: z.string(), amount: money, currency, frequency: z.string(), active: z.boolean()})
const attempt = z.object({attempt: z.number(), at: z.string(), url: z.string(), status: z.number().nullable(), error: optional, duplicate: z.boolean().optional()})
const event = z.object({
  id: z.string(),
  type: z.string(),
  client_id: z.string(),
  merchant_id: z.number(),
  created_at: z.string(),
  body: z.string(),
  state: z.enum(['pending', 'delivered', 'failed', 'no_endpoint']),
  deliveries: z.array(attempt),
})
const idempotency = z.object({fingerprint: z.string(), status: z.number(), body: z.string(), created_at: z.number()})

export const stateSchema = z.object({
  version: z.literal(1),
  clock_offset_ms: z.number(),
  banks: z.array(z.object({bank_code: z.string(), bank_name: z.string()})),
  mobile_providers: z.array(z.string()),
  testing_caps: z.record(z.string(), money),
  merchants: z.record(z.string(), merchant),
  clients: z.record(z.string(), client),
  tokens: z.record(z.string(), z.object({client_id: z.string(), merchant_id: z.number(), expires_at: z.number()})),
  wallets: z.record(z.string(), z.record(z.string(), wallet)),
  plans: z.record(z.string(), plan),
  customers: z.record(z.string(), customer),
  collections: z.record(z.string(), collection),
  checkouts: z.record(z.string(), checkout),
  payouts: z.record(z.string(), payout),
  mandates: z.record(z.string(), mandate),
  debits: z.record(z.string(), debit),
  subscriptions: z.record(z.string(), subscription),
  virtual_accounts: z.record(z.string(), virtualAccount),
  events: z.array(event),
  idempotency: z.record(z.string(), idempotency),
})

// the schema and the State interface describe the same shape: tsc fails here when either is not assignable to the other
type Parsed = z.output<typeof stateSchema>
const sameShape: [(s: Parsed) => State, (s: State) => Parsed] = [(s) => s, (s) => s]
void sameShape
