/**
 * A reference is a promise across bulk runs and single commands, whatever fails in between: the reference index never
 * lags the run journal for good (a killed run, a write that fails), and an earlier request whose outcome is unknown
 * (a bulk row's or a single command's) holds its reference as an accepted one does. In-process, against a scripted
 * service: each test counts the requests that reached it.
 */
import {existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {bodyHash} from '../../src/bulk/check.js'
import {AcceptedRows} from '../../src/bulk/references.js'
import type {SpooledRow} from '../../src/bulk/spool.js'
import {rebuildReferenceIndex} from '../../src/journal/reference-rebuild.js'
import {REBUILDING_MARKER, REBUILD_LOCK, ReferenceIndex} from '../../src/journal/references.js'
import {type RowOutcome, RunJournal} from '../../src/journal/run-journal.js'
import {JournalStore} from '../../src/journal/store.js'
import {tempConfigDir} from '../helpers/cli.js'
import {runCommand} from '../helpers/in-process.js'
import {SCOPE} from '../helpers/reference-index.js'
import {TEST_CLIENT_ID, TEST_CLIENT_SECRET, useScriptedServer} from '../helpers/scripted-server.js'

const server = useScriptedServer()
const HEADER = 'amount,currency,reference,mobile,provider\n'
const row = (ref: string, amount = '10.00') => `${amount},KES,${ref},254700000001,mpesa\n`
const env = (dir: string) => ({PAY_CONFIG_DIR: dir, PAY_BASE_URL: server.url, PAY_CLIENT_ID: TEST_CLIENT_ID, PAY_CLIENT_SECRET: TEST_CLIENT_SECRET, NO_COLOR: '1'})
const single = (ref: string, amount = '10.00') => ['collections', 'create', '--amount', amount, '--currency', 'KES', '--reference', ref, '--mobile', '254700000001', '--provider', 'mpesa']
const bulk = (file: string, ...more: string[]) => ['collections', 'create', '--from-file', file, ...more]
/** The Idempotency-Keys of the creates that reached the service with this reference. */
const keysSent = (ref: string) => server.apiRequests().filter((q) => q.method === 'POST' && (JSON.parse(q.body || '{}') as {merchant_reference?: string}).merchant_reference === ref).map((q) => q.headers['idempotency-key'])
const journalDir = (dir: string) => join(dir, 'state', 'journal')
/** The lines of a config dir's reference index, all scopes and files. */
const indexLines = (dir: string) => {
  const index = join(journalDir(dir), 'references')
  const files = readdirSync(index, {recursive: true, withFileTypes: true}).filter((f) => f.isFile())
  return files.reduce((n, f) => n + readFileSync(join(f.parentPath, f.name), 'utf8').split('\n').filter((l) => l.trim() !== '').length, 0)
}
const runFiles = (dir: string) => readdirSync(join(journalDir(dir), 'runs')).filter((n) => /^[0-9a-f]{32}\.ndjson$/.test(n))

describe('the reference index never lags the run journal for good', () => {
  it('a flush writes the index lines of the rows it takes before their records; a record never reaches the disk first', async () => {
    const store = new JournalStore(tempConfigDir())
    store.open()
    const journal = new RunJournal(store, 'a'.repeat(32))
    const rows = new AcceptedRows(store, () => SCOPE, journal.runId, 'pay.csv')
    const runFileAtIndexWrite: string[] = []
    const write = rows.write.bind(rows)
    rows.write = async (taken) => {
      runFileAtIndexWrite.push(readFileSync(journal.file, 'utf8'))
      return write(taken)
    }
    journal.begin({t: 'run', run: journal.runId, at: '2026-11-26T10:00:00.000Z', operation: 'collections:create', file: 'pay.csv', file_sha256: 'h', profile: 'p', base_url: SCOPE.baseUrl, salt: ''}, rows)
    const outcome = {row: 0, line: 2, reference: 'ix-1', status: 'processing', outcome: 'accepted', http_status: 201, id: 'CL_1', state: 'processing', state_at: '2026-11-26T10:00:01.000Z', idempotency_key: 'k-1', earlier: false} as RowOutcome
    rows.add({endpoint: SCOPE.endpoint, reference: 'ix-1', key: 'k-1', line: 2, body: '{}'} as SpooledRow, outcome)
    journal.record(outcome)
    await journal.end()
    expect(runFileAtIndexWrite).toHaveLength(1)
    expect(runFileAtIndexWrite[0]).not.toContain('"k-1"')
    expect(readFileSync(journal.file, 'utf8')).toContain('"k-1"')
    expect(readFileSync(journal.file, 'utf8')).toContain('"indexed":true')
    expect(new ReferenceIndex(store, SCOPE).lookup('ix-1').map((e) => e.key)).toEqual(['k-1'])
  })

  it('writes not fsync\'d are fsync\'d by the next synced write, even with nothing new to write (a reservation\'s last flush)', async () => {
    const store = new JournalStore(tempConfigDir())
    store.open()
    const rows = new AcceptedRows(store, () => SCOPE, 'b'.repeat(32), 'pay.csv')
    const outcome = {row: 0, line: 2, reference: 'us-1', status: 'unknown', outcome: 'unknown', http_status: null, state_at: '2026-11-26T10:00:01.000Z', idempotency_key: 'k-1', earlier: false} as RowOutcome
    rows.add({endpoint: SCOPE.endpoint, reference: 'us-1', key: 'k-1', line: 2, body: '{}'} as SpooledRow, outcome)
    expect(await rows.write(rows.take()!, false)).toBeUndefined()
    expect(new ReferenceIndex(store, SCOPE).lookup('us-1').map((e) => e.key)).toEqual(['k-1']) // written
    const synced = rows.take() // nothing new, but a file waits for its fsync
    expect(synced).toBeDefined()
    expect(await rows.write(synced!, true)).toBeUndefined()
    expect(rows.take()).toBeUndefined()
    await rows.close()
  })

  it('a run cut after its records and before its index lines: the next run of the file adds them, and a single command with a row\'s reference is refused (exit 5)', async () => {
    const dir = tempConfigDir()
    const file = join(dir, 'rows.csv')
    writeFileSync(file, `${HEADER}${row('ix-1')}${row('ix-2')}${row('ix-3')}`)
    const first = await runCommand(bulk(file), {env: env(dir)})
    expect(first.code, first.stderr).toBe(0)
    // what a run of a pay that wrote its index lines after its records left when killed between the two writes: its
    // header (without index_first), its records, no end record, and none of its index lines
    const [name] = runFiles(dir)
    const runFile = join(journalDir(dir), 'runs', name)
    writeFileSync(runFile, readFileSync(runFile, 'utf8').replace(',"index_first":true', '').replace(/\n\{"t":"end"[^\n]*/, ''))
    rmSync(join(journalDir(dir), 'references'), {recursive: true})
    const sent = server.apiRequests().length

    const again = await runCommand(bulk(file), {env: env(dir)})
    expect(again.code, again.stderr).toBe(0)
    expect(again.stderr).toContain('3 sent by an earlier run')
    expect(server.apiRequests().length).toBe(sent) // nothing sent again

    const paid = await runCommand(single('ix-2'), {env: env(dir)})
    expect(paid.code, paid.stderr).toBe(5)
    expect(paid.stderr).toContain('reference ix-2 already names another request: line 3 of')
    expect(server.apiRequests().length).toBe(sent)

    // a run of this pay killed (its end record missing) needs no such pass: its records never came before their lines
    expect((await runCommand(bulk(file), {env: env(dir)})).code).toBe(0)
    writeFileSync(runFile, readFileSync(runFile, 'utf8').replace(/\n\{"t":"end"[^\n]*\s*$/, '\n'))
    const before = indexLines(dir)
    expect((await runCommand(bulk(file), {env: env(dir)})).code).toBe(0)
    expect(indexLines(dir)).toBe(before)
  })

  it('the index lost while the run files remain (a cleanup, a partial restore): it is rebuilt from them; a single command or another file with a row\'s reference is refused (exit 5)', async () => {
    const dir = tempConfigDir()
    const file = join(dir, 'p.csv')
    writeFileSync(file, `${HEADER}${row('il-1', '11.00')}${row('il-2', '12.00')}`)
    expect((await runCommand(bulk(file), {env: env(dir)})).code).toBe(0)
    rmSync(join(journalDir(dir), 'references'), {recursive: true}) // only the derived index; journal/runs/ stays

    const single1 = await runCommand(single('il-1', '99.00'), {env: env(dir)})
    expect(single1.code, single1.stderr).toBe(5)
    expect(single1.stderr).toContain('reference il-1 already names another request: line 2 of')
    expect(single1.stderr).toContain('the reference index of earlier bulk runs is missing: rebuilding it from their run files before anything is sent')
    expect(keysSent('il-1')).toHaveLength(1)

    rmSync(join(journalDir(dir), 'references'), {recursive: true}) // lost again: now a bulk run of another file is first
    const other = join(dir, 'q.csv')
    writeFileSync(other, `${HEADER}${row('il-2', '55.00')}`)
    const refused = await runCommand(bulk(other), {env: env(dir)})
    expect(refused.code, refused.stderr).toBe(5)
    expect(refused.stderr).toContain('reference il-2')
    expect(keysSent('il-2')).toHaveLength(1)

    // rebuilt once: the marker keeps a journal whose runs indexed nothing from being read again at every command
    expect(existsSync(join(journalDir(dir), 'references', '.rebuilt'))).toBe(true)
  })

  it('a rebuild cut off (a write failing on a later run file, or a kill) leaves the index lost, not partial: the next command rebuilds it whole; a single command with a reference of the missing run is refused (exit 5)', async () => {
    const dir = tempConfigDir()
    for (const [name, ref] of [['a.csv', 'pa-1'], ['b.csv', 'pb-1']]) {
      writeFileSync(join(dir, name), `${HEADER}${row(ref)}`)
      expect((await runCommand(bulk(join(dir, name)), {env: env(dir)})).code).toBe(0)
    }
    rmSync(join(journalDir(dir), 'references'), {recursive: true})
    // the rebuild fails at the lines of run B (whichever run file it reads first): run A's may be in the index, B's are not
    const store = new JournalStore(join(dir, 'state'))
    store.open()
    const append = store.appendLine.bind(store)
    store.appendLine = (file, text, sync) => (text.includes('"pb-1"') ? 'EIO: injected' : append(file, text, sync))
    await expect(rebuildReferenceIndex(store)).rejects.toThrow('could not be rebuilt')
    expect(readdirSync(join(journalDir(dir), 'references')).length).toBeGreaterThan(0)

    const paid = await runCommand(single('pb-1', '99.00'), {env: env(dir)})
    expect(paid.code, paid.stderr).toBe(5)
    expect(paid.stderr).toContain('reference pb-1 already names another request: line 2 of')
    expect(keysSent('pb-1')).toHaveLength(1)
    expect(readdirSync(join(journalDir(dir), 'references'))).toContain('.rebuilt')
  })

  it('a command finding the index mid-rebuild (another process rebuilding it) waits for that rebuild, then reads it whole', async () => {
    const dir = tempConfigDir()
    writeFileSync(join(dir, 'a.csv'), `${HEADER}${row('pw-1')}`)
    expect((await runCommand(bulk(join(dir, 'a.csv')), {env: env(dir)})).code).toBe(0)
    rmSync(join(journalDir(dir), 'references'), {recursive: true})
    // another process's rebuild, begun and not ended: its lock held, its index started (nothing of run A yet)
    const store = new JournalStore(join(dir, 'state'))
    store.open()
    const release = await store.holdSender(REBUILD_LOCK, 60_000, () => undefined)
    mkdirSync(join(journalDir(dir), 'references', 'other-service'), {recursive: true})
    writeFileSync(join(journalDir(dir), 'references', REBUILDING_MARKER), '')
    let done = false
    const command = runCommand(single('pw-1', '99.00'), {env: env(dir)}).finally(() => (done = true))
    await new Promise((resolve) => setTimeout(resolve, 1000)) // past the 500 ms after which a waiter says why it waits
    expect(done).toBe(false)
    expect(keysSent('pw-1')).toHaveLength(1)
    release?.() // that process gone without ending it: the waiting command rebuilds the index itself
    const paid = await command
    expect(paid.code, paid.stderr).toBe(5)
    expect(paid.stderr).toMatch(/waiting: another pay process \(pid \d+\) is rebuilding the reference index of earlier bulk runs; nothing is sent before it is whole/)
    expect(keysSent('pw-1')).toHaveLength(1)
  })

  it("a rebuild's lines are the very lines a run's writer wrote, for each outcome, but for the body hash of an unknown one (run files do not hold it)", async () => {
    const store = new JournalStore(tempConfigDir())
    store.open()
    const scope = {...SCOPE, accountRef: 'acme-main'}
    const journal = new RunJournal(store, 'e'.repeat(32))
    const rows = new AcceptedRows(store, () => scope, journal.runId, 'pay.csv')
    journal.begin({t: 'run', run: journal.runId, at: '2026-11-26T10:00:00.000Z', operation: 'collections:create', file: 'pay.csv', file_sha256: 'h', profile: 'p', base_url: scope.baseUrl, client_id: scope.clientId, account_ref: scope.accountRef, salt: ''}, rows)
    const outcomes = [
      {outcome: 'accepted', id: 'CL_1', state: 'processing', state_at: '2026-11-26T10:00:00.000Z'},
      {outcome: 'unknown', id: null, state: null, state_at: '2026-11-26T10:00:01.000Z'},
      {outcome: 'refused', id: null, state: null, state_at: '2026-11-26T10:00:02.000Z'},
    ]
    outcomes.forEach((o, i) => {
      const outcome = {...o, row: i, line: 2 + i, reference: `rl-${i}`, status: 'x', http_status: 201, idempotency_key: `k-${i}`, earlier: false} as RowOutcome
      rows.add({endpoint: scope.endpoint, reference: `rl-${i}`, key: `k-${i}`, line: 2 + i, body: '{"a":1}'} as SpooledRow, outcome)
      journal.record(outcome)
    })
    await journal.end()
    const index = new ReferenceIndex(store, scope)
    const lines = () => readdirSync(index.dir).flatMap((n) => readFileSync(join(index.dir, n), 'utf8').split('\n').filter((l) => l.trim() !== '')).sort()
    const written = lines()
    expect(written).toHaveLength(3)
    expect(written.join('\n')).toContain(`"body_sha256":${JSON.stringify(bodyHash('{"a":1}'))}`)
    rmSync(join(store.dir, 'references'), {recursive: true})
    await rebuildReferenceIndex(store)
    expect(lines()).toEqual(written.map((l) => l.replace(/,"body_sha256":"[0-9a-f]+"/, '')).sort())
  })

  it('an index that cannot be written stops the run before anything is sent (exit 1, said: its references cannot be reserved); the next run sends them and indexes them', async () => {
    const dir = tempConfigDir()
    const file = join(dir, 'rows.csv')
    writeFileSync(file, `${HEADER}${row('iw-1')}${row('iw-2')}`)
    mkdirSync(journalDir(dir), {recursive: true})
    writeFileSync(join(journalDir(dir), 'references'), 'not a directory')
    const first = await runCommand(bulk(file), {env: env(dir)})
    expect(first.code, first.stderr).toBe(1)
    expect(first.stderr).toContain('the reference index could not be written')
    expect(first.stderr).toContain('while reserving the references of the rows to send; nothing was sent')
    expect(first.stderr).toContain('run the same command again')
    expect(keysSent('iw-1')).toHaveLength(0)

    rmSync(join(journalDir(dir), 'references'))
    const again = await runCommand(bulk(file), {env: env(dir)})
    expect(again.code, again.stderr).toBe(0)
    expect(keysSent('iw-1')).toHaveLength(1)
    const refused = await runCommand(single('iw-1'), {env: env(dir)})
    expect(refused.code, refused.stderr).toBe(5)
  })

  it('a journal off from the start (an unwritable state dir) is no failure of the run: it sends, warns once, exit 0', async () => {
    const dir = tempConfigDir()
    writeFileSync(join(dir, 'state'), 'not a directory')
    const file = join(dir, 'rows.csv')
    writeFileSync(file, `${HEADER}${row('off-1')}`)
    const r = await runCommand(bulk(file), {env: env(dir)})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr.match(/operation journal is off/g)).toHaveLength(1)
    expect(keysSent('off-1')).toHaveLength(1)
  })
})

describe('an earlier request whose outcome is unknown holds its reference, across bulk rows and single commands', () => {
  it('a bulk row whose answer was lost: a single command with the same body resumes its key; with another body it is refused (exit 5), naming the row and its key', async () => {
    const dir = tempConfigDir()
    const file = join(dir, 'rows.csv')
    writeFileSync(file, `${HEADER}${row('ur-1', '100.00')}`)
    server.script('POST /v1/collections', {drop: true})
    const lost = await runCommand(bulk(file, '--retries', '0'), {env: env(dir)})
    expect(lost.stderr).toContain('1 unknown')
    const [rowKey] = keysSent('ur-1')

    const other = await runCommand(single('ur-1', '101.00'), {env: env(dir)})
    expect(other.code, other.stderr).toBe(5)
    expect(other.stderr).toContain(`line 2 of ${file}`)
    expect(other.stderr).toContain(`outcome is unknown`)
    expect(other.stderr).toContain(rowKey)
    expect(keysSent('ur-1')).toEqual([rowKey])

    const same = await runCommand(single('ur-1', '100.00'), {env: env(dir)})
    expect(same.code, same.stderr).toBe(0)
    expect(same.stderr).toContain(`reusing its Idempotency-Key ${rowKey}`)
    expect(keysSent('ur-1')).toEqual([rowKey, rowKey])
  })

  it('a single command whose answer was lost: a bulk file with the same row is refused whole (exit 5), naming its key; nothing sent', async () => {
    const dir = tempConfigDir()
    server.script('POST /v1/collections', {drop: true})
    const lost = await runCommand([...single('ur-2', '100.00'), '--retries', '0'], {env: env(dir)})
    expect(lost.code).not.toBe(0)
    const [key] = keysSent('ur-2')
    const file = join(dir, 'rows.csv')
    writeFileSync(file, `${HEADER}${row('ur-2', '100.00')}`)
    const refused = await runCommand(bulk(file), {env: env(dir)})
    expect(refused.code, refused.stderr).toBe(5)
    expect(refused.stderr).toContain(`${file}:2 reference ur-2: a single command`)
    expect(refused.stderr).toContain(key)
    expect(keysSent('ur-2')).toEqual([key])
    // settled by its own command run again (its key): the promise is then an accepted request, and still holds
    expect((await runCommand(single('ur-2', '100.00'), {env: env(dir)})).code).toBe(0)
    expect(keysSent('ur-2')).toEqual([key, key])
    expect((await runCommand(bulk(file), {env: env(dir)})).code).toBe(5)
    expect(existsSync(join(journalDir(dir), 'references'))).toBe(false)
  })
})

describe('a reference is one promise to a service: a bulk run with another client id or an account ref added is refused', () => {
  it('the same file again after PAY_ACCOUNT_REF is set: refused whole (exit 5), each line naming the earlier row, its client and account ref; nothing sent again', async () => {
    const dir = tempConfigDir()
    const file = join(dir, 'rows.csv')
    writeFileSync(file, `${HEADER}${row('ar-1')}${row('ar-2', '11.00')}`)
    const first = await runCommand(bulk(file), {env: env(dir)})
    expect(first.code, first.stderr).toBe(0)
    const sent = [...keysSent('ar-1'), ...keysSent('ar-2')]
    expect(sent).toHaveLength(2)
    const again = await runCommand(bulk(file), {env: {...env(dir), PAY_ACCOUNT_REF: 'acme-main'}})
    expect(again.code, again.stderr).toBe(5)
    expect(again.stderr).toContain('2 row(s) reuse a reference')
    expect(again.stderr).toContain(`${file}:2 reference ar-1: line 2 of`)
    expect(again.stderr).toContain(`client ${TEST_CLIENT_ID}, no account ref`)
    expect(again.stderr).toContain('--force-new')
    // the merchant's second client too, and a single command with the account ref
    const ops = await runCommand(bulk(file), {env: {...env(dir), PAY_CLIENT_ID: `${TEST_CLIENT_ID}-ops`}})
    expect(ops.code, ops.stderr).toBe(5)
    const one = await runCommand([...single('ar-1'), '--account-ref', 'acme-main'], {env: env(dir)})
    expect(one.code, one.stderr).toBe(5)
    expect([...keysSent('ar-1'), ...keysSent('ar-2')]).toEqual(sent)
  })

  it('a file first sent with an account ref: the same file for another sub-account is sent; a single command without one is refused', async () => {
    const dir = tempConfigDir()
    const file = join(dir, 'rows.csv')
    writeFileSync(file, `${HEADER}${row('sa-1')}`)
    expect((await runCommand(bulk(file), {env: {...env(dir), PAY_ACCOUNT_REF: 'east'}})).code).toBe(0)
    const west = await runCommand(bulk(file), {env: {...env(dir), PAY_ACCOUNT_REF: 'west'}})
    expect(west.code, west.stderr).toBe(0)
    expect(keysSent('sa-1')).toHaveLength(2)
    const none = await runCommand(single('sa-1'), {env: env(dir)})
    expect(none.code, none.stderr).toBe(5)
    expect(none.stderr).toContain('account ref')
    expect(keysSent('sa-1')).toHaveLength(2)
  })
})

describe('an index line is written from the run\'s shared parts, byte for byte what JSON.stringify gives of its entry', () => {
  it('accepted, unknown and refused lines, with text that needs escaping, with and without a client id and account ref', () => {
    const odd = 'quote " back \\ tab \t é \u2028 end'
    for (const scope of [SCOPE, {...SCOPE, clientId: undefined}, {...SCOPE, clientId: odd, accountRef: 'acc-1'}]) {
      const store = new JournalStore(tempConfigDir())
      store.open()
      const rows = new AcceptedRows(store, () => scope, 'r'.repeat(32), `dir/${odd}.csv`)
      const at = '2026-11-26T10:00:01.000Z'
      const r = (ref: string, line: number, body?: string) => ({endpoint: scope.endpoint, reference: ref, key: `k-${ref}`, line, body}) as SpooledRow
      rows.add(r(`a-${odd}`, 2), {outcome: 'accepted', id: `CL_${odd}`, state: odd, state_at: at} as RowOutcome)
      rows.add(r('a-2', 3), {outcome: 'accepted', id: null, state: null, state_at: at} as RowOutcome)
      rows.add(r('u-1', 4, '{"a":1}'), {outcome: 'unknown', state_at: at} as RowOutcome)
      rows.add(r('u-2', 5), {outcome: 'unknown', state_at: at} as RowOutcome)
      rows.add(r('f-1', 6), {outcome: 'refused', state_at: at} as RowOutcome)
      expect(rows.end()).toBeUndefined()
      const shared = {run: 'r'.repeat(32), file: `dir/${odd}.csv`}
      const sender = {client_id: scope.clientId, account_ref: scope.accountRef}
      const expected = [
        {ref: `a-${odd}`, key: `k-a-${odd}`, at, id: `CL_${odd}`, state: odd, ...shared, line: 2, ...sender},
        {ref: 'a-2', key: 'k-a-2', at, ...shared, line: 3, ...sender},
        {ref: 'u-1', key: 'k-u-1', at, ...shared, line: 4, outcome: 'unknown', body_sha256: bodyHash('{"a":1}'), ...sender},
        {ref: 'u-2', key: 'k-u-2', at, ...shared, line: 5, outcome: 'unknown', ...sender},
        {ref: 'f-1', key: 'k-f-1', at, ...shared, line: 6, outcome: 'refused', ...sender},
      ]
      // the key order of the entries as AcceptedRows wrote them before (run, line, file; then outcome, body_sha256)
      const ordered = expected.map((e) => JSON.stringify(e, ['ref', 'key', 'at', 'id', 'state', 'run', 'line', 'file', 'outcome', 'body_sha256', 'client_id', 'account_ref']))
      const dir = new ReferenceIndex(store, scope).dir
      const written = readdirSync(dir).flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n').filter((l) => l !== ''))
      expect(written.sort()).toEqual(ordered.sort())
    }
  })
})
