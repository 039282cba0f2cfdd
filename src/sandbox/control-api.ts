/**
 * The control API under /_sandbox/ (not part of the service; no auth). See docs/sandbox.md.
 */
import {readFile} from 'node:fs/promises'
import {fileURLToPath} from 'node:url'
import {isDecimalAmount} from '../api/money.js'
import {checkoutCreateRequest} from '../api/schemas.js'
import {ApiError, invalidParameter, notFound} from './errors.js'
import {type SbRequest, type SbResponse, jsonResponse} from './http.js'
import {newRequestId} from './ids.js'
import {crossSite} from './origin.js'
import {errorResponse} from './router.js'
import {checkCheckoutRules, checkoutTransfer, checkoutView, createSession, finishCheckout} from './resources/checkout.js'
import {collectionTransfer, collectionView, finishCollection} from './resources/collections.js'
import {approveMandate, debitView, finishDebit, mandateView} from './resources/mandates.js'
import {finishPayout, payoutView} from './resources/payouts.js'
import {DASHBOARD_PATH, type Runtime} from './runtime.js'
import {credentialsOf} from './seed.js'
import type {CollectionRec, EventRec} from './state.js'
import {httpUrl, validate} from './validation.js'
import {creditCollection, normalise, requireCurrency} from './wallets.js'
import {newResourceId} from './ids.js'
import {decodePathSegment, parseJsonBody} from './json-body.js'
import {entry} from './state.js'

/** Bounds of the control API's numeric inputs (docs/sandbox.md, "Limits"); out of range is 400 invalid_parameter. */
const CONTROL_LIMITS = {
  /** One clock advance: at most ten years. */
  maxAdvanceSeconds: 10 * 365 * 24 * 3600,
  /** The clock offset in total: at most a hundred years. */
  maxOffsetSeconds: 100 * 365 * 24 * 3600,
  maxLatencyMs: 60_000,
  maxDropNext: 1_000_000,
  maxBugNext: 1000,
} as const

/** A finite number within [min, max] (integer when asked), else 400 naming the field and the range. */
function bounded(value: unknown, name: string, min: number, max: number, integer = false): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
    throw invalidParameter(name, `must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}`)
  }
  return value
}


type Route = [method: string, pattern: RegExp, handler: (rt: Runtime, m: string[], body: any, req: SbRequest) => SbResponse | Promise<SbResponse>]

const ok = (body: unknown, status = 200) => jsonResponse(status, body)

function transition(rt: Runtime, id: string, outcome: 'succeeded' | 'failed'): SbResponse {
  const {core} = rt
  const s = core.state
  const reason = outcome === 'failed' ? 'forced through the sandbox control API' : null
  const done = (changed: boolean, view: () => unknown) => {
    if (!changed) throw new ApiError(409, 'invalid_state', `transaction ${id} is no longer processing`)
    return ok(view())
  }
  // the id comes from the path: own keys only (entry), so __proto__ or constructor is not a transaction
  const collection = entry(s.collections, id)
  if (collection) return done(finishCollection(core, collection, outcome, reason), () => collectionView(core, collection))
  const checkout = entry(s.checkouts, id)
  if (checkout) return done(finishCheckout(core, checkout, outcome), () => checkoutView(core, checkout))
  const payout = entry(s.payouts, id)
  if (payout) return done(finishPayout(core, payout, outcome, reason), () => payoutView(payout))
  const debit = entry(s.debits, id)
  if (debit) return done(finishDebit(core, debit, outcome, reason), () => debitView(debit))
  throw notFound(`transaction ${id}`)
}

function transfer(rt: Runtime, accountNumber: string, body: any): SbResponse {
  const {core} = rt
  const va = entry(core.state.virtual_accounts, accountNumber)
  if (!va) throw notFound(`virtual account ${accountNumber}`)
  const amount = body?.amount
  if (typeof amount !== 'string' || !isDecimalAmount(amount)) throw invalidParameter('amount', 'must be a positive decimal string such as "100.00"')
  const owner = va.owner
  if (owner.kind === 'collection') {
    const col = core.state.collections[owner.id]
    const t = collectionTransfer(core, col, va, amount)
    return ok({object: 'transfer', account_number: accountNumber, amount: normalise(amount), credited: t.credited, returned: t.returned, collection: collectionView(core, col)})
  }
  if (owner.kind === 'checkout') {
    const session = core.state.checkouts[owner.id]
    const t = checkoutTransfer(core, session, va, amount)
    return ok({object: 'transfer', account_number: accountNumber, amount: normalise(amount), credited: t.credited, returned: t.returned, checkout_session: checkoutView(core, session)})
  }
  // Static account (customer or merchant): a new succeeded bank-transfer collection.
  const currency = typeof body.currency === 'string' ? body.currency : Object.keys(entry(core.state.wallets, va.merchant_id) ?? {KES: 1})[0]
  requireCurrency(core, core.merchant(va.merchant_id), currency)
  const rec: CollectionRec = {
    id: newResourceId('CL_'),
    merchant_id: va.merchant_id,
    account_id: va.account_id,
    client_id: va.client_id,
    status: 'processing',
    currency,
    amount: normalise(amount),
    merchant_reference: typeof body.merchant_reference === 'string' ? body.merchant_reference : `va-${accountNumber}-${Date.now()}`,
    payment_rail: 'bank_transfer',
    customer_id: owner.kind === 'customer' ? owner.customer_id : undefined,
    va_number: accountNumber,
    status_detail: null,
    created_at: core.iso(),
    settle_at: null,
  }
  core.insert('collections', rec)
  finishCollection(core, rec, 'succeeded')
  return ok({object: 'transfer', account_number: accountNumber, amount: rec.amount, credited: rec.amount, returned: '0.00', collection: collectionView(core, rec)})
}

function portalSession(rt: Runtime, body: any): SbResponse {
  const {core} = rt
  const merchantKey = body?.merchant ?? body?.merchant_id
  const merchant =
    Object.values(core.state.merchants).find((m) => m.key === merchantKey || m.id === Number(merchantKey) || (body?.client_id && entry(core.state.clients, body.client_id)?.merchant_id === m.id)) ??
    Object.values(core.state.merchants)[0]
  const fields = {...(body ?? {})}
  delete fields.merchant
  delete fields.merchant_id
  delete fields.client_id
  delete fields.account_ref
  const parsed = validate(checkoutCreateRequest(), fields, 'body')
  checkCheckoutRules(core, merchant, parsed, 'portal')
  const account = merchant.accounts.find((a) => a.account_ref === body?.account_ref) ?? merchant.accounts[0]
  const rec = createSession(core, merchant, account.id, null, parsed, 'portal')
  core.changed()
  return ok(checkoutView(core, rec), 201)
}

/** An event as the control API shows it: its delivery attempts and the payload. */
function eventView(e: EventRec): Record<string, unknown> {
  return {id: e.id, type: e.type, client_id: e.client_id, created_at: e.created_at, state: e.state, deliveries: e.deliveries, payload: JSON.parse(e.body)}
}

function findEvent(rt: Runtime, id: string): EventRec {
  const event = rt.core.state.events.find((e) => e.id === id)
  if (!event) throw notFound(`event ${id}`)
  return event
}

const DOCS_FILE = fileURLToPath(new URL('../../docs/sandbox.md', import.meta.url))
let docsText: Promise<string> | undefined

/** docs/sandbox.md as text (error doc_url links point here); read once, lazily, off the hot path. */
async function docs(): Promise<SbResponse> {
  docsText ??= readFile(DOCS_FILE, 'utf8').catch(() => '# Payments Service sandbox\n\nSee docs/sandbox.md in the pay repository.\n')
  return {status: 200, headers: {'content-type': 'text/markdown; charset=utf-8'}, body: await docsText}
}

const routes: Route[] = [
  ['GET', /^\/_sandbox\/docs$/, docs],
  ['GET', /^\/_sandbox\/dashboard$/, (rt) => ok({object: 'dashboard', enabled: rt.dashboard, url: rt.dashboard ? `${rt.core.baseUrl}${DASHBOARD_PATH}/` : null})],
  ['GET', /^\/_sandbox\/seed$/, (rt) => ok(credentialsOf(rt.seed))],
  [
    'PUT',
    /^\/_sandbox\/clients\/([^/]+)\/webhook$/,
    (rt, m, body) => {
      const client = entry(rt.core.state.clients, m[0])
      if (!client) throw notFound(`API client ${m[0]}`)
      const url = body?.url
      const next = url === null ? null : httpUrl(url, 'url')
      if (body?.if_url === undefined) {
        client.webhook_url = next
        rt.core.changed()
        return ok({object: 'webhook_endpoint', client_id: client.client_id, url: client.webhook_url})
      }
      // conditional: set only while the URL is one of if_url (`pay webhook listen` on exit removes the URL only
      // while it is one this listener set; in one request, so nothing registered meanwhile is lost)
      const ifUrl: unknown = body.if_url
      if (!Array.isArray(ifUrl) || !ifUrl.every((u) => typeof u === 'string')) throw invalidParameter('if_url', 'must be a list of URLs')
      const previous = client.webhook_url
      const updated = previous !== null && ifUrl.includes(previous)
      if (updated) {
        client.webhook_url = next
        rt.core.changed()
      }
      return ok({object: 'webhook_endpoint', client_id: client.client_id, url: client.webhook_url, updated, previous_url: previous})
    },
  ],
  ['POST', /^\/_sandbox\/transactions\/([^/]+)\/succeed$/, (rt, m) => transition(rt, m[0], 'succeeded')],
  ['POST', /^\/_sandbox\/transactions\/([^/]+)\/fail$/, (rt, m) => transition(rt, m[0], 'failed')],
  [
    'POST',
    /^\/_sandbox\/mandates\/([^/]+)\/approve$/,
    (rt, m) => {
      const rec = entry(rt.core.state.mandates, m[0])
      if (!rec) throw notFound(`mandate ${m[0]}`)
      if (!approveMandate(rt.core, rec)) throw new ApiError(409, 'invalid_state', `mandate ${rec.id} is ${rec.status}, not awaiting approval`)
      return ok(mandateView(rec))
    },
  ],
  ['POST', /^\/_sandbox\/virtual-accounts\/([^/]+)\/transfers$/, (rt, m, body) => transfer(rt, m[0], body)],
  [
    'POST',
    /^\/_sandbox\/clock\/advance$/,
    (rt, _m, body) => {
      const seconds = bounded(body?.seconds, 'seconds', 0, CONTROL_LIMITS.maxAdvanceSeconds)
      if (rt.core.clock.offsetMs / 1000 + seconds > CONTROL_LIMITS.maxOffsetSeconds) {
        throw invalidParameter('seconds', `would move the clock more than ${CONTROL_LIMITS.maxOffsetSeconds} s ahead in total; reset the sandbox first`)
      }
      rt.core.advanceClock(seconds)
      return ok({object: 'clock', now: rt.core.iso(), offset_seconds: rt.core.clock.offsetMs / 1000})
    },
  ],
  ['GET', /^\/_sandbox\/clock$/, (rt) => ok({object: 'clock', now: rt.core.iso(), offset_seconds: rt.core.clock.offsetMs / 1000})],
  [
    'GET',
    /^\/_sandbox\/events$/,
    (rt, _m, _b, req) => {
      const data = rt.core.state.events
        .filter((e) => (!req.query.client_id || e.client_id === req.query.client_id) && (!req.query.type || e.type === req.query.type))
        .map(eventView)
      return ok({object: 'list', data})
    },
  ],
  ['GET', /^\/_sandbox\/events\/([^/]+)$/, (rt, m) => ok(eventView(findEvent(rt, m[0])))],
  [
    'POST',
    /^\/_sandbox\/events\/([^/]+)\/resend$/,
    async (rt, m) => {
      const event = findEvent(rt, m[0])
      if (!entry(rt.core.state.clients, event.client_id)?.webhook_url) {
        throw new ApiError(409, 'no_endpoint', `API client ${event.client_id} has no webhook URL: set one first (pay sandbox webhook --target URL, or run pay webhook listen)`)
      }
      const delivery = await rt.webhooks.resend(event)
      return ok({object: 'delivery', event_id: event.id, ...delivery, event: eventView(event)})
    },
  ],
  ['POST', /^\/_sandbox\/portal\/checkout-sessions$/, (rt, _m, body) => portalSession(rt, body)],
  ['GET', /^\/_sandbox\/requests$/, (rt) => ok({object: 'list', data: rt.log.entries})],
  [
    'POST',
    /^\/_sandbox\/reset$/,
    (rt) => {
      rt.reset()
      return ok({object: 'reset', ok: true})
    },
  ],
  ['GET', /^\/_sandbox\/faults$/, (rt) => ok(rt.faults.view())],
  [
    'PUT',
    /^\/_sandbox\/faults$/,
    (rt, _m, body) => {
      const f = rt.faults
      const rate = (v: unknown, name: string) => bounded(v, name, 0, 1)
      // every value is checked before any is applied: a 400 changes nothing
      const next = {
        latency: body?.latency_ms === undefined ? f.latencyMs : bounded(body.latency_ms, 'latency_ms', 0, CONTROL_LIMITS.maxLatencyMs, true),
        fault: body?.fault_rate === undefined ? f.faultRate : rate(body.fault_rate, 'fault_rate'),
        drop: body?.drop_after_commit_rate === undefined ? f.dropAfterCommitRate : rate(body.drop_after_commit_rate, 'drop_after_commit_rate'),
        dropNext: body?.drop_next === undefined ? f.dropNext : bounded(body.drop_next, 'drop_next', 0, CONTROL_LIMITS.maxDropNext, true),
        bugNext: body?.bug_next === undefined ? f.bugNext : bounded(body.bug_next, 'bug_next', 0, CONTROL_LIMITS.maxBugNext, true),
        duplicate: body?.duplicate_rate === undefined ? rt.webhooks.duplicateRate : rate(body.duplicate_rate, 'duplicate_rate'),
      }
      f.latencyMs = next.latency
      f.faultRate = next.fault
      f.dropAfterCommitRate = next.drop
      f.dropNext = next.dropNext
      f.bugNext = next.bugNext
      rt.webhooks.duplicateRate = next.duplicate
      return ok(f.view())
    },
  ],
  [
    'PUT',
    /^\/_sandbox\/merchants\/([^/]+)$/,
    (rt, m, body) => {
      const merchant = Object.values(rt.core.state.merchants).find((x) => x.key === m[0] || String(x.id) === m[0])
      if (!merchant) throw notFound(`merchant ${m[0]}`)
      if (typeof body?.testing === 'boolean') merchant.testing = body.testing
      for (const [k, v] of Object.entries(body?.products ?? {})) {
        if (Object.hasOwn(merchant.products, k) && typeof v === 'boolean') merchant.products[k as keyof typeof merchant.products] = v
      }
      rt.core.changed()
      return ok({object: 'merchant', ...merchant})
    },
  ],
  [
    'POST',
    /^\/_sandbox\/wallets\/([^/]+)\/credit$/,
    (rt, m, body) => {
      const merchant = Object.values(rt.core.state.merchants).find((x) => x.key === m[0] || String(x.id) === m[0])
      if (!merchant) throw notFound(`merchant ${m[0]}`)
      if (typeof body?.amount !== 'string' || !isDecimalAmount(body.amount)) throw invalidParameter('amount', 'must be a decimal string')
      const currency = body.currency ?? 'KES'
      if (typeof currency !== 'string') throw invalidParameter('currency', 'must be a currency code such as KES')
      requireCurrency(rt.core, merchant, currency)
      creditCollection(rt.core, merchant.id, currency, normalise(body.amount))
      return ok({object: 'credit', ok: true})
    },
  ],
]

export async function handleControl(rt: Runtime, req: SbRequest): Promise<SbResponse> {
  const requestId = newRequestId()
  try {
    // no browser page of another site may drive the control API (a cross-site form or fetch); reads change nothing
    const refused = req.method === 'GET' || req.method === 'HEAD' ? undefined : crossSite(req.headers)
    if (refused) throw new ApiError(403, 'forbidden', `the control API refuses ${refused}: use it from the CLI, a script or the sandbox's own dashboard`)
    for (const [method, pattern, handler] of routes) {
      const m = pattern.exec(req.path)
      if (!m) continue
      if (method !== req.method) continue
      const body = parseJsonBody(req.raw)
      return await handler(rt, m.slice(1).map(decodePathSegment), body, req)
    }
    throw notFound(`no control endpoint ${req.method} ${req.path}`)
  } catch (err) {
    return errorResponse(err, requestId, {}, undefined, rt.core.baseUrl)
  }
}
