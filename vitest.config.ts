import {defineConfig} from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['./test/helpers/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // vitest's default on this 2-core machine is one fork (cores - 1), so files ran one after another although most
    // of their time is spent waiting (on CLI processes, --wait polls, Retry-After): two forks overlap the waits.
    maxWorkers: 2,
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
})
