/**
 * When the profile points at a local sandbox (`pay sandbox`), `pay webhook listen` sets the webhook URL of
 * the profile's API client there (control API `PUT /_sandbox/clients/{client_id}/webhook`, body {"url"}),
 * sets it again when the tunnel's URL changes, and removes it ({"url": null}) when it stops.
 * Only loopback base URLs are tried, so nothing is ever sent to the real service by this.
 */
import {isLoopbackUrl} from '../client/loopback.js'
import {redactUrl} from '../client/redact.js'

export {isLoopbackUrl} from '../client/loopback.js'

export type LinkResult = {ok: true} | {ok: false; reason: string}

/** `webhookUrl` null removes the client's webhook URL. Sent through the control client (src/client/control-client.ts). */
export async function setSandboxWebhook(baseUrl: string, clientId: string, webhookUrl: string | null, timeoutMs = 3000): Promise<LinkResult> {
  if (!isLoopbackUrl(baseUrl)) return {ok: false, reason: 'the base URL is not a local sandbox'}
  const {ControlClient} = await import('../client/control-client.js')
  const {ApiError} = await import('../client/errors.js')
  const client = new ControlClient({url: baseUrl, userAgent: 'pay webhook listen', timeoutMs})
  try {
    await client.call('clients.webhook', {path: {client_id: clientId}, body: {url: webhookUrl}})
    return {ok: true}
  } catch (err) {
    if (!(err instanceof ApiError)) return {ok: false, reason: (err as Error).message} // names the sandbox URL, redacted
    // a 404 that is not the sandbox's own error answer: something else listens there
    if (err.status === 404 && err.code === 'http_404') return {ok: false, reason: `${redactUrl(baseUrl)} is not a sandbox, or client ${clientId} is unknown there (HTTP 404)`}
    return {ok: false, reason: err.error.message}
  } finally {
    await client.close()
  }
}
