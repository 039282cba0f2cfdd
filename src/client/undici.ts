/**
 * The one way undici is loaded (a bulk run's Pool, a proxy, `webhook listen --forward-to`), and the one run-time V8
 * flag of pay, kept because it earns its place (docs/performance.md, Kept tricks: a bulk run's peak memory).
 *
 * Why: undici parses HTTP with llhttp compiled to WebAssembly, and V8 compiles that module again, optimised, on
 * background threads: in a 2,000-row bulk run ~27 MiB more peak memory (a quarter of it) and ~7% more CPU, measured
 * in pairs (docs/performance.md). Single commands do not load undici (node:http). `--liftoff-only` keeps V8's
 * baseline compile alone. Set here, after undici's own modules have loaded and before its parser is compiled (at
 * the first connection), never at start-up: a flag set at run time changes V8's flag hash, and every module of
 * Node's loaded after it misses Node's built-in code cache. test/client/undici.test.ts fails when V8 no longer
 * knows the flag (setFlagsFromString ignores an unknown flag without a word).
 */
const UNDICI_V8_FLAG = '--liftoff-only'

export async function loadUndici(): Promise<typeof import('undici')> {
  const undici = await import('undici')
  process.getBuiltinModule('node:v8').setFlagsFromString(UNDICI_V8_FLAG)
  return undici
}
