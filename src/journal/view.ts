/**
 * The journal as `pay journal` prints it: the operation journal's requests and every bulk run's rows (by reference
 * and key, with their run), newest first. `allEntries` is THE read of both, for `pay journal` and `pay mcp`
 * (queryJournal) and `pay find` (journalEntries).
 */
import {InputError, PayError} from '../base/errors.js'
import {ExitCode} from '../base/exit-codes.js'
import type {Output} from '../output/output.js'
import {openJournalStore} from './index.js'
import {type JournalEntry, type JournalStore, type RequestOutcome, latestState} from './store.js'
import {type RunFileView, readRuns} from './run-journal.js'
import {endpoints} from '../api/endpoints.js'

export {openJournalStore} from './index.js'

/** Every journaled request (allEntries), newest first, from the state dir of `env`. */
export function journalEntries(out: Output, env: NodeJS.ProcessEnv = process.env): JournalEntry[] {
  return allEntries(openJournalStore(out, env))
}

type EntryView = {
  at: string
  endpoint: string
  method: string
  reference: string | null
  idempotency_key: string
  /** What the request came to: accepted, refused, or unknown (no outcome recorded: the answer was lost or the process ended first). */
  outcome: RequestOutcome
  outcome_at: string | null
  status: number | null
  id: string | null
  /** The resource's latest known state (processing, succeeded, failed, …), and when pay saw it: a fact apart from `outcome`. */
  state: string | null
  state_at: string | null
  error: {code: string; message: string} | null
  base_url: string
  client_id: string | null
  account_ref: string | null
  /** A bulk row: its run (journal/runs/<run>.ndjson) and the line of its file; a cut run: the run alone. */
  run?: string
  line?: number
  file?: string
  /** cli (the command line), or mcp (a tool call of `pay mcp`). */
  origin: string
}

function entryView(e: JournalEntry): EntryView {
  const seen = latestState(e)
  return {
    at: e.op.at,
    endpoint: e.op.endpoint,
    method: e.op.method,
    reference: e.op.reference ?? null,
    idempotency_key: e.op.key,
    outcome: e.outcome?.request ?? 'unknown',
    outcome_at: e.outcome?.at ?? null,
    status: e.outcome?.status ?? null,
    id: e.outcome?.id ?? null,
    state: seen?.state ?? null,
    state_at: seen?.at ?? null,
    error: e.outcome?.error ?? null,
    base_url: e.op.base_url,
    client_id: e.op.client_id ?? null,
    account_ref: e.op.account_ref ?? null,
    origin: e.op.origin ?? 'cli',
    ...(e.op.run === undefined ? {} : {run: e.op.run, line: e.op.line, file: e.op.file}),
  }
}

/** One entry in full: what was sent, the outcome, the resume command and the earlier answer (parsed). */
function detailView(e: JournalEntry): EntryView & {url: string; body_sha256: string; resume_command: string | null; response: unknown} {
  let response: unknown = null
  const body = latestState(e)?.body ?? e.outcome?.body
  if (body !== undefined) {
    try {
      response = JSON.parse(body)
    } catch {
      response = body
    }
  }
  return {...entryView(e), url: e.op.url, body_sha256: e.op.body_sha256, resume_command: e.op.command ?? null, response}
}

/** The endpoint of a bulk run's operation (`collections:create` → `collections.create`), or the operation itself. */
function endpointOf(operation: string): string {
  const id = operation.replace(':', '.')
  return Object.hasOwn(endpoints, id) ? id : operation
}

/**
 * A bulk row as a journal entry: the start of the run that first sent it as its time (not of a later run that reported
 * it again), both facts as its outcome (the row's state as seen).
 */
function rowEntry(r: RunFileView, row: RunFileView['rows'][number]): JournalEntry {
  const key = row.idempotency_key
  return {
    op: {t: 'op', at: row.sent_at, key, match: '', endpoint: endpointOf(r.header.operation), method: 'POST', url: '', base_url: r.header.base_url, client_id: r.header.client_id, account_ref: r.header.account_ref, body_sha256: '', ...(row.reference === null ? {} : {reference: row.reference}), pid: 0, run: r.run, line: row.line, file: r.header.file},
    outcome: {
      t: 'outcome', at: row.state_at ?? r.header.at, key, request: row.outcome, ...(row.http_status === null ? {} : {status: row.http_status}), ...(row.id === null ? {} : {id: row.id}),
      ...(row.state === null ? {} : {resource_state: row.state}), ...(row.error_code === null ? {} : {error: {code: row.error_code, message: row.error_message ?? ''}}),
    },
  }
}

/**
 * A run that began and never ended (killed, interrupted): its rows without a record may have been sent, so the run
 * itself is an entry whose outcome is unknown, until a run of the same file ends.
 */
function cutRunEntry(r: RunFileView): JournalEntry {
  const key = `run ${r.run}`
  const message = `the run of ${r.header.file} was cut after ${r.rows.length} recorded row(s): rows without a record may have been sent; run the same command again to resume it (rows are resent with their keys)`
  return {
    op: {t: 'op', at: r.header.at, key, match: '', endpoint: endpointOf(r.header.operation), method: 'POST', url: '', base_url: r.header.base_url, client_id: r.header.client_id, account_ref: r.header.account_ref, body_sha256: '', pid: 0, run: r.run, file: r.header.file},
    outcome: {t: 'outcome', at: r.header.at, key, request: 'unknown', error: {code: 'run_cut', message}},
  }
}

/**
 * Every journaled request, newest first: the operation journal's, every bulk run's rows and its cut runs. THE read
 * of the journal: `pay journal` and `pay mcp` (queryJournal), `pay find` (its timeline, journalEntries).
 */
function allEntries(store: JournalStore): JournalEntry[] {
  const all = store.entries()
  for (const r of readRuns(store)) {
    for (const row of r.rows) all.push(rowEntry(r, row))
    if (!r.finished) all.push(cutRunEntry(r))
  }
  const requests = oneEntryPerRequest(all)
  // stable: a run's rows keep their order; the newest run or request first
  return requests.map((e, i) => ({e, i})).sort((a, b) => (a.e.op.at === b.e.op.at ? b.i - a.i : a.e.op.at < b.e.op.at ? 1 : -1)).map(({e}) => e)
}

/**
 * One entry per request: the entries of one Idempotency-Key at one service (a key resumed by a later command, a bulk
 * row reported again by the run of an edited file, a row's key resumed by a command) are one request, which the
 * service does once. Its entry: the newest one, or the newest the service accepted (an acceptance is never undone by
 * a later unknown), at the time the key was first sent, with the newest state any of them saw. In the order of the
 * first of them.
 */
function oneEntryPerRequest(all: JournalEntry[]): JournalEntry[] {
  const byKey = new Map<string, JournalEntry[]>()
  for (const e of all) {
    const id = `${e.op.base_url}\n${e.op.key}`
    const same = byKey.get(id)
    if (same) same.push(e)
    else byKey.set(id, [e])
  }
  const out: JournalEntry[] = []
  for (const same of byKey.values()) {
    if (same.length === 1) {
      out.push(same[0])
      continue
    }
    const newest = (a: JournalEntry, b: JournalEntry) => ((b.outcome?.at ?? b.op.at) >= (a.outcome?.at ?? a.op.at) ? b : a)
    const accepted = same.filter((e) => e.outcome?.request === 'accepted')
    const base = (accepted.length > 0 ? accepted : same).reduce(newest)
    const first = same.reduce((a, b) => (b.op.at < a.op.at ? b : a))
    let seen: ReturnType<typeof latestState>
    for (const e of accepted) {
      const s = latestState(e)
      if (s && (!seen || s.at > seen.at)) seen = s
    }
    const entry: JournalEntry = {op: {...base.op, at: first.op.at}, outcome: base.outcome}
    if (seen) entry.seen = {t: 'state', at: seen.at, key: base.op.key, state: seen.state, body: seen.body}
    out.push(entry)
  }
  return out
}

export interface JournalQuery {
  /** One request: its Idempotency-Key or merchant reference (the newest with it). */
  key?: string
  limit: number
  /** What the request came to: accepted, refused or unknown (checked: journalFilter). */
  outcome?: string
  /** The resource's latest known state (processing, succeeded, failed, …): a fact apart from the outcome. */
  state?: string
}

/** The values of --outcome: what a request came to (src/client/request-policy.ts), never what became of the money. */
const REQUEST_OUTCOMES: readonly RequestOutcome[] = ['accepted', 'refused', 'unknown']

/**
 * The names --outcome took before the request's outcome was kept apart from the resource's state: each read as a
 * request outcome that says something else of the money (succeeded listed failed payouts, failed hid them), so each
 * is refused, naming the filters that say what they select.
 */
const OLD_OUTCOMES: Record<string, string> = {
  succeeded: 'is no request outcome: it selected the requests the service accepted, payments still processing or failed since included; for resources that succeeded use --state succeeded, for accepted requests --outcome accepted',
  failed: 'is no request outcome: it selected only the requests the service refused, not payments that failed after they were accepted; for resources that ended failed use --state failed, for refused requests --outcome refused',
}

/** Which entries a query lists: by the request's outcome and by the resource's latest known state (both, when given). */
function journalFilter(query: Pick<JournalQuery, 'outcome' | 'state'>): (e: EntryView) => boolean {
  const {outcome} = query
  if (outcome !== undefined && !REQUEST_OUTCOMES.includes(outcome as RequestOutcome)) {
    throw InputError.one(`--outcome ${outcome}`, OLD_OUTCOMES[outcome] ?? `is none of ${REQUEST_OUTCOMES.join(', ')} (what the request came to); the resource's state is --state`)
  }
  if (query.state !== undefined && query.state.trim() === '') throw InputError.one('--state', 'must not be empty (a state: processing, succeeded, failed, …)')
  const state = query.state?.trim().toLowerCase()
  return (e) => (outcome === undefined || e.outcome === outcome) && (state === undefined || e.state?.toLowerCase() === state)
}

/** The columns of the human list. */
const JOURNAL_COLUMNS = ['at', 'origin', 'endpoint', 'reference', 'outcome', 'id', 'state', 'idempotency_key']

/**
 * What `pay journal` (and the journal tool of `pay mcp`) shows: newest first, bulk rows included, or one entry in
 * full. `found: false` when KEY matches nothing. The journal is read from the state dir of `env`.
 */
export function queryJournal(out: Output, query: JournalQuery, env: NodeJS.ProcessEnv = process.env): {found: false} | {found: true; entry: ReturnType<typeof detailView>} | {found: true; rows: EntryView[]} {
  const wanted = journalFilter(query)
  const entries = journalEntries(out, env)
  if (query.key !== undefined) {
    const found = entries.find((e) => e.op.key === query.key) ?? entries.find((e) => e.op.reference === query.key)
    return found ? {found: true, entry: detailView(found)} : {found: false}
  }
  return {found: true, rows: entries.map(entryView).filter(wanted).slice(0, query.limit)}
}

/** `pay journal [KEY]`: the list (newest first) or one request in full; a KEY nothing matches exits 4. */
export function runJournal(query: JournalQuery, out: Output, env: NodeJS.ProcessEnv = process.env): Exclude<ReturnType<typeof queryJournal>, {found: false}> {
  const result = queryJournal(out, query, env)
  if (!result.found) throw new PayError(`no journaled request with key or reference "${query.key}"`, ExitCode.NOT_FOUND, 'see `pay journal`')
  if ('entry' in result) out.data(out.json ? JSON.stringify(result.entry) : out.human({...result.entry, response: undefined}))
  else if (out.json) out.data(JSON.stringify(result.rows))
  else if (result.rows.length === 0) out.info('The journal is empty: no idempotent request was sent from this machine in the retention period.')
  else out.data(out.list(result.rows, JOURNAL_COLUMNS))
  return result
}
