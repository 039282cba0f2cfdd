import {describe, expect, it} from 'vitest'
import {closest, unknownCommandText} from '../../src/hooks/command-not-found.js'

/** The full Levenshtein distance, as closest() measured every id before it stopped early. */
function fullDistance(a: string, b: string): number {
  let prev = Array.from({length: b.length + 1}, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
    prev = row
  }
  return prev[b.length]
}

function closestInFull(typed: string, known: string[]): string[] {
  const limit = Math.max(2, Math.floor(typed.length / 3))
  return known
    .map((k) => ({k, d: fullDistance(typed, k)}))
    .filter(({d}) => d <= limit)
    .sort((a, b) => a.d - b.d || a.k.localeCompare(b.k))
    .slice(0, 2)
    .map(({k}) => k)
}

const known = ['balance', 'collections create', 'collections get', 'collections list', 'payouts create', 'payouts get', 'profiles add', 'profiles list', 'sandbox start', 'webhook listen', 'journal', 'login', 'logout']

describe('closest', () => {
  it('suggests what the full distance suggests, for typos, strangers and every length', () => {
    const typed = ['balanse', 'blance', 'balancee', 'colections create', 'collection get', 'payout create', 'profile ad', 'x', 'ab', 'nosuchcommand', 'logn', 'journl', 'webhook lisen', 'sandbox', 'collections', '']
    for (let n = 1; n <= 24; n++) typed.push('abcdefghijklmnopqrstuvwxyz'.slice(0, n), 'collections create'.slice(0, n))
    for (const t of typed) expect(closest(t, known), t).toEqual(closestInFull(t, known))
  })

  it('names the nearest commands in the message', () => {
    expect(unknownCommandText(['balance', 'collections:create'], 'balanse', []).stderr).toBe('error: unknown command "balanse"\n  next: did you mean `pay balance`? (`pay --help` lists every command)')
  })
})
