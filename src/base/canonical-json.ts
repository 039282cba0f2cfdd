/**
 * "The same JSON body": key order and whitespace change no JSON body. The sandbox's idempotency check (a key sent
 * again with the same body replays) and the operation journal's match (a command run again with the same body
 * resumes its key) both read it from here.
 */
/** Sorts the keys of each object JSON.stringify visits (no recursion of ours; the sandbox caps depth in json-body.ts). */
function sortedKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value
  // no prototype: a key named __proto__ is kept as the body's own key, not taken as the copy's prototype
  const out: Record<string, unknown> = Object.create(null)
  for (const k of Object.keys(value).sort()) out[k] = (value as Record<string, unknown>)[k]
  return out
}

/** True when every object in `value` already lists its keys in sorted order (an iterative walk, no recursion). */
function keysInOrder(value: unknown): boolean {
  const stack: unknown[] = [value]
  while (stack.length > 0) {
    const v = stack.pop()
    if (v === null || typeof v !== 'object') continue
    if (Array.isArray(v)) {
      for (const x of v) if (x !== null && typeof x === 'object') stack.push(x)
      continue
    }
    let prev: string | undefined
    for (const k in v) {
      if ((prev !== undefined && !(prev < k)) || k === '__proto__') return false // __proto__: as the sorted copy treats it
      prev = k
      const x = (v as Record<string, unknown>)[k]
      if (x !== null && typeof x === 'object') stack.push(x)
    }
  }
  return true
}

/**
 * JSON with sorted keys, so whitespace and key order do not matter ("the same JSON body"). A body whose keys are
 * already in order (what most clients send) is stringified as it is, without sorted copies of its objects.
 */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return 'null'
  return keysInOrder(value) ? JSON.stringify(value) : (JSON.stringify(value, sortedKeys) ?? 'null')
}
