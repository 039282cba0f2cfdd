/**
 * The one way undici is loaded: a bulk run's Pool, a proxy, `webhook listen --forward-to`. Lazily: single commands
 * go through node:http (src/client/transport.ts), and undici costs tens of ms to load.
 */
export async function loadUndici(): Promise<typeof import('undici')> {
  return import('undici')
}
