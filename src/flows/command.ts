/**
 * What `pay flow run` does after parsing its flags: check every file (exit 2, nothing sent), then, against the
 * configured service or an ephemeral sandbox (--sandbox: a free loopback port, stopped at the end), run the flows
 * and report like `pay smoke`.
 */
import {InputError} from '../base/errors.js'
import {exitCodeOfSignal} from '../base/exit-codes.js'
import {shellArgument} from '../base/shell-quote.js'
import {signalAwaited} from '../base/signals.js'
import type {ApiContext, ApiContextFlags} from '../runtime.js'
import type {Output} from '../output/output.js'
import {checkJUnitPath, printStep, printSummary, reportOf, writeJUnitAfter} from './report.js'
import {liveMoneyGate, moneyOperation, movesMoney} from '../operation/confirm.js'
import {printable} from '../output/printable.js'
import {loadFlows} from './load.js'
import {commandOperation} from './poll.js'
import type {Flow} from './schema.js'
import {newRunId, runFlows} from './run.js'

interface FlowFlags extends ApiContextFlags {
  sandbox?: boolean
  'run-id'?: string
  junit?: string
  yes?: boolean
}

type Runtime = typeof import('../runtime.js')

/** Settle time of the ephemeral sandbox: quick, so that waits end in a moment. */
const SANDBOX_SETTLE_MS = 200

/** What `${run.id}` may be (it is written into merchant references). */
const RUN_ID = /^[A-Za-z0-9_-]{1,64}$/

export async function runFlowCommand(rt: Runtime, files: string[], flags: FlowFlags, userAgent: string): Promise<number> {
  const runId = flags['run-id'] ?? newRunId()
  if (!RUN_ID.test(runId)) throw InputError.one('--run-id', 'must be 1 to 64 letters, digits, - or _ (it goes into merchant references): give the run id a run printed')
  const flows = loadFlows(files)
  if (flags.junit) checkJUnitPath(flags.junit)
  const out = rt.createOutput(Boolean(flags.json))
  let ctx: ApiContext | undefined
  let stop: (() => Promise<void>) | undefined
  const stopSaying = sayRunIdOnSignal(out, runId, files)
  try {
    if (flags.sandbox) {
      const {startSandbox} = await import('../sandbox/index.js')
      const sb = await startSandbox({port: 0, host: '127.0.0.1', settleMs: SANDBOX_SETTLE_MS, quiet: true})
      stop = () => sb.close()
      out.info(out.color('dim', `sandbox on ${sb.url} (stopped when the flows end)`, 'err'))
      // the seeded merchant A, whatever profile or environment is set
      ctx = await rt.createApiContext({...flags, profile: undefined, 'base-url': sb.url, 'client-id': sb.seed.client_id, 'client-secret': sb.seed.client_secret, 'account-ref': undefined}, userAgent, out, undefined, undefined, FLOW_JOURNAL)
    } else {
      ctx = await rt.createApiContext(flags, userAgent, out, undefined, undefined, FLOW_JOURNAL)
    }
    await confirmFlowMoney(ctx, flows, Boolean(flags.yes))
    const steps = await runFlows(ctx, flows, {userAgent, runId, onStep: (s) => printStep(out, s)})
    const report = reportOf(steps)
    printSummary(out, report, `pay flow run (${flows.length} flow${flows.length === 1 ? '' : 's'}, run id ${runId})`, {run_id: runId, flows: flows.map((f) => ({name: f.name, file: f.file}))})
    return writeJUnitAfter(out, flags.junit, 'pay flow run', steps, report.exit_code)
  } finally {
    stopSaying()
    await ctx?.client.close()
    await stop?.()
  }
}

/**
 * Ctrl-C or SIGTERM during a run: its run id on stderr, as at the end of a run, with the command that runs it again.
 * Then a request in flight is ended by the journal's handler (src/journal/gate.ts, called after this one: it says the
 * request's key, exit 130 or 143), a --wait step by its wait (the run goes on to its report, which names the run id);
 * anything else (a lookup in flight, a pause) ends here. Returns what stops listening.
 */
function sayRunIdOnSignal(out: Output, runId: string, files: string[]): () => void {
  const onSignal = (signal: NodeJS.Signals) => {
    out.errorLine(`interrupted (${signal}): pay flow run, run id ${runId}; \`pay flow run --run-id ${runId} ${files.map(shellArgument).join(' ')}\` runs it again with the same references (the journal answers the requests it holds and resumes those of unknown outcome)`)
    if (!signalAwaited()) setImmediate(() => process.exit(exitCodeOfSignal(signal)))
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  return () => {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
  }
}

/** What the journal says of sending a step's request again: a flow has no --force-new, a new run id makes new references. */
const FLOW_JOURNAL = {newRequest: 'run the flow without --run-id (a new run id gives its steps new references)'}

/** Flows with a step on a money-moving endpoint, with a live profile: the rule of src/operation/confirm.ts, asked once. */
async function confirmFlowMoney(ctx: ApiContext, flows: Flow[], yes: boolean): Promise<void> {
  const money = flows.flatMap((f) =>
    f.steps.flatMap((s) => {
      const op = s.command === undefined ? moneyOperation(s.call) : commandOperation(s.command)
      return op && movesMoney(op, s.command === undefined ? {body: s.body} : undefined) ? [`  ${f.name}: step ${s.id} (${op.summary.split(':')[0].toLowerCase()})`] : []
    }),
  )
  if (money.length === 0) return
  await liveMoneyGate(ctx, yes, () => [`LIVE profile "${ctx.settings.profileName}": these steps move real money`, ...money].map((l) => printable(l)))
}
