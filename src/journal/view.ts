/** The journal as `pay journal list|show` print it. */
import type {Output} from '../output/output.js'
import {openJournalStore} from './index.js'
import type {JournalEntry, OutcomeState} from './store.js'

export {openJournalStore} from './index.js'

/**
 * Every journaled request, newest first: the one read of the journal that `pay journal` (queryJournal) and `pay find`
 * (its timeline) both make, from the state dir of `env`.
 */
export function journalEntries(out: Output, env: NodeJS.ProcessEnv = process.env): JournalEntry[] {
  return openJournalStore(out, env).entries().reverse()
}

export type EntryView = {
  at: string
  endpoint: string
  method: string
  reference: string | null
  idempotency_key: string
  /** succeeded, failed, or unknown (no outcome recorded: the answer was lost or the process ended first). */
  outcome: 'succeeded' | 'failed' | 'unknown'
  outcome_at: string | null
  status: number | null
  id: string | null
  error: {code: string; message: string} | null
  base_url: string
  client_id: string | null
  account_ref: string | null
  /** cli (the command line), or mcp (a tool call of `pay mcp`). */
  origin: string
}

export function entryView(e: JournalEntry): EntryView {
  return {
    at: e.op.at,
    endpoint: e.op.endpoint,
    method: e.op.method,
    reference: e.op.reference ?? null,
    idempotency_key: e.op.key,
    outcome: e.outcome?.state ?? 'unknown',
    outcome_at: e.outcome?.at ?? null,
    status: e.outcome?.status ?? null,
    id: e.outcome?.id ?? null,
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
  if (e.outcome?.body !== undefined) {
    try {
      response = JSON.parse(e.outcome.body)
    } catch {
      response = e.outcome.body
    }
  }
  return {...entryView(e), url: e.op.url, body_sha256: e.op.body_sha256, resume_command: e.op.command ?? null, response}
}

export interface JournalQuery {
  /** One request: its Idempotency-Key or merchant reference (the newest with it). */
  key?: string
  limit: number
  outcome?: OutcomeState
}

/** The columns of the human list. */
export const JOURNAL_COLUMNS = ['at', 'origin', 'endpoint', 'reference', 'outcome', 'status', 'id', 'idempotency_key']

/**
 * What `pay journal` (and the journal tool of `pay mcp`) shows: newest first, or one entry in full. `found: false`
 * when KEY matches nothing. The journal is read from the state dir of `env`.
 */
export function queryJournal(out: Output, query: JournalQuery, env: NodeJS.ProcessEnv = process.env): {found: false} | {found: true; entry: ReturnType<typeof detailView>} | {found: true; rows: EntryView[]} {
  const entries = journalEntries(out, env)
  if (query.key !== undefined) {
    const found = entries.find((e) => e.op.key === query.key) ?? entries.find((e) => e.op.reference === query.key)
    return found ? {found: true, entry: detailView(found)} : {found: false}
  }
  return {found: true, rows: entries.map(entryView).filter((e) => !query.outcome || e.outcome === query.outcome).slice(0, query.limit)}
}
