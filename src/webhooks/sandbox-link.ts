/**
 * When the profile points at a local sandbox (`pay sandbox`), `pay webhook listen` sets the webhook URL of
 * the profile's API client there (control API `PUT /_sandbox/clients/{client_id}/webhook`, body {"url"}),
 * sets it again when the tunnel's URL changes, and removes it ({"url": null}) when it stops.
 * Only loopback base URLs are tried, so nothing is ever sent to the real service by this.
 */
import {isLoopbackUrl} from '../client/loopback.js'

export {isLoopbackUrl} from '../client/loopback.js'

export type LinkResult = {ok: true} | {ok: false; reason: string}

/** `webhookUrl` null removes the client's webhook URL. */
export async function setSandboxWebhook(baseUrl: string, clientId: string, webhookUrl: string | null, timeoutMs = 3000): Promise<LinkResult> {
  if (!isLoopbackUrl(baseUrl)) return {ok: false, reason: 'the base URL is not a local sandbox'}
  const target = `${baseUrl.replace(/\/+$/, '')}/_sandbox/clients/${encodeURIComponent(clientId)}/webhook`
  try {
    const res = await fetch(target, {
      method: 'PUT',
      headers: {'content-type': 'application/json', accept: 'application/json'},
      body: JSON.stringify({url: webhookUrl}),
      signal: AbortSignal.timeout(timeoutMs),
    })
    const text = await res.text()
    if (res.ok) return {ok: true}
    if (res.status === 404 && !text.includes('"object"')) return {ok: false, reason: `${baseUrl} is not a sandbox, or client ${clientId} is unknown there (HTTP 404)`}
    let message = `HTTP ${res.status}`
    try {
      message = (JSON.parse(text) as {error?: {message?: string}}).error?.message ?? message
    } catch {
      // not JSON
    }
    return {ok: false, reason: message}
  } catch (err) {
    const e = err as {cause?: {code?: string}; message: string}
    return {ok: false, reason: `${baseUrl} is unreachable (${e.cause?.code ?? e.message})`}
  }
}
