/**
 * The one path of every operation (src/api/operations.ts), from the values the user gave to rendered output:
 *
 *   choose the endpoint (alternatives) → fields (body / query / path, named after their flags) → --data / -F
 *   merged → checked against the endpoint table's zod schema → missing values prompted for (terminal only) or
 *   listed all at once (exit 2) → --dry-run prints the request, or the request is sent → --open / --all →
 *   optional --wait polls the spec's get until one of its terminal states → the spec's view.
 *
 * It takes an ApiContext (client, output, settings) and the given values keyed by flag or argument name, so a
 * test runs it in-process with its own Output and client, the way gh separates options from a run function.
 * Loaded only through src/runtime.ts (inside run()), so it may import zod schemas and the client freely.
 */
import {ACCOUNT_REF_HEADER, endpoints, pathValueRule, type EndpointId} from '../api/endpoints.js'
import {inputLabel, flagName} from '../api/operation-names.js'
import type {FieldSpec, OperationSpec, PromptSpec, ValueSource} from '../api/operation-types.js'
import {requestProblems, type FieldProblem} from '../api/validate.js'
import {withCanonicalAmounts} from '../api/money.js'
import {resourceName} from '../api/resource.js'
import {type ApiResponse, type CallInput, mayBeStale} from '../client/api-client.js'
import {InputError} from '../base/errors.js'
import {ExitCode} from '../base/exit-codes.js'
import {renderDryRun} from '../output/dry-run.js'
import {printableLine} from '../output/printable.js'
import {listColumns, renderView, StreamTable} from '../output/views.js'
import type {ApiContext} from './api-context.js'
import {confirmMoneyMove} from './confirm.js'
import {mergeBody, parseFieldFlags, readDataFlag} from './body-input.js'
import {PageFollower} from './paging.js'
import {DEFAULT_WAIT_TIMEOUT_SEC, answeredOther, classifyState, otherResourceMessage, otherResourceNext, reportWait, settledAnswer, stateOf, waitFor, waitTimeoutProblem, type PollSpec, type WaitResult} from './wait.js'

/** The values the user gave, keyed by flag name (`reference`, `wait-timeout`) or argument name (`mandate_id`). */
export type Given = Record<string, unknown>

type FieldPlace = 'body' | 'query' | 'path'

/** One input of a request: where it goes and what the user calls it. */
export interface InputField {
  key: string
  in?: FieldPlace
  /** How the user names it in messages: `--reference`, `MANDATE_ID`. */
  flag: string
  value: string | undefined
  upper?: boolean
  prompt?: PromptSpec | false
  /** The spec field it comes from (for the rule shown with a prompt). */
  spec?: {op: OperationSpec; field: FieldSpec}
}

interface ExtraBody {
  data?: string
  field?: string[]
}

interface GatherSpec {
  id: EndpointId
  fields: InputField[]
  extra?: ExtraBody
  fixedBody?: unknown
  /** Problems found before the schema check (flag combinations), reported with the schema's. */
  problems?: FieldProblem[]
}

/**
 * The parsed flags and arguments as one set of values. An argument that was not given leaves the flag of the same
 * name alone (a lookup's REFERENCE and --reference, src/api/operation-names.ts referenceLookup); both given with
 * different values is a usage error, nothing sent.
 */
export function givenValues(flags: Given, args: Given): Given {
  const values: Given = {...flags}
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined) continue
    if (values[name] !== undefined && values[name] !== value) throw InputError.one(`--${name}`, `and the argument ${name.toUpperCase()} name different values: give one of them`)
    values[name] = value
  }
  return values
}

const REQUIRED = 'is required'

function valueOf(field: InputField): string | undefined {
  if (field.value === undefined) return undefined
  return field.upper ? field.value.toUpperCase() : field.value
}

function isMissing(v: unknown): boolean {
  return v === undefined || v === null
}

/** A request being put together from its fields: build it, check it, change one value (for prompts). */
interface Draft {
  build(): CallInput
  check(input: CallInput): {problems: FieldProblem[]; missing: InputField[]}
  values: Map<InputField, string | undefined>
}

/** The pure part of gathering: no prompt, no file. `data` is the parsed --data, `extraFields` the parsed -F. */
export function draftOf(spec: GatherSpec, data?: unknown, extraFields: Record<string, unknown> = {}): Draft {
  const endpoint = endpoints[spec.id] as (typeof endpoints)[EndpointId] & {body?: import('zod').ZodType; query?: import('zod').ZodType}
  const values = new Map<InputField, string | undefined>()
  const names: Record<string, string> = {}
  for (const f of spec.fields) {
    values.set(f, valueOf(f))
    if ((f.in ?? 'body') !== 'path') names[f.key] = f.flag
  }

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
    // whether the endpoint takes a body: `in`, as reading the table's getter would make its zod schema
    const takesBody = 'body' in endpoint
    if (spec.fixedBody !== undefined && takesBody) input.body = spec.fixedBody
    // amounts in their one spelling on the wire (src/api/money.ts): one amount, one body, one key
    else if (takesBody) input.body = withCanonicalAmounts(mergeBody(body, data, extraFields) ?? {})
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
    if (spec.fixedBody === undefined) for (const p of requestProblems(endpoint, 'body', input.body, names)) add(p, byFlag(p.flag))
    for (const p of requestProblems(endpoint, 'query', input.query ?? {}, names)) add(p, byFlag(p.flag))
    for (const f of spec.fields) {
      if ((f.in ?? 'body') !== 'path') continue
      const v = input.path?.[f.key]
      const rule = v === undefined ? REQUIRED : pathValueRule(v)
      if (rule) add({flag: f.flag, rule}, f)
    }
    return {problems, missing}
  }
  return {build, check, values}
}

/**
 * Builds the request input from its fields and checks it before anything is sent. On a terminal, missing values
 * are asked for; otherwise every problem is listed at once as an InputError (exit 2).
 */
export async function gatherInput(ctx: ApiContext, spec: GatherSpec): Promise<{input: CallInput}> {
  const {build, check, values} = draftOf(spec, await readDataFlag(spec.extra?.data), parseFieldFlags(spec.extra?.field))
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
      let prompt: PromptSpec = field.prompt || {message: defaultMessage(field)}
      if (prompt.rule && field.spec) {
        // the schema's rule with the question; loaded only when asking (the command has it loaded already)
        const rule = (await import('../api/operation-help.js')).formatRules(field.spec.op, field.spec.field)
        if (rule) prompt = {...prompt, message: `${prompt.message} (${rule})`}
      }
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

const given = (values: Given, name: string | undefined): boolean => name !== undefined && values[name] !== undefined && values[name] !== false
const nameOf = (f: FieldSpec): string => flagName(f) ?? f.arg!

interface Selection {
  id: EndpointId
  problems: FieldProblem[]
  /** What a missing input of the default endpoint is called: "ID (or --reference)". */
  label?: string
}

/** Which endpoint of the operation the given values select, and the problems of the selection. No prompt. */
export function selectEndpoint(op: OperationSpec, values: Given): Selection {
  const alts = op.alternatives ?? []
  if (alts.length === 0) return {id: op.endpoint, problems: []}
  const own = op.fields.filter((f) => f.for === op.endpoint)
  const ownGiven = own.some((f) => given(values, nameOf(f)))
  const picked = alts.find((a) => given(values, a.flag))
  if (picked && ownGiven) return {id: op.endpoint, problems: [{flag: inputLabel(own[0]), rule: `cannot be combined with --${picked.flag} (give one of them)`}]}
  if (picked) return {id: picked.endpoint, problems: []}
  return {id: op.endpoint, problems: [], label: ownGiven ? undefined : `${inputLabel(own[0])} (or ${alts.map((a) => `--${a.flag}`).join(' or ')})`}
}

/** selectEndpoint, and on a terminal with nothing selected, the spec's `choose` question. */
async function chooseEndpoint(ctx: ApiContext, op: OperationSpec, values: Given): Promise<Selection> {
  const selection = selectEndpoint(op, values)
  const alts = op.alternatives ?? []
  if (selection.label && op.choose && ctx.out.term.interactive) {
    const {ask} = await import('./prompts.js')
    const answer = await ask({message: op.choose.message, choices: [op.choose.default, ...alts.map((a) => a.choice ?? a.flag)]}, ctx, () => true)
    const chosen = alts.find((a) => (a.choice ?? a.flag) === answer)
    if (chosen) return {id: chosen.endpoint, problems: []}
  }
  return selection
}

/** What inputFields gives every input of an operation whatever its value: built once per operation (a bulk run asks per row). */
const fieldParts = new WeakMap<OperationSpec, {name: string; prompt: InputField['prompt']; spec: InputField['spec']}[]>()

/** The request fields of an operation for one endpoint, with the values given. */
function inputFields(op: OperationSpec, id: EndpointId, values: Given, missingLabel?: string): InputField[] {
  let parts = fieldParts.get(op)
  if (!parts) {
    parts = op.fields.map((f) => ({name: nameOf(f), prompt: f.prompt === false ? false : typeof f.prompt === 'string' ? {message: f.prompt} : f.prompt, spec: {op, field: f}}))
    fieldParts.set(op, parts)
  }
  const fields: InputField[] = []
  for (let i = 0; i < op.fields.length; i++) {
    const f = op.fields[i]
    if (f.for !== undefined && f.for !== id) continue
    const raw = values[parts[i].name]
    const label = missingLabel && f.for === id && raw === undefined ? missingLabel : inputLabel(f)
    fields.push({key: f.key, in: f.in, flag: label, value: raw === undefined ? undefined : String(raw), upper: f.upper, prompt: parts[i].prompt, spec: parts[i].spec})
  }
  return fields
}

function pick(sources: readonly ValueSource[], res: ApiResponse, input: CallInput): string | undefined {
  for (const source of sources) {
    const dot = source.indexOf('.')
    const where = source.slice(0, dot)
    const key = source.slice(dot + 1)
    const from = where === 'response' ? res.body : where === 'body' ? input.body : where === 'path' ? input.path : input.query
    const v = from && typeof from === 'object' && !Array.isArray(from) ? (from as Record<string, unknown>)[key] : undefined
    if (v !== undefined && v !== null) return String(v)
  }
  return undefined
}

/** The get request --wait polls, from the spec's wait target, the first answer and the request's input. */
export function pollOf(op: OperationSpec, id: EndpointId, res: ApiResponse, input: CallInput): PollSpec & {states: NonNullable<PollSpec['states']>} {
  const w = op.wait!
  let pollInput: CallInput
  if (w.get === 'self') pollInput = {path: input.path, query: input.query}
  else {
    const fill = (m: Record<string, readonly ValueSource[]> | undefined) => (m ? Object.fromEntries(Object.entries(m).map(([k, s]) => [k, pick(s, res, input) ?? ''])) : undefined)
    pollInput = {path: fill(w.path), query: fill(w.query)}
  }
  // the sub-account the request went to (`pay api -H 'X-Service-Account-Ref: …'`) is the one its resource is looked up in
  const accountRef = input.headers && Object.entries(input.headers).find(([k]) => k.toLowerCase() === ACCOUNT_REF_HEADER)?.[1]
  if (accountRef) pollInput.headers = {[ACCOUNT_REF_HEADER]: accountRef}
  const name = w.label ? pick(w.label, res, input) : Object.values({...pollInput.path, ...pollInput.query})[0]
  return {id: w.get === 'self' ? id : w.get, input: pollInput, label: `${w.noun} ${name ?? ''}`.trim(), view: w.view, states: {succeeded: w.succeeded, failed: w.failed, pending: w.pending}}
}

/** Whether an answer of this endpoint may already be the end of a transaction (createEnded): a create's, whose resource has a state. */
export function answerMayEnd(op: OperationSpec | undefined, id: EndpointId): boolean {
  return op?.wait !== undefined && endpoints[id].idempotent
}

/**
 * A create's answer (or, on a re-run, its resource as looked up now: `now`) already in one of the resource's final
 * failed states, a payout answered 201 `failed` for insufficient funds: the transaction ended failed, with or without
 * --wait, as a wait that ended so (reportWait: the state, the service's reason, exit 8). One rule for a command, a
 * flow step and a tool call (bulk rows count it failed by the same classifyState). Undefined for any other answer,
 * and for a lookup: a get reports the state it finds (its --wait makes that an outcome).
 */
export function createEnded(op: OperationSpec, id: EndpointId, input: CallInput, sent: ApiResponse, now: ApiResponse = sent): WaitResult | undefined {
  if (!answerMayEnd(op, id)) return undefined
  const ended = settledAnswer(pollOf(op, id, sent, input), now)
  return ended?.outcome === 'failed' ? ended : undefined
}

/** Problems of the given values that are not about one request field: flag combinations. */
function optionProblems(op: OperationSpec, values: Given): FieldProblem[] {
  const problems: FieldProblem[] = []
  const key = values['idempotency-key']
  if (typeof key === 'string' && key.trim() === '') problems.push({flag: '--idempotency-key', rule: 'must not be empty'})
  const paging = op.paging && given(values, op.paging.flag) ? op.paging : undefined
  for (const name of paging?.exclusive ?? []) if (given(values, name)) problems.push({flag: `--${name}`, rule: `cannot be combined with --${paging!.flag} (which follows every page from the first)`})
  const waitTimeout = op.wait ? waitTimeoutProblem(values) : undefined
  if (waitTimeout) problems.push(waitTimeout)
  return problems
}

/** What gatherInput needs for the selected endpoint of an operation. */
export function gatherSpecOf(op: OperationSpec, choice: Selection, values: Given): GatherSpec {
  return {id: choice.id, fields: inputFields(op, choice.id, values, choice.label), fixedBody: op.fixedBody, problems: [...choice.problems, ...optionProblems(op, values)]}
}

/**
 * Runs one operation. Returns the exit code (0; 8 when a create is answered failed, or a wait ends failed; 9 after
 * --wait-timeout), so that under --json stdout still holds exactly one body: the service's last answer.
 */
export async function runOperation(ctx: ApiContext, op: OperationSpec, values: Given): Promise<number> {
  const choice = await chooseEndpoint(ctx, op, values)
  const idempotencyKey = values['idempotency-key'] as string | undefined
  const limit = typeof values.limit === 'number' ? values.limit : undefined
  // --all, or --limit without --page: follow the pages (as far as the limit)
  const paging = op.paging && (given(values, op.paging.flag) || (limit !== undefined && !given(values, 'page'))) ? op.paging : undefined
  const {input} = await gatherInput(ctx, {...gatherSpecOf(op, choice, values), extra: {data: values.data as string | undefined, field: values.field as string[] | undefined}})
  if (idempotencyKey !== undefined) input.idempotencyKey = idempotencyKey
  if (paging) return allPages(ctx, op, choice.id, input, paging.noun, limit)
  const {client, out} = ctx
  const prepared = client.prepare(choice.id, input)
  if (values['dry-run']) {
    renderDryRun(out, prepared, {profileName: ctx.settings.profileName, fromProfile: ctx.settings.sources.clientId === 'profile'})
    return ExitCode.OK
  }
  await confirmMoneyMove(ctx, op, input, values.yes === true)
  const sent = await client.send(prepared)
  // the same request was accepted by an earlier run (nothing was sent), or a resumed key answered, maybe with the
  // service's first answer replayed: its resource as it is now
  const looked = mayBeStale(sent) && op.wait ? await lookUpAccepted(ctx, op, choice.id, sent, input) : undefined
  const res = looked?.res ?? sent
  const refusedLink = op.open && given(values, op.open.flag) ? await openLink(ctx, (res.body as Record<string, unknown> | undefined)?.[op.open.field]) : undefined
  // a link not opened because it is no http(s) URL: said last, after what was created, and exit 1 if nothing else failed
  const orRefused = (code: number): number => {
    if (refusedLink === undefined) return code
    out.errorLine(refusedLink)
    return code === ExitCode.OK ? ExitCode.OTHER : code
  }
  // the lookup answered another resource: this one's state cannot be followed (--wait ends unresolved, exit 9)
  const later = {profile: values.profile as string | undefined, 'account-ref': values['account-ref'] as string | undefined}
  if (!op.wait || !values.wait || looked?.other) {
    renderView(out, looked?.view ?? op.view, limit === undefined ? res : limited(res, limit))
    if (looked?.other) return orRefused(values.wait ? ExitCode.WAIT_TIMEOUT : ExitCode.OK)
    // a create answered (or, re-run, found) failed has ended failed, waited for or not
    const ended = createEnded(op, choice.id, input, sent, res)
    return orRefused(ended ? reportWait(out, ended, later) : ExitCode.OK)
  }
  const poll = pollOf(op, choice.id, sent, input)
  const waited = await waitFor(ctx, {...poll, timeoutSec: Number(values['wait-timeout'] ?? DEFAULT_WAIT_TIMEOUT_SEC), first: res, noteState: sent.noteState})
  renderView(out, poll.view ?? op.view, waited.res)
  return orRefused(reportWait(out, waited, later))
}

/**
 * A re-run of a request an earlier run had accepted (the journal's answer, nothing sent): says both facts, the
 * request's ("accepted 2026-11-26 10:02 UTC as PO_…") and the resource's; when the state known then had not ended,
 * looks the resource up first (one GET, no money moves), records what it saw, and gives that answer. A lookup that
 * answers another resource (one sharing the reference) is said, naming both, and neither shown nor recorded
 * (`other`): the state stays as last seen. The one re-run rule of a command, a flow step (src/flows/run.ts) and
 * `pay api` (src/operation/raw-request.ts). The same for a resumed key's answer that may be the service's first one
 * replayed (`maybeReplayed`: its state as it was when the key was first sent), except that a state that has ended
 * needs no word: it is as final as the answer says.
 */
export async function lookUpAccepted(ctx: ApiContext, op: OperationSpec, id: EndpointId, res: ApiResponse, input: CallInput): Promise<{res: ApiResponse; view?: PollSpec['view']; other?: string} | undefined> {
  const poll = pollOf(op, id, res, input)
  const when = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`
  const mine = resourceName(res.body)
  const name = mine ?? poll.label
  const firstSent = res.maybeReplayed?.firstSentAt
  // the name and the states are the service's: made printable (a line each)
  const what = printableLine(
    res.replayedAt !== undefined
      ? `accepted ${when(res.replayedAt)} as ${name}`
      : `accepted as ${name} (its key was first sent ${firstSent === undefined ? 'before' : when(firstSent)}; the answer may be the service's first one, replayed)`,
  )
  // when the state in hand was seen: a replayed answer's, when the key was first sent (not known: "before")
  const seenAt = res.stateSeenAt ?? res.replayedAt ?? firstSent
  const seen = seenAt === undefined ? 'seen before' : `seen ${when(seenAt)}`
  const state = stateOf(res.body)
  if (classifyState(state, poll.states)) {
    if (res.replayedAt !== undefined) ctx.out.info(`${what}; state: ${printableLine(String(state))} (${seen}; it does not change any more)`)
    return undefined
  }
  try {
    const now = await ctx.client.call(poll.id, poll.input)
    const other = answeredOther(mine, now.body)
    if (other) {
      ctx.out.warnQuoting(`${what}; ${otherResourceMessage(poll.label, other, state)} (${seen})`)
      ctx.out.info(`  ${ctx.out.color('cyan', 'next:', 'err')} ${otherResourceNext(other)}`)
      return {res, other: other.id}
    }
    const fresh = stateOf(now.body)
    if (fresh !== undefined) res.noteState?.(fresh, now.text)
    ctx.out.info(`${what}; state now: ${fresh === undefined ? 'not shown' : printableLine(fresh)}`)
    return {res: now, view: poll.view}
  } catch (err) {
    ctx.out.warnQuoting(`${what}; its state could not be looked up now (${err instanceof Error ? err.message : String(err)}): showing the state ${seen}`)
    return undefined
  }
}

/**
 * --open: the service's link in the browser, and a line saying so (the URL made printable). A link that is not an
 * absolute http(s) URL is refused, nothing started: resolves the error to say then.
 */
async function openLink(ctx: ApiContext, url: unknown): Promise<string | undefined> {
  if (typeof url !== 'string') return undefined
  const {openBrowser} = await import('./browser.js')
  const result = await openBrowser(url)
  if (result === 'refused') return `the pay link the service gave is not an absolute http(s) URL, so it was not opened: ${printableLine(url)}`
  ctx.out.info(result === 'opened' ? `Opened ${printableLine(new URL(url).href)} in the browser` : `No browser available here; open ${printableLine(url)} yourself`)
  return undefined
}

/** A list answer cut to its first `limit` items (the text re-written to match). */
function limited(res: Pick<ApiResponse, 'text' | 'body' | 'differs'>, limit: number): Pick<ApiResponse, 'text' | 'body' | 'differs'> {
  const body = res.body as {data?: unknown[]} | undefined
  if (!body || !Array.isArray(body.data) || body.data.length <= limit) return res
  const cut = {...body, data: body.data.slice(0, limit)}
  return {body: cut, text: JSON.stringify(cut), differs: res.differs}
}

/**
 * --all (or --limit): every page from the first, each page's rows printed as they arrive (under --json each
 * page's body, one per line; -o ndjson/csv/tsv stream the rows), stopping after `limit` rows.
 */
async function allPages(ctx: ApiContext, op: OperationSpec, id: EndpointId, input: CallInput, noun: string, limit?: number): Promise<number> {
  const {client, out} = ctx
  const table = out.json ? undefined : new StreamTable(out, listColumns(op.view))
  const follower = new PageFollower()
  let total: unknown
  let rows = 0
  let problem: string | undefined
  for (let page = 1; ; page++) {
    const full = await client.call<{data?: Record<string, unknown>[]; has_more?: boolean; total?: number}>(id, {path: input.path, query: {...input.query, page: String(page)}})
    const step = follower.step(page, full.body?.data ?? [], full.body ?? {})
    problem = step.problem
    if (!step.show) break
    const res = limit === undefined ? full : (limited(full, limit - rows) as typeof full)
    const data = res.body?.data ?? []
    total = res.body?.total
    rows += data.length
    if (out.json) out.data(res.text.includes('\n') ? JSON.stringify(res.body) : res.text)
    else table!.push(data)
    if (!step.next || (limit !== undefined && rows >= limit)) break
  }
  if (table) out.info(out.color('dim', `${table.rows} ${noun}(s)${typeof total === 'number' ? ` of ${total}` : ''}`, 'err'))
  if (problem === undefined || (limit !== undefined && rows >= limit)) return ExitCode.OK
  out.errorLine(problem)
  return ExitCode.OTHER
}
