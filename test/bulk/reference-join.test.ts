/**
 * The join under a bulk run's reference check, in-process: which rows it refuses against the reference index and the
 * single commands' accepted references, sorted in memory or through files on disk.
 */
import {mkdirSync, readdirSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it, vi} from 'vitest'
import {JournalStore} from '../../src/journal/store.js'
import {ReferenceIndex, bucketOf} from '../../src/journal/references.js'
import {brokenPromises} from '../../src/bulk/reference-join.js'
import {tempConfigDir} from '../helpers/cli.js'
import {SCOPE, accepted, writeAccepted} from '../helpers/reference-index.js'

async function* rowsOf(rows: {line: number; reference: string | null; key: string}[]) {
  yield* rows
}

describe('the reference check of a bulk run', () => {
  it("a bulk check refuses a row whose reference is held under another key only, in one pass or many, and a single command's reference", async () => {
    const store = new JournalStore(tempConfigDir())
    store.open()
    const index = new ReferenceIndex(store, SCOPE)
    // the same reference under two keys (a --force-new run): the row's own key settles it
    writeAccepted(store, [...Array.from({length: 50}, (_, i) => accepted(`b-${i}`, `k-${i}`)), accepted('b-3', 'k-3-forced')])
    const rows = [
      {line: 2, reference: 'b-1', key: 'k-1'}, // the same request
      {line: 3, reference: 'b-2', key: 'other'}, // another body
      {line: 4, reference: 'b-3', key: 'k-3'},
      {line: 5, reference: 'new', key: 'k-new'},
      {line: 6, reference: null, key: 'k-none'},
      {line: 7, reference: 's-1', key: 'k-s'}, // a single command's reference
    ]
    const singles = new Map([['s-1', [{ref: 's-1', key: 'random', at: '2026-11-26T09:00:00.000Z'}]]])
    for (const budget of [undefined, 1]) {
      const found = await brokenPromises(index, () => rowsOf(rows), singles, 20, budget)
      expect(found.count).toBe(2)
      expect(found.listed.map((b) => [b.line, b.earlier.key])).toEqual([
        [3, 'k-2'],
        [7, 'random'],
      ])
      expect(found.listed[0].earlier).toEqual(accepted('b-2', 'k-2'))
    }
    expect(readdirSync(store.dir).filter((n) => n.startsWith('sorted-'))).toEqual([]) // its sorted files are removed
  })

  it('counts every broken row, lists the first ones in file order with the newest accepted request of each, over sorted files on disk', async () => {
    const store = new JournalStore(tempConfigDir())
    store.open()
    const index = new ReferenceIndex(store, SCOPE)
    // an older day's file holds the first request of r-5; today's a later one under another key
    const old = index.fileOf(bucketOf('r-5'), '2026-11-20')
    mkdirSync(index.dir, {recursive: true})
    writeFileSync(old, `${JSON.stringify(accepted('r-5', 'k-old', 9))}\n{"torn":\n\0\0`)
    writeAccepted(store, Array.from({length: 300}, (_, i) => accepted(`r-${i}`, `k-${i}`)))
    // rows in file order: every third one under another key than the index's
    const rows = Array.from({length: 300}, (_, i) => ({line: i + 2, reference: `r-${i}`, key: i % 3 === 0 && i !== 5 ? `x-${i}` : `k-${i}`}))
    for (const budget of [undefined, 7]) {
      const found = await brokenPromises(index, () => rowsOf(rows), new Map(), 4, budget)
      expect(found.count).toBe(100)
      expect(found.listed.map((b) => [b.line, b.earlier.ref, b.earlier.key])).toEqual([
        [2, 'r-0', 'k-0'],
        [5, 'r-3', 'k-3'],
        [8, 'r-6', 'k-6'],
        [11, 'r-9', 'k-9'],
      ])
    }
    // r-5 under its own key in today's file: held; under neither key: broken, naming the newest accepted request
    // (today's, read back by its place after the older day's file: the rule of src/journal/references.ts)
    const five = await brokenPromises(index, () => rowsOf([{line: 40, reference: 'r-5', key: 'k-new'}]), new Map(), 20)
    expect(five.listed.map((b) => [b.line, b.earlier.key, b.earlier.line])).toEqual([[40, 'k-5', 2]])
  })


  it('rows of one reference share its first request: both listed from one reading of the index, not a third', async () => {
    const store = new JournalStore(tempConfigDir())
    store.open()
    const index = new ReferenceIndex(store, SCOPE)
    writeAccepted(store, [accepted('p-1', 'k-1'), accepted('p-2', 'k-2')])
    const entries = vi.spyOn(index, 'entries')
    const rows = [
      {line: 2, reference: 'p-1', key: 'x-1'},
      {line: 3, reference: 'p-1', key: 'x-2'},
    ]
    const found = await brokenPromises(index, () => rowsOf(rows), new Map(), 20)
    expect(found.listed.map((b) => [b.line, b.earlier.key])).toEqual([
      [2, 'k-1'],
      [3, 'k-1'],
    ])
    expect(entries.mock.calls.length).toBe(2 * 16) // every bucket, twice: the join, then the listed requests by place
  })

  it('an index file that cannot be read stops the check, naming the file; one gone meanwhile is skipped', async () => {
    const store = new JournalStore(tempConfigDir())
    store.open()
    const index = new ReferenceIndex(store, SCOPE)
    writeAccepted(store, [accepted('q-1', 'k-1')])
    const rows = () => rowsOf([{line: 2, reference: 'q-1', key: 'x-1'}])
    symlinkSync(join(index.dir, 'gone'), index.fileOf(bucketOf('q-1'), '2026-11-20'))
    expect((await brokenPromises(index, rows, new Map(), 20)).count).toBe(1)
    const broken = index.fileOf(bucketOf('q-1'), '2026-11-21')
    mkdirSync(broken)
    await expect(brokenPromises(index, rows, new Map(), 20)).rejects.toThrow(broken)
  })
})
