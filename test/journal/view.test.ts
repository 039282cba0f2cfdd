/**
 * `pay journal` in-process (src/journal/view.ts: runJournal): an empty journal says so (data stays empty), a KEY
 * nothing matches exits 4 pointing at the list. Listing and showing journaled requests: test/journal/gate.sandbox.test.ts.
 */
import {describe, expect, it} from 'vitest'
import {runJournal} from '../../src/journal/view.js'
import {commandEnv, memoryOutput, runCommand} from '../helpers/in-process.js'

describe('pay journal', () => {
  it('an empty journal: a message for people, [] under --json', () => {
    const env = commandEnv()
    const text = memoryOutput(false)
    expect(runJournal({limit: 20}, text.out, env)).toEqual({found: true, rows: []})
    expect(text.stdout()).toBe('')
    expect(text.stderr()).toMatch(/^The journal is empty: no idempotent request was sent from this machine/)
    const json = memoryOutput(true)
    runJournal({limit: 20, outcome: 'unknown'}, json.out, env)
    expect(json.stdout()).toBe('[]\n')
  })

  it('a KEY nothing matches: exit 4, pointing at the list; a bad --outcome is exit 2', async () => {
    const r = await runCommand(['journal', 'order-404'])
    expect(r.code).toBe(4)
    expect(r.stderr).toMatch(/no journaled request with key or reference "order-404"/)
    expect(r.stderr).toMatch(/see `pay journal`/)
    expect((await runCommand(['journal', '--outcome', 'lost'])).code).toBe(2)
  })
})
