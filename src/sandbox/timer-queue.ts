/**
 * The one timer queue of the sandbox: a binary min-heap of (due clock time, kind, record id).
 * Scheduling and taking what is due cost O(log n) each, however many objects the sandbox holds;
 * nothing scans all records to find what is due.
 */
export interface Due {
  at: number
  /** Insertion order: equal due times come out first in, first out. */
  seq: number
  kind: string
  id: string
}

export class TimerQueue {
  private heap: Due[] = []
  private seq = 0

  get size(): number {
    return this.heap.length
  }

  /** The earliest due time, or undefined when empty. */
  peek(): number | undefined {
    return this.heap[0]?.at
  }

  push(at: number, kind: string, id: string): void {
    const h = this.heap
    const item: Due = {at, seq: this.seq++, kind, id}
    let i = h.length
    h.push(item)
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (!less(item, h[parent])) break
      h[i] = h[parent]
      i = parent
    }
    h[i] = item
  }

  /** Removes and returns the earliest entry if it is due at `now`. */
  popDue(now: number): Due | undefined {
    const h = this.heap
    if (h.length === 0 || h[0].at > now) return undefined
    const top = h[0]
    const last = h.pop()!
    if (h.length > 0) {
      let i = 0
      for (;;) {
        const l = 2 * i + 1
        if (l >= h.length) break
        const r = l + 1
        const c = r < h.length && less(h[r], h[l]) ? r : l
        if (!less(h[c], last)) break
        h[i] = h[c]
        i = c
      }
      h[i] = last
    }
    return top
  }

  clear(): void {
    this.heap = []
  }
}

const less = (a: Due, b: Due) => a.at < b.at || (a.at === b.at && a.seq < b.seq)
