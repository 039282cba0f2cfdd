/**
 * The journal as `pay journal` prints it: the operation journal's requests and every bulk run's rows (by reference
 * and key, with their run), newest first. `journalViews` is THE read of both for `pay journal` and `pay mcp`
 * (queryJournal); `journalEntries` the operation journal's requests alone (`pay find`'s timeline).
 */
import type {Output} from '../output/output.js'
import {openJournalStore} from './index.js'
import {type JournalEntry, type JournalStore, type RequestOutcome, latestState} from './store.js'
import {type RunFileView, readRuns} from '../bulk/run-journal.js'

export {openJournalStore} from './index.js'

/** Every journaled request of the operation journal, newest first (`pay find`'s timeline), from the state dir of `env`. */
export function journalEntries(out: Output, env: NodeJS.ProcessEnv = process.env): JournalEntry[] {
  return openJournalStore(out, env).entries().reverse()
}

export type EntryView = {
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

export function entryView(e: JournalEntry): EntryView {
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
  }
}

/** One entry in full: what was sent, the outcome, the resume command and the earlier answer (parsed). */
export function detailView(e: JournalEntry): EntryView & {url: string; body_sha256: string; resume_command: string | null; response: unknown} {
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

/** A bulk row as a journal entry (what `pay journal` lists); its time is its run's start. */
function rowView(r: RunFileView, row: RunFileView['rows'][number]): EntryView {
  return {
    at: r.header.at, endpoint: r.header.operation, method: 'POST', reference: row.reference, idempotency_key: row.idempotency_key, outcome: row.outcome,
    outcome_at: null, status: row.http_status, id: row.id, state: row.state, state_at: row.state_at,
    error: row.error_code === null ? null : {code: row.error_code, message: row.error_message ?? ''}, base_url: r.header.base_url, client_id: null, account_ref: null,
    run: r.run, line: row.line, file: r.header.file, origin: 'cli',
  }
}

/**
 * A run that began and never ended (killed, interrupted): its rows without a record may have been sent, so the run
 * itself is listed as unknown, until a run of the same file ends.
 */
function cutRunView(r: RunFileView): EntryView {
  return {
    at: r.header.at, endpoint: r.header.operation, method: 'POST', reference: null, idempotency_key: `run ${r.run}`, outcome: 'unknown', outcome_at: null, status: null, id: null,
    state: null, state_at: null,
    error: {code: 'run_cut', message: `the run of ${r.header.file} was cut after ${r.rows.length} recorded row(s): rows without a record may have been sent; run the same command again to resume it (rows are resent with their keys)`},
    base_url: r.header.base_url, client_id: null, account_ref: null, run: r.run, file: r.header.file, origin: 'cli',
  }
}

/** Every request of the journal, single commands and bulk rows (and cut runs), newest first; `entry` for the former. */
export function journalViews(store: JournalStore): {view: EntryView; entry?: JournalEntry}[] {
  const all: {view: EntryView; entry?: JournalEntry}[] = store.entries().map((entry) => ({view: entryView(entry), entry}))
  for (const r of readRuns(store)) {
    for (const row of r.rows) all.push({view: rowView(r, row)})
    if (!r.finished) all.push({view: cutRunView(r)})
  }
  // stable: a run's rows keep their order; the newest run or request first
  return all.map((v, i) => ({v, i})).sort((a, b) => (a.v.view.at === b.v.view.at ? b.i - a.i : a.v.view.at < b.v.view.at ? 1 : -1)).map(({v}) => v)
}

export interface JournalQuery {
  /** One request: its Idempotency-Key or merchant reference (the newest with it). */
  key?: string
  limit: number
  /** What the request came to; succeeded and failed: the old names of accepted and refused. */
  outcome?: RequestOutcome | 'succeeded' | 'failed'
}

/** The columns of the human list. */
export const JOURNAL_COLUMNS = ['at', 'origin', 'endpoint', 'reference', 'outcome', 'id', 'state', 'idempotency_key']

/**
 * What `pay journal` (and the journal tool of `pay mcp`) shows: newest first, bulk rows included, or one entry in
 * full. `found: false` when KEY matches nothing. The journal is read from the state dir of `env`.
 */
export function queryJournal(out: Output, query: JournalQuery, env: NodeJS.ProcessEnv = process.env): {found: false} | {found: true; entry: EntryView & Partial<ReturnType<typeof detailView>>} | {found: true; rows: EntryView[]} {
  const entries = journalViews(openJournalStore(out, env))
  if (query.key !== undefined) {
    const found = entries.find((e) => e.view.idempotency_key === query.key) ?? entries.find((e) => e.view.reference === query.key)
    return found ? {found: true, entry: found.entry ? detailView(found.entry) : found.view} : {found: false}
  }
  const wanted = query.outcome === 'succeeded' ? 'accepted' : query.outcome === 'failed' ? 'refused' : query.outcome
  return {found: true, rows: entries.map((e) => e.view).filter((e) => !wanted || e.outcome === wanted).slice(0, query.limit)}
}
