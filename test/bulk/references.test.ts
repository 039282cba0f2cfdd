/**
 * A bulk run's reference check in-process: which rows it refuses against the reference index and the single
 * commands' accepted references, when the index is read in one pass or in many.
 */
import {describe, expect, it} from 'vitest'
import {JournalStore} from '../../src/journal/store.js'
import {type AcceptedReference, ReferenceIndex} from '../../src/journal/references.js'
import {ReferenceWriter, brokenPromises} from '../../src/bulk/references.js'
import {tempConfigDir} from '../helpers/cli.js'

const SCOPE = {endpoint: 'collections.create', baseUrl: 'http://127.0.0.1:9', clientId: 'c', accountRef: undefined}
const accepted = (ref: string, key: string, line = 2): AcceptedReference => ({ref, key, at: '2026-11-26T10:00:00.000Z', id: `CL_${ref}`, state: 'processing', run: 'r'.repeat(32), line, file: 'pay.csv'})

async function* rowsOf(rows: {line: number; reference: string | null; key: string}[]) {
  yield* rows
}

describe('the reference check of a bulk run', () => {
  it("a bulk check refuses a row whose reference is held under another key only, in one pass or many, and a single command's reference", async () => {
    const store = new JournalStore(tempConfigDir())
    store.open()
    const index = new ReferenceIndex(store, SCOPE)
    const w = new ReferenceWriter(index)
    for (let i = 0; i < 50; i++) w.add(accepted(`b-${i}`, `k-${i}`))
    w.add(accepted('b-3', 'k-3-forced')) // the same reference under two keys (a --force-new run): the row's own key settles it
    w.end()
    const rows = [
      {line: 2, reference: 'b-1', key: 'k-1'}, // the same request
      {line: 3, reference: 'b-2', key: 'other'}, // another body
      {line: 4, reference: 'b-3', key: 'k-3'},
      {line: 5, reference: 'new', key: 'k-new'},
      {line: 6, reference: null, key: 'k-none'},
      {line: 7, reference: 's-1', key: 'k-s'}, // a single command's reference
    ]
    const singles = new Map([['s-1', [{ref: 's-1', key: 'random', at: '2026-11-26T09:00:00.000Z'}]]])
    for (const perPass of [200_000, 1]) {
      const broken: [number, string][] = []
      await brokenPromises(index, () => rowsOf(rows), singles, (line, e) => broken.push([line, e.key]), perPass)
      expect(broken.sort((x, y) => x[0] - y[0])).toEqual([
        [3, 'k-2'],
        [7, 'random'],
      ])
    }
  })

})
