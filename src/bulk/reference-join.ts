/**
 * The join under a bulk run's reference check (src/bulk/references.ts): which rows' references an earlier request
 * (accepted, or with its outcome unknown) already holds under another key. Its own module: a sort-merge join over files on disk, checked on its own with a
 * small memory budget (test/bulk/reference-join.test.ts), apart from the check's message and exit code.
 */
import {hash as sha256Of} from 'node:crypto'
import {type AcceptedReference, BUCKETS, type HeldAs, type Holder, type ReferenceIndex, heldAs, hold, referenceVerdict} from '../journal/references.js'
import {SortedRecords, hexWords} from '../journal/sorted-spool.js'

/** Index entries read between two turns of the event loop. */
const YIELD_EVERY = 8192

/** A bulk row as the join reads it: its line, its reference (none: nothing to check) and its Idempotency-Key. */
type RowKey = {line: number; reference: string | null; key: string}

/** A broken promise: a row's line, and the earlier request that holds its reference under another key. */
interface BrokenPromise {
  line: number
  earlier: AcceptedReference
}

/** A state as a word of a record, and back. */
const AS: HeldAs[] = ['accepted', 'unknown', 'refused']

/**
 * Every row whose reference an earlier request of the index's scope holds under another key, by the one rule
 * (referenceVerdict, src/journal/references.ts; a row never takes another request's key): accepted (a single command,
 * or a bulk row of another body or salt) or with its outcome unknown (it may have paid), and none under the row's own
 * key. `singles` are the operation journal's requests of the scope that hold a reference (singlesHolding in
 * src/bulk/references.ts). Returns how many rows there are, and the first `limit` of them in file order, each with the
 * earlier request the rule names.
 *
 * A join sorted on disk (src/journal/sorted-spool.ts), so that memory does not grow with the rows or the index: each
 * earlier request and each row is a record (SHA-256 of the reference: 128 bits; earlier request or row; its place
 * in the index's reading order with its state, or the row's line; 64 bits of the SHA-256 of its key); sorted, a
 * reference's earlier requests come before its rows, oldest first. Only the `limit` listed requests are read back
 * from the index, by their place.
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
  const joined = new SortedRecords(dir, 8, budget) // reference (4 words), 0 earlier | 1 row, place * 4 + state | line, key (2 words)
  const found = new SortedRecords(dir, 4, budget) // line, place of the earlier request named, reference (2 words)
  try {
    let places = 0
    await eachAccepted(index, singles, (e) => {
      const [r0, r1, r2, r3] = words(e.ref)
      const [k0, k1] = words(e.key)
      joined.add(r0, r1, r2, r3, 0, places++ * 4 + AS.indexOf(heldAs(e)), k0, k1)
    })
    if (places === 0) return none
    for await (const r of rows()) {
      if (r.reference === null) continue
      const [r0, r1, r2, r3] = words(r.reference)
      const [k0, k1] = words(r.key)
      joined.add(r0, r1, r2, r3, 1, r.line, k0, k1)
    }
    // per reference: its earlier requests' keys (few), each with its state and the place of the record that says it; then its rows
    const holders = new Map<string, Holder<number>>()
    let ref = [-1, -1, -1, -1]
    let count = 0
    for await (const recs of joined.sorted()) {
      for (let i = 0; i < recs.length; i += 8) {
        if (recs[i] !== ref[0] || recs[i + 1] !== ref[1] || recs[i + 2] !== ref[2] || recs[i + 3] !== ref[3]) {
          ref = [recs[i], recs[i + 1], recs[i + 2], recs[i + 3]]
          holders.clear()
        }
        const key = `${recs[i + 6]}.${recs[i + 7]}`
        if (recs[i + 4] === 0) {
          hold(holders, key, AS[recs[i + 5] % 4] ?? 'accepted', false, Math.floor(recs[i + 5] / 4))
          continue
        }
        if (holders.size === 0) continue
        const verdict = referenceVerdict(holders.values(), key, false)
        if (verdict.do !== 'send') {
          found.add(recs[i + 5], verdict.holder.entry, ref[0], ref[1])
          count++
        }
      }
    }
    if (count === 0) return none
    // the first `limit` rows in file order, and the requests they name, read back by place (by reference
    // instead when a file of the index was pruned between the two readings)
    const listed: {line: number; place: number; ref: [number, number]; earlier?: AcceptedReference}[] = []
    for await (const recs of found.sorted()) {
      for (let i = 0; i < recs.length && listed.length < limit; i += 4) listed.push({line: recs[i], place: recs[i + 1], ref: [recs[i + 2], recs[i + 3]]})
      if (listed.length >= limit) break
    }
    // rows of one reference may name the same request: a place names a list of them
    const byPlace = new Map<number, typeof listed>()
    for (const l of listed) byPlace.set(l.place, [...(byPlace.get(l.place) ?? []), l])
    let place = 0
    await eachAccepted(index, singles, (e) => {
      for (const l of byPlace.get(place++) ?? []) if (sameRef(e, l.ref)) l.earlier = e
    })
    if (listed.some((l) => l.earlier === undefined)) {
      await eachAccepted(index, singles, (e) => {
        const [r0, r1] = words(e.ref)
        for (const l of listed) if (l.earlier === undefined && heldAs(e) !== 'refused' && l.ref[0] === r0 && l.ref[1] === r1) l.earlier = e
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

/** The first four 32-bit words of a text's SHA-256. */
function words(text: string): [number, number, number, number] {
  const h = sha256Of('sha256', text, 'hex')
  return [hexWords(h, 0), hexWords(h, 1), hexWords(h, 2), hexWords(h, 3)]
}

/**
 * Every request of the scope that the index or `singles` hold, in one fixed order (so that a place in it names one
 * request): the index bucket by bucket, each bucket's files oldest first, line by line (streamed, never a whole file),
 * then single commands'. A reference's lines come oldest first, so a key's newest line comes last.
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
