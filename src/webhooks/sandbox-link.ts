/**
 * When the profile points at a local sandbox (`pay sandbox`), `pay webhook listen` sets the webhook URL of
 * the profile's API client there (control API `PUT /_sandbox/clients/{client_id}/webhook`, body {"url"}),
 * sets it again when the tunnel's URL changes, and removes it when it stops, if it is still one this listener set:
 * body {"url": null, "if_url": [every URL it tried to set]}, so the sandbox decides in one request.
 * Only loopback base URLs are tried, so nothing is ever sent to the real service by this.
 */
import {isLoopbackUrl} from '../client/loopback.js'
import type {ControlClient} from '../client/control-client.js'
import {redactUrl} from '../base/redact.js'

export {isLoopbackUrl} from '../client/loopback.js'

type LinkResult = {ok: true} | {ok: false; reason: string}
/** On exit: `removed` the URL this listener had set; else `kept` the URL the client has now (null: none). */
type UnlinkResult = {ok: true; removed: string} | {ok: true; kept: string | null} | {ok: false; reason: string}

/** The two calls a registration makes (src/client/control-client.ts for the sandbox; a test may wrap them). */
interface WebhookControl {
  set(url: string): Promise<LinkResult>
  /** Removes the URL only while it is one of `ours`. */
  clearIf(ours: string[]): Promise<UnlinkResult>
}

/** The sandbox's control API for one API client. */
export function sandboxWebhookControl(baseUrl: string, clientId: string, timeoutMs = 3000): WebhookControl {
  const path = {client_id: clientId}
  return {
    set: (url) =>
      withControl(baseUrl, clientId, timeoutMs, async (client) => {
        await client.call('clients.webhook', {path, body: {url}})
        return {ok: true}
      }),
    clearIf: (ours) =>
      withControl(baseUrl, clientId, timeoutMs, async (client) => {
        const r = await client.call<{url: string | null; updated: boolean; previous_url: string | null}>('clients.webhook', {path, body: {url: null, if_url: ours}})
        return r.updated && r.previous_url !== null ? {ok: true, removed: r.previous_url} : {ok: true, kept: r.url}
      }),
  }
}

/** What a registration did, for the listener to say. */
type RegistrationEvent =
  | {kind: 'set'; url: string}
  | {kind: 'changed'; url: string; was: string}
  | {kind: 'removed'; was: string}
  | {kind: 'kept'; url: string | null}
  | {kind: 'failed'; reason: string}

/**
 * One listener's webhook URL in the sandbox. Calls run one after another (the clear on exit waits for a set still
 * in flight), and every URL it tried to set is remembered: a set that failed here (a client-side timeout) may have
 * been applied there, and the clear on exit must still take it away.
 */
export class SandboxRegistration {
  private confirmed?: string
  private readonly tried = new Set<string>()
  private queue: Promise<void> = Promise.resolve()
  /** Tasks queued or running: with none, a task starts at once (a set called before a clear is in flight by then). */
  private pending = 0
  /** Set by clear(): the listener is stopping, so no URL is set any more (a tunnel reconnecting late cannot register a dead URL). */
  private cleared = false

  constructor(
    private readonly control: WebhookControl,
    private readonly report: (event: RegistrationEvent) => void,
  ) {}

  set(url: string): Promise<void> {
    if (this.cleared) return Promise.resolve()
    return this.then(async () => {
      // queued behind a set that hung and not started when clear() came: never sent, so nothing to remove
      if (this.cleared) return
      this.tried.add(url)
      const r = await this.control.set(url)
      if (!r.ok) return this.report({kind: 'failed', reason: r.reason})
      this.report(this.confirmed === undefined ? {kind: 'set', url} : {kind: 'changed', url, was: this.confirmed})
      this.confirmed = url
    })
  }

  /** Removes the URL while it is one this registration tried to set (nothing to do when it tried none); no set after it does anything. */
  clear(): Promise<void> {
    this.cleared = true
    return this.then(async () => {
      if (this.tried.size === 0) return
      const r = await this.control.clearIf([...this.tried])
      if (!r.ok) this.report({kind: 'failed', reason: r.reason})
      else this.report('removed' in r ? {kind: 'removed', was: r.removed} : {kind: 'kept', url: r.kept})
    })
  }

  private then(task: () => Promise<void>): Promise<void> {
    const run = async () => {
      try {
        await task()
      } finally {
        this.pending--
      }
    }
    const next = this.pending++ === 0 ? run() : this.queue.then(run)
    this.queue = next.catch(() => {})
    return next
  }
}

/** Runs calls of the sandbox's control API for a client; any failure becomes a reason (one line, never thrown). */
async function withControl<T>(baseUrl: string, clientId: string, timeoutMs: number, calls: (client: ControlClient) => Promise<T>): Promise<T | {ok: false; reason: string}> {
  if (!isLoopbackUrl(baseUrl)) return {ok: false, reason: 'the base URL is not a local sandbox'}
  const {ControlClient} = await import('../client/control-client.js')
  const {ApiError} = await import('../base/errors.js')
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
