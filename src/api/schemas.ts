/**
 * zod schemas of every request body and response of the Payments Service (spec: shared/spec).
 * Request schemas are strict about the documented rules; response schemas are loose (unknown keys pass)
 * so that a field the service adds later never breaks the CLI.
 * Choices where the spec says "not shown" are marked ASSUMPTION and listed in docs/assumptions.md. In a response, the
 * mark is `assumed(…)` (see "the two tiers of a response" below): the tolerant reading of an answer is derived from it.
 */
import * as z from 'zod'
import {isDecimalAmount} from './money.js'
import {once} from '../base/once.js'
import {DOT_SEGMENT_RULE, UNSAFE_TEXT, UNSAFE_TEXT_RULE, isDotSegment} from '../base/text-rules.js'

// Every schema here is built on first use, in two steps. An export is a function that makes the schema's z.lazy
// on its first call and then returns that same one (`lazily`, `response`): src/api/endpoints.ts reads it in a
// getter, so loading the table makes no zod object (a command's usual path checks its request and answer by
// stored plans, src/api/sure-plans.generated.ts, and needs none). The z.lazy keeps its builder, and zod builds
// the inner schema the first time it parses (or is looked into). Building all of them when the module loads
// cost every command ~7 ms of CPU, for the two or three schemas it uses; making only the ~35 z.lazy wrappers
// still cost ~1.7M instructions. Parsing through z.lazy gives the same results and messages; code that looks
// into a schema's definition (src/api/operation-rules.ts) sees through it. The field rules the others are made
// of are functions that build theirs once (`once`), called inside those builders.

/** ASSUMPTION: paging is `page` (1-based) with `per_page` default 20, maximum 100. */
const MAX_PER_PAGE = 100
const MAX_PAGE = 1_000_000_000

// ---------- refinements, by name ----------
/** A positive whole number's text (its pattern checked before) that is at most `max`. */
const atMost = (max: number) => (v: string) => v.length < 10 && Number(v) <= max
/** The body of a request: the cross-field rules read its fields defensively (a field rule may have failed). */
type Body = Record<string, unknown>
interface Issues {
  addIssue(issue: {code: 'custom'; path: string[]; message: string}): void
}

/**
 * Every refinement of the request schemas, by name: the schemas below refine with these very functions, and
 * src/api/sure-match.ts names them in the plans it stores (src/api/sure-plans.generated.ts), so that a command can
 * run them on its request without building the zod schema (src/api/validate.ts). A function here is the rule;
 * its message is given where the schema uses it.
 */
export const REFINEMENTS = {
  decimalAmount: isDecimalAmount,
  storableText: (v: string) => !UNSAFE_TEXT.test(v),
  notDotSegment: (v: string) => !isDotSegment(v),
  perPage: atMost(MAX_PER_PAGE),
  page: atMost(MAX_PAGE),
  collectionRails: (body: Body, ctx: Issues) => {
    const rail = body.payment_rail ?? 'mobile_money'
    if (rail === 'mobile_money') {
      if (body.mobile === undefined) ctx.addIssue({code: 'custom', path: ['mobile'], message: 'is required when payment_rail is mobile_money'})
      if (body.provider === undefined) ctx.addIssue({code: 'custom', path: ['provider'], message: 'is required when payment_rail is mobile_money'})
    }
    if (rail !== 'bank_transfer' && body.account_name !== undefined) {
      ctx.addIssue({code: 'custom', path: ['account_name'], message: 'is only allowed when payment_rail is bank_transfer'})
    }
  },
  checkoutAmounts: (body: Body, ctx: Issues) => {
    const mode = body.amount_mode ?? 'fixed'
    if (mode === 'fixed' && body.amount === undefined) ctx.addIssue({code: 'custom', path: ['amount'], message: 'is required when amount_mode is fixed'})
    if (mode === 'open' && body.amount !== undefined) ctx.addIssue({code: 'custom', path: ['amount'], message: 'must be omitted when amount_mode is open'})
    if (body.payment_rail === 'mobile_money' && (body.mobile === undefined || body.mobile === null)) {
      ctx.addIssue({code: 'custom', path: ['mobile'], message: 'is required when payment_rail is mobile_money'})
    }
  },
  payoutRails: (body: Body, ctx: Issues) => {
    const rail = body.payment_rail ?? 'mobile_money'
    if (rail !== 'mobile_money' && rail !== 'bank_transfer') return
    const need = rail === 'mobile_money' ? (['mobile', 'provider'] as const) : (['bank_code', 'account_number'] as const)
    for (const field of need) {
      if (body[field] === undefined) ctx.addIssue({code: 'custom', path: [field], message: `is required when payment_rail is ${rail}`})
    }
  },
  mandatePlan: (body: Body, ctx: Issues) => {
    if (body.plan_id === undefined) return
    if (body.customer_name === undefined) ctx.addIssue({code: 'custom', path: ['customer_name'], message: 'is required when plan_id is set'})
    if (body.customer_email === undefined) ctx.addIssue({code: 'custom', path: ['customer_email'], message: 'is required when plan_id is set'})
  },
}
type RefinementName = keyof typeof REFINEMENTS

/** The schemas whose cross-field rule is a refinement above (zod's definition of a superRefine does not hold its function). */
export const CROSS_FIELD_RULES = new WeakMap<object, RefinementName>()

/**
 * Run the cross-field rules even when a plain field rule already failed, so that every problem of a body is
 * listed at once (zod skips refinements after an aborting issue by default). The rules read fields defensively.
 */
const ALWAYS = {when: (payload: {value: unknown}) => typeof payload.value === 'object' && payload.value !== null && !Array.isArray(payload.value)}

/** `object` with the cross-field rule `name`, known by that name. */
function crossField<T extends z.ZodObject>(object: T, name: 'collectionRails' | 'checkoutAmounts' | 'payoutRails' | 'mandatePlan') {
  const refined = object.superRefine((body, ctx) => REFINEMENTS[name](body as Body, ctx), ALWAYS)
  CROSS_FIELD_RULES.set(refined, name)
  return refined
}

// ---------- field rules ----------
/** A schema of the table: its z.lazy made on the first call (see above), its inner schema on its first parse. */
function lazily<T extends z.ZodType>(build: () => T): () => z.ZodLazy<T> {
  return once(() => z.lazy(build))
}
export const amount = once(() =>
  z
    .string({error: 'must be a decimal string such as "10.00"'})
    .refine(REFINEMENTS.decimalAmount, {message: 'must be a positive decimal string with at most 2 decimal places, such as "10.00"'})
)
// the CLI upper-cases what is typed, so the rule says letters, not case (the service takes upper case)
export const currency = once(() => z.string({error: 'is required'}).regex(/^[A-Z]{3}$/, 'must be a 3-letter currency code such as KES'))
/** The same rule in the words of the debit and balance endpoints' documentation. */
const currencyCode = once(() => z.string({error: 'is required'}).regex(/^[A-Z]{3}$/, 'must be exactly 3 letters, such as KES'))
/** Text the service stores and shows again (references, names, descriptions, notes, reasons): see text-rules.ts. */
const storable = (s: z.ZodString) => s.refine(REFINEMENTS.storableText, UNSAFE_TEXT_RULE)
/** A required, non-empty string of at most `max` characters. */
export const bounded = (max: number) => storable(z.string({error: 'is required'}).min(1, 'must not be empty').max(max, `must be at most ${max} characters`))
/** A merchant reference: looked up in a path too (GET /v1/transactions/verify/{merchant_reference}), so never a dot segment. */
export const reference = once(() => bounded(255).refine(REFINEMENTS.notDotSegment, `${DOT_SEGMENT_RULE.slice(0, -1)}, so no lookup by reference could find it)`))
/** ASSUMPTION: wallet numbers are 10 to 15 digits (the msisdn rule of Limits §11) everywhere. */
export const mobile = once(() => z.string({error: 'is required'}).regex(/^[0-9]{10,15}$/, 'must be 10 to 15 digits'))
const provider = once(() => bounded(64))
export const email = once(() => z.email({error: 'must be an email address'}))
const uri = once(() => z.url({protocol: /^https?$/, error: 'must be an absolute http(s) URL such as https://shop.example/ok'}))
/** Whether text is an absolute http(s) URL (the rule of `uri`): what pay checks before it opens a URL the service gave. */
export const isHttpUrl = (text: string): boolean => uri().safeParse(text).success
const dateTime = once(() => z.iso.datetime({offset: true, error: 'must be an ISO 8601 date-time such as 2026-12-01T09:00:00Z'}))
const nonEmpty = once(() => storable(z.string({error: 'is required'}).min(1, 'must not be empty')))
/**
 * An integer of an answer, of any size: a number, or beyond 2^53 the string of its digits as sent (the client's
 * parseJson keeps them so, src/client/api-client.ts), never a rounded number.
 */
const anyInteger = once(() => z.union([z.number().int(), z.string().regex(/^-?[0-9]{16,}$/)]))
/** Optional free text of at most `max` characters. */
export const text = (max: number) => storable(z.string().max(max, `must be at most ${max} characters`))

const collectionRail = once(() => z.enum(['mobile_money', 'bank_transfer'], {error: 'must be mobile_money or bank_transfer'}))
const checkoutRail = once(() =>
  z.enum(['mobile_money', 'card', 'bank_transfer'], {
    error: 'must be mobile_money, card or bank_transfer',
  })
)
const frequency = once(() => z.enum(['DAILY', 'WEEKLY', 'MONTHLY'], {error: 'must be DAILY, WEEKLY or MONTHLY'}))

// ---------- request bodies ----------
export const tokenRequest = lazily(() =>
  z.object({
    grant_type: z.literal('client_credentials', {error: 'only client_credentials is allowed'}).optional(),
    client_id: nonEmpty(),
    client_secret: nonEmpty(),
  })
)

/** What a collection and a payout request share: the money, the reference, the rail and a wallet. */
const moneyMovement = () => ({
  amount: amount(),
  currency: currency(),
  merchant_reference: reference(),
  payment_rail: collectionRail().optional(),
  mobile: mobile().optional(),
  provider: provider().optional(),
})

/** A collection's or a payout's request: the money movement, the fields of its kind, a name and a description. */
const movementRequest = <F extends z.ZodRawShape>(fields: () => F, rule: 'collectionRails' | 'payoutRails') =>
  lazily(() => crossField(z.looseObject({...moneyMovement(), ...fields(), account_name: text(255).optional(), description: text(255).optional()}), rule))

export const collectionCreateRequest = movementRequest(() => ({}), 'collectionRails')

export const checkoutCreateRequest = lazily(() =>
  crossField(
    z.looseObject({
      amount_mode: z.enum(['fixed', 'open'], {error: 'must be fixed or open'}).optional(),
      amount: amount().optional(),
      currency: currency(),
      merchant_reference: reference(),
      payment_rail: checkoutRail().nullable().optional(),
      mobile: mobile().nullable().optional(),
      provider: provider().nullable().optional(),
      success_url: uri(),
      cancel_url: uri(),
      description: text(255).optional(),
    }),
    'checkoutAmounts'
  )
)

/** ASSUMPTION: the spec does not show payout request fields; we mirror the collection body (docs/assumptions.md). */
export const payoutCreateRequest = movementRequest(() => ({bank_code: bounded(32).optional(), account_number: bounded(64).optional()}), 'payoutRails')

export const msisdnVerificationRequest = lazily(() =>
  z.object({
    mobile: mobile(),
    provider: text(64).optional(),
  })
)

export const bankAccountVerificationRequest = lazily(() =>
  z.object({
    bank_code: bounded(32),
    account_number: bounded(64),
  })
)

export const mandateCreateRequest = lazily(() =>
  crossField(
    z.looseObject({
      mobile: mobile(),
      provider: provider(),
      currency: currency(),
      amount: amount(),
      frequency: frequency(),
      starts_at: dateTime(),
      merchant_reference: reference(),
      description: text(255).optional(),
      plan_id: z.string().min(1, 'must not be empty').optional(),
      customer_name: nonEmpty().optional(),
      customer_email: email().optional(),
      notes: text(1000).optional(),
    }),
    'mandatePlan'
  )
)

export const mandateCancelRequest = lazily(() => z.looseObject({mobile: mobile(), reason: nonEmpty()}))

export const debitCreateRequest = lazily(() =>
  z.looseObject({
    amount: amount(),
    currency: currencyCode(),
    merchant_reference: reference(),
    provider: provider(),
  })
)

export const subscriptionCreateRequest = lazily(() =>
  z.looseObject({
    plan_id: nonEmpty(),
    merchant_reference: reference(),
    customer_name: nonEmpty(),
    customer_email: email(),
    mobile: mobile(),
    provider: provider(),
    notes: text(1000).optional(),
  })
)

/** The spec says the body of the two virtual-account POSTs is an empty JSON array. */
export const emptyArrayBody = lazily(() => z.array(z.unknown()).max(0, 'must be an empty JSON array []'))

// ---------- query strings ----------
export const byReferenceQuery = lazily(() => z.object({merchant_reference: reference()}))
export const debitStatusQuery = lazily(() => z.object({mandate_id: nonEmpty(), merchant_reference: reference()}))
export const DEFAULT_PER_PAGE = 20
const positiveIntString = (max: number, rule: 'perPage' | 'page') =>
  z
    .string()
    .regex(/^[1-9][0-9]*$/, 'must be a positive whole number')
    .refine(REFINEMENTS[rule], `must be at most ${max}`)
export const customerCollectionsQuery = lazily(() =>
  z.object({
    per_page: positiveIntString(MAX_PER_PAGE, 'perPage').optional(),
    page: positiveIntString(MAX_PAGE, 'page').optional(),
  })
)
export const balanceQuery = lazily(() =>
  z.object({
    currency: currencyCode().optional(),
  })
)

// ---------- the two tiers of a response ----------
/**
 * A response schema says what pay expects. Where the interface states a rule (ids and their prefixes, `object`
 * kinds, decimal-string amounts, the shape of a list) it is written as is; where the interface says "not shown",
 * the part is wrapped in `assumed(shape, stated?)`: `shape` is our guess (docs/assumptions.md), `stated` what the
 * interface does say of that part (built by the stated reading only; default: it is a JSON object). From this one
 * mark come two readings:
 * - the strict one (the schema itself): what the views, the sandbox and `pay smoke --contract` hold the service to;
 * - the stated one (`statedReading(schema)`): every assumed part replaced by its `stated` rule. An answer that fails
 *   the strict reading but passes this one is a service that differs from our guess, not a broken one: the command
 *   shows it with the generic view and exits 0 (src/client/api-client.ts, src/output/views.ts). Failing this one too
 *   breaks a stated rule: exit 7.
 */
type Assume = <S extends z.ZodType>(shape: S, stated?: () => z.ZodType) => S
/** What a response's builder is given: the mark, and `of(schema)` for a response schema used inside another. */
interface Tier {
  assumed: Assume
  of<S extends z.ZodType>(schema: S): S
}
/** Any JSON object: what the interface states of a shape it does not show. */
const anyObject = once(() => z.record(z.string(), z.unknown()))
/** Each response schema's stated reading, built when first asked (only an answer the strict one refuses asks). */
const STATED = new WeakMap<z.ZodType, () => z.ZodType>()
const STRICT_TIER: Tier = {assumed: (shape) => shape, of: (schema) => schema}
const STATED_TIER: Tier = {
  assumed: ((_shape: z.ZodType, stated?: () => z.ZodType) => stated?.() ?? anyObject()) as Assume,
  of: (schema) => (statedReading(schema) ?? schema) as typeof schema,
}
/** A response schema with assumed parts: the strict schema, its stated reading registered beside it. */
function response<T extends z.ZodType>(build: (t: Tier) => T): () => z.ZodLazy<T> {
  return once(() => {
    const strict = z.lazy(() => build(STRICT_TIER))
    let stated: z.ZodType | undefined
    STATED.set(strict, () => (stated ??= build(STATED_TIER)))
    return strict
  })
}
/** The stated reading of a response schema, or undefined when it assumes nothing (every rule is stated). */
export function statedReading(schema: z.ZodType): z.ZodType | undefined {
  return STATED.get(schema)?.()
}
/** Any value: an assumed field whose type the interface does not state. */
const anyValue = () => z.unknown()

// ---------- responses ----------
/** Money in an answer: a string in decimal notation (spec, rule 1), as the service writes it (any scale, a sign). */
const decimal = once(() => z.string({error: 'must be a decimal string'}).regex(/^-?[0-9]+(\.[0-9]+)?$/, 'must be a decimal string such as "10.00"'))
export const tokenResponse = lazily(() =>
  z.looseObject({
    access_token: z.string(),
    token_type: z.string(),
    expires_in: z.number().int().positive(),
  })
)

const virtualAccount = once(() =>
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
  amount: decimal(),
  merchant_reference: z.string(),
})

/**
 * Fields the sandbox sends beyond what the interface lists for a resource (docs/assumptions.md), each optional and
 * each assumed: of another type, or absent, they change nothing but the view.
 */
const assumedFields = (t: Tier, shape: Record<string, z.ZodType>) =>
  Object.fromEntries(Object.entries(shape).map(([key, field]) => [key, t.assumed(field.optional(), () => anyValue().optional())]))

/** A collection (spec: Collection). */
export const collection = response((t) =>
  z.looseObject({
    ...transaction('CL_', 'collection'),
    mobile: z.string().optional(),
    payment_rail: z.string().optional(),
    provider: z.string().optional(),
    customer_id: z.string().optional(),
    virtual_account: virtualAccount().optional(),
    ...assumedFields(t, {status_detail: z.string().nullable(), created_at: z.string()}),
  })
)

/**
 * A checkout session: the create answer's fields are stated; ASSUMPTION: the full session (GET) adds the request's
 * fields and created_at ("not shown beyond those of the create response").
 */
export const checkoutSession = response((t) =>
  z.looseObject({
    id: z.string().startsWith('CS_'),
    object: z.literal('checkout_session'),
    status: z.string(),
    url: z.string(),
    expires_at: z.string(),
    ...assumedFields(t, {
      amount_mode: z.string(),
      amount: decimal(),
      currency: z.string(),
      merchant_reference: z.string(),
      payment_rail: z.string().nullable(),
      success_url: z.string(),
      cancel_url: z.string(),
      created_at: z.string(),
    }),
  })
)

export const payout = response((t) =>
  z.looseObject({
    ...transaction('PO_', 'payout'),
    fee_amount: decimal(),
    amount_debited: decimal(),
    status_detail: z.string().nullable(),
    // ASSUMPTION: the payout's rail and destination, as sent (the request fields are not shown either)
    ...assumedFields(t, {payment_rail: z.string(), created_at: z.string(), mobile: z.string(), provider: z.string(), bank_code: z.string(), account_number: z.string(), account_name: z.string(), description: z.string()}),
  })
)

/**
 * The unified snapshot: `object` names the kind (stated), a collection's fields are those of Collection (stated).
 * ASSUMPTION: a payout's and a checkout's snapshots are the Payout object and the full checkout session.
 */
export const verifySnapshot = response((t) =>
  z.discriminatedUnion('object', [
    t.of(collection()),
    t.assumed(payout(), () => z.looseObject({object: z.literal('payout')})),
    t.assumed(checkoutSession(), () => z.looseObject({object: z.literal('checkout_session')})),
  ])
)

export const verificationResult = lazily(() =>
  z.looseObject({
    status: z.enum(['verified', 'invalid']),
    profile: z.looseObject({first_name: z.string(), last_name: z.string()}).nullable(),
  })
)

export const mandateCreateResponse = lazily(() =>
  z.looseObject({
    object: z.literal('mandate'),
    status: z.string(),
    merchant_reference: z.string(),
    message_id: z.string(),
  })
)

/** ASSUMPTION: the mandate list/get answer (a free-form object): the sandbox's fields. */
export const mandate = response((t) =>
  t.assumed(
    z.looseObject({
      object: z.literal('mandate'),
      mandate_id: z.string().startsWith('MD_'),
      status: z.string(),
      merchant_reference: z.string(),
      mobile: z.string(),
      provider: z.string(),
      currency: z.string(),
      amount: decimal(),
      frequency: z.string(),
      starts_at: z.string(),
      description: z.string().nullable(),
      plan_id: z.string().nullable(),
      subscription_id: z.string().nullable(),
      message_id: z.string(),
      created_at: z.string(),
      approved_at: z.string().nullable().optional(),
      cancelled_at: z.string().nullable().optional(),
    })
  )
)

/** ASSUMPTION: the debit create and status answers (free-form objects): the sandbox's fields. */
export const mandateDebit = response((t) =>
  t.assumed(
    z.looseObject({
      object: z.literal('mandate_debit'),
      id: z.string(),
      status: z.string(),
      mandate_id: z.string(),
      merchant_reference: z.string(),
      amount: decimal(),
      currency: z.string(),
      provider: z.string(),
      status_detail: z.string().nullable(),
      created_at: z.string(),
    })
  )
)

export const mandateCancellation = lazily(() =>
  z.looseObject({
    object: z.literal('mandate_cancellation'),
    status: z.string(),
    mandate_id: z.string(),
    message_id: z.string(),
  })
)

export const subscription = lazily(() =>
  z.looseObject({
    subscription_id: z.string().startsWith('SUB_'),
    object: z.literal('subscription').optional(),
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

/** ASSUMPTION: a plan's fields beyond plan_id and plan_name (spec: "not shown beyond" those on a subscription). */
export const plan = once(() =>
  z.looseObject({
    plan_id: z.string(),
    plan_name: z.string(),
    object: z.string().optional(),
    amount: decimal().optional(),
    currency: z.string().optional(),
    frequency: z.string().optional(),
    status: z.string().optional(),
  })
)
/** The plans list: a list (stated) of plans (assumed: any object each). */
export const planList = response((t) => list(t.assumed(plan())))

export const customer = lazily(() =>
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

export const virtualAccountWrapper = lazily(() =>
  z.looseObject({
    object: z.literal('virtual_account'),
    customer_id: z.string().optional(),
    owner: z.literal('merchant').optional(),
    virtual_account: virtualAccount(),
  })
)

export const customerCollectionList = response((t) =>
  z.looseObject({
    object: z.literal('list'),
    customer_id: z.string(),
    data: z.array(t.of(collection())),
    has_more: z.boolean(),
    total: z.number().int(),
    // ASSUMPTION: the page's place (paging beyond per_page is not shown)
    ...assumedFields(t, {page: z.number().int(), per_page: z.number().int()}),
  })
)

/** Banks and providers: the item fields are stated; ASSUMPTION: an item may name its kind. */
const bank = (t: Tier) => z.looseObject({bank_name: z.string(), bank_code: z.string(), ...assumedFields(t, {object: z.string()})})
const mobileProvider = (t: Tier) => z.looseObject({provider: z.string(), ...assumedFields(t, {object: z.string()})})
export const bankList = response((t) => list(bank(t)))
export const providerList = response((t) => list(mobileProvider(t)))

/** ASSUMPTION: balance shape is not shown; we use one entry per currency (docs/assumptions.md). */
const balanceEntry = once(() =>
  z.looseObject({
    currency: z.string(),
    collection_wallet: decimal(),
    collection_wallet_actual: decimal(),
    collection_wallet_held: decimal(),
    payout_wallet: decimal(),
  })
)
export const balance = response((t) => t.assumed(z.looseObject({object: z.literal('balance'), data: z.array(balanceEntry())})))

export const accountContext = lazily(() =>
  z.looseObject({
    object: z.literal('account_context'),
    merchant: z.looseObject({id: anyInteger(), name: z.string(), sub_accounts_enabled: z.boolean()}),
    account: z.looseObject({
      id: z.string().startsWith('MAC_'),
      object: z.literal('merchant_account'),
      account_ref: z.string(),
      name: z.string(),
      status: z.string(),
    }),
  })
)

export const errorBody = lazily(() =>
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
