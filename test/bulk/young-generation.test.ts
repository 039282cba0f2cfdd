import {spawnSync} from 'node:child_process'
import {describe, expect, it} from 'vitest'
import {YOUNG_GENERATION, capYoungGeneration} from '../../src/bulk/young-generation.js'

const {capBytes: YOUNG_CAP_BYTES, noGrowth: NO_GROWTH, defaultGrowth: DEFAULT_GROWTH} = YOUNG_GENERATION
import {waitFor} from '../helpers/wait-for.js'

/**
 * A fresh node that allocates (with survivors) until its new space reaches `cap` bytes, then sets `flag` at run time
 * (none: '') and allocates on; its new space when the flag was set and at the end.
 */
function grows(flag: string, cap: number): {at: number; after: number} {
  const script = `
const v8 = require('node:v8')
const size = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size
const keep = []
const churn = (n) => { for (let i = 0; i < n; i++) { keep.push({a: i, b: 'row-' + i}); if (keep.length > 2000) keep.shift() } }
while (size() < Number(process.env.CAP)) churn(1000)
const at = size()
if (process.env.FLAG) v8.setFlagsFromString(process.env.FLAG)
churn(3e6)
console.log(JSON.stringify({at, after: size()}))`
  const r = spawnSync(process.execPath, ['-e', script], {encoding: 'utf8', timeout: 60_000, env: {...process.env, FLAG: flag, CAP: String(cap)}})
  expect(r.status, r.stderr).toBe(0)
  return JSON.parse(r.stdout) as {at: number; after: number}
}

describe('the young generation of a bulk run', () => {
  it('V8 still reads the growth factor set at run time: with it, new space stays as it was; without, it grows', () => {
    const capped = grows(NO_GROWTH, YOUNG_CAP_BYTES)
    expect(capped.at).toBeGreaterThanOrEqual(YOUNG_CAP_BYTES)
    expect(capped.after).toBe(capped.at)
    const free = grows('', YOUNG_CAP_BYTES)
    expect(free.after).toBeGreaterThan(free.at) // the same allocation grows it when the flag is not set
  })

  it('is capped once new space reaches the cap, and given V8 default back at the end', async () => {
    const set: string[] = []
    let size = 1024
    const uncap = capYoungGeneration(4096, () => size, (flag) => set.push(flag))
    await new Promise((r) => setTimeout(r, 60))
    expect(set).toEqual([])
    size = 4096
    await waitFor(() => set.length > 0)
    expect(set).toEqual([NO_GROWTH])
    uncap()
    expect(set).toEqual([NO_GROWTH, DEFAULT_GROWTH])
  })

  it('is capped at once when new space is already that large; nothing is set back when it never was', () => {
    const set: string[] = []
    capYoungGeneration(1, () => 2, (flag) => set.push(flag))()
    expect(set).toEqual([NO_GROWTH, DEFAULT_GROWTH])
    const none: string[] = []
    capYoungGeneration(Number.MAX_SAFE_INTEGER, undefined, (flag) => none.push(flag))()
    expect(none).toEqual([])
  })
})
