/**
 * Fixed-width records sorted on disk (an external merge sort), so that what a bulk run must know across rows (a
 * reference's body, a body's earlier copies, an earlier run's outcome) costs disk, not memory. A record is a few
 * 32-bit words (hash words, row and line numbers, file offsets), compared word by word. Records are held in one
 * typed array up to a budget, then sorted and written to a 0600 run file next to the journal; reading merges the run
 * files. Typed arrays, not a string or an object per row: nothing per row lives long enough to reach V8's old space,
 * and a run within its budget never touches the disk.
 */
import {closeSync, openSync, readSync, rmSync, writeSync} from 'node:fs'
import {join} from 'node:path'
import {SECRET_FILE_MODE} from '../config/paths.js'
import {SPOOL_PREFIXES} from './store.js'

/**
 * Records held in memory before a sorted run is written out: few enough that what a run holds (a few of these at
 * once, each until a full collection finds it dead) stays small beside a short run's memory.
 */
const DEFAULT_BUDGET_RECORDS = 1 << 14
/** Records handed out at a time. */
const CHUNK_RECORDS = 2048
/** Records read from each run file at a time while merging (a million rows make 61 run files). */
const HEAD_RECORDS = 256

let made = 0

export class SortedRecords {
  private readonly held: Uint32Array
  /** The order the held records are sorted in, and the merge sort's second half (made once: not an array per spill). */
  private order = new Uint32Array(0)
  private spare = new Uint32Array(0)
  private count = 0
  private sortedHeld = true
  private readonly runs: string[] = []

  constructor(
    private readonly dir: string,
    /** Words per record (at most 8). */
    readonly width: number,
    private readonly budget = DEFAULT_BUDGET_RECORDS,
  ) {
    if (width < 1 || width > 8) throw new RangeError(`a sorted record is 1 to 8 words, not ${width}`)
    // the whole budget at once, not grown by copies that wait as garbage for a full collection: the system gives its
    // pages only as records are written there
    this.held = new Uint32Array(budget * width)
  }

  /** Run files written so far. */
  get runFiles(): readonly string[] {
    return this.runs
  }

  /** Adds a record of `width` words (the first `width` arguments; each a 32-bit unsigned integer). */
  add(a: number, b = 0, c = 0, d = 0, e = 0, f = 0, g = 0, h8 = 0): void {
    const w = this.width
    const at = this.count * w
    const h = this.held
    h[at] = a
    if (w > 1) h[at + 1] = b
    if (w > 2) h[at + 2] = c
    if (w > 3) h[at + 3] = d
    if (w > 4) h[at + 4] = e
    if (w > 5) h[at + 5] = f
    if (w > 6) h[at + 6] = g
    if (w > 7) h[at + 7] = h8
    this.count++
    this.sortedHeld = false
    if (this.count >= this.budget) this.spill()
  }

  /**
   * Every record, in order, a chunk at a time (each chunk `width` words per record); as often as asked, once all are
   * added. A chunk is valid until the next one is asked for: its memory is used again for the next (nothing per chunk
   * is left for the garbage collector, which frees typed arrays' memory late).
   */
  async *sorted(): AsyncGenerator<Uint32Array> {
    if (this.runs.length === 0) {
      if (!this.sortedHeld) this.sortHeld()
      this.sortedHeld = true
      const step = CHUNK_RECORDS * this.width
      for (let at = 0; at < this.count * this.width; at += step) yield this.held.subarray(at, Math.min(at + step, this.count * this.width))
      return
    }
    if (this.count > 0) this.spill()
    yield* merge(this.runs, this.width)
  }

  /** Removes the run files. */
  dispose(): void {
    for (const file of this.runs) rmSync(file, {force: true})
    this.runs.length = 0
    this.count = 0
  }

  private spill(): void {
    const file = join(this.dir, `${SPOOL_PREFIXES.sorted}${process.pid}-${Date.now()}-${++made}.bin`)
    const fd = openSync(file, 'wx', SECRET_FILE_MODE) // a new file: never through a link left in a shared directory
    this.runs.push(file)
    try {
      this.sortHeld()
      const bytes = Buffer.from(this.held.buffer, this.held.byteOffset, this.count * this.width * 4)
      for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at)
    } finally {
      closeSync(fd)
    }
    this.count = 0
  }

  /** Sorts the held records in place. */
  private sortHeld(): void {
    if (this.order.length < this.count) {
      this.order = new Uint32Array(this.budget)
      this.spare = new Uint32Array(this.budget)
    }
    sortRecords(this.held, this.count, this.width, this.order, this.spare)
  }
}

/** Compares record `i` of `a` with record `j` of `b`, word by word. */
function compare(a: Uint32Array, i: number, b: Uint32Array, j: number, width: number): number {
  for (let k = 0; k < width; k++) {
    const d = a[i + k] - b[j + k]
    if (d !== 0) return d
  }
  return 0
}

/** A record's words while sortRecords moves others into its place. */
const moving = new Uint32Array(8)
/** Marks a place of `order` whose record is in place. */
const PLACED = 0xffffffff

/**
 * Sorts the first `count` records of `held` in place: their order is found in `orderSpace` (with `spareSpace`, each
 * at least `count` long), then the records are moved along each cycle of that order, one record aside at a time.
 */
function sortRecords(held: Uint32Array, count: number, width: number, orderSpace: Uint32Array, spareSpace: Uint32Array): void {
  const order = orderSpace.subarray(0, count)
  for (let i = 0; i < count; i++) order[i] = i * width
  sortOrder(held, width, order, spareSpace.subarray(0, count))
  // place j takes the record now at order[j]; word by word, no typed-array view made per record
  for (let start = 0; start < count; start++) {
    if (order[start] === PLACED) continue
    for (let k = 0; k < width; k++) moving[k] = held[start * width + k]
    let j = start
    for (;;) {
      const from = order[j]
      order[j] = PLACED
      if (from === start * width) {
        for (let k = 0; k < width; k++) held[j * width + k] = moving[k]
        break
      }
      for (let k = 0; k < width; k++) held[j * width + k] = held[from + k]
      j = from / width
    }
  }
}

/** Runs sorted by insertion before they are merged. */
const INSERTION_RUN = 32

/**
 * Sorts `order` (record offsets into `held`) by the records' words: a stable merge sort through `spare`, allocating
 * nothing. TypedArray's sort with a comparator copies the array twice into V8's heap; past 128 KiB those copies go
 * straight to the old generation, where they wait for a full collection.
 */
function sortOrder(held: Uint32Array, width: number, order: Uint32Array, spare: Uint32Array): void {
  const n = order.length
  for (let lo = 0; lo < n; lo += INSERTION_RUN) {
    const hi = Math.min(lo + INSERTION_RUN, n)
    for (let i = lo + 1; i < hi; i++) {
      const x = order[i]
      let j = i - 1
      while (j >= lo && compare(held, order[j], held, x, width) > 0) {
        order[j + 1] = order[j]
        j--
      }
      order[j + 1] = x
    }
  }
  let from = order
  let to = spare
  for (let size = INSERTION_RUN; size < n; size *= 2) {
    for (let lo = 0; lo < n; lo += 2 * size) {
      const mid = Math.min(lo + size, n)
      const hi = Math.min(lo + 2 * size, n)
      let i = lo
      let j = mid
      let k = lo
      while (i < mid && j < hi) to[k++] = compare(held, from[j], held, from[i], width) < 0 ? from[j++] : from[i++]
      while (i < mid) to[k++] = from[i++]
      while (j < hi) to[k++] = from[j++]
    }
    ;[from, to] = [to, from]
  }
  if (from !== order) order.set(from)
}

/** A run file being merged: its current chunk, where in it, and where in the file. */
interface Head {
  fd: number
  chunk: Uint32Array
  words: number
  at: number
  offset: number
}

/** The run files as one sorted sequence: a binary heap of their current records. */
async function* merge(files: string[], width: number): AsyncGenerator<Uint32Array> {
  const heads: Head[] = []
  const refill = (h: Head): boolean => {
    const bytes = Buffer.from(h.chunk.buffer, h.chunk.byteOffset, h.chunk.byteLength)
    const n = readSync(h.fd, bytes, 0, bytes.length, h.offset)
    h.offset += n
    h.words = n >> 2
    h.at = 0
    return h.words > 0
  }
  try {
    for (const file of files) {
      const h = {fd: openSync(file, 'r'), chunk: new Uint32Array(HEAD_RECORDS * width), words: 0, at: 0, offset: 0}
      heads.push(h)
    }
    const heap = heads.filter(refill)
    const less = (a: Head, b: Head) => compare(a.chunk, a.at, b.chunk, b.at, width) < 0
    const down = (i: number) => {
      for (;;) {
        const l = 2 * i + 1
        const r = l + 1
        let m = i
        if (l < heap.length && less(heap[l], heap[m])) m = l
        if (r < heap.length && less(heap[r], heap[m])) m = r
        if (m === i) return
        ;[heap[i], heap[m]] = [heap[m], heap[i]]
        i = m
      }
    }
    for (let i = (heap.length >> 1) - 1; i >= 0; i--) down(i)
    // one chunk, filled again once the caller has asked for the next (SortedRecords.sorted)
    const out = new Uint32Array(CHUNK_RECORDS * width)
    let filled = 0
    while (heap.length > 0) {
      const top = heap[0]
      for (let k = 0; k < width; k++) out[filled + k] = top.chunk[top.at + k]
      filled += width
      top.at += width
      if (top.at >= top.words && !refill(top)) {
        heap[0] = heap[heap.length - 1]
        heap.pop()
      }
      if (heap.length > 0) down(0)
      if (filled === out.length) {
        yield out
        filled = 0
      }
    }
    if (filled > 0) yield out.subarray(0, filled)
  } finally {
    for (const h of heads) closeSync(h.fd)
  }
}

/** The value of each hex digit's character code (0-9, a-f, A-F). */
const HEX_DIGIT = new Uint8Array(128)
for (let d = 0; d < 16; d++) HEX_DIGIT['0123456789abcdef'.charCodeAt(d)] = HEX_DIGIT['0123456789ABCDEF'.charCodeAt(d)] = d

/**
 * The `at`th 32-bit word of a hex digest (8 hex digits each). Read digit by digit: a bulk run's check reads eight per
 * row, and a slice and a parseInt each cost three times as much.
 */
export function hexWords(hex: string, at: number): number {
  let word = 0
  for (let i = at * 8; i < at * 8 + 8; i++) word = word * 16 + HEX_DIGIT[hex.charCodeAt(i)]
  return word
}
