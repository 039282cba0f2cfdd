/**
 * The join under a bulk run's reference check (src/bulk/references.ts): which rows' references an accepted request
 * already holds under another key. Its own module: a sort-merge join over files on disk, checked on its own with a
 * small memory budget (test/bulk/reference-join.test.ts), apart from the check's message and exit code.
 */
import {hash as sha256Of} from 'node:crypto'
import {type AcceptedReference, BUCKETS, type ReferenceIndex} from '../journal/references.js'
import {SortedRecords, hexWords} from '../journal/sorted-spool.js'

/** Index entries read between two turns of the event loop. */
const YIELD_EVERY = 8192

/** A bulk row as the join reads it: its line, its reference (none: nothing to check) and its Idempotency-Key. */
type RowKey = {line: number; reference: string | null; key: string}

/** A broken promise: a row's line, and the first accepted request that holds its reference under another key. */
interface BrokenPromise {
  line: number
  earlier: AcceptedReference
}

/**
 * Every row whose reference an accepted request of the index's scope already holds under another key (a single
 * command, or a bulk row of another body) and none under the row's own key. `singles` are the operation journal's
 * accepted requests of the scope (acceptedSingles in src/bulk/references.ts). Returns how many rows there are, and the first `limit` of them
 * in file order, each with the first accepted request of its reference (the index's oldest, else a single command).
 *
 * A join sorted on disk (src/journal/sorted-spool.ts), so that memory does not grow with the rows or the index: each
 * accepted request and each row is a record (SHA-256 of the reference: 128 bits; accepted request or row; its place
 * in the index's reading order, or the row's line; 64 bits of the SHA-256 of its key); sorted, a reference's accepted
 * requests come before its rows. Only the `limit` listed requests are read back from the index, by their place.
 */
export async function brokenPromises(
  index: ReferenceIndex,
  rows: () => AsyncIterable<RowKey>,
  singles: Map<string, AcceptedReference[]>,
  limit: number,
  budget?: number,
): Promise<{count: number; listed: BrokenPromise[]}> {
  const none = {count: 0, listed: []}
  if (!index.exists() && singles.size === 0) return none
  const dir = index.store.dir
  const joined = new SortedRecords(dir, 8, budget) // reference (4 words), 0 accepted | 1 row, place | line, key (2 words)
  const found = new SortedRecords(dir, 4, budget) // line, place of the first accepted request of its reference, reference (2 words)
  try {
    let places = 0
    await eachAccepted(index, singles, (e) => {
      const [r0, r1, r2, r3] = words(e.ref)
      const [k0, k1] = words(e.key)
      joined.add(r0, r1, r2, r3, 0, places++, k0, k1)
    })
    if (places === 0) return none
    for await (const r of rows()) {
      if (r.reference === null) continue
      const [r0, r1, r2, r3] = words(r.reference)
      const [k0, k1] = words(r.key)
      joined.add(r0, r1, r2, r3, 1, r.line, k0, k1)
    }
    // per reference: its accepted requests' keys (few), then its rows
    const keys: number[] = []
    let first = -1
    let ref = [-1, -1, -1, -1]
    let count = 0
    for await (const recs of joined.sorted()) {
      for (let i = 0; i < recs.length; i += 8) {
        if (recs[i] !== ref[0] || recs[i + 1] !== ref[1] || recs[i + 2] !== ref[2] || recs[i + 3] !== ref[3]) {
          ref = [recs[i], recs[i + 1], recs[i + 2], recs[i + 3]]
          keys.length = 0
          first = recs[i + 5]
        }
        if (recs[i + 4] === 0) keys.push(recs[i + 6], recs[i + 7])
        else if (keys.length > 0 && !heldUnder(keys, recs[i + 6], recs[i + 7])) {
          found.add(recs[i + 5], first, ref[0], ref[1])
          count++
        }
      }
    }
    if (count === 0) return none
    // the first `limit` rows in file order, and the accepted requests they name, read back by place (by reference
    // instead when a file of the index was pruned between the two readings)
    const listed: {line: number; place: number; ref: [number, number]; earlier?: AcceptedReference}[] = []
    for await (const recs of found.sorted()) {
      for (let i = 0; i < recs.length && listed.length < limit; i += 4) listed.push({line: recs[i], place: recs[i + 1], ref: [recs[i + 2], recs[i + 3]]})
      if (listed.length >= limit) break
    }
    // rows of one reference share the place of its first accepted request: a place names a list of them
    const byPlace = new Map<number, typeof listed>()
    for (const l of listed) byPlace.set(l.place, [...(byPlace.get(l.place) ?? []), l])
    let place = 0
    await eachAccepted(index, singles, (e) => {
      for (const l of byPlace.get(place++) ?? []) if (sameRef(e, l.ref)) l.earlier = e
    })
    if (listed.some((l) => l.earlier === undefined)) {
      await eachAccepted(index, singles, (e) => {
        const [r0, r1] = words(e.ref)
        for (const l of listed) if (l.earlier === undefined && l.ref[0] === r0 && l.ref[1] === r1) l.earlier = e
      })
    }
    return {count, listed: listed.flatMap((l) => (l.earlier ? [{line: l.line, earlier: l.earlier}] : []))}
  } finally {
    joined.dispose()
    found.dispose()
  }
}

/** Whether an accepted request's reference is the one of these words (its SHA-256's first two). */
function sameRef(e: AcceptedReference, ref: [number, number]): boolean {
  const [r0, r1] = words(e.ref)
  return r0 === ref[0] && r1 === ref[1]
}

/** Whether the (k0, k1) pairs of `keys` hold this one. */
function heldUnder(keys: number[], k0: number, k1: number): boolean {
  for (let i = 0; i < keys.length; i += 2) if (keys[i] === k0 && keys[i + 1] === k1) return true
  return false
}

/** The first four 32-bit words of a text's SHA-256. */
function words(text: string): [number, number, number, number] {
  const h = sha256Of('sha256', text, 'hex')
  return [hexWords(h, 0), hexWords(h, 1), hexWords(h, 2), hexWords(h, 3)]
}

/**
 * Every accepted request of the scope, in one fixed order (so that a place in it names one request): the index
 * bucket by bucket, each bucket's files oldest first, line by line (streamed, never a whole file), then single
 * commands'. A reference's oldest indexed request comes before its others.
 */
async function eachAccepted(index: ReferenceIndex, singles: Map<string, AcceptedReference[]>, each: (e: AcceptedReference) => void): Promise<void> {
  if (index.exists()) {
    let read = 0
    for (let bucket = 0; bucket < BUCKETS; bucket++) {
      for (const e of index.entries(bucket)) {
        each(e)
        if (++read % YIELD_EVERY === 0) await new Promise<void>((r) => setImmediate(r)) // a signal (Ctrl-C) is not held up by a large index
      }
    }
  }
  for (const list of singles.values()) for (const e of list) each(e)
}
