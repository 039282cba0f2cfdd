/**
 * The run functions of the small `pay sandbox` control commands (reset, advance, webhook, events, transfer and the
 * one-id actions: approve, succeed, fail, …): one call of the sandbox's control API each (src/client/control-client.ts,
 * handed in as `call`), the answer printed: indented JSON under --json, else a line for people.
 */
import {DURATION_RULE, durationSeconds} from '../api/control-endpoints.js'
import {InputError} from '../base/errors.js'
import {redactUrl} from '../base/redact.js'
import type {ControlEndpointId} from '../client/control-client.js'
import type {Output} from '../output/output.js'
import {printable} from '../output/printable.js'
import type {ControlCall} from './deliveries.js'

/** The control API's answer under --json (indented), else lines for people (made printable: they quote it). */
function print<T>(out: Output, answer: T, lines: string): T {
  out.data(out.json ? JSON.stringify(answer, null, 2) : printable(lines))
  return answer
}

/** `pay sandbox reset`: every record back to the seed. */
export async function runSandboxReset(call: ControlCall, out: Output): Promise<unknown> {
  return print(out, await call('reset'), 'sandbox reset to its seed')
}

/** `pay sandbox advance DURATION`: the sandbox clock forward (seconds, or a number with s, m, h or d). */
export async function runSandboxAdvance(call: ControlCall, duration: string, out: Output): Promise<{now: string; offset_seconds: number}> {
  const seconds = durationSeconds(duration)
  if (seconds === undefined) throw InputError.one('DURATION', DURATION_RULE)
  const answer = await call('clock.advance', {body: {seconds}})
  return print(out, answer, `sandbox clock now ${answer.now} (+${answer.offset_seconds} s)`)
}

/** `pay sandbox webhook`: an API client's webhook URL set (--target) or removed (--clear). */
export async function runSandboxWebhook(call: ControlCall, o: {client: string; target?: string; clear?: boolean}, out: Output): Promise<{client_id: string; url: string | null}> {
  if (!o.target && !o.clear) throw InputError.one('--target', 'or --clear is required')
  const answer = await call('clients.webhook', {path: {client_id: o.client}, body: {url: o.clear ? null : o.target}})
  // shown as everywhere pay shows a URL (as `pay sandbox deliveries` shows this one): its password and token redacted
  const url = answer.url ? redactUrl(answer.url) : null
  print(out, {...answer, url}, url ? `${answer.client_id} events go to ${url}` : `${answer.client_id} has no webhook URL`)
  return answer
}

interface EventLine {
  id: string
  type: string
  created_at: string
  state: string
  deliveries: {status: number | null}[]
}

/** `pay sandbox events`: the events the sandbox raised, one line each with its delivery attempts. */
export async function runSandboxEvents(call: ControlCall, o: {type?: string; client?: string}, out: Output): Promise<{data: EventLine[]}> {
  const answer = await call('events.list', {query: {type: o.type, client_id: o.client}})
  const lines = (answer.data as EventLine[]).map((e) => {
    const attempts = e.deliveries.map((d) => d.status ?? 'unreachable').join(',')
    return `${e.created_at}  ${e.id}  ${e.type.padEnd(28)} ${e.state}${attempts ? ` (${attempts})` : ''}`
  })
  return print(out, answer, lines.length === 0 ? 'no events' : lines.join('\n'))
}

/** `pay sandbox transfer ACCOUNT --amount`: a bank transfer into a virtual account, and what it paid. */
export async function runSandboxTransfer(call: ControlCall, o: {accountNumber: string; amount: string}, out: Output): Promise<unknown> {
  const answer = await call('virtual-accounts.transfer', {path: {account_number: o.accountNumber}, body: {amount: o.amount}})
  const target = answer.collection ?? answer.checkout_session
  return print(out, answer, `transferred ${answer.amount} to ${o.accountNumber}: ${target?.id ?? ''} ${target?.status ?? ''}`.trim())
}

/** A one-id action (approve a mandate, succeed or fail a transaction, …): the record's new status. */
export async function runSandboxIdAction(call: ControlCall, op: ControlEndpointId, param: {name: string; id: string}, out: Output): Promise<{status: string}> {
  const answer = await call(op, {path: {[param.name]: param.id}})
  return print(out, answer, `${param.id} ${answer.status}`)
}
