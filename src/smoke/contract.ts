/**
 * `pay smoke --contract`: reads every read-only endpoint of the table once and says, per endpoint, where the answer
 * differs from what pay assumes (src/api/drift.ts against the endpoint's response schema), and whether every rule
 * the interface states still holds (the schema's stated reading, src/api/schemas.ts). What a team runs on its first
 * day against the real service: the report names the assumptions to change (docs/assumptions.md).
 *
 * An endpoint that needs an id or a reference is read with a probe value (`--param` gives a real one): its 404 is
 * checked against the stated error body, which is all such an answer can show.
 */
import {type Drift, driftOf} from '../api/drift.js'
import {type Endpoint, type EndpointId, endpointList, pathParams} from '../api/endpoints.js'
import {errorBody} from '../api/schemas.js'
import type {CallInput} from '../client/api-client.js'
import {ApiError, InputError, InvalidResponseError, PayError} from '../base/errors.js'
import {ExitCode} from '../base/exit-codes.js'
import type {ApiContext} from '../operation/api-context.js'
import {printableDeep} from '../output/printable.js'
import {listTable} from '../output/table.js'

/** The value given to a path or query parameter no `--param` names: an id or reference nobody has. */
const PROBE_VALUE = 'pay-contract-probe'

type ContractVerdict = 'as-assumed' | 'differs' | 'breaks-stated-rule' | 'not-found' | 'not-enabled' | 'failed'

interface EndpointReport {
  endpoint: EndpointId
  method: string
  path: string
  /** HTTP status of the answer (undefined when none came). */
  status?: number
  verdict: ContractVerdict
  /** Whether every rule the interface states holds for this answer (false only when one is broken). */
  stated_rules_hold: boolean
  /** Where the answer differs from pay's assumptions (empty when it does not). */
  drift: Drift[]
  /** A stated rule broken, or why there is no answer. */
  problems?: string[]
  /** The probe values sent (path and query), so a 404 is read for what it is. */
  probe?: Record<string, string>
}

interface ContractReport {
  ok: boolean
  base_url: string
  exit_code: number
  endpoints: EndpointReport[]
}

/** Every read-only endpoint of the table: the GETs. */
function readOnlyEndpoints(): Endpoint[] {
  return endpointList.filter((e) => e.method === 'GET')
}

/** The `--param NAME=VALUE` values: a parameter of any endpoint (`id`, `merchant_reference`, `mandate_id`), or ENDPOINT.NAME for one. */
function parseParams(given: readonly string[] = []): Record<string, string> {
  const params: Record<string, string> = {}
  for (const pair of given) {
    const eq = pair.indexOf('=')
    if (eq <= 0 || eq === pair.length - 1) throw InputError.one('--param', `must be NAME=VALUE (got ${JSON.stringify(pair)}), such as merchant_reference=order-42 or collections.get.id=CL_123`)
    const name = pair.slice(0, eq)
    if (!paramNames().has(name)) throw InputError.one('--param', `names no parameter of a read-only endpoint: ${JSON.stringify(name)} (known: ${[...paramNames()].filter((n) => !n.includes('.')).join(', ')}, or ENDPOINT.NAME such as collections.get.id)`)
    params[name] = pair.slice(eq + 1)
  }
  return params
}

/** Every parameter a read-only endpoint needs, by NAME and by ENDPOINT.NAME. */
function paramNames(): Set<string> {
  const names = new Set<string>()
  for (const e of readOnlyEndpoints()) {
    for (const name of [...pathParams(e.path), ...requiredQuery(e)]) names.add(name).add(`${e.id}.${name}`)
  }
  return names
}

/** The input of one endpoint: each required parameter from --param (ENDPOINT.NAME first, then NAME), else the probe. */
function inputOf(endpoint: Endpoint, params: Record<string, string>): {input: CallInput; probe: Record<string, string>} {
  const value = (name: string) => params[`${endpoint.id}.${name}`] ?? params[name]
  const probe: Record<string, string> = {}
  const fill = (names: string[]) => {
    const out: Record<string, string> = {}
    for (const name of names) {
      const given = value(name)
      out[name] = given ?? PROBE_VALUE
      if (given === undefined) probe[name] = PROBE_VALUE
    }
    return out
  }
  const query = requiredQuery(endpoint)
  const input: CallInput = {}
  const path = pathParams(endpoint.path)
  if (path.length > 0) input.path = fill(path)
  if (query.length > 0) input.query = fill(query)
  return {input, probe}
}

/** The required query parameters of an endpoint (those its query schema rejects when absent). */
function requiredQuery(endpoint: Endpoint): string[] {
  const query = endpoint.query
  if (!query) return []
  const issues = query.safeParse({}).error?.issues ?? []
  return [...new Set(issues.map((i) => String(i.path[0])).filter((k) => k !== 'undefined'))]
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** Reads one endpoint and compares its answer with the assumptions. */
async function checkEndpoint(ctx: ApiContext, endpoint: Endpoint, params: Record<string, string>): Promise<EndpointReport> {
  const {input, probe} = inputOf(endpoint, params)
  const base = {endpoint: endpoint.id as EndpointId, method: endpoint.method, path: endpoint.path, ...(Object.keys(probe).length > 0 ? {probe} : {})}
  try {
    const res = await ctx.client.call(endpoint.id as EndpointId, input)
    const drift = driftOf(endpoint.response, res.body)
    return {...base, status: res.status, verdict: drift.length === 0 ? 'as-assumed' : 'differs', stated_rules_hold: true, drift}
  } catch (err) {
    if (err instanceof InvalidResponseError) {
      const body = parsed(err.received)
      const drift = body === undefined ? [] : driftOf(endpoint.response, body)
      return {...base, status: err.status, verdict: 'breaks-stated-rule', stated_rules_hold: false, drift, problems: err.schemaProblems.length > 0 ? err.schemaProblems : [err.message]}
    }
    if (err instanceof ApiError && (err.status === 404 || err.status === 403)) {
      // an error answer: the one thing it can show is the error body the interface states
      const drift = driftOf(errorBody(), err.body)
      const holds = errorBody().safeParse(err.body).success
      return {...base, status: err.status, verdict: holds ? (err.status === 404 ? 'not-found' : 'not-enabled') : 'breaks-stated-rule', stated_rules_hold: holds, drift, ...(holds ? {} : {problems: ['the error body is not {"error":{"code","message",…}}']})}
    }
    throw err
  }
}

/** Runs the contract check over every read-only endpoint, one after the other (each endpoint once). */
async function runContract(ctx: ApiContext, options: {params?: Record<string, string>; onEndpoint?: (r: EndpointReport) => void} = {}): Promise<ContractReport> {
  const reports: EndpointReport[] = []
  let exit: number = ExitCode.OK
  for (const endpoint of readOnlyEndpoints()) {
    let report: EndpointReport
    try {
      report = await checkEndpoint(ctx, endpoint, options.params ?? {})
    } catch (err) {
      // no answer to compare (credentials, network, another refusal): said, and the run's exit code
      const code = err instanceof PayError ? err.exitCode : ExitCode.NETWORK
      if (exit === ExitCode.OK) exit = code
      report = {endpoint: endpoint.id as EndpointId, method: endpoint.method, path: endpoint.path, ...(err instanceof ApiError ? {status: err.status} : {}), verdict: 'failed', stated_rules_hold: true, drift: [], problems: [(err as Error).message]}
      if (code === ExitCode.AUTH) {
        reports.push(report)
        options.onEndpoint?.(report)
        break
      }
    }
    if (!report.stated_rules_hold && exit === ExitCode.OK) exit = ExitCode.NETWORK
    reports.push(report)
    options.onEndpoint?.(report)
  }
  return {ok: exit === ExitCode.OK, base_url: ctx.client.shownBaseUrl(), exit_code: exit, endpoints: reports}
}

const VERDICT_TEXT: Record<ContractVerdict, string> = {
  'as-assumed': 'as assumed',
  differs: 'differs (stated rules hold)',
  'breaks-stated-rule': 'BREAKS A STATED RULE',
  'not-found': 'not found (probe; error body as stated)',
  'not-enabled': 'not enabled (403; error body as stated)',
  failed: 'FAILED (no answer to compare)',
}

/** The report for people: one row per endpoint, then each difference under its endpoint. */
function contractText(report: ContractReport, tty: boolean): string {
  const safe = printableDeep(report)
  const rows = safe.endpoints.map((e) => [e.endpoint, `${e.method} ${e.path}`, e.status === undefined ? '-' : String(e.status), VERDICT_TEXT[e.verdict], String(e.drift.length)])
  const lines = [listTable(['endpoint', 'request', 'status', 'verdict', 'differences'], rows, tty)]
  for (const e of safe.endpoints) {
    if (e.drift.length === 0 && !e.problems) continue
    lines.push('', `${e.endpoint} (${e.method} ${e.path}):`)
    for (const p of e.problems ?? []) lines.push(`  ${e.verdict === 'failed' ? 'error' : 'stated rule'}: ${p}`)
    for (const d of e.drift) lines.push(`  ${d.kind.padEnd(7)} ${d.path}: expected ${d.expected}, got ${d.actual}`)
  }
  const drifted = safe.endpoints.filter((e) => e.drift.length > 0).map((e) => e.endpoint)
  lines.push('', drifted.length === 0 ? 'no drift: every answer has the shape pay assumes' : `drift in ${drifted.length} endpoint(s): ${drifted.join(', ')} (docs/assumptions.md says where each assumption lives)`)
  return lines.join('\n')
}

/** What `pay smoke --contract` prints and returns (its exit code). */
export async function runContractCommand(ctx: ApiContext, given: readonly string[] | undefined): Promise<number> {
  const params = parseParams(given)
  const {out} = ctx
  const report = await runContract(ctx, {params})
  if (out.json) out.data(JSON.stringify(report))
  else out.data(contractText(report, out.term.stdoutIsTTY))
  if (!report.ok) out.errorLine(report.endpoints.some((e) => !e.stated_rules_hold) ? 'the service breaks a rule the interface states (see above): exit 7' : 'some endpoints gave no answer to compare (see above)')
  return report.exit_code
}

