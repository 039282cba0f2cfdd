/**
 * The listener's memory of event ids, for its duplicate check (delivery is at-least-once): the ids answered 2xx,
 * and those being forwarded now (a duplicate of one waits for its outcome). An id whose forwarding failed is
 * forgotten, so the service's retry is handled as new. Bounded: over the limit, the oldest tenth is dropped.
 */
import type {Seen} from './judge.js'

/** Accepted event ids remembered by default. */
export const SEEN_LIMIT = 100_000

type Outcome = 'accepted' | 'failed'

export class SeenEvents {
  private readonly ids = new Map<string, Outcome | Promise<Outcome>>()

  constructor(private readonly limit = SEEN_LIMIT) {}

  /** What became of an id before, as the judge reads it. */
  state(id: string): Seen {
    const previous = this.ids.get(id)
    return previous === undefined || typeof previous === 'string' ? previous : 'in_flight'
  }

  /** The outcome of the forwarding in flight of an id (its state is 'in_flight'). */
  outcome(id: string): Promise<Outcome> {
    return this.ids.get(id) as Promise<Outcome>
  }

  /** Answered 2xx. `fresh`: the id is known not to be there (one lookup less). */
  accepted(id: string, fresh = false): void {
    this.remember(id, 'accepted', fresh)
  }

  /** Being forwarded: a duplicate waits for `settle`, which remembers the id (accepted) or forgets it (failed). */
  forwarding(id: string): (accepted: boolean) => void {
    let resolve!: (o: Outcome) => void
    this.remember(
      id,
      new Promise<Outcome>((r) => (resolve = r)),
    )
    return (accepted) => {
      if (accepted) this.remember(id, 'accepted')
      else this.ids.delete(id)
      resolve(accepted ? 'accepted' : 'failed')
    }
  }

  /**
   * The id moves to the newest end. Over the limit, the oldest tenth goes in one pass: dropping the single oldest
   * id each time costs, in a Map, a walk over the deleted entries at its front, on every delivery once it is full.
   */
  private remember(id: string, value: Outcome | Promise<Outcome>, fresh = false): void {
    const ids = this.ids
    if (!fresh) ids.delete(id)
    ids.set(id, value)
    if (ids.size <= this.limit) return
    let drop = Math.ceil(this.limit / 10)
    for (const old of ids.keys()) {
      ids.delete(old)
      if (--drop === 0) break
    }
  }
}
