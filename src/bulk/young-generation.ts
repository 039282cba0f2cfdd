/**
 * A run-time V8 flag, kept for a bulk run's peak memory (docs/performance.md, Kept tricks): V8 doubles its young
 * generation under sustained allocation up to 16 MiB a semi-space, so a long run peaked tens of MiB above a short
 * one with nothing more alive. Once the young generation is as large as a short run's, its growth factor is set to 1
 * (read each time V8 would grow it); the default is put back when the run ends.
 */
import {getHeapSpaceStatistics, setFlagsFromString} from 'node:v8'

export const YOUNG_GENERATION = {
  /** V8's new space (its `space_size`) at which growth stops: what a 1,000-row run reaches anyway. */
  capBytes: 8 * 1024 * 1024,
  noGrowth: '--semi-space-growth-factor=1',
  defaultGrowth: '--semi-space-growth-factor=2',
} as const
/** How often the new space's size is looked at until it reaches the cap. */
const POLL_MS = 20

/** New space's size in bytes. */
function newSpaceBytes(): number {
  return getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0
}

/** Stops the young generation's growth once it reaches `cap` bytes; returns what puts V8's default back. */
export function capYoungGeneration(cap: number = YOUNG_GENERATION.capBytes, size = newSpaceBytes, setFlags = setFlagsFromString): () => void {
  let capped = false
  const stop = () => {
    capped = true
    setFlags(YOUNG_GENERATION.noGrowth)
  }
  const poll = setInterval(() => {
    if (size() >= cap) {
      clearInterval(poll)
      stop()
    }
  }, POLL_MS)
  poll.unref()
  if (size() >= cap) {
    clearInterval(poll)
    stop()
  }
  return () => {
    clearInterval(poll)
    if (capped) setFlags(YOUNG_GENERATION.defaultGrowth)
  }
}
