/**
 * The shared path of the resource commands, from flags to rendered output:
 *
 *   flags → fields (body / query / path, named after their flags) → --data / -F merged → checked against the
 *   endpoint table's zod schema → missing values prompted for (terminal only) or listed all at once (exit 2)
 *   → --dry-run prints the request, or the request is sent → optional --wait polls → the per-resource view.
 *
 * Loaded only through src/runtime.ts (inside run()), so it may import zod schemas and the client freely.
 */
import {endpoints, type EndpointId} from '../api/endpoints.js'
import {problemsOf, type FieldProblem} from '../api/validate.js'
import type {ApiResponse, CallInput} from '../client/api-client.js'
import {InputError} from '../client/errors.js'
import {ExitCode} from '../client/exit-codes.js'
import {renderDryRun} from '../output/dry-run.js'
import type {ViewName} from '../output/views.js'
import {renderView} from '../output/views.js'
import type {ApiContext} from '../runtime.js'
import {mergeBody, parseFieldFlags, readDataFlag} from './body-input.js'
import type {PromptSpec} from './prompts.js'
import {reportWait, waitFor, type PollSpec} from './wait.js'

export type FieldPlace = 'body' | 'query' | 'path'

/** One input of a command: where it goes in the request and which flag (or argument) carries it. */
export interface InputField {
  /** Name in the body, query or path template (`merchant_reference`, `id`). */
  key: string
  /** Where it goes (default body). */
  in?: FieldPlace
  /** How the user names it: `--reference`, or an argument such as `MANDATE_ID`. */
  flag: string
  value: string | undefined
  /** Upper-case the value (currency codes, frequency). */
  upper?: boolean
  /** How to ask for it on a terminal when it is missing; false never asks. Default: a text prompt. */
  prompt?: PromptSpec | false
}

export interface ExtraBody {
  /** --data JSON|@file|- */
  data?: string
  /** -F key=value (repeatable) */
  field?: string[]
}

export interface GatherSpec {
  id: EndpointId
  fields: InputField[]
  extra?: ExtraBody
  /** A body that is always sent as is (the virtual-account POSTs send `[]`). */
  fixedBody?: unknown
  /** Problems the command found itself (flag combinations), reported with the schema's. */
  problems?: FieldProblem[]
}

export interface Gathered {
  input: CallInput
}

const REQUIRED = 'is required'

function valueOf(field: InputField): string | undefined {
  if (field.value === undefined) return undefined
  return field.upper ? field.value.toUpperCase() : field.value
}

function isMissing(v: unknown): boolean {
  return v === undefined || v === null
}

/**
 * Builds the request input of a command from its fields and checks it before anything is sent. On a terminal,
 * missing values are asked for; otherwise every problem is listed at once as an InputError (exit 2).
 */
export async function gatherInput(ctx: ApiContext, spec: GatherSpec): Promise<Gathered> {
  const endpoint = endpoints[spec.id] as (typeof endpoints)[EndpointId] & {body?: import('zod').ZodType; query?: import('zod').ZodType}
  const data = await readDataFlag(spec.extra?.data)
  const extraFields = parseFieldFlags(spec.extra?.field)
  const values = new Map<InputField, string | undefined>(spec.fields.map((f) => [f, valueOf(f)]))
  const names: Record<string, string> = {}
  for (const f of spec.fields) if ((f.in ?? 'body') !== 'path') names[f.key] = f.flag

  const build = (): CallInput => {
    const input: CallInput = {}
    const body: Record<string, unknown> = {}
    for (const f of spec.fields) {
      const v = values.get(f)
      if (v === undefined) continue
      const place = f.in ?? 'body'
      if (place === 'body') body[f.key] = v
      else if (place === 'query') (input.query ??= {})[f.key] = v
      else (input.path ??= {})[f.key] = v
    }
    if (spec.fixedBody !== undefined) input.body = spec.fixedBody
    else if (endpoint.body) input.body = mergeBody(body, data, extraFields) ?? {}
    return input
  }

  const check = (input: CallInput): {problems: FieldProblem[]; missing: InputField[]} => {
    const problems: FieldProblem[] = [...(spec.problems ?? [])]
    const missing: InputField[] = []
    const seen = new Set<string>()
    const add = (p: FieldProblem, field?: InputField) => {
      if (field && isMissing(lookup(input, field)) && !p.rule.startsWith(REQUIRED)) p = {flag: p.flag, rule: REQUIRED}
      const key = `${p.flag}:${p.rule}`
      if (seen.has(key)) return
      seen.add(key)
      problems.push(p)
      if (field && isMissing(lookup(input, field)) && !missing.includes(field)) missing.push(field)
    }
    const byFlag = (flag: string) => spec.fields.find((f) => f.flag === flag)
    if (endpoint.body && spec.fixedBody === undefined) for (const p of problemsOf(endpoint.body, input.body, names)) add(p, byFlag(p.flag))
    if (endpoint.query) for (const p of problemsOf(endpoint.query, input.query ?? {}, names)) add(p, byFlag(p.flag))
    for (const f of spec.fields) {
      if ((f.in ?? 'body') !== 'path') continue
      const v = input.path?.[f.key]
      if (v === undefined || v.trim() === '') add({flag: f.flag, rule: v === undefined ? REQUIRED : 'must not be empty'}, f)
    }
    return {problems, missing}
  }

  let input = build()
  let result = check(input)
  const interactive = ctx.out.term.interactive
  for (let round = 0; round < 3 && interactive && result.problems.length > 0; round++) {
    // Ask only when every problem is a missing value we may ask for; a wrong value is reported, not re-asked.
    const askable = result.missing.filter((f) => f.prompt !== false)
    const onlyMissing = result.problems.every((p) => askable.some((f) => f.flag === p.flag))
    if (askable.length === 0 || !onlyMissing) break
    const {ask} = await import('./prompts.js')
    for (const field of askable) {
      const prompt: PromptSpec = field.prompt || {message: defaultMessage(field)}
      let answer: string
      try {
        answer = await ask(prompt, ctx, (raw) => {
          const candidate = raw === '' ? undefined : field.upper ? raw.toUpperCase() : raw
          const before = values.get(field)
          values.set(field, candidate)
          const problem = check(build()).problems.find((p) => p.flag === field.flag)
          values.set(field, before)
          return problem ? problem.rule : true
        })
      } catch (err) {
        // Ctrl+C or Ctrl+D at a prompt: nothing was sent; say which input is still missing (exit 2).
        if ((err as Error).name === 'ExitPromptError' || (err as Error).name === 'AbortPromptError') {
          throw new InputError(askable.filter((f) => isMissing(lookup(build(), f))).map((f) => ({flag: f.flag, rule: 'is required (prompt cancelled; nothing was sent)'})))
        }
        throw err
      }
      values.set(field, answer === '' ? undefined : field.upper ? answer.toUpperCase() : answer)
    }
    input = build()
    result = check(input)
  }
  if (result.problems.length > 0) {
    const someMissing = result.missing.length > 0
    const hint = someMissing && !interactive ? 'pass the missing flags (not prompting: no terminal, or CI is set)' : undefined
    throw new InputError(result.problems, hint)
  }
  return {input}
}

function lookup(input: CallInput, field: InputField): unknown {
  const place = field.in ?? 'body'
  if (place === 'path') return input.path?.[field.key]
  if (place === 'query') return input.query?.[field.key]
  const body = input.body
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>)[field.key] : undefined
}

function defaultMessage(field: InputField): string {
  const name = field.flag.replace(/^--/, '').replace(/[-_]/g, ' ')
  return name.charAt(0).toUpperCase() + name.slice(1)
}

export interface WaitOption {
  timeoutSec: number
  /** The get request that reports the state, from the first response (and the request input that gave it). */
  poll: (res: ApiResponse, input: CallInput) => PollSpec
}

export interface Operation extends GatherSpec {
  idempotencyKey?: string
  dryRun?: boolean
  view: ViewName
  /** Set when --wait was given. */
  wait?: WaitOption
  /** Runs after the first successful response (checkout --open). */
  after?: (res: ApiResponse) => Promise<void> | void
}

/**
 * Runs one endpoint the way every resource command does. Returns the exit code (0, or 8/9 after --wait), so
 * that under --json stdout still holds exactly one body: the service's last answer.
 */
export async function runOperation(ctx: ApiContext, op: Operation): Promise<number> {
  const keyProblem = op.idempotencyKey !== undefined && op.idempotencyKey.trim() === '' ? [{flag: '--idempotency-key', rule: 'must not be empty'}] : []
  const {input} = await gatherInput(ctx, {...op, problems: [...(op.problems ?? []), ...keyProblem]})
  if (op.idempotencyKey !== undefined) input.idempotencyKey = op.idempotencyKey
  const {client, out} = ctx
  const prepared = client.prepare(op.id, input)
  if (op.dryRun) {
    renderDryRun(out, prepared, {profileName: ctx.settings.profileName, fromProfile: ctx.settings.sources.clientId === 'profile'})
    return ExitCode.OK
  }
  const res = await client.send(prepared)
  await op.after?.(res)
  if (!op.wait) {
    renderView(out, op.view, res)
    return ExitCode.OK
  }
  const spec = op.wait.poll(res, input)
  const waited = await waitFor(ctx, {...spec, timeoutSec: op.wait.timeoutSec, first: res})
  renderView(out, spec.view ?? op.view, waited.res)
  return reportWait(out, waited)
}
