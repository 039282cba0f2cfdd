import {defineConfig} from 'vitest/config'

// This machine sets NODE_EXTRA_CA_CERTS, which costs every node start about 40 ms of CPU reading the bundle: the
// suite starts about 640 processes (its workers and the built CLI), all on loopback over plain HTTP or with
// certificates a test makes itself and names explicitly (test/client/api-client.responses.test.ts sets it for
// its own runs). So the test processes start without it, as the guide measures start-up without it too.
delete process.env.NODE_EXTRA_CA_CERTS

export default defineConfig({
  // jq-web's export is a promise, which vitest's CommonJS interop mistakes for a thenable module (see the file)
  resolve: {alias: {'jq-web': new URL('./test/helpers/jq-web.mjs', import.meta.url).pathname}},
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['./test/helpers/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One worker process serves many files (vitest still restores mocks and its config between files): a fresh
    // process per file cost about 0.35 s of CPU each (start, vitest's runtime, zod, oclif, undici loaded again), for
    // 73 files. Nothing in src/ keeps state across files that a test reads (module-level state is caches, id pools
    // and the token cache's once-per-process warning, whose test takes a fresh module with vi.resetModules).
    isolate: false,
    // vitest's default on this 2-core machine is one fork (cores - 1), so files ran one after another although most
    // of their time is spent waiting (on CLI processes, --wait polls, Retry-After, timeouts a test proves): three
    // forks overlap the waits (the suite's CPU is about 85 s, its files' summed wall time about twice that).
    // minWorkers as many: with fewer, tinypool retires a fork that falls idle for a moment, and with isolate: false
    // it could retire one that had just been handed a file ("Error: Terminating worker thread", the run cut short).
    maxWorkers: 3,
    minWorkers: 3,
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
})
