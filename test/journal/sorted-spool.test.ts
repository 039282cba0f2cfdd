/** The records a bulk run sorts on disk instead of holding them, and the earlier runs' outcomes read through them. */
import {existsSync, readdirSync, statSync} from 'node:fs'
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {RunJournal, rowOutcome, withStatus} from '../../src/journal/run-journal.js'
import {SortedRecords, hexWords} from '../../src/journal/sorted-spool.js'
import {JournalStore} from '../../src/journal/store.js'
import {tempConfigDir} from '../helpers/cli.js'

async function all(spool: SortedRecords): Promise<number[][]> {
  const out: number[][] = []
  for await (const chunk of spool.sorted()) for (let i = 0; i < chunk.length; i += spool.width) out.push([...chunk.subarray(i, i + spool.width)])
  return out
}

const byWords = (a: number[], b: number[]) => {
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return a[k] - b[k]
  return 0
}

describe('SortedRecords', () => {
  it('gives back every record (1 to 8 words) in word order, however many run files the budget makes, as often as asked', async () => {
    const word = fc.oneof(fc.integer({min: 0, max: 3}), fc.integer({min: 0, max: 2 ** 32 - 1}))
    await fc.assert(
      fc.asyncProperty(fc.integer({min: 1, max: 8}), fc.array(fc.array(word, {minLength: 8, maxLength: 8}), {maxLength: 300}), fc.integer({min: 1, max: 200}), async (width, rows, budget) => {
        const dir = tempConfigDir()
        const spool = new SortedRecords(dir, width, budget)
        const records = rows.map((r) => r.slice(0, width))
        for (const r of records) spool.add(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7])
        const expected = [...records].sort(byWords)
        expect(await all(spool)).toEqual(expected)
        expect(await all(spool)).toEqual(expected)
        spool.dispose()
        expect(readdirSync(dir).filter((n) => n.startsWith('sorted-'))).toEqual([])
      }),
      {numRuns: 80},
    )
  })

  it('holds at most its budget: past it, sorted runs go to 0600 files, merged in order', async () => {
    const dir = tempConfigDir()
    const spool = new SortedRecords(dir, 2, 1000)
    const rows = 20_000
    // rows added out of order (as a run journal's are: workers finish in any order)
    for (let i = 0; i < rows; i++) spool.add((i * 7919) % rows, i)
    expect(spool.runFiles.length).toBe(20)
    for (const file of spool.runFiles) expect(statSync(file).mode & 0o777).toBe(0o600)
    const back = await all(spool)
    expect(back.map((r) => r[0])).toEqual(Array.from({length: rows}, (_, i) => i))
    const files = [...spool.runFiles]
    spool.dispose()
    for (const file of files) expect(existsSync(file)).toBe(false)
  })

  it('a merge hands out one chunk, filled again for the next: no array per chunk for the collector to free late', async () => {
    const spool = new SortedRecords(tempConfigDir(), 3, 1000)
    for (let i = 0; i < 20_000; i++) spool.add((i * 7919) % 20_000, i, 7)
    const chunks = new Set<Uint32Array>()
    let records = 0
    let last = -1
    for await (const chunk of spool.sorted()) {
      chunks.add(chunk)
      for (let i = 0; i < chunk.length; i += 3) {
        expect(chunk[i]).toBe(last + 1)
        last = chunk[i]
        records++
      }
    }
    expect(records).toBe(20_000)
    // the full chunks are one array (the last, partial one a view of it)
    expect(new Set([...chunks].map((c) => c.buffer)).size).toBe(1)
    spool.dispose()
  })

  it('a spool within its budget never touches the disk', async () => {
    const spool = new SortedRecords(tempConfigDir(), 1)
    for (let i = 0; i < 5000; i++) spool.add(5000 - i)
    expect((await all(spool))[0]).toEqual([1])
    expect(spool.runFiles).toEqual([])
  })
})

describe("earlier runs' outcomes, sorted by row on disk", () => {
  const header = (salt: string) => ({t: 'run' as const, run: 'c'.repeat(32), at: '2026-01-01T00:00:00.000Z', operation: 'collections:create', file: 'x.csv', file_sha256: 'f', profile: 'p', base_url: 'http://127.0.0.1', salt})
  const row = (n: number, outcome: 'accepted' | 'refused' | 'unknown', key = `k${n}`) =>
    rowOutcome({row: n, line: n + 1, reference: `r${n}`, outcome, http_status: outcome === 'accepted' ? 201 : null, id: null, state: null, state_at: null, error_code: null, error_message: null, idempotency_key: key, amount: '1.00', currency: 'KES', earlier: false}, undefined)

  it("are each row's newest record of the newest salt, in row order, counted once", async () => {
    const store = new JournalStore(tempConfigDir())
    const journal = new RunJournal(store, 'c'.repeat(32))
    journal.begin(header('old'))
    journal.record(row(9, 'accepted', 'old-key'))
    await journal.end()
    journal.begin(header(''))
    for (const n of [5, 3, 1, 4, 2]) journal.record(row(n, 'unknown'))
    await journal.end()
    journal.begin(header(''))
    journal.record(row(4, 'accepted'))
    journal.record(row(2, 'refused'), true)
    journal.record(row(5, 'refused'))
    await journal.end()
    const {outcomes, salt} = await journal.load()
    expect(salt).toBe('')
    const seen: {row: number; outcome: string; again: boolean}[] = []
    const keys = [...Object.keys(row(1, 'accepted')), 'again'] // a row outcome's keys in their one order, then `again`
    for await (const chunk of outcomes.chunks()) {
      for (const o of chunk) {
        seen.push({row: o.row, outcome: o.outcome, again: o.again})
        expect(Object.keys(o)).toEqual(keys)
        expect(Object.keys(withStatus(o, o.status))).toEqual(keys.slice(0, -1)) // the copy the send pass reports
      }
    }
    // row 9 was journaled under another salt: it does not count
    expect(seen).toEqual([
      {row: 1, outcome: 'unknown', again: false},
      {row: 2, outcome: 'refused', again: true},
      {row: 3, outcome: 'unknown', again: false},
      {row: 4, outcome: 'accepted', again: false},
      {row: 5, outcome: 'refused', again: false},
    ])
    expect(await outcomes.count((o) => o.outcome !== 'unknown')).toBe(3)
    expect(outcomes.rows).toBe(5)
    outcomes.dispose()
  })
})

describe('hexWords', () => {
  it('reads the 32-bit words of a hex digest, as parseInt of each 8 digits does (lower or upper case)', () => {
    fc.assert(
      fc.property(fc.uint8Array({minLength: 16, maxLength: 32}), fc.boolean(), (bytes, upper) => {
        const hex = Buffer.from(bytes).toString('hex')
        const text = upper ? hex.toUpperCase() : hex
        for (let at = 0; at < Math.floor(bytes.length / 4); at++) expect(hexWords(text, at)).toBe(Number.parseInt(hex.slice(at * 8, at * 8 + 8), 16))
      }),
    )
    expect(hexWords('ffffffff00000000', 0)).toBe(0xffffffff)
    expect(hexWords('ffffffff00000000', 1)).toBe(0)
  })
})
