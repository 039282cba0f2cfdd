/**
 * `pay journal` in-process (src/journal/view.ts: runJournal): an empty journal says so (data stays empty), a KEY
 * nothing matches exits 4 pointing at the list. Listing and showing journaled requests: test/journal/gate.sandbox.test.ts.
 */
import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {queryJournal, runJournal} from '../../src/journal/view.js'
import {commandEnv, memoryOutput, runCommand} from '../helpers/in-process.js'

describe('pay journal', () => {
  it('an empty journal: a message for people, [] under --json', () => {
    const env = commandEnv()
    const text = memoryOutput(false)
    expect(runJournal({limit: 20}, text.out, env)).toEqual({found: true, rows: []})
    expect(text.stdout()).toBe('')
    expect(text.stderr()).toMatch(/^The journal is empty: no idempotent request was sent from this machine/)
    const json = memoryOutput(true)
    runJournal({limit: 20, outcome: 'unknown'}, json.out, env)
    expect(json.stdout()).toBe('[]\n')
  })

  it('a KEY nothing matches: exit 4, pointing at the list; a bad --outcome is exit 2', async () => {
    const r = await runCommand(['journal', 'order-404'])
    expect(r.code).toBe(4)
    expect(r.stderr).toMatch(/no journaled request with key or reference "order-404"/)
    expect(r.stderr).toMatch(/see `pay journal`/)
    expect((await runCommand(['journal', '--outcome', 'lost'])).code).toBe(2)
  })
})

const BASE = 'http://127.0.0.1:9'
const ROW = {row: 1, line: 2, reference: 'm1', http_status: 201, id: 'CL_M1', error_code: null, error_message: null, idempotency_key: 'key-m1', amount: '10.00', currency: 'KES'}
const header = (at: string, run: string) => ({t: 'run', run, at, operation: 'collections:create', file: '/tmp/m.csv', file_sha256: 'x', profile: 'default', base_url: BASE, client_id: 'c', salt: '', index_first: true})

/** A state dir holding the given journal segment lines and run files (journal/runs/<id>.ndjson), as pay writes them. */
function journalOf(segment: object[], runs: Record<string, object[]>): NodeJS.ProcessEnv {
  const env = commandEnv()
  const dir = join(env.PAY_CONFIG_DIR!, 'state', 'journal')
  mkdirSync(join(dir, 'runs'), {recursive: true, mode: 0o700})
  writeFileSync(join(dir, `${new Date().toISOString().slice(0, 10)}.ndjson`), segment.map((r) => `${JSON.stringify(r)}\n`).join(''), {mode: 0o600})
  for (const [id, lines] of Object.entries(runs)) writeFileSync(join(dir, 'runs', `${id}.ndjson`), lines.map((r) => `${JSON.stringify(r)}\n`).join(''), {mode: 0o600})
  return env
}

const rows = (env: NodeJS.ProcessEnv, query: Partial<Parameters<typeof queryJournal>[1]> = {}) => {
  const r = queryJournal(memoryOutput(true).out, {limit: 20, ...query}, env)
  return 'rows' in r ? r.rows : []
}

describe('pay journal: one line per request', () => {
  const A = 'a'.repeat(32)
  const B = 'b'.repeat(32)

  it("a bulk row reported again by later runs (the same file, an edited one): one line, at the start of the run that sent it, with the newest state", () => {
    const env = journalOf([], {
      // the first run sent m1 (processing); a plain re-run reported it from the journal
      [A]: [header('2026-11-27T10:00:00.000Z', A), {t: 'row', ...ROW, status: 'processing', outcome: 'accepted', state: 'processing', state_at: '2026-11-27T10:00:01.000Z', earlier: false}, {t: 'end', at: '2026-11-27T10:00:02.000Z'},
        header('2026-11-27T10:05:00.000Z', A), {t: 'row', ...ROW, status: 'processing', outcome: 'accepted', state: 'processing', state_at: '2026-11-27T10:00:01.000Z', earlier: true}, {t: 'end', at: '2026-11-27T10:05:01.000Z'}],
      // the edited file's run: m1 under the same key, looked up (--wait): succeeded
      [B]: [header('2026-11-27T10:10:00.000Z', B), {t: 'row', ...ROW, status: 'succeeded', outcome: 'accepted', state: 'succeeded', state_at: '2026-11-27T10:10:01.000Z', earlier: true}, {t: 'end', at: '2026-11-27T10:10:02.000Z'}],
    })
    const listed = rows(env)
    expect(listed).toHaveLength(1)
    expect(listed[0]).toMatchObject({at: '2026-11-27T10:00:00.000Z', idempotency_key: 'key-m1', outcome: 'accepted', id: 'CL_M1', state: 'succeeded', state_at: '2026-11-27T10:10:01.000Z'})
    expect(rows(env, {outcome: 'accepted'})).toHaveLength(1)
  })

  it('a row first refused for now (rate limited: nothing sent), sent by a later run: the time of the run that sent it', () => {
    const env = journalOf([], {
      [A]: [header('2026-11-27T10:00:00.000Z', A), {t: 'row', ...ROW, status: 'not_sent', outcome: 'refused', http_status: 429, id: null, state: null, state_at: null, error_code: 'rate_limited', earlier: false, again: true}, {t: 'end', at: '2026-11-27T10:00:02.000Z'},
        header('2026-11-27T10:05:00.000Z', A), {t: 'row', ...ROW, status: 'processing', outcome: 'accepted', state: 'processing', state_at: '2026-11-27T10:05:01.000Z', earlier: false}, {t: 'end', at: '2026-11-27T10:05:02.000Z'}],
    })
    expect(rows(env)).toEqual([expect.objectContaining({at: '2026-11-27T10:05:00.000Z', outcome: 'accepted'})])
  })

  it('a command whose answer was lost, resumed under its key by the plain re-run: one line, at the first send, accepted', () => {
    const op = (at: string, pid: number) => ({t: 'op', at, key: 'key-u1', match: 'm', endpoint: 'collections.create', method: 'POST', url: `${BASE}/v1/collections`, base_url: BASE, client_id: 'c', body_sha256: 'x', reference: 'u1', pid})
    const env = journalOf([
      op('2026-11-27T11:00:00.000Z', 1), {t: 'outcome', at: '2026-11-27T11:00:01.000Z', key: 'key-u1', request: 'unknown', error: {code: 'network_error', message: 'cut'}, op_at: '2026-11-27T11:00:00.000Z', op_pid: 1},
      op('2026-11-27T11:01:00.000Z', 2), {t: 'outcome', at: '2026-11-27T11:01:01.000Z', key: 'key-u1', request: 'accepted', status: 201, id: 'CL_U1', resource_state: 'processing', op_at: '2026-11-27T11:01:00.000Z', op_pid: 2},
      {t: 'state', at: '2026-11-27T11:02:00.000Z', key: 'key-u1', state: 'succeeded'},
    ], {})
    expect(rows(env)).toEqual([expect.objectContaining({at: '2026-11-27T11:00:00.000Z', outcome: 'accepted', id: 'CL_U1', state: 'succeeded', state_at: '2026-11-27T11:02:00.000Z'})])
  })
})

describe('pay journal: --outcome is what the request came to, --state what became of the resource', () => {
  const op = (key: string, ref: string, at: string) => ({t: 'op', at, key, match: key, endpoint: 'payouts.create', method: 'POST', url: `${BASE}/v1/payouts`, base_url: BASE, client_id: 'c', body_sha256: 'x', reference: ref, pid: 1})
  const env = () =>
    journalOf([
      // accepted, then failed upstream (a re-run looked it up)
      op('k-failed', 'p-failed', '2026-11-27T12:00:00.000Z'), {t: 'outcome', at: '2026-11-27T12:00:01.000Z', key: 'k-failed', request: 'accepted', status: 201, id: 'PO_F', resource_state: 'processing'},
      {t: 'state', at: '2026-11-27T12:05:00.000Z', key: 'k-failed', state: 'failed'},
      op('k-ok', 'p-ok', '2026-11-27T12:01:00.000Z'), {t: 'outcome', at: '2026-11-27T12:01:01.000Z', key: 'k-ok', request: 'accepted', status: 201, id: 'PO_S', resource_state: 'succeeded'},
      op('k-refused', 'p-refused', '2026-11-27T12:02:00.000Z'), {t: 'outcome', at: '2026-11-27T12:02:01.000Z', key: 'k-refused', request: 'refused', status: 400, error: {code: 'invalid_parameter', message: 'no'}},
    ], {})
  const refs = (e: NodeJS.ProcessEnv, query: Partial<Parameters<typeof queryJournal>[1]>) => rows(e, query).map((r) => r.reference).sort()

  it('--state failed lists the accepted payout that failed; --state succeeded never lists it; --outcome lists by the request alone', () => {
    const e = env()
    expect(refs(e, {state: 'failed'})).toEqual(['p-failed'])
    expect(refs(e, {state: 'SUCCEEDED'})).toEqual(['p-ok'])
    expect(refs(e, {outcome: 'accepted'})).toEqual(['p-failed', 'p-ok'])
    expect(refs(e, {outcome: 'refused'})).toEqual(['p-refused'])
    expect(refs(e, {outcome: 'accepted', state: 'failed'})).toEqual(['p-failed'])
  })

  it('the old names --outcome succeeded and --outcome failed are refused (exit 2), naming the filter that says what they meant', async () => {
    const e = env()
    for (const [old, hint] of [['failed', /--outcome failed is no request outcome: .*--state failed.*--outcome refused/], ['succeeded', /--outcome succeeded is no request outcome: .*--state succeeded.*--outcome accepted/]] as const) {
      const r = await runCommand(['journal', '--outcome', old, '--json'], {env: e})
      expect(r.code).toBe(2)
      expect(r.stderr).toMatch(hint)
      expect(JSON.parse(r.stdout).error.code).toBe('invalid_input')
    }
    const listed = await runCommand(['journal', '--state', 'failed', '--json'], {env: e})
    expect(listed.code, listed.stderr).toBe(0)
    expect(JSON.parse(listed.stdout).map((r: {reference: string}) => r.reference)).toEqual(['p-failed'])
  })
})
