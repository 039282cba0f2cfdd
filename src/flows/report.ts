/**
 * The report of a run of checks (`pay smoke`, `pay flow run`): each step with its time and outcome, printed as it
 * finishes (a coloured checklist on a terminal, plain tab-separated lines off one), as one JSON object (--json),
 * and as JUnit XML (--junit FILE) that CI systems show as test results.
 */
import {accessSync, closeSync, constants, existsSync, fchmodSync, openSync, statSync, writeFileSync} from 'node:fs'
import {SECRET_FILE_MODE as REPORT_FILE_MODE} from '../config/paths.js'
import {dirname, resolve} from 'node:path'
import {InputError, PayError} from '../base/errors.js'
import {ExitCode, type ExitCodeValue} from '../base/exit-codes.js'
import {isPayError} from '../output/errors.js'
import type {Output} from '../output/output.js'
import {printable} from '../output/printable.js'
import {shellArgument} from '../base/shell-quote.js'

/**
 * passed; failed; unknown (a request that may have moved money lost its answer: neither passed nor failed, said with
 * the Idempotency-Key and how to check it); not_enabled (the service says 403: the merchant lacks the product);
 * skipped (not run).
 */
type StepOutcome = 'passed' | 'failed' | 'unknown' | 'not_enabled' | 'skipped'

export interface StepResult {
  /** Group of the step: the suite (`smoke`) or the flow's name. */
  suite: string
  name: string
  outcome: StepOutcome
  /** Milliseconds the step took. */
  ms: number
  /** One line for people: what was found, or what differed. */
  detail?: string
  /** The exit code this step's failure stands for. */
  exit_code?: number
  /** With outcome unknown: the Idempotency-Key the request was sent with, and its merchant reference. */
  idempotency_key?: string
  reference?: string
  error?: {code: string; message: string; status?: number; request_id?: string; hint?: string}
}

export interface RunReport {
  ok: boolean
  exit_code: number
  steps: StepResult[]
}

/** A step that got an answer but not the right one: a code for machines, what differed for people, an exit code. */
export class StepFailure extends PayError {
  constructor(
    readonly code: string,
    message: string,
    exitCode: ExitCodeValue = ExitCode.OTHER,
  ) {
    super(message, exitCode)
    this.name = 'StepFailure'
  }
}

/**
 * A step whose request may have moved money and whose answer was lost (the client's journal named its key): what
 * happened, the key and reference, and what to do before running again (`rerun`: what a re-run would do).
 */
class OutcomeUnknown extends StepFailure {
  constructor(
    readonly source: {message: string; exitCode: number; hint?: string; status?: number; error?: {code: string; request_id?: string}; code?: unknown},
    readonly key: string,
    readonly reference: string | undefined,
    rerun: string,
    lookup?: string,
  ) {
    const code = source.error?.code ?? (typeof source.code === 'string' ? source.code : 'network_error')
    super(code, `outcome unknown: ${source.message}; it may have moved money (Idempotency-Key ${key}${reference === undefined ? '' : `, reference ${reference}`})`, source.exitCode as ExitCodeValue)
    const check = reference === undefined ? `\`pay journal ${key}\`` : `\`${lookup ?? `pay find ${shellArgument(reference)}`}\` (or \`pay journal ${key}\`)`
    this.hint = `check it with ${check} before running again: ${rerun}`
    this.name = 'OutcomeUnknown'
  }
}

/**
 * The error of a step's request, as OutcomeUnknown when the client's journal marked its outcome unknown (it names
 * the key: src/journal/gate.ts), else as it is. `reference`: the request's merchant reference, when it has one;
 * `lookup`: the command that looks up what it made (lookupCommand, src/api/kinds.ts), else `pay find` is named.
 */
export function unknownOutcomeOf(err: unknown, reference: string | undefined, rerun: string, lookup?: string): unknown {
  if (err instanceof OutcomeUnknown || !isPayError(err) || !err.idempotencyKey) return err
  return new OutcomeUnknown(err, err.idempotencyKey, reference, rerun, lookup)
}

/** The failure fields of a step from any error (the service's code, message and request id kept). Errors are
 * recognised by shape: the runtime may be a bundled copy with classes of its own (src/output/errors.ts). */
function failureOf(err: unknown): Pick<StepResult, 'exit_code' | 'error' | 'detail' | 'idempotency_key' | 'reference'> & {outcome?: StepOutcome} {
  const unknown = unknownOutcomeOf(err, undefined, 'a new run sends a new request')
  if (unknown instanceof OutcomeUnknown) {
    const {source} = unknown
    const error = {code: unknown.code, message: unknown.message, ...(source.status === undefined ? {} : {status: source.status}), ...(source.error?.request_id ? {request_id: source.error.request_id} : {}), hint: unknown.hint}
    return {outcome: 'unknown', exit_code: unknown.exitCode, idempotency_key: unknown.key, ...(unknown.reference === undefined ? {} : {reference: unknown.reference}), error, detail: `${unknown.message}; ${unknown.hint}`}
  }
  if (err instanceof StepFailure) return {exit_code: err.exitCode, error: {code: err.code, message: err.message}, detail: err.message}
  if (isPayError(err)) {
    if (err.error && err.status !== undefined) {
      return {exit_code: err.exitCode, error: {code: err.error.code, message: err.error.message, status: err.status, request_id: err.error.request_id}, detail: err.message}
    }
    return {exit_code: err.exitCode, error: {code: err.problems ? 'invalid_input' : 'cli_error', message: err.message}, detail: err.message}
  }
  const message = err instanceof Error ? err.message : String(err)
  return {exit_code: ExitCode.OTHER, error: {code: 'cli_error', message}, detail: message}
}

/** Exit code of a run: 0 when nothing failed, else the code of the first failed step (or step of unknown outcome). */
function exitCodeOf(steps: StepResult[]): number {
  const failed = steps.find((s) => s.outcome === 'failed' || s.outcome === 'unknown')
  return failed ? (failed.exit_code ?? ExitCode.OTHER) : ExitCode.OK
}

export function reportOf(steps: StepResult[]): RunReport {
  const exit = exitCodeOf(steps)
  return {ok: exit === ExitCode.OK, exit_code: exit, steps}
}

const MARK: Record<StepOutcome, {tty: string; plain: string; color: 'green' | 'red' | 'yellow' | 'dim'}> = {
  passed: {tty: '✓', plain: 'ok', color: 'green'},
  failed: {tty: '✗', plain: 'FAIL', color: 'red'},
  unknown: {tty: '?', plain: 'UNKNOWN', color: 'red'},
  not_enabled: {tty: '–', plain: 'not-enabled', color: 'yellow'},
  skipped: {tty: '·', plain: 'skipped', color: 'dim'},
}

/** One finished step as a line on stdout (nothing under --json, which prints the whole report at the end). */
export function printStep(out: Output, step: StepResult): void {
  if (out.json) return
  const mark = MARK[step.outcome]
  const name = step.suite === 'smoke' ? step.name : `${step.suite} › ${step.name}`
  const detail = step.detail ? printable(step.detail) : ''
  if (out.term.stdoutIsTTY) {
    const label = step.outcome === 'not_enabled' ? out.color('yellow', 'not enabled') : ''
    out.data(`${out.color(mark.color, mark.tty)} ${printable(name).padEnd(34)} ${out.color('dim', `${step.ms} ms`.padStart(8))}  ${label ? label + ' ' : ''}${detail}`)
  } else {
    out.data([mark.plain, printable(name), `${step.ms}ms`, detail].join('\t'))
  }
}

/** The closing line (stderr, for people) and, under --json, the whole report (stdout). */
export function printSummary(out: Output, report: RunReport, what: string, extra: Record<string, unknown> = {}): void {
  if (out.json) {
    out.data(JSON.stringify({...extra, ...report}))
    return
  }
  const count = (o: StepOutcome) => report.steps.filter((s) => s.outcome === o).length
  const parts = [`${count('passed')} passed`, `${count('failed')} failed`]
  if (count('unknown') > 0) parts.push(`${count('unknown')} of unknown outcome`)
  if (count('not_enabled') > 0) parts.push(`${count('not_enabled')} not enabled`)
  if (count('skipped') > 0) parts.push(`${count('skipped')} skipped`)
  const verdict = report.ok ? out.color('green', 'healthy', 'err') : out.color('red', `${count('unknown') > 0 ? 'OUTCOME UNKNOWN' : 'failed'} (exit ${report.exit_code})`, 'err')
  out.info(`${what}: ${verdict}: ${parts.join(', ')}`)
  for (const s of report.steps.filter((x) => x.outcome === 'unknown')) {
    out.warn(printable(`${s.suite === 'smoke' ? s.name : `${s.suite} › ${s.name}`}: the outcome is unknown, it may have moved money (Idempotency-Key ${s.idempotency_key}${s.reference === undefined ? '' : `, reference ${s.reference}`}); ${s.error?.hint ?? ''}`))
  }
}

function xmlEscape(text: string): string {
  // XML 1.0 forbids most control characters even escaped: they are dropped.
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '')
  return clean.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;')
}

const seconds = (ms: number) => (ms / 1000).toFixed(3)

/** JUnit XML: one <testsuite> per suite, one <testcase> per step; not-enabled and skipped steps are <skipped>. */
function toJUnit(title: string, steps: StepResult[], timestamp = new Date()): string {
  const suites = new Map<string, StepResult[]>()
  for (const s of steps) suites.set(s.suite, [...(suites.get(s.suite) ?? []), s])
  const total = (list: StepResult[], o?: StepOutcome) => (o ? list.filter((s) => s.outcome === o).length : list.length)
  const failures = (list: StepResult[]) => total(list, 'failed') + total(list, 'unknown')
  const skippedOf = (list: StepResult[]) => total(list, 'skipped') + total(list, 'not_enabled')
  const time = (list: StepResult[]) => seconds(list.reduce((sum, s) => sum + s.ms, 0))
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>']
  lines.push(`<testsuites name="${xmlEscape(title)}" tests="${steps.length}" failures="${failures(steps)}" errors="0" skipped="${skippedOf(steps)}" time="${time(steps)}">`)
  for (const [suite, list] of suites) {
    lines.push(`  <testsuite name="${xmlEscape(suite)}" tests="${list.length}" failures="${failures(list)}" errors="0" skipped="${skippedOf(list)}" time="${time(list)}" timestamp="${timestamp.toISOString().replace(/\.\d+Z$/, '')}">`)
    for (const s of list) {
      const open = `    <testcase classname="${xmlEscape(`pay.${suite}`)}" name="${xmlEscape(s.name)}" time="${seconds(s.ms)}"`
      if (s.outcome === 'passed') {
        lines.push(s.detail ? `${open}>\n      <system-out>${xmlEscape(s.detail)}</system-out>\n    </testcase>` : `${open}/>`)
      } else if (s.outcome === 'failed' || s.outcome === 'unknown') {
        const facts = [s.idempotency_key ? `idempotency_key: ${s.idempotency_key}` : undefined, s.reference === undefined ? undefined : `reference: ${s.reference}`, s.error?.request_id ? `request_id: ${s.error.request_id}` : undefined]
        const body = [s.detail, ...facts, s.exit_code === undefined ? undefined : `exit code: ${s.exit_code}`].filter(Boolean).join('\n')
        const type = s.outcome === 'unknown' ? 'outcome_unknown' : (s.error?.code ?? 'failed')
        lines.push(`${open}>\n      <failure message="${xmlEscape(s.error?.message ?? s.detail ?? 'failed')}" type="${xmlEscape(type)}">${xmlEscape(body)}</failure>\n    </testcase>`)
      } else {
        lines.push(`${open}>\n      <skipped message="${xmlEscape(s.outcome === 'not_enabled' ? `not enabled${s.detail ? `: ${s.detail}` : ''}` : (s.detail ?? 'skipped'))}"/>\n    </testcase>`)
      }
    }
    lines.push('  </testsuite>')
  }
  lines.push('</testsuites>')
  return lines.join('\n') + '\n'
}

/**
 * The JUnit file is 0600 whatever the umask (it names the merchant, references and ids): the mode is given when it
 * is created and set again on a file that was there before.
 */
function writeJUnit(file: string, title: string, steps: StepResult[]): void {
  const fd = openSync(file, 'w', REPORT_FILE_MODE)
  try {
    fchmodSync(fd, REPORT_FILE_MODE)
    writeFileSync(fd, toJUnit(title, steps))
  } finally {
    closeSync(fd)
  }
}

/** Checks before anything is sent that the --junit file can be written (its folder exists and is writable). */
export function checkJUnitPath(file: string): void {
  const dir = dirname(resolve(file))
  try {
    if (!statSync(dir).isDirectory()) throw new Error('not a folder')
    accessSync(dir, constants.W_OK)
    if (existsSync(file) && statSync(file).isDirectory()) throw new Error('a folder of that name exists')
  } catch (err) {
    throw InputError.one('--junit', `cannot be written: ${dir} (${(err as Error).message}); name a file in an existing, writable folder`)
  }
}

/**
 * Writes the JUnit report after the summary has been printed, so that a failed write loses no step result; a failure
 * is said on stderr and makes the run exit 1 if it had passed.
 */
export function writeJUnitAfter(out: Output, file: string | undefined, title: string, steps: StepResult[], exitCode: number): number {
  if (!file) return exitCode
  try {
    writeJUnit(file, title, steps)
    return exitCode
  } catch (err) {
    out.errorLine(`could not write the JUnit report to ${file}: ${(err as Error).message}`)
    return exitCode === 0 ? 1 : exitCode
  }
}

/** Times one step: runs `fn`, and turns what it returns or throws into a StepResult. */
export async function timed(suite: string, name: string, fn: () => Promise<Partial<StepResult> | undefined | void>): Promise<StepResult> {
  const started = Date.now()
  try {
    const r = (await fn()) ?? {}
    return {suite, name, outcome: 'passed', ...r, ms: Date.now() - started}
  } catch (err) {
    return {suite, name, outcome: 'failed', ...failureOf(err), ms: Date.now() - started}
  }
}
