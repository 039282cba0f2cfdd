/**
 * Deterministic outcomes (docs/sandbox.md, "Deterministic outcomes"): decided by the last digit of the
 * wallet number, bank account number or card number involved.
 *   ...9  -> failed
 *   ...8  -> stays processing until forced through POST /_sandbox/transactions/{id}/succeed|fail
 *            (mandates: waits for POST /_sandbox/mandates/{id}/approve)
 *   other -> succeeded after --settle-ms
 * Verifications: ...9 -> invalid, ...5 -> 502 gateway_error, other -> verified.
 */
type Outcome = 'succeed' | 'fail' | 'hold'

export function outcomeOf(number: string | undefined | null): Outcome {
  const last = number ? number[number.length - 1] : ''
  if (last === '9') return 'fail'
  if (last === '8') return 'hold'
  return 'succeed'
}

const FIRST = ['Jane', 'John', 'Amina', 'Peter', 'Grace', 'David', 'Mary', 'Otieno', 'Wanjiru', 'Kevin']
const LAST = ['Wanjiku', 'Kamau', 'Odhiambo', 'Mwangi', 'Achieng', 'Njoroge', 'Hassan', 'Mutua', 'Chebet', 'Kiprop']

/** A stable name for a number (same number, same name). */
export function nameFor(number: string): {first_name: string; last_name: string} {
  let h = 0
  for (const ch of number) h = (h * 31 + ch.charCodeAt(0)) >>> 0
  return {first_name: FIRST[h % FIRST.length], last_name: LAST[Math.floor(h / FIRST.length) % LAST.length]}
}
