/**
 * zod schemas of every request body and response of the Payments Service (spec: shared/spec).
 * Request schemas are strict about the documented rules; response schemas are loose (unknown keys pass)
 * so that a field the service adds later never breaks the CLI.
 * Choices where the spec says "not shown" are marked ASSUMPTION and listed in docs/assumptions.md.
 */
import * as z from 'zod'
import {isDecimalAmount} from './money.js'
import {UNSAFE_TEXT, UNSAFE_TEXT_RULE} from './text-rules.js'

// Every schema here is built on first use: z.lazy keeps its builder, and zod builds it the first time it parses
// (or is looked into). Building all of them when the module loads cost every command ~7 ms of CPU, for the two
// or three schemas it uses. Parsing through z.lazy gives the same results and messages; code that looks into a
// schema's definition (src/api/operation-rules.ts) sees through it.

// ---------- field rules ----------
export const amount = z.lazy(() =>
  z
    .string({error: 'must be a decimal string such as "10.00"'})
    .refine(isDecimalAmount, {message: 'must be a positive decimal string with at most 2 decimal places, such as "10.00"'})
)
// the CLI upper-cases what is typed, so the rule says letters, not case (the service takes upper case)
export const currency = z.lazy(() => z.string({error: 'is required'}).regex(/^[A-Z]{3}$/, 'must be a 3-letter currency code such as KES'))
/** The same rule in the words of the debit and balance endpoints' documentation. */
const currencyCode = z.lazy(() => z.string({error: 'is required'}).regex(/^[A-Z]{3}$/, 'must be exactly 3 letters, such as KES'))
/** Text the service stores and shows again (references, names, descriptions, notes, reasons): see text-rules.ts. */
const storable = (s: z.ZodString) => s.refine((v) => !UNSAFE_TEXT.test(v), UNSAFE_TEXT_RULE)
/** A required, non-empty string of at most `max` characters. */
export const bounded = (max: number) => storable(z.string({error: 'is required'}).min(1, 'must not be empty').max(max, `must be at most ${max} characters`))
export const reference = z.lazy(() => bounded(255))
/** ASSUMPTION: wallet numbers are 10 to 15 digits (the msisdn rule of Limits §11) everywhere. */
export const mobile = z.lazy(() => z.string({error: 'is required'}).regex(/^[0-9]{10,15}$/, 'must be 10 to 15 digits'))
export const provider = z.lazy(() => bounded(64))
export const email = z.lazy(() => z.email({error: 'must be an email address'}))
export const uri = z.lazy(() => z.url({protocol: /^https?$/, error: 'must be an absolute http(s) URL such as https://shop.example/ok'}))
export const dateTime = z.lazy(() => z.iso.datetime({offset: true, error: 'must be an ISO 8601 date-time such as 2026-12-01T09:00:00Z'}))
export const nonEmpty = z.lazy(() => storable(z.string({error: 'is required'}).min(1, 'must not be empty')))
/** Optional free text of at most `max` characters. */
export const text = (max: number) => storable(z.string().max(max, `must be at most ${max} characters`))

export const collectionRail = z.lazy(() => z.enum(['mobile_money', 'bank_transfer'], {error: 'must be mobile_money or bank_transfer'}))
export const checkoutRail = z.lazy(() =>
  z.enum(['mobile_money', 'card', 'bank_transfer'], {
    error: 'must be mobile_money, card or bank_transfer',
  })
)
export const frequency = z.lazy(() => z.enum(['DAILY', 'WEEKLY', 'MONTHLY'], {error: 'must be DAILY, WEEKLY or MONTHLY'}))
export const txState = z.lazy(() => z.enum(['processing', 'succeeded', 'failed']))

// ---------- request bodies ----------
/**
 * Run the cross-field rules even when a plain field rule already failed, so that every problem of a body is
 * listed at once (zod skips refinements after an aborting issue by default). The rules read fields defensively.
 */
const ALWAYS = {when: (payload: {value: unknown}) => typeof payload.value === 'object' && payload.value !== null && !Array.isArray(payload.value)}

export const tokenRequest = z.lazy(() =>
  z.object({
    grant_type: z.literal('client_credentials', {error: 'only client_credentials is allowed'}).optional(),
    client_id: nonEmpty,
    client_secret: nonEmpty,
  })
)

/** What a collection and a payout request share: the money, the reference, the rail and a wallet. */
const moneyMovement = () => ({
  amount,
  currency,
  merchant_reference: reference,
  payment_rail: collectionRail.optional(),
  mobile: mobile.optional(),
  provider: provider.optional(),
})

export const collectionCreateRequest = z.lazy(() =>
  z
    .looseObject({
      ...moneyMovement(),
      account_name: text(255).optional(),
      description: text(255).optional(),
    })
    .superRefine((body, ctx) => {
      const rail = body.payment_rail ?? 'mobile_money'
      if (rail === 'mobile_money') {
        if (body.mobile === undefined) ctx.addIssue({code: 'custom', path: ['mobile'], message: 'is required when payment_rail is mobile_money'})
        if (body.provider === undefined) ctx.addIssue({code: 'custom', path: ['provider'], message: 'is required when payment_rail is mobile_money'})
      }
      if (rail !== 'bank_transfer' && body.account_name !== undefined) {
        ctx.addIssue({code: 'custom', path: ['account_name'], message: 'is only allowed when payment_rail is bank_transfer'})
      }
    }, ALWAYS)
)

export const checkoutCreateRequest = z.lazy(() =>
  z
    .looseObject({
      amount_mode: z.enum(['fixed', 'open'], {error: 'must be fixed or open'}).optional(),
      amount: amount.optional(),
      currency,
      merchant_reference: reference,
      payment_rail: checkoutRail.nullable().optional(),
      mobile: mobile.nullable().optional(),
      provider: provider.nullable().optional(),
      success_url: uri,
      cancel_url: uri,
      description: text(255).optional(),
    })
    .superRefine((body, ctx) => {
      const mode = body.amount_mode ?? 'fixed'
      if (mode === 'fixed' && body.amount === undefined) ctx.addIssue({code: 'custom', path: ['amount'], message: 'is required when amount_mode is fixed'})
      if (mode === 'open' && body.amount !== undefined) ctx.addIssue({code: 'custom', path: ['amount'], message: 'must be omitted when amount_mode is open'})
      if (body.payment_rail === 'mobile_money' && (body.mobile === undefined || body.mobile === null)) {
        ctx.addIssue({code: 'custom', path: ['mobile'], message: 'is required when payment_rail is mobile_money'})
      }
    }, ALWAYS)
)

/** ASSUMPTION: the spec does not show payout request fields; we mirror the collection body (docs/assumptions.md). */
export const payoutCreateRequest = z.lazy(() =>
  z
    .looseObject({
      ...moneyMovement(),
      bank_code: bounded(32).optional(),
      account_number: bounded(64).optional(),
      account_name: text(255).optional(),
      description: text(255).optional(),
    })
    .superRefine((body, ctx) => {
      const rail = body.payment_rail ?? 'mobile_money'
      if (rail !== 'mobile_money' && rail !== 'bank_transfer') return
      const need = rail === 'mobile_money' ? (['mobile', 'provider'] as const) : (['bank_code', 'account_number'] as const)
      for (const field of need) {
        if (body[field] === undefined) ctx.addIssue({code: 'custom', path: [field], message: `is required when payment_rail is ${rail}`})
      }
    }, ALWAYS)
)

export const msisdnVerificationRequest = z.lazy(() =>
  z.object({
    mobile,
    provider: text(64).optional(),
  })
)

export const bankAccountVerificationRequest = z.lazy(() =>
  z.object({
    bank_code: bounded(32),
    account_number: bounded(64),
  })
)

export const mandateCreateRequest = z.lazy(() =>
  z
    .looseObject({
      mobile,
      provider,
      currency,
      amount,
      frequency,
      starts_at: dateTime,
      merchant_reference: reference,
      description: text(255).optional(),
      plan_id: z.string().min(1, 'must not be empty').optional(),
      customer_name: nonEmpty.optional(),
      customer_email: email.optional(),
      notes: text(1000).optional(),
    })
    .superRefine((body, ctx) => {
      if (body.plan_id === undefined) return
      if (body.customer_name === undefined) ctx.addIssue({code: 'custom', path: ['customer_name'], message: 'is required when plan_id is set'})
      if (body.customer_email === undefined) ctx.addIssue({code: 'custom', path: ['customer_email'], message: 'is required when plan_id is set'})
    }, ALWAYS)
)

export const mandateCancelRequest = z.lazy(() => z.looseObject({mobile, reason: nonEmpty}))

export const debitCreateRequest = z.lazy(() =>
  z.looseObject({
    amount,
    currency: currencyCode,
    merchant_reference: reference,
    provider,
  })
)

export const subscriptionCreateRequest = z.lazy(() =>
  z.looseObject({
    plan_id: nonEmpty,
    merchant_reference: reference,
    customer_name: nonEmpty,
    customer_email: email,
    mobile,
    provider,
    notes: text(1000).optional(),
  })
)

/** The spec says the body of the two virtual-account POSTs is an empty JSON array. */
export const emptyArrayBody = z.lazy(() => z.array(z.unknown()).max(0, 'must be an empty JSON array []'))

// ---------- query strings ----------
export const byReferenceQuery = z.lazy(() => z.object({merchant_reference: reference}))
export const debitStatusQuery = z.lazy(() => z.object({mandate_id: nonEmpty, merchant_reference: reference}))
/** ASSUMPTION: paging is `page` (1-based) with `per_page` default 20, maximum 100. */
export const MAX_PER_PAGE = 100
export const DEFAULT_PER_PAGE = 20
const positiveIntString = (max: number) =>
  z
    .string()
    .regex(/^[1-9][0-9]*$/, 'must be a positive whole number')
    .refine((v) => v.length < 10 && Number(v) <= max, `must be at most ${max}`)
export const customerCollectionsQuery = z.lazy(() =>
  z.object({
    per_page: positiveIntString(MAX_PER_PAGE).optional(),
    page: positiveIntString(1_000_000_000).optional(),
  })
)
export const balanceQuery = z.lazy(() =>
  z.object({
    currency: currencyCode.optional(),
  })
)

// ---------- responses ----------
export const tokenResponse = z.lazy(() =>
  z.looseObject({
    access_token: z.string(),
    token_type: z.string(),
    expires_in: z.number().int().positive(),
  })
)

export const virtualAccount = z.lazy(() =>
  z.looseObject({
    account_number: z.string(),
    account_name: z.string(),
    account_type: z.string().optional(),
    bank_code: z.string(),
    bank_name: z.string(),
    status: z.string(),
    expires_at: z.string().nullable(),
    single_deposit_limit: z.union([z.number(), z.string()]).nullable().optional(),
  })
)

/** The fields every transaction answer has: its id (with the resource's prefix), kind, state, money and reference. */
const transaction = <O extends string>(prefix: string, object: O) => ({
  id: z.string().startsWith(prefix),
  object: z.literal(object),
  status: z.string(),
  currency: z.string(),
  amount: z.string(),
  merchant_reference: z.string(),
})

export const collection = z.lazy(() =>
  z.looseObject({
    ...transaction('CL_', 'collection'),
    mobile: z.string().optional(),
    payment_rail: z.string().optional(),
    provider: z.string().optional(),
    customer_id: z.string().optional(),
    virtual_account: virtualAccount.optional(),
  })
)

export const checkoutSession = z.lazy(() =>
  z.looseObject({
    id: z.string().startsWith('CS_'),
    object: z.literal('checkout_session'),
    status: z.string(),
    url: z.string(),
    expires_at: z.string(),
  })
)

export const payout = z.lazy(() =>
  z.looseObject({
    ...transaction('PO_', 'payout'),
    fee_amount: z.string(),
    amount_debited: z.string(),
    status_detail: z.string().nullable(),
  })
)

export const verifySnapshot = z.lazy(() =>
  z.looseObject({
    object: z.enum(['collection', 'payout', 'checkout_session']),
    status: z.string(),
    merchant_reference: z.string().optional(),
  })
)

export const verificationResult = z.lazy(() =>
  z.looseObject({
    status: z.enum(['verified', 'invalid']),
    profile: z.looseObject({first_name: z.string(), last_name: z.string()}).nullable(),
  })
)

export const mandateCreateResponse = z.lazy(() =>
  z.looseObject({
    object: z.literal('mandate'),
    status: z.string(),
    merchant_reference: z.string(),
    message_id: z.string(),
  })
)

/** Free-form objects (spec: "field lists not shown"). */
export const freeForm = z.lazy(() => z.record(z.string(), z.unknown()))

export const mandateCancellation = z.lazy(() =>
  z.looseObject({
    object: z.literal('mandate_cancellation'),
    status: z.string(),
    mandate_id: z.string(),
    message_id: z.string(),
  })
)

export const subscription = z.lazy(() =>
  z.looseObject({
    subscription_id: z.string().startsWith('SUB_'),
    status: z.string(),
    merchant_reference: z.string(),
    customer_name: z.string(),
    customer_email: z.string(),
    plan_id: z.string(),
    plan_name: z.string().optional(),
    mandate_id: z.string().optional(),
    mobile: z.string(),
    provider: z.string(),
    starts_at: z.string().optional(),
    ends_at: z.string().optional(),
  })
)

export const list = <T extends z.ZodType>(item: T) => z.lazy(() => z.looseObject({object: z.literal('list'), data: z.array(item)}))

export const plan = z.lazy(() => z.looseObject({plan_id: z.string(), plan_name: z.string()}))

export const customer = z.lazy(() =>
  z.looseObject({
    id: z.string().startsWith('MC_'),
    object: z.literal('customer'),
    merchant_reference: z.string().optional(),
    name: z.string(),
    email: z.string().optional(),
    mobile: z.string().optional(),
    created_at: z.string(),
  })
)

export const virtualAccountWrapper = z.lazy(() =>
  z.looseObject({
    object: z.literal('virtual_account'),
    customer_id: z.string().optional(),
    owner: z.literal('merchant').optional(),
    virtual_account: virtualAccount,
  })
)

export const customerCollectionList = z.lazy(() =>
  z.looseObject({
    object: z.literal('list'),
    customer_id: z.string(),
    data: z.array(collection),
    has_more: z.boolean(),
    total: z.number().int(),
  })
)

export const bank = z.lazy(() => z.looseObject({bank_name: z.string(), bank_code: z.string()}))
export const mobileProvider = z.lazy(() => z.looseObject({provider: z.string()}))

/** ASSUMPTION: balance shape is not shown; we use one entry per currency (docs/assumptions.md). */
export const balanceEntry = z.lazy(() =>
  z.looseObject({
    currency: z.string(),
    collection_wallet: z.string(),
    collection_wallet_actual: z.string(),
    collection_wallet_held: z.string(),
    payout_wallet: z.string(),
  })
)
export const balance = z.lazy(() => z.looseObject({object: z.literal('balance'), data: z.array(balanceEntry)}))

export const accountContext = z.lazy(() =>
  z.looseObject({
    object: z.literal('account_context'),
    merchant: z.looseObject({id: z.number().int(), name: z.string(), sub_accounts_enabled: z.boolean()}),
    account: z.looseObject({
      id: z.string().startsWith('MAC_'),
      object: z.literal('merchant_account'),
      account_ref: z.string(),
      name: z.string(),
      status: z.string(),
    }),
  })
)

export const errorBody = z.lazy(() =>
  z.looseObject({
    error: z.looseObject({
      code: z.string(),
      message: z.string(),
      request_id: z.string().optional(),
      doc_url: z.string().optional(),
      retry_after: z.number().int().optional(),
    }),
  })
)
export type ErrorBody = z.infer<typeof errorBody>
