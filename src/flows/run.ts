/**
 * Runs checked flows step by step through the client core (ApiClient: the same auth, retries, idempotency keys
 * and journal as single commands): references resolved from earlier answers, the request sent, an optional wait
 * for a terminal state, then the step's expectations. A failed step skips the rest of its flow.
 */
import {randomUUID} from 'node:crypto'
import type {z} from 'zod'
import {type EndpointId, endpoints, pathValueRule} from '../api/endpoints.js'
import {lookupCommand} from '../api/kinds.js'
import {type ApiResponse, type CallInput, mayBeStale} from '../client/api-client.js'
import {ExitCode} from '../base/exit-codes.js'
import {redactValues} from '../base/redact.js'
import {isPayError} from '../output/errors.js'
import type {ApiContext} from '../runtime.js'
import {DEFAULT_WAIT_TIMEOUT_SEC, failedLine, otherResourceMessage, stateOf, waitExit, waitFor} from '../operation/wait.js'
import {StepFailure, type StepResult, timed, unknownOutcomeOf} from './report.js'
import {createEnded, lookUpAccepted, pollOf} from '../operation/run-operation.js'
import {requestFromRecord} from '../operation/operation-input.js'
import {commandOperation, waitOperation} from './poll.js'
import {assertSandboxFor, controlCallOf} from './sandbox-steps.js'
import {ControlClient, isSandbox} from '../client/control-client.js'
import {EXIT_CLASSES, type Flow, type FlowExpect, type FlowStep} from './schema.js'
import {ReferenceError, type Scope, dig, resolve} from './template.js'

interface FlowRunOptions {
  /** The User-Agent of sandbox control calls (sandbox steps). */
  userAgent?: string
  env?: Scope['env']
  /** Unique part of this run, `${run.id}` (default: random). */
  runId?: string
  onStep?: (step: StepResult) => void
}

interface Answer {
  /** The refusal this answer stands for (a failed request whose status a step may expect). */
  error?: unknown
  status: number
  body: unknown
  exit: number
  /** What happened, for people: "HTTP 201", "collection CL_1 succeeded". */
  what: string
}

const asStrings = (v: unknown): Record<string, string> | undefined =>
  v === undefined ? undefined : Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, typeof x === 'string' ? x : String(x)]))

/** Resolves references; a reference that cannot resolve fails the step as bad input (exit 2). */
function resolved<T>(value: T, scope: Scope): T {
  try {
    return resolve(value, scope) as T
  } catch (err) {
    if (err instanceof ReferenceError) throw new StepFailure('unresolved_reference', err.message, ExitCode.USAGE)
    throw err
  }
}

const requestParts = (step: FlowStep, scope: Scope): [EndpointId, CallInput] => {
  const {id, input} = requestOf(step, scope)
  return [id, input]
}

/** The endpoint and request input of a step with every reference resolved, checked again now that all is known. */
function requestOf(step: FlowStep, scope: Scope): {id: EndpointId; input: CallInput} {
  const idempotencyKey = step.idempotency_key === undefined ? undefined : String(resolved(step.idempotency_key, scope))
  if (step.command !== undefined) {
    // inputs named like the command's flags, mapped and checked by the operation spec as on the command line
    const {endpoint, input, problems} = requestFromRecord(commandOperation(step.command)!, resolved(step.inputs ?? {}, scope))
    if (problems.length > 0) throw new StepFailure('invalid_input', `${problems.map((p) => `${p.flag} ${p.rule}`).join('; ')} (after resolving references)`, ExitCode.USAGE)
    return {id: endpoint, input: {...input, idempotencyKey}}
  }
  const id = step.call as EndpointId
  const input: CallInput = {path: asStrings(resolved(step.path, scope)), query: asStrings(resolved(step.query, scope)), body: resolved(step.body, scope), idempotencyKey}
  for (const [name, value] of Object.entries(input.path ?? {})) {
    const rule = pathValueRule(value)
    if (rule) throw new StepFailure('invalid_input', `path.${name} ${rule} (after resolving references)`, ExitCode.USAGE)
  }
  const endpoint = endpoints[id] as {query?: z.ZodType; body?: z.ZodType}
  for (const [where, schema, value] of [['query', endpoint.query, input.query], ['body', endpoint.body, input.body]] as const) {
    if (!schema || value === undefined) continue
    const parsed = schema.safeParse(value)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      throw new StepFailure('invalid_input', `${where}${issue.path.length ? `.${issue.path.join('.')}` : ''} ${issue.message} (after resolving references)`, ExitCode.USAGE)
    }
  }
  return {id, input}
}

async function send(ctx: ApiContext, step: FlowStep, id: EndpointId, input: CallInput): Promise<Answer> {
  let res: ApiResponse
  try {
    res = await ctx.client.call(id, input)
  } catch (err) {
    // the service's refusal is an answer a step may expect (status 404, exit not_found…)
    if (isPayError(err) && err.status !== undefined) return {error: err, status: err.status, body: (err as {body?: unknown}).body, exit: err.exitCode, what: err.message}
    throw err
  }
  const op = waitOperation(id)
  // a re-run (--run-id) of a request the service accepted earlier (nothing was sent, and the journal's answer may be
  // stale), or a resumed key's answer (maybe the service's first one, replayed): its resource is looked up as it is
  // now (one GET), as the command's re-run does (state now: failed, exit 8)
  const looked = mayBeStale(res) && op ? await lookUpAccepted(ctx, op, id, res, input) : undefined
  const now = looked?.res ?? res
  const state = stateOf(now.body)
  const http = `HTTP ${res.status}${res.replayedAt === undefined ? '' : ' (accepted earlier, nothing sent now)'}`
  const seen = looked?.other ? `; the lookup answered ${looked.other}, another resource with the same reference: state as last seen` : looked ? '; state now' : ''
  const answer: Answer = {status: res.status, body: now.body, exit: ExitCode.OK, what: `${http}${seen}${state ? ` ${state}` : ''}`}
  // a lookup that answered another resource leaves this one's state as last seen: not followed (waited for: exit 9)
  if (looked?.other) return step.wait ? {...answer, exit: ExitCode.WAIT_TIMEOUT} : answer
  if (!step.wait) {
    // a create answered (or, re-run, found) failed has ended failed, as on the command line (exit 8): the step fails
    // unless it expects so
    const ended = op && createEnded(op, id, input, res, now)
    return ended ? {...answer, exit: waitExit(ended), what: `${http}: ${failedLine(ended)}`} : answer
  }
  const poll = pollOf(op!, id, res, input)
  const timeoutSec = (typeof step.wait === 'object' ? step.wait.timeout : undefined) ?? DEFAULT_WAIT_TIMEOUT_SEC
  const done = await waitFor(ctx, {...poll, timeoutSec, first: now})
  const what = done.other
    ? otherResourceMessage(poll.label, done.other, done.state)
    : done.outcome === 'timeout'
      ? `${poll.label} still ${done.state ?? 'pending'} after ${timeoutSec} s`
      : done.outcome === 'failed'
        ? failedLine(done)
        : `${poll.label} ${done.state}`
  return {status: done.res.status, body: done.res.body, exit: waitExit(done), what}
}

function same(actual: unknown, expected: unknown): boolean {
  if (expected === null || typeof expected !== 'object') return actual !== undefined && actual !== null && typeof actual !== 'object' ? String(actual) === String(expected) : actual === expected
  return JSON.stringify(actual) === JSON.stringify(expected)
}

const show = (v: unknown) => (v === undefined ? 'nothing' : JSON.stringify(v))

/** What differs between the answer and the step's expectations (empty when it passes). */
function differences(expect: FlowExpect | undefined, answer: Answer, scope: Scope): string[] {
  const diffs: string[] = []
  if (expect?.exit !== undefined) {
    const want = typeof expect.exit === 'number' ? expect.exit : EXIT_CLASSES[expect.exit]
    if (answer.exit !== want) diffs.push(`exit: expected ${want}${typeof expect.exit === 'string' ? ` (${expect.exit})` : ''}, got ${answer.exit}`)
  }
  if (expect?.status !== undefined && answer.status !== expect.status) diffs.push(`status: expected ${expect.status}, got ${answer.status}`)
  // without an expected exit or status, the step must succeed
  if (expect?.exit === undefined && expect?.status === undefined && answer.exit !== ExitCode.OK) diffs.push(`expected success, got exit ${answer.exit}: ${answer.what}`)
  for (const [path, raw] of Object.entries(expect?.fields ?? {})) {
    let want: unknown
    try {
      want = resolve(raw, scope)
    } catch (err) {
      diffs.push(`fields.${path}: ${(err as Error).message}`)
      continue
    }
    const got = dig(answer.body, path.split('.'))
    if (!got.found) diffs.push(`fields.${path}: expected ${show(want)}, but the answer has no ${path}`)
    else if (!same(got.value, want)) diffs.push(`fields.${path}: expected ${show(want)}, got ${show(got.value)}`)
  }
  return diffs
}

/** A sandbox step (./sandbox-steps.ts): its control call at the flow's base URL, answered like a request. */
async function control(ctx: ApiContext, step: FlowStep, scope: Scope, userAgent: string): Promise<Answer> {
  const {endpoint, input, what} = controlCallOf(step.sandbox!, String(resolved(step.target, scope)))
  const client = new ControlClient({url: ctx.client.baseUrl(), userAgent})
  try {
    return {status: 200, body: await client.call(endpoint, input), exit: ExitCode.OK, what}
  } catch (err) {
    if (isPayError(err) && err.status !== undefined) return {status: err.status, body: (err as {body?: unknown}).body, exit: err.exitCode, what: err.message}
    throw err
  } finally {
    await client.close()
  }
}

/**
 * What a re-run does after a step of unknown outcome: a new run id makes new `${run.id}` references (a new payment by
 * design); the same run id (--run-id) sends the same requests, which the journal answers or resumes with their keys.
 */
const rerun = (runId: string) =>
  `\`pay flow run --run-id ${runId} …\` runs it again with the same references (the journal resumes this request with its key); a run without --run-id makes new \${run.id} references, a new payment`

async function runStep(ctx: ApiContext, flow: Flow, step: FlowStep, scope: Scope, userAgent: string): Promise<StepResult> {
  return timed(flow.name, step.name ?? step.id, async () => {
    let answer: Answer
    if (step.sandbox !== undefined) answer = await control(ctx, step, scope, userAgent)
    else {
      const [id, input] = requestParts(step, scope)
      const reference = (input.body as {merchant_reference?: unknown} | undefined)?.merchant_reference
      const ref = typeof reference === 'string' ? reference : undefined
      const unknown = (err: unknown) => unknownOutcomeOf(err, ref, rerun(scope.run.id), ref === undefined ? undefined : lookupCommand(id, ref, input.path))
      answer = await send(ctx, step, id, input).catch((err: unknown) => {
        throw unknown(err)
      })
      // a refusal whose outcome is unknown (a 5xx on a create) passes only where it was expected; else it is unknown
      if (answer.error !== undefined && differences(step.expect, answer, scope).length > 0 && unknown(answer.error) !== answer.error) throw unknown(answer.error)
    }
    const diffs = differences(step.expect, answer, scope)
    if (diffs.length > 0) {
      const exit = answer.exit !== ExitCode.OK && step.expect?.exit === undefined && step.expect?.status === undefined ? answer.exit : ExitCode.OTHER
      throw new StepFailure('expectation_failed', `step ${step.id}: ${diffs.join('; ')}`, exit as (typeof ExitCode)[keyof typeof ExitCode])
    }
    scope.steps[step.id] = answer.body
    return {detail: answer.what}
  })
}

/** A new run's id, `${run.id}`: a short random part of merchant references. */
export const newRunId = (): string => randomUUID().slice(0, 8)

/** Runs flows one after another; returns every step's result (later steps of a failed flow are skipped; after a signal, of every flow). */
export async function runFlows(ctx: ApiContext, flows: Flow[], options: FlowRunOptions = {}): Promise<StepResult[]> {
  const results: StepResult[] = []
  // the values of declared secrets: never in a step's line, the summary, --json or --junit, nor in a trace
  let hidden: string[] = []
  const add = (s: StepResult) => {
    const shown = hidden.length > 0 ? redactStep(s, hidden) : s
    results.push(shown)
    options.onStep?.(shown)
  }
  const runId = options.runId ?? newRunId()
  const userAgent = options.userAgent ?? 'pay'
  // sandbox steps run against a pay sandbox only: refused (exit 2) before any step is sent otherwise
  await assertSandboxFor(flows, ctx.client.shownBaseUrl(), () => isSandbox(ctx.client.baseUrl(), userAgent))
  // Ctrl-C or SIGTERM that ended a step (a --wait it stopped) ends the run: every later step of every flow is skipped
  let interrupted: string | undefined
  for (const flow of flows) {
    const scope: Scope = {steps: {}, env: options.env ?? process.env, run: {id: runId}}
    hidden = flow.secrets.map((name) => scope.env[name] ?? '').filter((v) => v.length >= 4)
    ctx.client.redactAlso(hidden)
    let stopped = interrupted
    for (const step of flow.steps) {
      if (stopped) {
        add({suite: flow.name, name: step.name ?? step.id, outcome: 'skipped', ms: 0, detail: stopped})
        continue
      }
      const result = await runStep(ctx, flow, step, scope, userAgent)
      add(result)
      if (result.outcome === 'failed') stopped = 'an earlier step failed'
      if (result.outcome === 'unknown') stopped = `the outcome of step ${step.id} is unknown`
      if (result.exit_code === ExitCode.INTERRUPTED || result.exit_code === ExitCode.TERMINATED) {
        stopped = interrupted = `the run was interrupted (${result.exit_code === ExitCode.TERMINATED ? 'SIGTERM' : 'SIGINT'}) during step ${step.id}`
      }
    }
  }
  return results
}

/** A step's result with every known secret value (in each of its encoded forms) replaced in each of its texts. */
function redactStep(s: StepResult, values: string[]): StepResult {
  const texts = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, typeof v === 'string' ? redactValues(v, values) : v])) as T
  return {...texts(s), ...(s.error ? {error: texts(s.error)} : {})}
}
