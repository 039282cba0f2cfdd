/**
 * The checking pass of a bulk run, and the spool it leaves for sending. Every row is read and checked with the single
 * command's rules (any bad row: exit 2, each one listed, nothing sent); while all are good, each row's request is
 * built, keyed and written to the spool (src/bulk/spool.ts). What must be known across rows is sorted on disk
 * (src/journal/sorted-spool.ts), never held per row: a reference on more than one row (refused), and a body that
 * comes again (its key counts its occurrences: only rows without a reference can).
 */
import {hash as sha256Of} from 'node:crypto'
import {type CallInput, type PreparedRequest, requestBodyText} from '../client/api-client.js'
import type {EndpointId} from '../api/endpoints.js'
import {uuidOfHex} from '../base/digest.js'
import {InputError, type InputProblem} from '../base/errors.js'
import type {ApiContext} from '../operation/api-context.js'
import {type BulkInput, type InputRow, RowSyntaxError, readRowChunks} from './input.js'
import type {BulkOperation, BulkRecord, BulkRequest} from './operation.js'
import {MoneyTotals} from './report.js'
import {RowSpool, type SpooledRow} from './spool.js'
import {SortedRecords, hexWords} from '../journal/sorted-spool.js'

/** Problems listed in full before the rest are only counted. */
const MAX_LISTED_PROBLEMS = 1000

/** An endpoint's request as the first row built it, and its URL's origin: every row's request is it with the row's target, body and key. */
interface Template {
  request: PreparedRequest
  origin: string
}

/** What the checking pass hands to the sending pass. */
export interface Checked {
  /** Rows in the file. */
  total: number
  /** Money of every row, per currency (the confirmation shows it). */
  totals: MoneyTotals
  /** The rows ready to send, in file order, each keyed as the first occurrence of its body. */
  spool: RowSpool
  /** Rows whose body came before in the file: (row, occurrence) records, in row order (their key is derived again). */
  repeats: SortedRecords
  templates: Map<EndpointId, Template>
  /** Seconds the pass took. */
  seconds: string
}

/** What a row's request is made of, as check() needs it from the run. */
interface CheckRun {
  op: BulkOperation
  defaults: Record<string, string | undefined>
}

/** Stands for the row's key while its request is first built: the key is derived from that request's bytes. */
const KEY_PLACEHOLDER = 'derived-from-the-row'

/**
 * The scope of a row's key: method and URL (so operation and base URL), client id, account ref, and --force-new's
 * salt. A create has one URL; a path with an id (mandates cancel) one per row: only the first 64 are remembered.
 */
export function keyScopes(ctx: ApiContext, salt: string): (method: string, url: string) => string {
  const {settings} = ctx
  const scopes = new Map<string, string>()
  return (method, url) => {
    const id = `${method} ${url}`
    let scope = scopes.get(id)
    if (scope === undefined) {
      scope = JSON.stringify({v: 2, method, url, client: settings.clientId ?? '', account: settings.accountRef ?? '', salt})
      if (scopes.size < 64) scopes.set(id, scope)
    }
    return scope
  }
}

/**
 * Check -> spool: every row checked (exit 2 with each problem when any); the good rows' requests spooled in file
 * order, keyed; then, from the sorted spools, the references on more than one row refused and the repeated bodies
 * found.
 */
export async function check(ctx: ApiContext, run: CheckRun, input: BulkInput, salt: string, dir: string): Promise<Checked> {
  const started = Date.now()
  const spool = new RowSpool(dir)
  const references = new SortedRecords(dir, 6) // reference hash (4 words: 128 bits), line, row
  const bodies = new SortedRecords(dir, 5) // body hash (4 words: 128 bits), row
  const repeats = new SortedRecords(dir, 2) // row, occurrence
  const templates = new Map<EndpointId, Template>()
  try {
    const totals = new MoneyTotals()
    const keep = spooler(ctx, keyScopes(ctx, salt), spool, templates, references, bodies)
    const total = await validateAll(input, run, totals, keep)
    spool.close()
    await refuseRepeatedReferences(input, references, spool)
    await findRepeats(bodies, repeats)
    return {total, totals, spool, repeats, templates, seconds: ((Date.now() - started) / 1000).toFixed(1)}
  } catch (err) {
    spool.dispose()
    repeats.dispose()
    throw err
  } finally {
    references.dispose()
    bodies.dispose()
  }
}

/**
 * What the checking pass does with each good row, in file order: builds its request, keys it (rowKey: scope, body
 * bytes, first occurrence) and spools it; notes its reference and body hash in the sorted spools. `templates` keeps
 * one request per endpoint: a row's request is its endpoint's with the row's URL, body and key. An endpoint whose URL
 * is the same for every row (no path parameter, no query) has its method, URL and key scope built by its first row
 * only: a later row of it needs only its body's bytes, made by the rule prepare makes them by (requestBodyText).
 */
function spooler(ctx: ApiContext, scopeOf: (method: string, url: string) => string, spool: RowSpool, templates: Map<EndpointId, Template>, references: SortedRecords, bodies: SortedRecords): Keep {
  const {client} = ctx
  const fixed = new Map<EndpointId, {target: string; scope: string}>()
  return (r, {endpoint, input}, money) => {
    let target: string
    let scope: string
    let body: string | undefined
    const same = fixed.get(endpoint)
    if (same !== undefined && input.body !== undefined && sameUrlForAll(input)) {
      ;({target, scope} = same)
      body = requestBodyText(input.body) // the bytes prepare sends, by its own rule
    } else {
      input.idempotencyKey = KEY_PLACEHOLDER // the row's own input object (the operation built it for this row)
      const bare = client.prepare(endpoint, input)
      const url = splitUrl(bare.url)
      target = url.target
      scope = scopeOf(bare.method, bare.url)
      body = bare.body
      if (!templates.has(endpoint)) {
        templates.set(endpoint, {request: {...bare, retries: 0}, origin: url.origin}) // sendRow retries rows itself
        if (sameUrlForAll(input)) fixed.set(endpoint, {target, scope})
      }
    }
    const hash = bodyHash(body ?? '')
    // a reference names one request: one row of the file (checked once every row is read: refuseRepeatedReferences)
    if (money.reference !== null) {
      const ref = sha256Of('sha256', money.reference, 'hex')
      references.add(hexWords(ref, 0), hexWords(ref, 1), hexWords(ref, 2), hexWords(ref, 3), r.line, r.row)
    }
    // a body that comes again: only a row without a reference can be one that is sent (the reference is in the body's
    // bytes, so a body that comes again repeats its reference, and the run is refused)
    else bodies.add(hexWords(hash, 0), hexWords(hash, 1), hexWords(hash, 2), hexWords(hash, 3), r.row) // 128 bits tell bodies apart
    spool.add({row: r.row, line: r.line, endpoint, target, body, bodySha256: body === undefined ? undefined : hash, key: rowKeyOfHash(scope, hash, 1), path: input.path, query: input.query, reference: money.reference, amount: money.amount, currency: money.currency})
  }
}

/** A row whose request has no path values, query or headers of its own: its URL and headers are its endpoint's. */
function sameUrlForAll(input: CallInput): boolean {
  return input.path === undefined && input.query === undefined && input.headers === undefined
}

/**
 * A reference on more than one row of the file, whatever the bodies: exit 2 naming each repeated line and the line it
 * repeats (the first with it), nothing sent. A reference names one payment: two identical rows would pay twice, and
 * a lookup by the reference would find one of them. Sorted by reference hash (128 bits) and line, a reference's
 * first line comes first; the rows found are then checked by their reference's text (read from the spool).
 */
async function refuseRepeatedReferences(input: BulkInput, references: SortedRecords, spool: RowSpool): Promise<void> {
  const found: {line: number; row: number; firstLine: number; firstRow: number}[] = []
  let more = 0
  // the first record of the current reference (its 4 hash words, line, row); records compared in place, no copy each
  const first = new Uint32Array(6)
  let any = false
  for await (const recs of references.sorted()) {
    for (let i = 0; i < recs.length; i += 6) {
      if (!any || recs[i] !== first[0] || recs[i + 1] !== first[1] || recs[i + 2] !== first[2] || recs[i + 3] !== first[3]) {
        for (let k = 0; k < 6; k++) first[k] = recs[i + k]
        any = true
      } else if (found.length < MAX_LISTED_PROBLEMS) found.push({line: recs[i + 4], row: recs[i + 5], firstLine: first[4], firstRow: first[5]})
      else more++
    }
  }
  if (found.length === 0) return
  // the references of those rows, as written (a hash shared by two references is no repeat)
  const wanted = new Map<number, string | null>()
  for (const f of found) wanted.set(f.row, null).set(f.firstRow, null)
  for await (const rows of spool.chunks()) for (const r of rows) if (wanted.has(r.row)) wanted.set(r.row, r.reference)
  const problems: InputProblem[] = found
    .filter((f) => wanted.get(f.row) === wanted.get(f.firstRow))
    .sort((a, b) => a.line - b.line)
    .map((f) => ({
      flag: `${input.name}:${f.line} reference`,
      rule: `${JSON.stringify(wanted.get(f.row))} is also on line ${f.firstLine}: a reference names one payment; remove the repeated row or give it its own reference`,
      line: f.line,
    }))
  if (problems.length === 0) return
  if (more > 0) problems.push({flag: input.name, rule: `has ${more} more problem(s) not listed`})
  throw new InputError(problems, 'nothing was sent: fix these rows (or the flags) and run the same command again')
}

/** The rows whose body came before in the file, with which occurrence of it they are, into `repeats` (row order). */
async function findRepeats(bodies: SortedRecords, repeats: SortedRecords): Promise<void> {
  let h0 = -1
  let h1 = -1
  let h2 = -1
  let h3 = -1
  let occurrence = 0
  for await (const recs of bodies.sorted()) {
    for (let i = 0; i < recs.length; i += 5) {
      const same = recs[i] === h0 && recs[i + 1] === h1 && recs[i + 2] === h2 && recs[i + 3] === h3
      occurrence = same ? occurrence + 1 : 1
      h0 = recs[i]
      h1 = recs[i + 1]
      h2 = recs[i + 2]
      h3 = recs[i + 3]
      if (occurrence > 1) repeats.add(recs[i + 4], occurrence)
    }
  }
}

/**
 * A URL as its scheme, user info and host (`origin`) and the rest (`target`: path and query). The spool keeps only
 * the target: a password in the base URL never reaches the disk; the origin is the same for every row.
 */
export function splitUrl(url: string): {origin: string; target: string} {
  const slash = url.indexOf('/', url.indexOf('//') + 2)
  return slash < 0 ? {origin: url, target: '/'} : {origin: url.slice(0, slash), target: url.slice(slash)}
}

/** A UUID-shaped key from any text: the same text, the same key. */
function uuidOf(text: string): string {
  return uuidOfHex(sha256Of('sha256', text, 'hex')) // one-shot: no Hash object per row
}

/**
 * A row's Idempotency-Key: the scope (keyScopes), the SHA-256 of the row's exact body bytes, and which occurrence of
 * that same body in the file this row is (1st, 2nd, ...). Nothing else in the file counts: an unchanged row keeps its
 * key when other rows are edited or the file is re-saved (CRLF, BOM), so the service replays its stored answer
 * instead of moving money again.
 */
export function rowKey(scope: string, body: string, occurrence: number): string {
  return rowKeyOfHash(scope, bodyHash(body), occurrence)
}

/** The SHA-256 (hex) of a row's body bytes. */
export function bodyHash(body: string): string {
  return sha256Of('sha256', body, 'hex')
}

function rowKeyOfHash(scope: string, hash: string, occurrence: number): string {
  return uuidOf(`${scope}\n${hash}\n${occurrence}`)
}

/**
 * The row's record: the flags' defaults, then the row's own values (a row's value wins). Without a default (no
 * flag given a value), the row's values as they are: the operation only reads its record.
 */
function recordsOf(run: CheckRun): (r: InputRow) => BulkRecord {
  const given = Object.values(run.defaults).some((v) => v !== undefined)
  return given ? (r) => ({...run.defaults, ...r.values}) : (r) => r.values
}

/** What a row's body says of its money and reference (strings, else null): for the totals, the spool and the report. */
function moneyOf(body: unknown): Pick<SpooledRow, 'reference' | 'amount' | 'currency'> {
  const b = (body ?? {}) as {amount?: unknown; currency?: unknown; merchant_reference?: unknown}
  const text = (v: unknown) => (typeof v === 'string' ? v : null)
  return {reference: text(b.merchant_reference), amount: text(b.amount), currency: text(b.currency)}
}

/** What the checking pass hands on for each good row, in file order. */
type Keep = (r: InputRow, req: BulkRequest, money: Pick<SpooledRow, 'reference' | 'amount' | 'currency'>) => void

/**
 * Every row checked; exit 2 with each problem when any. Returns the number of rows. While no row has had a problem,
 * `keep` gets each row's request (in file order).
 */
export async function validateAll(input: BulkInput, run: CheckRun, totals: MoneyTotals, keep?: Keep): Promise<number> {
  const problems: InputProblem[] = []
  let more = 0
  const reported = new Set<string>()
  const add = (line: number, flag: string, rule: string) => {
    if (problems.length < MAX_LISTED_PROBLEMS) problems.push({flag: `${input.name}:${line} ${flag}`, rule, line})
    else more++
  }
  let rows = 0
  const recordOf = recordsOf(run)
  for await (const chunk of readRowChunks(input)) {
    for (const r of chunk) {
      if (r instanceof RowSyntaxError) {
        add(r.line, r.what, r.message)
        continue
      }
      rows++
      const checked = run.op.request(recordOf(r))
      if (checked.problems.length === 0) {
        const money = moneyOf(checked.input.body)
        // only money the request moves (a mandate's amount is a ceiling of later debits; a plan's is not in the row)
        const charge = run.op.charge(() => checked.input)
        if (charge === 'amount') totals.add(money.amount, money.currency)
        else if (charge === 'plan') totals.planRows++
        if (problems.length === 0) keep?.(r, checked, money)
      }
      for (const p of checked.problems) {
        // a column that is not an input is a problem of the header: listed once, at the CSV's header line (a JSON
        // Lines file has none: the first line showing it)
        const column = p.flag.startsWith('column "')
        if (column) {
          if (reported.has(p.flag + p.rule)) continue
          reported.add(p.flag + p.rule)
        }
        add(column ? (input.headerLine ?? r.line) : r.line, p.flag, p.rule)
      }
    }
  }
  if (more > 0) problems.push({flag: `${input.name}`, rule: `has ${more} more problem(s) not listed`})
  if (problems.length > 0) throw new InputError(problems, 'nothing was sent: fix these rows (or the flags) and run the same command again')
  if (rows === 0) throw InputError.one('--from-file', `has no rows (${input.name})`)
  return rows
}
