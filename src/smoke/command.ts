/** What `pay smoke` does after parsing its flags: check them, run the steps, print and write the report. */
import {problemsOf} from '../api/validate.js'
import {endpoints} from '../api/endpoints.js'
import {InputError} from '../base/errors.js'
import {isSandbox} from '../client/control-client.js'
import {confirmationLines, liveMoneyGate, moneyOperation, movesMoney} from '../operation/confirm.js'
import type {ApiContext} from '../runtime.js'
import {type MoneyOptions, runSmoke} from './checks.js'
import {checkJUnitPath, printStep, printSummary, writeJUnitAfter} from '../flows/report.js'

interface SmokeFlags {
  junit?: string
  money?: boolean
  yes?: boolean
  amount: string
  currency: string
  mobile?: string
  provider: string
  'wait-timeout': number
  contract?: boolean
  param?: string[]
}

/** The wallet number that succeeds on the sandbox (docs/sandbox.md: Deterministic outcomes). */
const SANDBOX_MOBILE = '254712345670'

/**
 * Checks the --money flags (exit 2 before anything is sent), or undefined without --money. With a live profile the
 * collection is confirmed by the rule for live money (src/operation/confirm.ts), as `collections create` is: asked
 * where a person is present, else refused without --yes. Without one, a service that is not the local sandbox needs --yes.
 */
async function moneyOptions(ctx: ApiContext, flags: SmokeFlags, userAgent: string): Promise<MoneyOptions | undefined> {
  if (!flags.money) return undefined
  const base = ctx.client.baseUrl()
  const sandbox = await isSandbox(base, userAgent)
  const live = ctx.settings.live === true
  if (!live && !sandbox && !flags.yes) throw InputError.one('--money', `moves real money at ${ctx.client.shownBaseUrl()}, which is not the local sandbox: add --yes to confirm`)
  const mobile = flags.mobile ?? (sandbox && !live ? SANDBOX_MOBILE : undefined)
  if (!mobile) throw InputError.one('--mobile', 'is required with --money against a real service (the wallet to charge)')
  const money = {amount: flags.amount, currency: flags.currency.toUpperCase(), mobile, provider: flags.provider, waitTimeoutSec: flags['wait-timeout']}
  const body = {amount: money.amount, currency: money.currency, merchant_reference: 'pay-smoke', mobile, provider: money.provider}
  const problems = problemsOf(endpoints['collections.create'].body, body, {amount: '--amount', currency: '--currency', mobile: '--mobile', provider: '--provider'})
  if (problems.length > 0) throw new InputError(problems)
  const op = moneyOperation('collections.create')
  if (movesMoney(op, {body})) await liveMoneyGate(ctx, Boolean(flags.yes), () => confirmationLines(op!, {body}, ctx.settings.profileName))
  return money
}

export async function runSmokeCommand(ctx: ApiContext, flags: SmokeFlags, userAgent: string): Promise<number> {
  if (flags.contract) return (await import('./contract.js')).runContractCommand(ctx, flags.param)
  if (flags.junit) checkJUnitPath(flags.junit)
  const money = await moneyOptions(ctx, flags, userAgent)
  const {out} = ctx
  const report = await runSmoke(ctx, {money, onStep: (s) => printStep(out, s)})
  printSummary(out, report, 'pay smoke', {base_url: ctx.client.shownBaseUrl()})
  return writeJUnitAfter(out, flags.junit, 'pay smoke', report.steps, report.exit_code)
}
