/**
 * Prints one plain closing line, "tests: N passed, N failed, N skipped", after vitest's own report, so that
 * CI logs end with a count any reader (or tool) can find; then the skipped tests, each by file and name, so that a
 * skip (no `script` or `zsh` on the machine, running as root) is seen and not mistaken for a pass.
 */
import {relative} from 'node:path'
import type {Reporter, TestCase, TestModule} from 'vitest/node'

/** "file > describe > test" of a test. */
function nameOf(t: TestCase): string {
  return `${relative(process.cwd(), t.module.moduleId)} > ${t.fullName}`
}

export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    let passed = 0
    let failed = 0
    const skipped: string[] = []
    for (const m of modules) {
      for (const t of m.children.allTests()) {
        const state = t.result().state
        if (state === 'passed') passed++
        else if (state === 'failed') failed++
        else skipped.push(nameOf(t))
      }
      if (m.state() === 'failed' && [...m.children.allTests()].length === 0) failed++
    }
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped.length} skipped\n`)
    for (const name of skipped) process.stdout.write(`  skipped: ${name}\n`)
  }
}
