/**
 * The sandbox's control API (/_sandbox/…; docs/sandbox.md) as the CLI and the sandbox dashboard call it: each
 * endpoint named once, by id. No imports: the client (src/client/control-client.ts) and the dashboard's actions
 * (src/sandbox/dashboard/actions.ts) both read this table.
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
