/**
 * The closing summary every CI log ends with: the plain count line, then each skipped test by file and name, so
 * that a skip is seen and not taken for a pass.
 */
import {afterEach, describe, expect, it, vi} from 'vitest'
import type {TestModule} from 'vitest/node'
import SummaryReporter from './summary-reporter.js'

/** A module of tests as vitest's reporter API shows it: only what the reporter reads. */
function moduleOf(file: string, tests: [name: string, state: string][], moduleState = 'passed'): TestModule {
  const cases = tests.map(([fullName, state]) => ({fullName, module: {moduleId: `${process.cwd()}/${file}`}, result: () => ({state})}))
  return {state: () => moduleState, children: {allTests: () => cases[Symbol.iterator]()}} as unknown as TestModule
}

describe('the summary reporter', () => {
  afterEach(() => vi.restoreAllMocks())

  it('counts passed, failed and skipped, then names each skipped test by file and name', () => {
    let written = ''
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written += String(chunk)
      return true
    })
    new SummaryReporter().onTestRunEnd([
      moduleOf('test/a.test.ts', [['a > works', 'passed'], ['a > needs zsh', 'skipped']]),
      moduleOf('test/b.test.ts', [['b > breaks', 'failed'], ['b > later', 'pending']]),
      moduleOf('test/c.test.ts', [], 'failed'),
    ])
    expect(written).toBe('\ntests: 1 passed, 2 failed, 2 skipped\n  skipped: test/a.test.ts > a > needs zsh\n  skipped: test/b.test.ts > b > later\n')
  })
})
