/**
 * Reads flow files (JSON, or YAML through the `yaml` package) and checks the whole of each before anything is
 * sent: the file's shape, each step's endpoint, path parameters, query and body against the endpoint table's zod
 * schemas, references to earlier steps, environment variables without a default. Every problem names the file,
 * the step and the field; any problem refuses the run (exit 2).
 */
import {readFileSync} from 'node:fs'
import {basename, extname} from 'node:path'
import {parse as parseYaml} from 'yaml'
import type {z} from 'zod'
import {type Endpoint, type EndpointId, endpoints, pathParams, pathValueRule} from '../api/endpoints.js'
import {InputError, type InputProblem} from '../base/errors.js'
import {ExitCode} from '../base/exit-codes.js'
import {isSecretName} from '../base/redact.js'
import {depthProblem} from '../output/json-shape.js'
import {requestFromRecord, valuesFromRecord} from '../operation/operation-input.js'
import {answerMayEnd} from '../operation/run-operation.js'
import {commandOperation, waitOperation} from './poll.js'
import {sandboxStepProblems} from './sandbox-steps.js'
import {EXIT_CLASSES, type Flow, type FlowStep, flowSchema} from './schema.js'
import {type Scope, hasReference, referencesIn, resolve} from './template.js'

/** Parses the text of a flow file: JSON when it ends in .json, YAML otherwise (YAML 1.2 reads JSON too). */
function parseFlowText(text: string, file: string): unknown {
  // bounded like every JSON pay reads from outside: a deeper file is never parsed or walked
  const deep = depthProblem(text)
  if (deep) throw new Error(deep)
  if (extname(file).toLowerCase() === '.json') return JSON.parse(text)
  return parseYaml(text, {prettyErrors: true, uniqueKeys: true})
}

function issuePath(path: PropertyKey[]): string {
  return path.map(String).join('.')
}

/** Checks one step's inputs against the endpoint; problems at fields that hold a step reference wait for the run. */
function stepProblems(step: FlowStep, earlier: Set<string>, env: Scope['env'], secrets: ReadonlySet<string> = new Set()): {field: string; rule: string}[] {
  const problems: {field: string; rule: string}[] = []
  if (step.sandbox !== undefined || step.target !== undefined) return [...sandboxStepProblems(step), ...referenceProblems(step, earlier, env, secrets)]
  if (step.command !== undefined || step.inputs !== undefined) return commandProblems(step, earlier, env, secrets)
  if (step.call === undefined) {
    problems.push({field: 'call', rule: 'is required: an endpoint id such as collections.create (or `command` with `inputs`, or `sandbox` with `target`)'})
    return problems
  }
  if (!Object.hasOwn(endpoints, step.call) || step.call === 'auth.token') {
    problems.push({field: 'call', rule: `"${step.call}" is not an endpoint id (one of: ${Object.keys(endpoints).filter((k) => k !== 'auth.token').join(', ')})`})
    return problems
  }
  const id = step.call as EndpointId
  const endpoint: Endpoint = endpoints[id]

  problems.push(...referenceProblems(step, earlier, env, secrets))
  if (problems.length > 0) return problems

  // What can be known before the run: environment and run references resolved, step references left to the run.
  const scope: Scope = {steps: {}, env, run: {id: 'check'}}
  const known = (v: unknown): unknown => resolveKnown(v, scope)

  const names = pathParams(endpoint.path)
  for (const n of names) {
    // a value known now that a URL would read as a step in the path ("." or "..") is refused as a command's argument is
    const given = step.path?.[n]
    const rule = given === undefined || given === '' ? 'is required' : pathValueRule(String(known(given)))
    if (rule) problems.push({field: `path.${n}`, rule})
  }
  for (const k of Object.keys(step.path ?? {})) if (!names.includes(k)) problems.push({field: `path.${k}`, rule: `is not a path parameter of ${endpoint.method} ${endpoint.path}`})

  const check = (where: 'query' | 'body', schema: z.ZodType | undefined, raw: unknown) => {
    if (raw === undefined) {
      if (where === 'body' && schema && endpoint.method === 'POST') checkValue(where, schema, raw, problems, {})
      return
    }
    if (!schema) {
      problems.push({field: where, rule: `${endpoint.method} ${endpoint.path} takes no ${where}`})
      return
    }
    const value = where === 'query' ? Object.fromEntries(Object.entries(known(raw) as Record<string, unknown>).map(([k, v]) => [k, typeof v === 'string' ? v : String(v)])) : known(raw)
    checkValue(where, schema, value, problems, raw)
  }
  check('query', (endpoint as {query?: z.ZodType}).query, step.query)
  check('body', (endpoint as {body?: z.ZodType}).body, step.body)
  if (step.wait && !waitOperation(id)) problems.push({field: 'wait', rule: `${id} has no state to wait for`})
  problems.push(...expectProblems(step, endpoint))
  return problems
}

/**
 * Expectations the step cannot produce, refused before anything is sent (a step that would pass them whatever
 * happened must not report healthy): with `wait`, the answer is the last poll's (a 2xx status whether the
 * transaction succeeded or failed); without it, no wait_timeout exit, no tx_failed exit but from a create (whose
 * answer may be failed already), and no 2xx status but the endpoint's own success status.
 */
function expectProblems(step: FlowStep, endpoint: Endpoint): {field: string; rule: string}[] {
  const status = step.expect?.status
  const exit = step.expect?.exit === undefined ? undefined : typeof step.expect.exit === 'number' ? step.expect.exit : EXIT_CLASSES[step.expect.exit]
  const problems: {field: string; rule: string}[] = []
  if (status !== undefined && status >= 200 && status < 300) {
    if (step.wait) problems.push({field: 'expect.status', rule: `${status} cannot tell a waited step's outcome: its answer is the last poll's (2xx whether it succeeded or failed); expect exit: ok (or fields: {status: succeeded}) instead`})
    else if (status !== endpoint.success) problems.push({field: 'expect.status', rule: `${status} is never the answer of ${endpoint.method} ${endpoint.path}: it succeeds with ${endpoint.success}`})
  }
  // a create's answer may be failed already (exit 8 without a wait); a timeout needs a wait
  if (!step.wait && exit === ExitCode.TX_FAILED && !answerMayEnd(waitOperation(endpoint.id as EndpointId), endpoint.id as EndpointId)) problems.push({field: 'expect.exit', rule: `${exit} comes only from a step that waits (wait: true) or creates a transaction`})
  if (!step.wait && exit === ExitCode.WAIT_TIMEOUT) problems.push({field: 'expect.exit', rule: `${exit} comes only from a step that waits (wait: true)`})
  return problems
}

/**
 * Malformed references, references to no earlier step, environment variables unset without a default, and
 * secret-named variables (the one redactor's patterns) that the flow does not declare under `secrets:`.
 */
function referenceProblems(step: FlowStep, earlier: Set<string>, env: Scope['env'], secrets: ReadonlySet<string>): {field: string; rule: string}[] {
  const problems: {field: string; rule: string}[] = []
  for (const ref of referencesIn(step)) {
    if (typeof ref === 'string') problems.push({field: 'reference', rule: ref})
    else if (ref.kind === 'steps' && !earlier.has(ref.name)) problems.push({field: 'reference', rule: `\${${ref.expr}} names no earlier step (steps run in order; earlier ids: ${[...earlier].join(', ') || 'none'})`})
    else if (ref.kind === 'env' && isSecretName(ref.name) && !secrets.has(ref.name)) problems.push({field: 'reference', rule: `\${${ref.expr}}: ${ref.name} looks like a secret; list it under secrets: at the top of the flow to use it (its value is then redacted in every output and report)`})
    else if (ref.kind === 'env' && ref.fallback === undefined && !env[ref.name]) problems.push({field: 'reference', rule: `\${${ref.expr}}: ${ref.name} is not set (set it, or give a default: \${env.${ref.name}:-value})`})
  }
  return problems
}

/** A `command` step: its inputs checked like the command's flags (problems at inputs holding a step reference wait). */
function commandProblems(step: FlowStep, earlier: Set<string>, env: Scope['env'], secrets: ReadonlySet<string>): {field: string; rule: string}[] {
  const problems: {field: string; rule: string}[] = []
  for (const key of ['call', 'path', 'query', 'body'] as const) if (step[key] !== undefined) problems.push({field: key, rule: 'cannot be combined with `command` (give the command its `inputs`)'})
  const op = step.command === undefined ? undefined : commandOperation(step.command)
  if (!op) {
    problems.push({field: 'command', rule: step.command === undefined ? 'is required with `inputs`: a resource command such as "collections create"' : `"${step.command}" is not a resource command of pay (e.g. "collections create")`})
    return problems
  }
  problems.push(...referenceProblems(step, earlier, env, secrets))
  if (problems.length > 0) return problems
  const inputs = resolveKnown(step.inputs ?? {}, {steps: {}, env, run: {id: 'check'}}) as Record<string, unknown>
  const later = Object.keys(step.inputs ?? {}).filter((k) => referencesIn(step.inputs![k]).some((r) => typeof r !== 'string' && r.kind === 'steps'))
  const laterLabels = new Set(later.flatMap((k) => Object.keys(valuesFromRecord(op, {[k]: 'x'}).values).flatMap((name) => [`--${name}`, name.toUpperCase()])))
  const {endpoint, problems: found} = requestFromRecord(op, Object.fromEntries(Object.entries(inputs).map(([k, v]) => [k, later.includes(k) ? 'from-an-earlier-step' : v])))
  for (const p of found) {
    // an input filled from an earlier step (a stand-in here, so that it still selects its endpoint) is checked when known
    if (laterLabels.has(p.flag) || [...laterLabels].some((l) => p.flag.startsWith(`${l} `))) continue
    problems.push({field: `inputs: ${p.flag}`, rule: p.rule})
  }
  if (step.wait && !waitOperation(endpoint)) problems.push({field: 'wait', rule: `${step.command} has nothing to wait for`})
  problems.push(...expectProblems(step, endpoints[endpoint]))
  return problems
}

/** Env and run references resolved; a string holding a step reference stays as it is (checked at run time). */
function resolveKnown(value: unknown, scope: Scope): unknown {
  if (typeof value === 'string') return referencesIn(value).some((r) => typeof r !== 'string' && r.kind === 'steps') ? value : resolve(value, scope)
  if (Array.isArray(value)) return value.map((v) => resolveKnown(v, scope))
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveKnown(v, scope)]))
  return value
}

function checkValue(where: string, schema: z.ZodType, value: unknown, problems: {field: string; rule: string}[], raw: unknown): void {
  const parsed = schema.safeParse(value)
  if (parsed.success) return
  for (const issue of parsed.error.issues) {
    // a field filled from an earlier step's answer is checked when that answer is known
    if (issue.path.length > 0 && hasReference(digRaw(raw, issue.path))) continue
    problems.push({field: issue.path.length > 0 ? `${where}.${issuePath(issue.path)}` : where, rule: issue.message})
  }
}

function digRaw(raw: unknown, path: PropertyKey[]): unknown {
  let cur = raw
  for (const k of path) {
    if (cur && typeof cur === 'object') cur = (cur as Record<string, unknown>)[String(k)]
    else return undefined
  }
  return cur
}

/** Reads and checks every file; throws one InputError (exit 2) listing every problem of every file. */
export function loadFlows(files: string[], env: Scope['env'] = process.env): Flow[] {
  const flows: Flow[] = []
  const problems: InputProblem[] = []
  for (const file of files) {
    let data: unknown
    try {
      data = parseFlowText(readFileSync(file, 'utf8'), file)
    } catch (err) {
      problems.push({flag: file, rule: `cannot be read as a flow: ${(err as Error).message.split('\n')[0]}`})
      continue
    }
    const parsed = flowSchema.safeParse(data)
    if (!parsed.success) {
      for (const issue of parsed.error.issues) problems.push({flag: `${file}: ${describePath(data, issue.path)}`, rule: issue.message})
      continue
    }
    const earlier = new Set<string>()
    const secrets = new Set(parsed.data.secrets ?? [])
    parsed.data.steps.forEach((step, i) => {
      const label = `${file}: step ${step.id} (#${i + 1})`
      if (earlier.has(step.id)) problems.push({flag: `${label}: id`, rule: 'is used by an earlier step'})
      for (const p of stepProblems(step, earlier, env, secrets)) problems.push({flag: `${label}: ${p.field}`, rule: p.rule})
      earlier.add(step.id)
    })
    flows.push({name: parsed.data.name ?? basename(file, extname(file)), file, steps: parsed.data.steps, secrets: [...secrets]})
  }
  if (problems.length > 0) throw new InputError(problems, 'fix the flow file; nothing was sent')
  return flows
}

/** "step charge (#1): expect.status" for a path into the file's data. */
function describePath(data: unknown, path: PropertyKey[]): string {
  if (path[0] === 'steps' && typeof path[1] === 'number') {
    const step = (data as {steps: {id?: unknown}[]}).steps[path[1]]
    const id = typeof step?.id === 'string' ? step.id : '?'
    return `step ${id} (#${path[1] + 1})${path.length > 2 ? `: ${issuePath(path.slice(2))}` : ''}`
  }
  return issuePath(path) || '(file)'
}

