/**
 * Before money moves with a live profile: on a terminal, say what will happen (amount, currency, destination,
 * reference) and ask. Never asked with --yes, off a terminal (scripts, CI, --no-input, PAY_NO_INPUT), or with a
 * profile that is not marked live (`pay profiles add --live`); the sandbox profile is never live.
 */
import type {OperationSpec, ValueSource} from '../api/operation-types.js'
import type {CallInput} from '../client/api-client.js'
import {PayError} from '../client/errors.js'
import {ExitCode} from '../client/exit-codes.js'
import {printable} from '../output/printable.js'
import type {ApiContext} from './api-context.js'

function valueAt(source: ValueSource, input: CallInput): string | undefined {
  const [where, key] = [source.slice(0, source.indexOf('.')), source.slice(source.indexOf('.') + 1)]
  const from = where === 'body' ? input.body : where === 'path' ? input.path : where === 'query' ? input.query : undefined
  const v = from && typeof from === 'object' && !Array.isArray(from) ? (from as Record<string, unknown>)[key] : undefined
  return v === undefined || v === null ? undefined : String(v)
}

/** The lines shown before asking. */
export function confirmationLines(op: OperationSpec, input: CallInput, profileName: string): string[] {
  const body = (input.body && typeof input.body === 'object' ? input.body : {}) as Record<string, unknown>
  const destination = (op.confirm?.destination ?? [])
    .map((s) => [s.slice(s.indexOf('.') + 1), valueAt(s, input)] as const)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')
  const lines = [
    `LIVE profile "${profileName}": ${op.summary.split(':')[0].toLowerCase()}`,
    `  amount       ${String(body.amount ?? '?')} ${String(body.currency ?? '')}`.trimEnd(),
    `  destination  ${destination || '-'}`,
    `  reference    ${String(body.merchant_reference ?? '-')}`,
  ]
  return lines.map((l) => printable(l))
}

/** Asked only for a money-moving operation, with a live profile, on a terminal that can prompt, without --yes. */
const asks = (ctx: ApiContext, op: OperationSpec, yes: boolean): boolean => Boolean(op.confirm) && !yes && Boolean(ctx.settings.live) && ctx.out.term.interactive

export async function confirmMoneyMove(ctx: ApiContext, op: OperationSpec, input: CallInput, yes: boolean): Promise<void> {
  if (asks(ctx, op, yes)) await ask(ctx, confirmationLines(op, input, ctx.settings.profileName))
}

/** The lines shown before a bulk run (--from-file) sends anything with a live profile. */
export function bulkConfirmationLines(op: OperationSpec, plan: {rows: number; toSend: number; totals: Record<string, string>; file: string}, profileName: string): string[] {
  const totals = Object.entries(plan.totals).map(([c, a]) => `${a} ${c}`)
  return [
    `LIVE profile "${profileName}": ${op.summary.split(':')[0].toLowerCase()}, one request per row of ${plan.file}`,
    `  rows         ${plan.rows} (${plan.toSend} to send; the others were settled by an earlier run)`,
    `  amounts      ${totals.length > 0 ? totals.join(', ') : '-'} in all rows`,
  ].map((l) => printable(l))
}

/** Before a bulk run with a live profile: asked once, after every row passed its rules. */
export async function confirmBulkRun(ctx: ApiContext, op: OperationSpec, plan: {rows: number; toSend: number; totals: Record<string, string>; file: string}, yes: boolean): Promise<void> {
  if (asks(ctx, op, yes)) await ask(ctx, bulkConfirmationLines(op, plan, ctx.settings.profileName))
}

async function ask(ctx: ApiContext, lines: string[]): Promise<void> {
  for (const line of lines) ctx.out.notice(line)
  const {confirm} = await import('@inquirer/prompts')
  let ok = false
  try {
    ok = await confirm({message: 'Send it?', default: false}, {output: process.stderr})
  } catch (err) {
    if ((err as Error).name !== 'ExitPromptError' && (err as Error).name !== 'AbortPromptError') throw err
  }
  if (!ok) throw new PayError('not confirmed: nothing was sent', ExitCode.USAGE, 'answer y to send, or pass --yes')
}
