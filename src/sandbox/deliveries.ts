/**
 * The run functions of `pay sandbox deliveries` and `pay sandbox resend`: the sandbox's own record of its webhook
 * delivery attempts, and one more delivery of an event, through its control API (src/client/control-client.ts).
 */
import {redactUrl} from '../base/redact.js'
import type {ControlEndpointId, ControlInput} from '../client/control-client.js'
import type {Output} from '../output/output.js'
import {printable} from '../output/printable.js'
import type {EventRec} from './state.js'

export type ControlCall = (id: ControlEndpointId, input?: ControlInput) => Promise<any>

/** An event as the control API shows it (src/sandbox/control-api.ts: eventView). */
type SandboxEvent = Pick<EventRec, 'id' | 'type' | 'client_id' | 'state' | 'deliveries'>

const COLUMNS = ['at', 'event_id', 'type', 'attempt', 'status', 'kind', 'url', 'error']

function rows(events: SandboxEvent[]): Record<string, unknown>[] {
  return events
    .flatMap((e) =>
      e.deliveries.map((d) => ({
        at: d.at,
        event_id: e.id,
        type: e.type,
        attempt: d.attempt,
        status: d.status,
        kind: d.resend ? 'resend' : d.duplicate ? 'duplicate' : 'scheduled',
        url: redactUrl(d.url),
        error: d.error ?? null,
        event_state: e.state,
      })),
    )
    .sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0))
}

/** `pay sandbox deliveries [EVT_…]`: every delivery attempt the sandbox made (of one event), newest first. */
export async function runSandboxDeliveries(call: ControlCall, options: {eventId?: string; type?: string; client?: string}, out: Output): Promise<Record<string, unknown>[]> {
  const events: SandboxEvent[] = options.eventId
    ? [await call('events.get', {path: {event_id: options.eventId}})]
    : (await call('events.list', {query: {type: options.type, client_id: options.client}})).data
  const list = rows(events)
  if (out.json) out.data(JSON.stringify(list))
  else if (list.length === 0) {
    const pending = events.filter((e) => e.state !== 'delivered' && e.state !== 'failed')
    out.info(events.length === 0 ? 'The sandbox has emitted no events yet.' : `No delivery attempt yet (${pending.map((e) => `${e.id}: ${e.state}`).join(', ')}).`)
  } else out.data(printable(out.list(list, COLUMNS)))
  return list
}

/** `pay sandbox resend EVT_…`: the event delivered again now to its client's webhook URL; exit code 1 when not 2xx. */
export async function runSandboxResend(call: ControlCall, eventId: string, out: Output): Promise<number> {
  const answer = await call('events.resend', {path: {event_id: eventId}})
  const ok = typeof answer.status === 'number' && answer.status >= 200 && answer.status < 300
  if (out.json) out.data(JSON.stringify(answer))
  else out.data(printable(`${eventId} delivered again to ${redactUrl(String(answer.url))} (attempt ${answer.attempt}): ${answer.status ?? `unreachable: ${answer.error}`}`))
  if (!ok) out.warn(`the webhook URL did not answer 2xx; see \`pay sandbox deliveries ${eventId}\``)
  return ok ? 0 : 1
}
