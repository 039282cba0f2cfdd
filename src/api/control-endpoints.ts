/**
 * The sandbox's control API (/_sandbox/…; docs/sandbox.md) as the CLI and the sandbox dashboard call it: each
 * endpoint named once, by id, and the durations its clock advance is given in. No imports: the client
 * (src/client/control-client.ts), flows' sandbox steps and the dashboard's actions (src/sandbox/dashboard/actions.ts)
 * all read this module.
 */
export const controlEndpoints = {
  'clock.advance': {method: 'POST', path: '/_sandbox/clock/advance'},
  'clock.get': {method: 'GET', path: '/_sandbox/clock'},
  'dashboard.get': {method: 'GET', path: '/_sandbox/dashboard'},
  'events.list': {method: 'GET', path: '/_sandbox/events'},
  'events.get': {method: 'GET', path: '/_sandbox/events/{event_id}'},
  'events.resend': {method: 'POST', path: '/_sandbox/events/{event_id}/resend'},
  'faults.set': {method: 'PUT', path: '/_sandbox/faults'},
  'mandates.approve': {method: 'POST', path: '/_sandbox/mandates/{mandate_id}/approve'},
  reset: {method: 'POST', path: '/_sandbox/reset'},
  'transactions.fail': {method: 'POST', path: '/_sandbox/transactions/{id}/fail'},
  'transactions.succeed': {method: 'POST', path: '/_sandbox/transactions/{id}/succeed'},
  'virtual-accounts.transfer': {method: 'POST', path: '/_sandbox/virtual-accounts/{account_number}/transfers'},
  'clients.webhook': {method: 'PUT', path: '/_sandbox/clients/{client_id}/webhook'},
} as const satisfies Record<string, {method: 'GET' | 'POST' | 'PUT'; path: string}>
export type ControlEndpointId = keyof typeof controlEndpoints

const UNITS: Record<string, number> = {s: 1, m: 60, h: 3600, d: 86_400}

/** Seconds of a duration (86400, 1d, 90m, 1.5h), or undefined when it is not one. `pay sandbox advance` reads it too. */
export function durationSeconds(text: string): number | undefined {
  const m = /^([0-9]+(?:\.[0-9]+)?)([smhd]?)$/.exec(text.trim())
  return m ? Number(m[1]) * UNITS[m[2] || 's'] : undefined
}

/** The rule of a duration, as messages say it. */
export const DURATION_RULE = 'must be seconds or a number with s, m, h or d (e.g. 86400, 1d, 90m)'
