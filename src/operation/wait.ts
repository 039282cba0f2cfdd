/**
 * --wait: polls the matching get endpoint with backoff until the transaction reaches a terminal state.
 *   succeeded / active                    → exit 0
 *   failed / cancelled (and the like)     → exit 8; so is a create's answer already in such a state, with or without
 *                                           --wait (settledAnswer; run-operation.ts createEnded)
 *   still pending after --wait-timeout    → exit 9
 *   Ctrl-C / SIGTERM while waiting        → exit 130 / 143, the last answer printed as ever (nothing more is sent)
 *   a poll that fails after the answer in hand → exit 9, that answer printed, the failure and how to wait again said;
 *   a poll answering the service's own 404 not_found about what is in hand is taken as not visible yet (a service's
 *   lookups may lag its creates): said once, polling goes on; a gateway's 404 page is a failed poll
 * Progress goes to stderr; the caller prints the last body the service returned on stdout.
 * A poll that answers another resource than the one in hand (a lookup by a reference two resources share) ends the
 * wait unresolved (exit 9): its state is never taken for this one's (src/api/resource.ts), and the last body of this
 * one is what is printed.
 */
import type {EndpointId} from '../api/endpoints.js'
import type {ApiResponse, CallInput} from '../client/api-client.js'
import {ExitCode, exitCodeOfSignal} from '../base/exit-codes.js'
import {ApiError, InterruptedError, type PayError} from '../base/errors.js'
import {firstSignal} from '../base/signals.js'
import {pollDelayMs, provesAbsent} from '../client/request-policy.js'
import {otherResource, resourceName} from '../api/resource.js'
import {printableLine} from '../output/printable.js'

export {pollDelayMs}
import type {Output} from '../output/output.js'
import {Progress} from '../output/progress.js'
import type {OperationSpec, ViewName} from '../api/operation-types.js'
import {flagName} from '../api/operation-names.js'
import {operationList} from '../api/operations.js'
import {shellArgument, shellQuote} from '../base/shell-quote.js'
import type {ApiContext} from './api-context.js'

export interface PollSpec {
  /** The get endpoint that reports the state. */
  id: EndpointId
  input: CallInput
  /** What is waited for, for people: "collection CL_123". */
  label: string
  /** The view of the get response, when it differs from the command's. */
  view?: ViewName
  /**
   * The resource's states (spec: States): terminal ones, and those known to be under way; any other is unknown, shown
   * as it is and not final (with a notice). Without them, the common words of classifyState.
   */
  states?: {succeeded: readonly string[]; failed: readonly string[]; pending?: readonly string[]}
}

/**
 * `other`: the poll answered another resource (`other`), not the one in hand: its state stays as last seen.
 * `interrupted`: a signal ended the wait (`signal`); `unresolved`: a poll failed (`error`); the last answer is the one
 * in hand.
 */
type WaitOutcome = 'succeeded' | 'failed' | 'timeout' | 'other' | 'interrupted' | 'unresolved'

/** A lookup that answered another resource: its id, the name of the one in hand, and the reference they share. */
interface OtherResource {
  id: string
  mine: string
  reference?: string
}

/** The other resource a looked-up answer is about, when it is not `mine` (src/api/resource.ts decides). */
export function answeredOther(mine: string | undefined, body: unknown): OtherResource | undefined {
  const id = otherResource(mine, body)
  if (id === undefined) return undefined
  const reference = (body as {merchant_reference?: unknown}).merchant_reference
  return {id, mine: mine!, ...(typeof reference === 'string' ? {reference} : {})}
}

export interface WaitResult {
  /** What was polled: the get endpoint and its input. */
  poll?: Pick<PollSpec, 'id' | 'input'>
  res: ApiResponse
  outcome: WaitOutcome
  /** With outcome `other`: the resource the poll answered about instead. */
  other?: OtherResource
  /** With outcome `interrupted`: the signal. */
  signal?: NodeJS.Signals
  /** With outcome `unresolved`: why the poll failed. */
  error?: PayError
  state?: string
  label: string
  elapsedSeconds: number
  timeoutSec: number
}

const SUCCEEDED = new Set(['succeeded', 'active', 'success', 'successful', 'completed', 'approved'])
const FAILED = new Set(['failed', 'cancelled', 'canceled', 'expired', 'rejected', 'declined', 'charge_failed', 'reversed'])

/** How long --wait polls when --wait-timeout is not given (its flag says so in its description). */
export const DEFAULT_WAIT_TIMEOUT_SEC = 120

/**
 * --wait-timeout without --wait: refused (exit 2, before anything is sent) for a single command and a bulk run alike;
 * given alone it would change nothing, and whoever wrote it meant to wait.
 */
export function waitTimeoutProblem(values: {wait?: unknown; 'wait-timeout'?: unknown}): {flag: string; rule: string} | undefined {
  if (values['wait-timeout'] === undefined || values.wait === true) return undefined
  return {flag: '--wait-timeout', rule: 'applies only with --wait: add --wait to poll until the transaction ends, or leave --wait-timeout out'}
}

/** Terminal class of a state word; undefined while it is still in progress. */
export function classifyState(state: string | undefined, states?: PollSpec['states']): 'succeeded' | 'failed' | undefined {
  if (!state) return undefined
  const s = state.toLowerCase()
  // the resource's own states (spec: States); a state the interface does not list is not final
  if (states?.succeeded) return states.succeeded.includes(s) ? 'succeeded' : states.failed.includes(s) ? 'failed' : undefined
  if (SUCCEEDED.has(s)) return 'succeeded'
  if (FAILED.has(s)) return 'failed'
  return undefined
}

/**
 * The answer in hand as the end of its transaction, when its state is one of the resource's final states (no poll):
 * what --wait starts from, and what a create's answer already comes to without --wait (run-operation.ts
 * createEnded). Undefined while the state is not final.
 */
export function settledAnswer(poll: PollSpec, res: ApiResponse, timeoutSec = 0): WaitResult | undefined {
  const state = stateOf(res.body)
  const outcome = classifyState(state, poll.states)
  return outcome ? {poll, res, outcome, state, label: poll.label, elapsedSeconds: 0, timeoutSec} : undefined
}

/** Whether the interface lists a state for the resource (true when its states are not known here). */
function knownState(state: string, states?: PollSpec['states']): boolean {
  if (!states?.pending) return true
  const s = state.toLowerCase()
  return states.succeeded.includes(s) || states.failed.includes(s) || states.pending.includes(s)
}

export function stateOf(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined
  const status = (body as Record<string, unknown>).status
  return typeof status === 'string' ? status : undefined
}

interface WaitOptions extends PollSpec {
  timeoutSec: number
  /** The answer already in hand (the create response, or the first get). */
  first?: ApiResponse
  /**
   * Records the state the wait saw last in the journal (a journaled request's answer carries it: `first`'s, unless
   * given), so that `pay journal` and a re-run know what the wait knew.
   */
  noteState?: ApiResponse['noteState']
  sleep?: (ms: number) => Promise<unknown>
}

export async function waitFor(ctx: ApiContext, options: WaitOptions): Promise<WaitResult> {
  const {client, out} = ctx
  let timer: NodeJS.Timeout | undefined // cleared when a signal ends the wait, so that the process can end at once
  const sleep = options.sleep ?? ((ms: number) => new Promise((resolve) => (timer = setTimeout(resolve, ms))))
  const deadline = Date.now() + options.timeoutSec * 1000
  const progress = new Progress(out)
  let res = options.first
  let state = res ? stateOf(res.body) : undefined
  // The answer in hand may already be final (a reused approved mandate answers succeeded at once).
  const settled = res && settledAnswer(options, res, options.timeoutSec)
  if (settled) return settled
  let attempt = 0
  const noticed = new Set<string>()
  let toldNotVisible = false
  // Ctrl-C ends the wait, not the process: what was created is still said (a poll in flight is a GET: dropped)
  const signals = firstSignal()
  const stopped = signals.signal.then((signal) => ({signal}))
  /**
   * The wait's end with the answer in hand (`res` is set by every caller); a poll's answer about this resource is its
   * latest known state, journaled (not when the last poll answered another resource: seen before, not now).
   */
  const ended = (outcome: WaitOutcome, about: Pick<WaitResult, 'other' | 'signal' | 'error'> = {}): WaitResult => {
    if (res !== options.first && outcome !== 'other' && state !== undefined) (options.noteState ?? options.first?.noteState)?.(state, res!.text)
    return {poll: options, res: res!, outcome, ...about, state, label: options.label, elapsedSeconds: progress.elapsedSeconds(), timeoutSec: options.timeoutSec}
  }
  const interrupted = (signal: NodeJS.Signals): WaitResult => {
    if (!res) throw new InterruptedError(`interrupted (${signal}) while waiting for ${options.label}`, exitCodeOfSignal(signal))
    return ended('interrupted', {signal})
  }
  try {
    for (;;) {
      if (state !== undefined && !knownState(state, options.states) && !noticed.has(state)) {
        noticed.add(state)
        const listed = [...options.states!.pending!, ...options.states!.succeeded, ...options.states!.failed].join(', ')
        out.warnQuoting(`${options.label} is in state "${state}", which the interface does not list (${listed}); pay treats it as not final and keeps waiting (--wait-timeout)`)
      }
      if (res) progress.update(`waiting for ${options.label}: ${state ?? 'state unknown'}`)
      const remaining = deadline - Date.now()
      if (res && remaining <= 0) {
        return ended('timeout')
      }
      if (res) {
        const woke = await Promise.race([sleep(Math.min(pollDelayMs(attempt++), Math.max(0, remaining))).then(() => undefined), stopped])
        if (woke) return interrupted(woke.signal)
      }
      const mine = resourceName(res?.body)
      let answered: ApiResponse | {signal: NodeJS.Signals}
      try {
        answered = await Promise.race([client.call(options.id, options.input), stopped])
      } catch (err) {
        // what is in hand was answered already: a failing poll ends the wait, never the report of it
        if (!res) throw err
        if (err instanceof ApiError && provesAbsent(err)) {
          if (!toldNotVisible) out.warn(printableLine(`${options.label} is not found by its lookup yet (${err.message}); it was answered before, so pay keeps polling (--wait-timeout)`))
          toldNotVisible = true
          continue
        }
        return ended('unresolved', {error: err as PayError})
      }
      if ('signal' in answered) return interrupted(answered.signal)
      const now: ApiResponse = answered
      const other = answeredOther(mine, now.body)
      if (res && other) return ended('other', {other})
      res = now
      state = stateOf(res.body)
      const final = classifyState(state, options.states)
      if (final) return ended(final)
    }
  } finally {
    clearTimeout(timer)
    signals.dispose()
    progress.stop()
  }
}

/** The operation whose --wait applies to this endpoint, or undefined when the endpoint has nothing to wait for. */
export function waitOperation(id: EndpointId): OperationSpec | undefined {
  return operationList.find((op) => op.wait && (op.endpoint === id || op.alternatives?.some((a) => a.endpoint === id)))
}

/** The flags of the run that a later command needs to reach the same service and sub-account (given as flags). */
interface LaterFlags {
  profile?: string
  'account-ref'?: string
}

/**
 * The command that looks the polled thing up later, with --wait: the operation whose endpoint (or alternative) the
 * poll called, its inputs from the poll's path and query, positional where the spec says so. Undefined when no
 * command calls that endpoint.
 */
function laterCommand(poll: Pick<PollSpec, 'id' | 'input'>, flags: LaterFlags = {}): string | undefined {
  const op = waitOperation(poll.id)
  if (!op) return undefined
  const words = ['pay', ...op.command.split(':')]
  const positional: string[] = []
  for (const field of op.fields) {
    if (field.for !== undefined && field.for !== poll.id) continue
    const value = (field.in === 'path' ? poll.input.path : field.in === 'query' ? poll.input.query : undefined)?.[field.key]
    if (value === undefined) return undefined
    const name = flagName(field)
    if (name === undefined) positional.push(shellArgument(value))
    else words.push(`--${name}`, shellQuote(value))
  }
  for (const name of ['profile', 'account-ref'] as const) if (flags[name]) words.push(`--${name}`, shellQuote(flags[name]))
  return [...words, '--wait', ...positional].join(' ')
}

/** How to take a wait up again that ended unresolved: the command that waits again, or the get command in general. */
function waitAgain(result: WaitResult, flags?: LaterFlags): string {
  const later = result.poll && laterCommand(result.poll, flags)
  return later ? `to wait again: ${later}` : 'look it up later with its get command'
}

/** The exit code of a wait's outcome (README: Exit codes): 0 succeeded, 8 failed, 130/143 a signal, else 9. */
export function waitExit(result: Pick<WaitResult, 'outcome' | 'signal'>): number {
  if (result.outcome === 'succeeded') return ExitCode.OK
  if (result.outcome === 'failed') return ExitCode.TX_FAILED
  if (result.outcome === 'interrupted') return exitCodeOfSignal(result.signal)
  return ExitCode.WAIT_TIMEOUT
}

/** How a transaction that ended failed is said: its state and the service's reason (`status_detail`). */
export function failedLine(result: Pick<WaitResult, 'label' | 'state' | 'res'>): string {
  const detail = (result.res.body as {status_detail?: unknown} | undefined)?.status_detail
  return printableLine(`${result.label} ended ${result.state}${typeof detail === 'string' && detail ? `: ${detail}` : ''}`)
}

/** Prints the outcome of a wait on stderr and returns the exit code (waitExit). */
export function reportWait(out: Output, result: WaitResult, flags?: LaterFlags): number {
  const exit = waitExit(result)
  if (result.outcome === 'succeeded') {
    out.info(`${printableLine(result.label)} ${out.color('green', printableLine(result.state ?? 'succeeded'), 'err')} after ${result.elapsedSeconds} s`)
    return exit
  }
  if (result.outcome === 'failed') {
    out.errorLine(failedLine(result))
    return exit
  }
  if (result.outcome === 'unresolved') {
    out.errorLine(printableLine(`could not follow ${result.label}: ${result.error?.message ?? 'the lookup failed'}; it was ${result.state ?? 'in a state not known'} when last seen; ${waitAgain(result, flags)}`))
    return exit
  }
  if (result.outcome === 'interrupted') {
    // one line, also under --json / --quiet: a script that stopped the wait still learns how to take it up again
    out.errorLine(printableLine(`interrupted (${result.signal}) while waiting: ${result.label} was ${result.state ?? 'in a state not known'} when last seen; nothing more was sent; ${waitAgain(result, flags)}`))
    return exit
  }
  if (result.other) {
    out.errorLine(otherResourceMessage(result.label, result.other, result.state))
    out.info(`  ${out.color('cyan', 'next:', 'err')} ${otherResourceNext(result.other)}`)
    return exit
  }
  out.errorLine(`${result.label} is still ${result.state ?? 'pending'} after --wait-timeout ${result.timeoutSec} s`)
  const later = result.poll && laterCommand(result.poll, flags)
  out.info(`  ${out.color('cyan', 'next:', 'err')} ${later ? `run \`${later}\` later` : 'run the matching get command later'}, or raise --wait-timeout`)
  return exit
}

/** What pay says when a lookup answered another resource: both ids, and that the state stays as last seen. */
export function otherResourceMessage(label: string | undefined, other: OtherResource, state: string | undefined): string {
  return printableLine(`${label ? `${label}: ` : ''}the lookup answered ${other.id}, another resource with the same reference, not ${other.mine}; its state is not ${other.mine}'s, which stays as last seen: ${state ?? 'state unknown'}`)
}

/** What to do next about it: the service has no lookup by id of such a resource. */
export function otherResourceNext(other: OtherResource): string {
  const events = other.reference === undefined ? '`pay webhook history`' : `\`pay webhook history --reference ${shellArgument(other.reference)}\``
  return printableLine(
    `the service looks this kind up by reference only, so ${other.mine}'s own state cannot be read while ${other.id} shares its reference: its webhook events say how it ended (${events}), or see it in the service's dashboard`,
  )
}
