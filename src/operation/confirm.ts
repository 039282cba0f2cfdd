/**
 * THE RULE FOR LIVE MONEY (the one place it is written; README "Live money" points here). With a profile marked
 * live (`pay profiles add --live`; the sandbox profile never is), nothing that can move money is sent until someone
 * said so, on every path that can move money: the resource commands (collections create, payouts create, debits
 * create, subscriptions create: the plan amount is charged on approval, mandates create with --plan: it enrols a
 * subscriber), a bulk run of them (--from-file, stdin included), a flow with a step on one of their endpoints,
 * `pay smoke --money`'s collection, and `pay api` on one of their endpoints. Which they are is the operations' `confirm` (src/api/operations.ts), read
 * only through movesMoney and moneyOperation below. What will happen is shown (amount, currency, destination, reference; for a
 * bulk run the rows and totals; for a flow its money steps), then:
 * - `--yes` given: sent without a question;
 * - a person present, that is a controlling terminal: asked there. When stdin and stderr are the terminal, on
 *   them; when stdin is a file or a pipe (`--from-file -`, `< rows.csv`, `</dev/null`), through /dev/tty;
 * - no one can be asked (no controlling terminal, CI or PAY_NO_INPUT set, --no-input): refused, exit 2, naming
 *   --yes. Nothing is sent.
 */
import type {OperationSpec, ValueSource} from '../api/operation-types.js'
import {operationList} from '../api/operations.js'
import type {CallInput} from '../client/api-client.js'
import {PayError} from '../base/errors.js'
import {ExitCode} from '../base/exit-codes.js'
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
  const plan = op.confirm?.plan === undefined ? undefined : valueAt(op.confirm.plan, input)
  const lines = [
    `LIVE profile "${profileName}": ${op.summary.split(':')[0].toLowerCase()}`,
    plan === undefined ? `  amount       ${String(body.amount ?? '?')} ${String(body.currency ?? '')}`.trimEnd() : `  amount       the amount of plan ${plan}, charged once on approval (at once when the number has an approved mandate)`,
    `  destination  ${destination || '-'}`,
    `  reference    ${String(body.merchant_reference ?? '-')}`,
  ]
  return lines.map((l) => printable(l))
}

/** The operation that confirms (may move money) on this endpoint (src/api/operations.ts), or undefined. */
export function moneyOperation(endpoint: string | undefined): OperationSpec | undefined {
  return endpoint === undefined ? undefined : operationList.find((op) => op.confirm && op.endpoint === endpoint)
}

/**
 * Whether a request of `op` moves money: the operation confirms, and its `when` value (if any) is set in `input`.
 * Without `input` (a bulk run, asked once before its rows), or where the value cannot be read (a body that is not
 * a JSON object, a flow step's template), it may: counted as moving money.
 */
export function movesMoney(op: OperationSpec | undefined, input?: CallInput): boolean {
  const when = op?.confirm?.when
  if (!op?.confirm) return false
  if (when === undefined || input === undefined) return true
  const from = (input as Record<string, unknown>)[when.slice(0, when.indexOf('.'))]
  const readable = from === undefined || (typeof from === 'object' && from !== null && !Array.isArray(from))
  return !readable || valueAt(when, input) !== undefined
}

/**
 * What a request of `op` moves, for the money totals of a bulk run: its body's amount; the amount of the plan it names
 * (a subscription, a mandate with a plan: the plan's amount is not in the service's answers); or nothing (a mandate
 * without a plan, a lookup). Without `input`, what any request of `op` may move (per row when `confirm.when` is set).
 */
export type MoneyCharge = 'amount' | 'plan' | 'none'

export function chargeOf(op: OperationSpec | undefined, input?: CallInput): MoneyCharge {
  if (!movesMoney(op, input)) return 'none'
  return op?.confirm?.plan === undefined ? 'amount' : 'plan'
}

export async function confirmMoneyMove(ctx: ApiContext, op: OperationSpec, input: CallInput, yes: boolean): Promise<void> {
  if (movesMoney(op, input)) await liveMoneyGate(ctx, yes, () => confirmationLines(op, input, ctx.settings.profileName))
}

/** What a bulk run (--from-file) is about to do, for its live confirmation: `totals` of the money rows move. */
export interface BulkRunPlan {
  rows: number
  toSend: number
  totals: Record<string, string>
  /** Rows that charge a plan's amount (chargeOf): not in the totals. */
  planRows: number
  file: string
}

/** The lines shown before a bulk run (--from-file) sends anything with a live profile. */
function bulkConfirmationLines(op: OperationSpec, plan: BulkRunPlan, profileName: string): string[] {
  const totals = Object.entries(plan.totals).map(([c, a]) => `${a} ${c}`)
  return [
    `LIVE profile "${profileName}": ${op.summary.split(':')[0].toLowerCase()}, one request per row of ${plan.file}`,
    `  rows         ${plan.rows} (${plan.toSend} to send; the others were settled by an earlier run)`,
    `  amounts      ${totals.length > 0 ? totals.join(', ') : '-'} in all rows`,
    ...(plan.planRows > 0 ? [`  plans        ${plan.planRows} row(s) charge the amount of the plan they name, once approved`] : []),
  ].map((l) => printable(l))
}

/** Before a bulk run with a live profile: asked once, after every row passed its rules. */
export async function confirmBulkRun(ctx: ApiContext, op: OperationSpec, plan: BulkRunPlan, yes: boolean): Promise<void> {
  if (movesMoney(op)) await liveMoneyGate(ctx, yes, () => bulkConfirmationLines(op, plan, ctx.settings.profileName))
}

/** Who can be asked: nobody (CI, PAY_NO_INPUT, --no-input), the terminal on stdin and stderr, or /dev/tty. */
type Asker = 'nobody' | 'terminal' | 'tty'

function askerOf(ctx: ApiContext): Asker {
  const term = ctx.out.term
  if (term.interactive) return 'terminal'
  return term.noInput ? 'nobody' : 'tty'
}

/**
 * The rule above: returns when the money may move (not live, --yes, or a person said yes); else throws (exit 2).
 * `lines` says what will happen; made only when it is shown.
 */
export async function liveMoneyGate(ctx: ApiContext, yes: boolean, lines: () => string[]): Promise<void> {
  if (yes || !ctx.settings.live) return
  const asker = askerOf(ctx)
  const refused = (why: string) =>
    new PayError(`LIVE profile "${printable(ctx.settings.profileName)}": this moves real money and ${why}: nothing was sent`, ExitCode.USAGE, 'pass --yes to confirm it without a question')
  if (asker === 'nobody') throw refused('no one can be asked (CI, PAY_NO_INPUT or --no-input)')
  if (asker === 'terminal') {
    for (const line of lines()) ctx.out.notice(line)
    await ask(ctx, {output: ctx.out.errorStream})
    return
  }
  const tty = await openControllingTerminal()
  if (!tty) throw refused('no one can be asked (no terminal)')
  try {
    tty.output.write(`${lines().join('\n')}\n`)
    await ask(ctx, tty)
  } finally {
    tty.close()
  }
}

/** The controlling terminal (/dev/tty), for a question when stdin is a file or a pipe; undefined when there is none. */
async function openControllingTerminal(): Promise<{input: NodeJS.ReadableStream; output: NodeJS.WritableStream; close(): void} | undefined> {
  const {openSync, closeSync} = await import('node:fs')
  const tty = await import('node:tty')
  let readFd: number | undefined
  try {
    readFd = openSync('/dev/tty', 'r')
    const writeFd = openSync('/dev/tty', 'w')
    if (!tty.isatty(readFd)) {
      closeSync(writeFd)
      closeSync(readFd)
      return undefined
    }
    const input = new tty.ReadStream(readFd)
    const output = new tty.WriteStream(writeFd)
    return {
      input,
      output,
      close: () => {
        input.destroy()
        output.destroy()
      },
    }
  } catch {
    if (readFd !== undefined) closeSync(readFd)
    return undefined
  }
}

async function ask(ctx: ApiContext, io: {input?: NodeJS.ReadableStream; output: NodeJS.WritableStream}): Promise<void> {
  const {confirm} = await import('@inquirer/prompts')
  let ok = false
  try {
    ok = await confirm({message: 'Send it?', default: false}, io)
  } catch (err) {
    if ((err as Error).name !== 'ExitPromptError' && (err as Error).name !== 'AbortPromptError') throw err
  }
  if (!ok) throw new PayError('not confirmed: nothing was sent', ExitCode.USAGE, 'answer y to send, or pass --yes')
}
