/**
 * Flow steps that control the sandbox (`sandbox: approve|succeed|fail|advance` with a `target`), so that a journey
 * needing an explicit approval or a forced outcome runs as one flow, without an outside script:
 *
 *   - id: approve
 *     sandbox: approve                      # the customer approves the mandate on their phone
 *     target: ${steps.mandate.mandate_id}
 *
 * They call the sandbox's control API (/_sandbox/…, src/client/control-client.ts) at the flow's base URL, and only
 * there: a run whose flows hold one is refused before anything is sent unless that URL is a pay sandbox (loopback
 * and its control API answers), so a flow never reaches for /_sandbox on the real service. The same control calls
 * as `pay sandbox approve|succeed|fail|advance`.
 */
import {InputError} from '../base/errors.js'
import type {ControlEndpointId} from '../client/control-client.js'
import {DURATION_RULE, durationSeconds} from '../api/control-endpoints.js'

/** What this module reads of a flow step and a flow (./schema.ts's types, not imported: schema.ts reads this module). */
interface FlowStep {
  id: string
  sandbox?: SandboxActionName
  target?: string | number | boolean
  call?: unknown
  command?: unknown
  inputs?: unknown
  path?: unknown
  query?: unknown
  body?: unknown
  idempotency_key?: unknown
  wait?: unknown
}
interface Flow {
  file: string
  steps: FlowStep[]
}

interface SandboxAction {
  endpoint: ControlEndpointId
  /** What `target` holds, for people. */
  target: string
  /** The control endpoint's path parameter that takes the target (none for advance: a body). */
  path?: string
  /** The same control as a command. */
  command: string
}

const SANDBOX_ACTIONS = {
  approve: {endpoint: 'mandates.approve', target: 'the mandate id (MD_…) to approve', path: 'mandate_id', command: 'pay sandbox approve'},
  succeed: {endpoint: 'transactions.succeed', target: 'the id of the processing transaction (CL_…, PO_…, CS_…, a debit) to succeed', path: 'id', command: 'pay sandbox succeed'},
  fail: {endpoint: 'transactions.fail', target: 'the id of the processing transaction to fail', path: 'id', command: 'pay sandbox fail'},
  advance: {endpoint: 'clock.advance', target: 'how far to move the sandbox clock: seconds, or a number with s, m, h or d (90m, 1d)', command: 'pay sandbox advance'},
} as const satisfies Record<string, SandboxAction>

type SandboxActionName = keyof typeof SANDBOX_ACTIONS
export const SANDBOX_ACTION_NAMES = Object.keys(SANDBOX_ACTIONS) as [SandboxActionName, ...SandboxActionName[]]

/** A sandbox step's own problems (its references are checked with every step's): what it may hold, its target. */
export function sandboxStepProblems(step: FlowStep): {field: string; rule: string}[] {
  const problems: {field: string; rule: string}[] = []
  if (step.sandbox === undefined) return [{field: 'sandbox', rule: `is required with \`target\`: one of ${SANDBOX_ACTION_NAMES.join(', ')}`}]
  for (const key of ['call', 'command', 'inputs', 'path', 'query', 'body', 'idempotency_key', 'wait'] as const) {
    if (step[key] !== undefined) problems.push({field: key, rule: 'cannot be combined with `sandbox` (a sandbox step takes a `target` and `expect` only)'})
  }
  const action = SANDBOX_ACTIONS[step.sandbox]
  if (step.target === undefined || step.target === '') problems.push({field: 'target', rule: `is required: ${action.target}`})
  else if (step.sandbox === 'advance' && !String(step.target).includes('${') && durationSeconds(String(step.target)) === undefined) problems.push({field: 'target', rule: DURATION_RULE})
  return problems
}

/** The flows' first sandbox step, if any (file and step, for the message). */
function firstSandboxStep(flows: Flow[]): {flow: Flow; step: FlowStep} | undefined {
  for (const flow of flows) for (const step of flow.steps) if (step.sandbox !== undefined) return {flow, step}
  return undefined
}

/**
 * Refuses (exit 2, nothing sent) to run flows holding a sandbox step against anything but a pay sandbox.
 * `isSandbox` is src/client/control-client.ts's (loopback, and its control API answers).
 */
export async function assertSandboxFor(flows: Flow[], baseUrl: string, isSandbox: () => Promise<boolean>): Promise<void> {
  const first = firstSandboxStep(flows)
  if (!first || (await isSandbox())) return
  throw InputError.one(
    `${first.flow.file}: step ${first.step.id}: sandbox`,
    `controls the sandbox, and ${baseUrl} is not a pay sandbox: nothing was sent`,
    'run the flow with --sandbox, or against `pay sandbox start` (--profile sandbox)',
  )
}

/** The control call of a sandbox step with its target resolved: endpoint and input. */
export function controlCallOf(action: SandboxActionName, target: string): {endpoint: ControlEndpointId; input: {path?: Record<string, string>; body?: unknown}; what: string} {
  const a: SandboxAction = SANDBOX_ACTIONS[action]
  if (action === 'advance') {
    const seconds = durationSeconds(target)
    if (seconds === undefined) throw InputError.one('target', DURATION_RULE)
    return {endpoint: a.endpoint, input: {body: {seconds}}, what: `sandbox clock advanced ${target}`}
  }
  return {endpoint: a.endpoint, input: {path: {[a.path!]: target}}, what: `${target} ${action === 'approve' ? 'approved' : action === 'succeed' ? 'succeeded' : 'failed'} (sandbox)`}
}
