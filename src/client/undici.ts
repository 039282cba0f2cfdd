/**
 * The one way undici is loaded: a bulk run's Pool, a proxy, `webhook listen --forward-to`. Lazily: single commands
 * go through node:http (src/client/transport.ts), and undici costs tens of ms to load. The build points this import
 * at dist/vendor/undici.cjs, undici's public entry bundled into one file with its own V8 code cache (~30 ms of CPU
 * to load instead of ~90 ms for its ~110 files: docs/build.md, scripts/bundle.mjs bundleUndici).
 */
export async function loadUndici(): Promise<typeof import('undici')> {
  return import('undici')
}
