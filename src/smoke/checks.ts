/**
 * `pay smoke`: proves, without prompting, that this machine can do business with the service. In order:
 *   a fresh token (never the cache) → the account context (and the sub-account ref, when one is set) → metadata
 *   → balance → the read endpoint of each product (403 = "not enabled", not a failure)
 *   → with `money`: a small collection waited to its end, a pay link, a lookup by reference.
 * Every step is timed and reported as it finishes; nothing here prints (see ./report.ts).
 */
import {randomUUID} from 'node:crypto'
import type {EndpointId} from '../api/endpoints.js'
import {lookupCommand} from '../api/kinds.js'
import type {CallInput} from '../client/api-client.js'
import {ExitCode} from '../base/exit-codes.js'
import {provesAbsent} from '../client/request-policy.js'
import type {ApiContext} from '../runtime.js'
import {pollOf} from '../operation/run-operation.js'
import {classifyState, stateOf, waitFor} from '../operation/wait.js'
import {waitOperation} from '../flows/poll.js'
import {type RunReport, StepFailure, type StepResult, reportOf, timed, unknownOutcomeOf} from '../flows/report.js'

export interface MoneyOptions {
  amount: string
  currency: string
  mobile: string
  provider: string
  /** Seconds the collection may take to end. */
  waitTimeoutSec: number
}

interface SmokeOptions {
  /** Run the small real flow too (a collection, a pay link, a lookup). */
  money?: MoneyOptions
  /** Called as each step finishes (to print it at once). */
  onStep?: (step: StepResult) => void
  /** Unique part of the references this run uses (default: random). */
  runId?: string
}

/** A product and the read endpoint that shows whether the merchant has it. A 404 for a probe still proves access. */
interface ProductProbe {
  name: string
  id: EndpointId
  input: (probe: string) => CallInput
  /** What the service's own 404 not_found to this probe says (it reached the product); none: a 404 is a failure. */
  absent?: string
}

const BY_PROBE = 'reachable (HTTP 404 for a probe reference, as expected)'
const PRODUCT_PROBES: ProductProbe[] = [
  {name: 'collections', id: 'collections.getByReference', input: (p) => ({query: {merchant_reference: p}}), absent: BY_PROBE},
  {name: 'checkout', id: 'checkout.get', input: (p) => ({path: {id: p}}), absent: BY_PROBE},
  {name: 'payouts', id: 'payouts.get', input: (p) => ({path: {merchant_reference: p}}), absent: BY_PROBE},
  {name: 'transactions', id: 'transactions.verify', input: (p) => ({path: {merchant_reference: p}}), absent: BY_PROBE},
  {name: 'mandates', id: 'mandates.get', input: (p) => ({query: {merchant_reference: p}}), absent: BY_PROBE},
  // a list: it never answers 404 for what it holds
  {name: 'subscriptions', id: 'plans.list', input: () => ({})},
  {name: 'static virtual accounts', id: 'merchantVirtualAccount.get', input: () => ({}), absent: 'reachable (HTTP 404: no standing account yet)'},
]

/**
 * The product steps: 2xx and the service's own 404 not_found (nothing by that probe reference) pass, 403 is "not
 * enabled"; a 404 that is not the service's error (a gateway's page for a route it lacks), or one to a list, fails.
 */
async function probeProduct(ctx: ApiContext, probe: ProductProbe, ref: string): Promise<StepResult> {
  const step = await timed('smoke', `product: ${probe.name}`, async () => {
    try {
      const res = await ctx.client.call(probe.id, probe.input(ref))
      const data = (res.body as {data?: unknown} | undefined)?.data
      return {detail: Array.isArray(data) ? `${data.length} item(s)` : `HTTP ${res.status}`}
    } catch (err) {
      if (probe.absent !== undefined && provesAbsent(err)) return {detail: probe.absent}
      throw err
    }
  })
  if (step.outcome === 'failed' && step.error?.status === 403) return {...step, outcome: 'not_enabled', exit_code: undefined, detail: step.error.message}
  return step
}

export async function runSmoke(ctx: ApiContext, options: SmokeOptions = {}): Promise<RunReport> {
  const steps: StepResult[] = []
  const add = (s: StepResult) => {
    steps.push(s)
    options.onStep?.(s)
    return s
  }
  const {client, settings} = ctx
  const runId = options.runId ?? randomUUID().slice(0, 8)

  const token = add(await timed('smoke', 'token (fresh)', async () => {
    const t = await client.tokens.fresh()
    return {detail: `${t.token_type} token, expires in ${Math.round((t.expires_at - Date.now()) / 1000)} s`}
  }))
  const later = ['account context', 'metadata: banks', 'metadata: mobile providers', 'balance', ...PRODUCT_PROBES.map((p) => `product: ${p.name}`)]
  if (options.money) later.push(...MONEY_STEPS)
  if (token.outcome === 'failed') {
    for (const name of later) add({suite: 'smoke', name, outcome: 'skipped', ms: 0, detail: 'no token'})
    return reportOf(steps)
  }

  const account = add(await timed('smoke', 'account context', async () => {
    const body = (await client.call('account.get')).body as {merchant?: {id?: number; name?: string}; account?: {account_ref?: string; name?: string}}
    const ref = body.account?.account_ref
    if (settings.accountRef && ref !== settings.accountRef) {
      throw new StepFailure('account_ref_mismatch', `the service resolved account ${ref} for sub-account ref ${settings.accountRef}`, ExitCode.AUTH)
    }
    return {detail: `${body.merchant?.name} (merchant ${body.merchant?.id}), account ${ref}${settings.accountRef ? ' (sub-account ref confirmed)' : ''}`}
  }))
  for (const [name, id] of [['metadata: banks', 'metadata.banks'], ['metadata: mobile providers', 'metadata.providers']] as const) {
    add(await timed('smoke', name, async () => ({detail: `${((await client.call(id)).body as {data: unknown[]}).data.length} item(s)`})))
  }
  add(await timed('smoke', 'balance', async () => {
    const data = ((await client.call('balance.get')).body as {data: {currency: string}[]}).data
    return {detail: data.map((w) => w.currency).join(', ') || 'no wallets'}
  }))
  // A merchant with sub-accounts and no ref set: said once, at the account context, and the steps that need the
  // header are skipped rather than failed one by one with the same error (metadata and balance never need it).
  if (needsAccountRef(account, settings.accountRef)) {
    account.exit_code = ExitCode.USAGE // a setting to give, as a missing flag is
    account.detail = `${account.detail}: this merchant has sub-accounts; set PAY_ACCOUNT_REF or --account-ref (or the profile's account_ref) to one of its account refs once, and run again`
    const skipped = [...PRODUCT_PROBES.map((p) => `product: ${p.name}`), ...(options.money ? MONEY_STEPS : [])]
    for (const name of skipped) add({suite: 'smoke', name, outcome: 'skipped', ms: 0, detail: 'needs a sub-account ref (see account context)'})
    return reportOf(steps)
  }
  for (const probe of PRODUCT_PROBES) add(await probeProduct(ctx, probe, `pay-smoke-probe-${runId}`))

  if (options.money) for (const s of await moneySteps(ctx, options.money, runId)) add(s)
  return reportOf(steps)
}

const MONEY_STEPS = ['money: collection', 'money: pay link', 'money: lookup by reference']

/** The account step failed because the service wants the sub-account header and none was set. */
function needsAccountRef(step: StepResult, accountRef: string | undefined): boolean {
  return step.outcome === 'failed' && !accountRef && step.error?.status === 400 && /X-Service-Account-Ref/i.test(step.error.message)
}

/** A small real flow: a collection waited to its end, a pay link, a lookup of the collection by its reference. */
async function moneySteps(ctx: ApiContext, money: MoneyOptions, runId: string): Promise<StepResult[]> {
  const {client} = ctx
  const reference = `pay-smoke-${runId}`
  const steps: StepResult[] = []
  steps.push(await timed('smoke', 'money: collection', async () => {
    const body = {amount: money.amount, currency: money.currency, merchant_reference: reference, mobile: money.mobile, provider: money.provider, description: 'pay smoke'}
    // a lost answer is an unknown outcome (the collection may exist), never "did not succeed"
    const created = await client.call('collections.create', {body}).catch((err: unknown) => {
      throw unknownOutcomeOf(err, reference, 'pay smoke --money again sends a new collection (a new reference)', lookupCommand('collections.create', reference))
    })
    const id = String((created.body as {id?: unknown}).id)
    // polled like `pay collections create --wait`: the operation spec's wait target and terminal states
    const poll = pollOf(waitOperation('collections.create')!, 'collections.create', created, {body})
    const done = await waitFor(ctx, {...poll, timeoutSec: money.waitTimeoutSec, first: created})
    if (done.outcome === 'failed') throw new StepFailure('transaction_failed', `collection ${id} ended ${done.state}`, ExitCode.TX_FAILED)
    if (done.outcome === 'timeout') throw new StepFailure('wait_timeout', `collection ${id} still ${done.state ?? 'pending'} after ${money.waitTimeoutSec} s`, ExitCode.WAIT_TIMEOUT)
    return {detail: `${id} ${done.state} (${money.amount} ${money.currency}, reference ${reference})`}
  }))
  steps.push(await timed('smoke', 'money: pay link', async () => {
    const body = {amount: money.amount, currency: money.currency, merchant_reference: `${reference}-link`, success_url: 'https://example.com/pay-smoke/ok', cancel_url: 'https://example.com/pay-smoke/cancel'}
    const res = await client.call('checkout.create', {body})
    const session = res.body as {id?: unknown; url?: unknown}
    return {detail: `${session.id} ${session.url}`}
  }))
  // nothing to look up when the collection was not made, or failed: skipped, not failed a second time
  if (steps[0].outcome !== 'passed') {
    const why = steps[0].outcome === 'unknown' ? `the outcome of the collection is unknown: check it with \`${lookupCommand('collections.create', reference)}\`` : 'the collection did not succeed'
    steps.push({suite: 'smoke', name: 'money: lookup by reference', outcome: 'skipped', ms: 0, detail: `${why} (see money: collection)`})
    return steps
  }
  steps.push(await timed('smoke', 'money: lookup by reference', async () => {
    const res = await client.call('transactions.verify', {path: {merchant_reference: reference}})
    const state = stateOf(res.body)
    if (classifyState(state) !== 'succeeded') throw new StepFailure('unexpected_state', `the lookup of ${reference} says ${state}`, ExitCode.TX_FAILED)
    return {detail: `${reference}: ${state}`}
  }))
  return steps
}
