/** The journal's store and gate, in-process (no network): records, pruning, torn lines, several writers, resume commands. */
import {spawn} from 'node:child_process'
import {appendFileSync, existsSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {describe, expect, it} from 'vitest'
import {type JournalEntry, JournalStore, JournalWriteError, latestState, retentionDaysFrom, unresolved} from '../../src/journal/store.js'
import {ROOT, tempConfigDir} from '../helpers/cli.js'

const op = (key: string, extra: Record<string, unknown> = {}) => ({
  t: 'op' as const, at: new Date().toISOString(), key, match: `m-${key}`, endpoint: 'collections.create', method: 'POST', url: 'http://x/v1/collections',
  base_url: 'http://x', body_sha256: 'h', pid: 1, ...extra,
})

describe('JournalStore', () => {
  it('pairs operations with their latest outcome; files 0600; a torn line is skipped', () => {
    const dir = tempConfigDir()
    const store = new JournalStore(dir)
    store.append(op('k1'))
    store.append(op('k2'))
    store.append({t: 'outcome', at: 'x', key: 'k1', state: 'unknown'})
    store.append({t: 'outcome', at: 'y', key: 'k1', state: 'succeeded', status: 201, id: 'CL_1'})
    const file = join(dir, 'journal', `${new Date().toISOString().slice(0, 10)}.ndjson`)
    appendFileSync(file, '{"t":"op","key":"torn')
    const entries = store.entries()
    expect(entries.map((e) => [e.op.key, e.outcome?.request])).toEqual([['k1', 'accepted'], ['k2', undefined]])
    expect(statSync(file).mode & 0o777).toBe(0o600)
  })

  it('looks up without parsing everything: entriesAbout answers what the gate asks exactly as the whole journal does', () => {
    const dir = tempConfigDir()
    const store = new JournalStore(dir)
    // keys reused by later operations (a resumed request), keys and references with quotes and backslashes,
    // references that appear in other fields, outcomes before and after, torn lines
    const keys = ['k-1', 'k-2', 'k "3"', 'k\\4', 'k-5', 'k-6']
    const refs = ['r-1', 'r "q"', 'r\\b', 'k-2', 'r-5']
    const states = ['succeeded', 'failed', 'unknown'] as const
    for (let i = 0; i < 120; i++) {
      const key = keys[(i * 7) % keys.length]
      const reference = refs[(i * 5) % refs.length]
      store.append(op(key, {match: `m-${i % 9}`, reference, command: `pay collections create --reference '${refs[(i + 1) % refs.length]}'`}))
      if (i % 4 !== 3) store.append({t: 'outcome', at: `t${i}`, key, state: states[i % 3], body: i % 3 === 0 ? JSON.stringify({merchant_reference: reference}) : undefined})
    }
    appendFileSync(join(dir, 'journal', `${new Date().toISOString().slice(0, 10)}.ndjson`), '{"t":"op","key":"k-1","match":"m-1')
    const all = store.entries()
    const text = (v: string) => JSON.stringify(v).slice(1, -1)
    const pick = (entries: JournalEntry[], pred: (e: JournalEntry) => boolean) =>
      entries.map((e, i) => ({e, i})).filter(({e}) => pred(e)).map(({e, i}) => [e.op.key, e.op.match, e.op.reference, e.outcome?.request ?? null, e.outcome?.at ?? null, unresolved(entries, i)])
    for (const key of keys) {
      const some = store.entriesAbout([text(key)])
      expect(pick(some, (e) => e.op.key === key)).toEqual(pick(all, (e) => e.op.key === key))
    }
    for (let m = 0; m < 9; m++) {
      for (const reference of refs) {
        const some = store.entriesAbout([`m-${m}`, `"reference":${JSON.stringify(reference)}`])
        expect(pick(some, (e) => e.op.match === `m-${m}`)).toEqual(pick(all, (e) => e.op.match === `m-${m}`))
        expect(pick(some, (e) => e.op.reference === reference)).toEqual(pick(all, (e) => e.op.reference === reference))
      }
    }
    // and it parses only what may matter
    expect(store.entriesAbout(['m-1']).length).toBeLessThan(all.length)
  })

  it('prunes at most every few hours: a command soon after the last pruning lists and stats nothing', () => {
    const dir = tempConfigDir()
    const now = Date.now()
    expect(new JournalStore(dir, {now: () => now}).open()).toBe(true)
    const stale = join(dir, 'journal', 'runs', 'stale.ndjson')
    writeFileSync(stale, '{}\n')
    const eightDaysAgo = new Date(now - 8 * 86_400_000)
    utimesSync(stale, eightDaysAgo, eightDaysAgo)
    expect(new JournalStore(dir, {now: () => now + 3_600_000}).open()).toBe(true)
    expect(existsSync(stale)).toBe(true)
    expect(new JournalStore(dir, {now: () => now + 7 * 3_600_000}).open()).toBe(true)
    expect(existsSync(stale)).toBe(false)
    // a clock set back (or a marker from the future) never stops pruning
    writeFileSync(stale, '{}\n')
    utimesSync(stale, eightDaysAgo, eightDaysAgo)
    expect(new JournalStore(dir, {now: () => now - 3_600_000}).open()).toBe(true)
    expect(existsSync(stale)).toBe(false)
  })

  it('deletes segments and run files older than the retention (settled operations)', () => {
    const dir = tempConfigDir()
    const now = Date.parse('2026-05-20T12:00:00Z')
    mkdirSync(join(dir, 'journal', 'runs'), {recursive: true})
    writeFileSync(join(dir, 'journal', '2026-05-01.ndjson'), JSON.stringify(op('old')) + '\n' + JSON.stringify({t: 'outcome', at: 'x', key: 'old', state: 'succeeded'}) + '\n')
    writeFileSync(join(dir, 'journal', '2026-05-15.ndjson'), JSON.stringify(op('kept')) + '\n')
    const store = new JournalStore(dir, {now: () => now, retentionDays: 7})
    expect(store.open()).toBe(true)
    expect(existsSync(join(dir, 'journal', '2026-05-01.ndjson'))).toBe(false)
    expect(store.entries().map((e) => e.op.key)).toEqual(['kept'])
  })

  it("prunes every service's reference files past the retention, whatever the index's markers (.rebuilt, .rebuilding) beside them", () => {
    const dir = tempConfigDir()
    const now = Date.parse('2026-05-20T12:00:00Z')
    const references = join(dir, 'journal', 'references')
    const services = ['0a0a0a0a0a0a0a0a', '1b1b1b1b1b1b1b1b', 'fcfcfcfcfcfcfcfc']
    for (const s of services) {
      mkdirSync(join(references, s), {recursive: true})
      writeFileSync(join(references, s, '3-2026-05-01.ndjson'), '{}\n')
      writeFileSync(join(references, s, '3-2026-05-19.ndjson'), '{}\n')
    }
    // the markers made after the directories (a rebuild's), listed before or among them
    writeFileSync(join(references, '.rebuilt'), '')
    writeFileSync(join(references, '.rebuilding'), '')
    expect(new JournalStore(dir, {now: () => now, retentionDays: 7}).open()).toBe(true)
    for (const s of services) {
      expect(existsSync(join(references, s, '3-2026-05-01.ndjson')), s).toBe(false)
      expect(existsSync(join(references, s, '3-2026-05-19.ndjson')), s).toBe(true)
    }
  })

  it('turns itself off with one warning when the state dir cannot be written', async () => {
    const dir = tempConfigDir()
    writeFileSync(join(dir, 'blocked'), 'a file, not a directory')
    const warnings: string[] = []
    const store = new JournalStore(join(dir, 'blocked'), {warn: (t) => warnings.push(t)})
    store.append(op('k'))
    // a request's record that cannot be written is a failure (its request is not sent), not a silent skip
    expect(() => store.appendDurable(op('k2'))).toThrow(JournalWriteError)
    expect(store.enabled).toBe(false)
    expect(store.entries()).toEqual([])
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(/operation journal is off/)
  })

  it('several processes appending at once: every line whole', async () => {
    const dir = tempConfigDir()
    const storeUrl = pathToFileURL(join(ROOT, 'dist', 'journal', 'store.js')).href
    const script = `const {JournalStore} = await import(${JSON.stringify(storeUrl)}); const s = new JournalStore(process.argv[1]);
      for (let i = 0; i < 300; i++) { const r = {t: 'op', at: 'now', key: process.pid + '-' + i, match: 'm', endpoint: 'e', method: 'POST', url: 'u', base_url: 'b', body_sha256: 'x'.repeat(2000), pid: process.pid}; if (i % 10 === 0) await s.appendDurable(r); else s.append(r) }`
    const run = () => new Promise<number>((resolve) => spawn(process.execPath, ['--input-type=module', '-e', script, dir], {stdio: 'inherit'}).on('close', (c) => resolve(c ?? -1)))
    expect(await Promise.all([run(), run(), run(), run()])).toEqual([0, 0, 0, 0])
    const text = readFileSync(join(dir, 'journal', `${new Date().toISOString().slice(0, 10)}.ndjson`), 'utf8')
    // each record is one write that starts and ends with a line break: whole lines, blank ones between
    const lines = text.split('\n').filter((l) => l !== '')
    expect(lines).toHaveLength(1200)
    for (const l of lines) expect(() => JSON.parse(l)).not.toThrow()
  })

  it('a lock held briefly is waited for without a word; one held past tellAfterMs is told once, with the holder', async () => {
    const dir = tempConfigDir()
    const store = new JournalStore(dir)
    const told: (number | undefined)[] = []
    const release = (await store.holdSender('refs-x', 60_000, () => undefined))!
    // another process's wait is the same loop; the holder here lets go after 60 ms
    setTimeout(release, 60)
    const second = await store.holdSender('refs-x', 60_000, (pid) => told.push(pid), 5000)
    expect(second).toBeTypeOf('function')
    expect(told).toEqual([])
    second!()
    const held = (await store.holdSender('refs-x', 60_000, () => undefined))!
    setTimeout(held, 300)
    const third = await store.holdSender('refs-x', 60_000, (pid) => told.push(pid), 100)
    expect(told).toEqual([process.pid])
    third!()
  })

  it('retention from PAY_JOURNAL_RETENTION_DAYS', () => {
    expect(retentionDaysFrom({})).toBe(7)
    expect(retentionDaysFrom({PAY_JOURNAL_RETENTION_DAYS: '30'})).toBe(30)
    expect(retentionDaysFrom({PAY_JOURNAL_RETENTION_DAYS: '0'})).toBe(7)
  })
})

describe('latestState', () => {
  const op = {t: 'op', at: '2026-11-27T00:00:00.000Z', key: 'k', match: 'm', endpoint: 'payouts.create', method: 'POST', url: 'u', base_url: 'b', body_sha256: 's', pid: 1} as JournalEntry['op']
  const outcome = {t: 'outcome', at: '2026-11-27T00:00:01.000Z', key: 'k', request: 'accepted', status: 201, id: 'PO_MINE', resource_state: 'processing', body: '{"id":"PO_MINE","status":"processing"}'} as JournalEntry['outcome']
  const seen = (id: string, state: string) => ({t: 'state', at: '2026-11-27T00:00:02.000Z', key: 'k', state, body: JSON.stringify({id, status: state})}) as JournalEntry['seen']

  it("a later look at this resource is its latest state; a recorded look at another resource (a shared reference) is not", () => {
    expect(latestState({op, outcome, seen: seen('PO_MINE', 'failed')})).toMatchObject({state: 'failed', at: '2026-11-27T00:00:02.000Z'})
    expect(latestState({op, outcome, seen: seen('PO_OTHER', 'succeeded')})).toMatchObject({state: 'processing', at: '2026-11-27T00:00:01.000Z', body: outcome!.body})
  })
})

describe('an outcome is the outcome of its operation', () => {
  const T = (s: number) => new Date(Date.UTC(2026, 10, 27, 10, 0, s)).toISOString()

  it("a late unknown of a suspended process never overrides the answer another process recorded for the key (named operations, and an older pay's journal)", () => {
    const store = new JournalStore(tempConfigDir())
    // this pay: each outcome names its operation (op_at, op_pid)
    store.append(op('k1', {at: T(0), pid: 10}))
    store.append(op('k1', {at: T(40), pid: 20}))
    store.append({t: 'outcome', at: T(41), key: 'k1', request: 'accepted', status: 201, id: 'CL_1', op_at: T(40), op_pid: 20})
    store.append({t: 'outcome', at: T(45), key: 'k1', request: 'unknown', error: {code: 'network_error', message: 'timeout'}, op_at: T(0), op_pid: 10})
    // an older pay: outcomes name no operation (the key's newest one then)
    store.append(op('k2', {at: T(0), pid: 10}))
    store.append(op('k2', {at: T(40), pid: 20}))
    store.append({t: 'outcome', at: T(41), key: 'k2', request: 'accepted', status: 201, id: 'CL_2'})
    store.append({t: 'outcome', at: T(45), key: 'k2', request: 'unknown'})
    const entries = store.entries()
    expect(entries.map((e) => [e.op.key, e.op.pid, e.outcome?.request, e.outcome?.id])).toEqual([
      ['k1', 10, 'accepted', 'CL_1'],
      ['k1', 20, 'accepted', 'CL_1'],
      ['k2', 10, 'accepted', 'CL_2'],
      ['k2', 20, 'accepted', 'CL_2'],
    ])
    expect(entries.some((_, i) => unresolved(entries, i))).toBe(false)
  })

  it('a refusal before the key was sent again settles nothing of the later request; an answer to another body under the key is not its answer', () => {
    const store = new JournalStore(tempConfigDir())
    store.append(op('k3', {at: T(0)}))
    store.append({t: 'outcome', at: T(1), key: 'k3', request: 'refused', status: 401})
    store.append(op('k3', {at: T(10)}))
    store.append({t: 'outcome', at: T(11), key: 'k3', request: 'unknown'})
    store.append(op('k4', {at: T(0), match: 'body-a'}))
    store.append({t: 'outcome', at: T(1), key: 'k4', request: 'accepted', id: 'CL_4', op_at: T(0), op_pid: 1})
    store.append(op('k4', {at: T(10), match: 'body-b'}))
    const entries = store.entries()
    expect(entries.map((e) => [e.op.key, e.outcome?.request])).toEqual([
      ['k3', 'refused'],
      ['k3', 'unknown'],
      ['k4', 'accepted'],
      ['k4', undefined],
    ])
    expect(unresolved(entries, 1)).toBe(true)
  })

  it("a refusal an older pay wrote after the key's answer never overrides it: the service does a key once", () => {
    const store = new JournalStore(tempConfigDir())
    // the same request twice under one key (a resume); the answer, then a refusal that names no operation
    store.append(op('k5', {at: T(0), pid: 10}))
    store.append(op('k5', {at: T(40), pid: 20}))
    store.append({t: 'outcome', at: T(41), key: 'k5', request: 'accepted', status: 201, id: 'CL_5', op_at: T(40), op_pid: 20})
    store.append({t: 'outcome', at: T(45), key: 'k5', request: 'refused', status: 400})
    // one operation only: answered, then refused
    store.append(op('k6', {at: T(0)}))
    store.append({t: 'outcome', at: T(1), key: 'k6', request: 'accepted', status: 201, id: 'CL_6'})
    store.append({t: 'outcome', at: T(2), key: 'k6', request: 'refused', status: 400})
    const entries = store.entries()
    expect(entries.map((e) => [e.op.key, e.outcome?.request, e.outcome?.id])).toEqual([
      ['k5', 'accepted', 'CL_5'],
      ['k5', 'accepted', 'CL_5'],
      ['k6', 'accepted', 'CL_6'],
    ])
  })
})
