/** The journal as `pay journal list|show` print it. */
import {type JournalEntry, type RequestOutcome, latestState} from './store.js'

export {openJournalStore} from './index.js'

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
