/**
 * When the profile points at a local sandbox (`pay sandbox`), `pay webhook listen` sets the webhook URL of
 * the profile's API client there (control API `PUT /_sandbox/clients/{client_id}/webhook`, body {"url"}),
 * sets it again when the tunnel's URL changes, and removes it ({"url": null}) when it stops, if it is still its own.
 * Only loopback base URLs are tried, so nothing is ever sent to the real service by this.
 */
import {isLoopbackUrl} from '../client/loopback.js'
import type {ControlClient} from '../client/control-client.js'
import {redactUrl} from '../client/redact.js'

export {isLoopbackUrl} from '../client/loopback.js'

export type LinkResult = {ok: true} | {ok: false; reason: string}
/** On exit: `kept` is the URL the client has now when it was not ours (another listener's, or set since). */
export type UnlinkResult = {ok: true; kept?: string | null} | {ok: false; reason: string}

/** `webhookUrl` null removes the client's webhook URL. Sent through the control client (src/client/control-client.ts). */
export async function setSandboxWebhook(baseUrl: string, clientId: string, webhookUrl: string | null, timeoutMs = 3000): Promise<LinkResult> {
  return withControl(baseUrl, clientId, timeoutMs, async (client) => {
    await client.call('clients.webhook', {path: {client_id: clientId}, body: {url: webhookUrl}})
    return {ok: true}
  })
}

/**
 * Removes the client's webhook URL only while it is still `ours`: a second listener on the same profile may have
 * registered its own since, and stopping the first must not take it away. (Read, then cleared: two requests, so a
 * registration landing between them, within milliseconds, is the one case still lost.)
 */
export async function clearSandboxWebhookIfOurs(baseUrl: string, clientId: string, ours: string, timeoutMs = 3000): Promise<UnlinkResult> {
  return withControl(baseUrl, clientId, timeoutMs, async (client) => {
    const now = await client.call<{url: string | null}>('clients.webhook.get', {path: {client_id: clientId}})
    if (now.url !== ours) return {ok: true, kept: now.url}
    await client.call('clients.webhook', {path: {client_id: clientId}, body: {url: null}})
    return {ok: true}
  })
}

/** Runs calls of the sandbox's control API for a client; any failure becomes a reason (one line, never thrown). */
async function withControl<T>(baseUrl: string, clientId: string, timeoutMs: number, calls: (client: ControlClient) => Promise<T>): Promise<T | {ok: false; reason: string}> {
  if (!isLoopbackUrl(baseUrl)) return {ok: false, reason: 'the base URL is not a local sandbox'}
  const {ControlClient} = await import('../client/control-client.js')
  const {ApiError} = await import('../client/errors.js')
  const client = new ControlClient({url: baseUrl, userAgent: 'pay webhook listen', timeoutMs})
  try {
    return await calls(client)
  } catch (err) {
    if (!(err instanceof ApiError)) return {ok: false, reason: (err as Error).message} // names the sandbox URL, redacted
    // a 404 that is not the sandbox's own error answer: something else listens there
    if (err.status === 404 && err.code === 'http_404') return {ok: false, reason: `${redactUrl(baseUrl)} is not a sandbox, or client ${clientId} is unknown there (HTTP 404)`}
    return {ok: false, reason: err.error.message}
  } finally {
    await client.close()
  }
}
