/**
 * `pay webhook trigger`: a signed sample event posted to a receiver, as the service would deliver it. Options and
 * Output in, the exit code out (0 for a 2xx answer, 1 for another status; 7 when the receiver cannot be reached).
 */
import {InputError, NetworkError} from '../base/errors.js'
import {redactUrl} from '../base/redact.js'
import {resolveSettings, webhookSecrets} from '../config/settings.js'
import {parseFieldFlags} from '../operation/body-input.js'
import type {Output} from '../output/output.js'
import {forStdout} from '../output/printable.js'
import {bodyView} from './body-view.js'
import {deliveryHeaders} from './delivery-headers.js'
import {EVENT_ID_PATTERN} from './events.js'
import {HTTP_URL_RULE, isHttpUrl} from './filter.js'
import {isEventType, sampleEvent} from './samples.js'
import {signingScheme} from './signature.js'

interface TriggerOptions {
  type: string
  to: string
  profile?: string
  secret?: string[]
  field?: string[]
  id?: string
  timestamp?: number
  /** seconds to wait for the receiver */
  timeout: number
  'dry-run'?: boolean
}

interface TriggerRun {
  /** The User-Agent of the delivery. */
  userAgent: string
  /** The environment settings are read from (default: the process's). */
  env?: NodeJS.ProcessEnv
}

export async function runWebhookTrigger(o: TriggerOptions, out: Output, run: TriggerRun): Promise<number> {
  const problems: {flag: string; rule: string}[] = []
  if (!isEventType(o.type)) problems.push({flag: 'TYPE', rule: `"${o.type}" is not an event type of the spec (list: pay webhook events)`})
  if (!isHttpUrl(o.to)) problems.push({flag: '--to', rule: HTTP_URL_RULE})
  if (o.id !== undefined && !EVENT_ID_PATTERN.test(o.id)) problems.push({flag: '--id', rule: 'must be EVT_ followed by 24 upper-case letters or digits'})
  const settings = await resolveSettings({profile: o.profile}, run.env)
  const secrets = await webhookSecrets(o.secret, settings)
  if (secrets.some((s) => s.trim() === '')) problems.push({flag: '--secret', rule: 'must not be empty'})
  if (secrets.length === 0) problems.push({flag: '--secret', rule: 'is required to sign (or set PAY_WEBHOOK_SECRET, or webhook_secret in the profile)'})
  const overrides = parseFieldFlags(o.field)
  if (problems.length > 0) throw new InputError(problems)
  const target = new URL(o.to)
  // the receiver's URL as pay shows it (--dry-run, the POST line, an error): no password, no secret-named query value
  const shown = redactUrl(target.href)

  const event = sampleEvent(o.type as Parameters<typeof sampleEvent>[0], overrides)
  if (o.id) event.id = o.id
  const body = JSON.stringify(event)
  const headers = deliveryHeaders(event, body, secrets, {userAgent: run.userAgent, timestamp: o.timestamp, scheme: signingScheme(settings.webhookSignature)})

  if (o['dry-run']) {
    if (out.json) out.data(JSON.stringify({dry_run: true, method: 'POST', url: shown, headers, body: event}))
    else out.data([`POST ${shown}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), '', body].join('\n'))
    return 0
  }

  out.info(out.color('dim', `POST ${shown}  ${event.type}  ${event.id}`, 'err'))
  const {status, text, contentType} = await post(target, shown, headers, body, o.timeout)
  if (out.json) out.data(JSON.stringify({event, status, body: contentType?.includes('json') ? bodyView(text) : text}))
  else {
    // the receiver's answer is network text: printable on a terminal, as it is when piped
    const ok = status >= 200 && status < 300
    out.data(`${out.color(ok ? 'green' : 'red', `HTTP ${status}`)}${text ? `\n${forStdout(out.term.stdoutIsTTY).text(text)}` : ''}`)
  }
  return status >= 200 && status < 300 ? 0 : 1
}

async function post(target: URL, shown: string, headers: Record<string, string>, body: string, timeoutSeconds: number): Promise<{status: number; text: string; contentType: string | null}> {
  try {
    const res = await fetch(target, {method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(timeoutSeconds * 1000)})
    return {status: res.status, contentType: res.headers.get('content-type'), text: await res.text()}
  } catch (err) {
    const e = err as {name?: string; cause?: {code?: string; message?: string}; message: string}
    // a reason may quote the URL whole (fetch refuses one with a password, naming it)
    const why = e.name === 'TimeoutError' ? `no answer within ${timeoutSeconds} s` : (e.cause?.code ?? e.cause?.message ?? e.message).split(target.href).join(shown)
    throw new NetworkError(`${shown} could not be reached: ${why}`, 1, 'check that the receiver is running and the URL is right')
  }
}
