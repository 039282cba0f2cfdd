/** The reference index of one scope, filled as a bulk run fills it (AcceptedRows), for the tests that read it. */
import {AcceptedRows} from '../../src/bulk/references.js'
import type {SpooledRow} from '../../src/bulk/spool.js'
import type {AcceptedReference} from '../../src/journal/references.js'
import type {RowOutcome} from '../../src/journal/run-journal.js'
import type {JournalStore} from '../../src/journal/store.js'

export const SCOPE = {endpoint: 'collections.create', baseUrl: 'http://127.0.0.1:9', clientId: 'c', accountRef: undefined} as const
const RUN = 'r'.repeat(32)
const FILE = 'pay.csv'

/** An accepted row of run RUN of FILE, as the index holds it (sent by SCOPE's client, without an account ref). */
export const accepted = (ref: string, key: string, line = 2): AcceptedReference => ({ref, key, at: '2026-11-26T10:00:00.000Z', id: `CL_${ref}`, state: 'processing', run: RUN, line, file: FILE, client_id: SCOPE.clientId})

/** Writes these accepted rows to the index of SCOPE through AcceptedRows, as a bulk run of FILE does, then ends it. */
export function writeAccepted(store: JournalStore, entries: AcceptedReference[]): void {
  const rows = new AcceptedRows(store, () => SCOPE, RUN, FILE)
  for (const e of entries) {
    const row = {endpoint: SCOPE.endpoint, reference: e.ref, key: e.key, line: e.line} as SpooledRow
    const outcome = {outcome: 'accepted', id: e.id ?? null, state: e.state ?? null, state_at: e.at} as RowOutcome
    rows.add(row, outcome)
  }
  rows.end()
}
