/**
 * The dashboard's actions: each one form field set -> one call of the control API (src/sandbox/control-api.ts,
 * by its id in src/api/control-endpoints.ts), so a button does exactly what `pay sandbox …` does, with the same
 * checks and answers. The caller (index.ts) has already checked the loopback rules, the same-origin rule and the
 * CSRF token.
 */
import {type ControlEndpointId, controlEndpoints} from '../../api/control-endpoints.js'
import {fillPath} from '../../api/endpoints.js'
import {DURATION_RULE, durationSeconds} from '../../api/control-endpoints.js'
import {handleControl} from '../control-api.js'
import type {SbRequest} from '../http.js'
import type {Runtime} from '../runtime.js'

interface Call {
  id: ControlEndpointId
  path?: Record<string, string>
  body?: unknown
  /** The notice shown after it worked. */
  done: (answer: any) => string
}

/** A form field that must be there. */
class FieldError extends Error {}

function need(form: Record<string, string>, name: string, what: string): string {
  const value = (form[name] ?? '').trim()
  if (!value) throw new FieldError(`${what} is required`)
  return value
}

/** The faults form: empty fields leave a fault as it is; numbers are checked by the control API. */
function faultsBody(form: Record<string, string>): Record<string, number> {
  const body: Record<string, number> = {}
  for (const name of ['fault_rate', 'latency_ms', 'drop_after_commit_rate', 'drop_next', 'duplicate_rate']) {
    const text = (form[name] ?? '').trim()
    if (text === '') continue
    const n = Number(text)
    if (!Number.isFinite(n)) throw new FieldError(`${name}: must be a number`)
    body[name] = n
  }
  return body
}

/** Action name -> the control call it makes from the form's fields. */
const ACTIONS: Record<string, (form: Record<string, string>) => Call> = {
  succeed: (f) => ({id: 'transactions.succeed', path: {id: need(f, 'id', 'the transaction id')}, done: (a) => `${a.id} succeeded`}),
  fail: (f) => ({id: 'transactions.fail', path: {id: need(f, 'id', 'the transaction id')}, done: (a) => `${a.id} failed`}),
  approve: (f) => ({id: 'mandates.approve', path: {mandate_id: need(f, 'mandate_id', 'the mandate id')}, done: (a) => `mandate ${a.mandate_id} approved: ${a.status}`}),
  transfer: (f) => ({
    id: 'virtual-accounts.transfer',
    path: {account_number: need(f, 'account_number', 'the account number')},
    body: {amount: need(f, 'amount', 'the amount')},
    done: (a) => `transfer of ${a.amount} into ${a.account_number}: ${a.credited} credited, ${a.returned} returned`,
  }),
  advance: (f) => {
    const text = need(f, 'duration', 'how far to move the clock')
    const seconds = durationSeconds(text)
    if (seconds === undefined) throw new FieldError(`the duration ${DURATION_RULE}`)
    return {id: 'clock.advance', body: {seconds}, done: (a) => `clock moved by ${seconds} s: now ${a.now}`}
  },
  resend: (f) => ({
    id: 'events.resend',
    path: {event_id: need(f, 'event_id', 'the event id')},
    done: (a) => `${a.event_id} sent again to ${a.url}: ${a.status === null ? `unreachable (${a.error})` : `answered ${a.status}`}`,
  }),
  faults: (f) => ({id: 'faults.set', body: faultsBody(f), done: (a) => `faults now: ${Object.entries(a).map(([k, v]) => `${k} ${v}`).join(', ')}`}),
  reset: () => ({id: 'reset', done: () => 'the sandbox is back to its seed'}),
}

/** Runs an action through the control API; the notice to show and whether it worked. */
export async function runAction(rt: Runtime, name: string, form: Record<string, string>, ip: string): Promise<{ok: boolean; text: string; status: number}> {
  const make = Object.hasOwn(ACTIONS, name) ? ACTIONS[name] : undefined
  if (!make) return {ok: false, text: `no action ${name}`, status: 404}
  let call: Call
  try {
    call = make(form)
  } catch (err) {
    if (err instanceof FieldError) return {ok: false, text: err.message, status: 400}
    throw err
  }
  const {method, path} = controlEndpoints[call.id]
  let filled: string
  try {
    filled = fillPath(path, call.path)
  } catch (err) {
    return {ok: false, text: (err as Error).message, status: 400}
  }
  const req: SbRequest = {method, path: filled, query: {}, headers: {}, raw: call.body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(call.body)), ip}
  const res = await handleControl(rt, req)
  const answer = JSON.parse(res.body) as {error?: {message?: string}}
  if (res.status >= 400) return {ok: false, text: answer.error?.message ?? `the control API answered ${res.status}`, status: res.status}
  return {ok: true, text: call.done(answer), status: res.status}
}
