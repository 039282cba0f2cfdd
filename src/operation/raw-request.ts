/**
 * `pay api`'s run function: the raw request checked (headers, --paginate, --slurp), its body built from --data and
 * -F, prepared from the endpoint table (or any path), then a dry run, or the live-money question where it applies and
 * the request sent: one answer printed, or every page of a list with --paginate.
 */
import type {ApiClient, ApiResponse, PreparedRequest} from '../client/api-client.js'
import type {EndpointId} from '../api/endpoints.js'
import {mayBeStale, splitPath} from '../client/api-client.js'
import {InputError} from '../base/errors.js'
import {ExitCode} from '../base/exit-codes.js'
import {renderDryRun} from '../output/dry-run.js'
import type {Output} from '../output/output.js'
import {forStdout, printable} from '../output/printable.js'
import type {ApiContext} from './api-context.js'
import {rawBodyInput} from './body-input.js'
import {PageFollower} from './paging.js'

interface ApiOptions {
  method: string
  path: string
  data?: string
  field?: string[]
  header?: string[]
  include?: boolean
  'allow-any-path'?: boolean
  paginate?: boolean
  slurp?: boolean
  'idempotency-key'?: string
  'dry-run'?: boolean
  yes?: boolean
  /** The output flags that --slurp cannot be combined with. */
  jq?: string
  output?: string
  fields?: string
}

/**
 * Runs `pay api`; `open` gives the context (client, Output, settings) once the input is checked, so a bad header
 * or flag exits 2 before any profile is read. Returns the exit code (failures throw, for the caller to render).
 */
export async function runApi(options: ApiOptions, open: () => Promise<ApiContext>): Promise<number> {
  const method = options.method.toUpperCase()
  const headers = requestHeaders(options.header)
  if (options.paginate && method !== 'GET') throw InputError.one('--paginate', 'works only with GET')
  if (options.slurp && (options.jq !== undefined || !['table', 'json', 'ndjson'].includes(options.output ?? 'json') || options.fields !== undefined)) throw InputError.one('--slurp', 'cannot be combined with --jq, --fields or -o csv|tsv|yaml (it prints one JSON array)')
  // checks and the confirmation read `body`; `sent` keeps every number as written (a JS number would round 2^64)
  const {body, sent} = await rawBodyInput(options.data, options.field)
  const ctx = await open()
  const {client, out, settings} = ctx
  const allowAnyPath = options['allow-any-path']
  const req = client.prepareRaw(method, options.path, {body: sent, headers, idempotencyKey: options['idempotency-key']}, {allowAnyPath})
  if (options['dry-run']) {
    renderDryRun(out, req, {profileName: settings.profileName, fromProfile: settings.sources.clientId === 'profile'})
    return 0
  }
  // a money-moving endpoint with a live profile: the rule of src/operation/confirm.ts, as for its resource command
  const {liveMoneyGate, moneyOperation, movesMoney, confirmationLines} = await import('./confirm.js')
  const money = moneyOperation(req.endpoint?.id)
  if (money && movesMoney(money, {body})) await liveMoneyGate({client, out, settings}, Boolean(options.yes), () => confirmationLines(money, {body}, settings.profileName))
  // a write to a path that is no endpoint pay knows may move money all the same (a lenient server): asked too
  else if (!req.endpoint && method !== 'GET' && method !== 'HEAD') await liveMoneyGate({client, out, settings}, Boolean(options.yes), () => [printable(`LIVE profile "${settings.profileName}": ${method} ${options.path} is no endpoint pay knows, and it may move money`)])
  const shown = forStdout(out.term.stdoutIsTTY)
  if (options.paginate) {
    return paginate(client, out, options.path, {headers, slurp: Boolean(options.slurp), allowAnyPath, shown})
  }
  // -i: the status line and headers of any answer, an error's too (on stderr, made printable)
  const include = (status: number, headers: Record<string, string> = {}) => {
    if (!options.include) return
    out.info(`HTTP ${status}`)
    for (const [k, v] of Object.entries(headers)) out.info(printable(`${k}: ${v}`))
  }
  const res = await client.send(req).catch((err: {status?: unknown; responseHeaders?: Record<string, string>}) => {
    if (typeof err.status === 'number') include(err.status, err.responseHeaders)
    throw err
  })
  include(res.status, res.headers)
  const answer = (await lookedUpNow(ctx, req, res)) ?? res
  if (answer.body === undefined) out.data(shown.text(answer.text))
  else out.data(shown.json(out.json ? answer.text : JSON.stringify(answer.body, null, 2)))
  return 0
}

/**
 * A re-run of a create the service accepted earlier (the journal's answer: nothing was sent) whose state then had not
 * ended: its resource as it is now (one GET), said as the command's re-run says it ("accepted … as PO_…; state now:
 * failed", lookUpAccepted), so the earlier answer is never printed as if it were the state now. Undefined when the
 * earlier answer stands (not a replay, no state to follow, or the lookup did not tell).
 */
async function lookedUpNow(ctx: ApiContext, req: PreparedRequest, res: ApiResponse): Promise<ApiResponse | undefined> {
  const id = req.endpoint?.id as EndpointId | undefined
  if (!mayBeStale(res) || id === undefined) return undefined
  // loaded only for a replay: `pay api` starts without the operation specs
  const [{waitOperation}, {lookUpAccepted}, {pathParamsOf}] = await Promise.all([import('./wait.js'), import('./run-operation.js'), import('../api/kinds.js')])
  const op = waitOperation(id)
  if (!op) return undefined
  let body: unknown
  try {
    body = req.body === undefined ? undefined : JSON.parse(req.body)
  } catch {
    return undefined // not JSON: no reference to look it up by
  }
  // its headers: the lookup goes to the sub-account the request named (`-H 'X-Service-Account-Ref: …'`; pollOf)
  const looked = await lookUpAccepted(ctx, op, id, res, {path: pathParamsOf(req.endpoint!.path, req.url), body, headers: req.headers})
  return looked?.other ? undefined : looked?.res
}

/** -H 'Name: value' as lower-case names; Authorization is refused (the token comes from the profile). */
function requestHeaders(given: string[] = []): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const h of given) {
    const i = h.indexOf(':')
    if (i <= 0) throw InputError.one('-H', `"${h}" must be 'Name: value'`)
    const name = h.slice(0, i).trim().toLowerCase()
    if (name === 'authorization') throw InputError.one('-H', 'must not set Authorization: the token comes from the profile')
    headers[name] = h.slice(i + 1).trim()
  }
  return headers
}

type Shown = ReturnType<typeof forStdout>

/**
 * --paginate: GET page 1, 2, … of the path (its other query parameters kept, a #fragment dropped) while the answer says has_more,
 * writing each page's items as they arrive; an answer that is not a list is printed once. Memory holds one page.
 * Paging stops by the rule of src/operation/paging.ts; stopped short of the end, it says why and exits 1.
 */
async function paginate(client: ApiClient, out: Output, path: string, options: {headers: Record<string, string>; slurp: boolean; allowAnyPath?: boolean; shown: Shown}): Promise<number> {
  const {headers, slurp, allowAnyPath, shown} = options
  // cut where the request itself is cut (at `?` or `#`; a fragment is never sent), else a `#` before the query
  // would hide the page parameter and the first page would come back forever
  const [base, query] = splitPath(path)
  const params = new URLSearchParams(query)
  // without --jq, --fields or another format, items are written as they are (one per line, or one array)
  const plain = !out.options.jq && !out.options.fields && ['table', 'json', 'ndjson'].includes(out.format)
  const follower = new PageFollower()
  let problem: string | undefined
  let written = 0
  if (slurp) out.chunk('[')
  for (let page = Number(params.get('page') ?? '1'); ; page++) {
    params.set('page', String(page))
    const res = await client.send(client.prepareRaw('GET', `${base}?${params.toString()}`, {headers}, {allowAnyPath}))
    const body = res.body as {data?: unknown[]; has_more?: boolean; total?: unknown} | undefined
    const items = body && Array.isArray(body.data) ? body.data : undefined
    if (!items) {
      // not a list: the answer itself, once
      if (slurp) out.chunk(`${shown.json(JSON.stringify(res.body ?? null))}]\n`)
      else if (plain) out.data(shown.json(JSON.stringify(res.body ?? null)))
      else out.data(res.body === undefined ? shown.text(res.text) : shown.json(res.text))
      return ExitCode.OK
    }
    const step = follower.step(page, items, body!)
    problem = step.problem
    if (!step.show) break
    if (slurp) for (const item of items) out.chunk(`${written++ === 0 ? '\n' : ',\n'}${shown.json(JSON.stringify(item))}`)
    else if (plain) for (const item of items) out.data(shown.json(JSON.stringify(item)))
    else out.data(shown.json(JSON.stringify(body)))
    if (!step.next) break
  }
  if (slurp) out.chunk(written === 0 ? ']\n' : '\n]\n')
  if (problem === undefined) return ExitCode.OK
  out.errorLine(problem)
  return ExitCode.OTHER
}
