/**
 * At-least-once webhook delivery: each event is POSTed to the current webhook URL of the API client that
 * created the resource, with the delivery headers of src/webhooks/delivery-headers.ts (signed over the exact body bytes).
 * Non-2xx or unreachable: retried after webhookRetryBaseMs * 2^(attempt-1), up to webhookMaxAttempts.
 * --duplicate-rate: a delivered event is sometimes sent a second time (same event id, fresh signature).
 */
import {Agent, type IncomingMessage, request} from 'node:http'
import {deliveryHeaders} from '../webhooks/delivery-headers.js'
import type {Core} from './core.js'
import type {DeliveryAttempt, EventRec} from './state.js'
import {entry} from './state.js'

const isOk = (status: number | null) => status !== null && status >= 200 && status < 300

export class WebhookDelivery {
  private readonly timers = new Set<NodeJS.Timeout>()
  private readonly agent = new Agent({keepAlive: true, maxSockets: 16, timeout: 10_000})
  private readonly inflight = new Set<{destroy: () => void}>()
  private closed = false
  duplicateRate: number

  constructor(private readonly core: Core) {
    this.duplicateRate = core.opts.duplicateRate
  }

  private batch: EventRec[] = []
  private flushing?: NodeJS.Immediate

  /** Queues a first delivery attempt; new events are handed over in one batch per turn of the event loop (no timer per event). */
  enqueue(event: EventRec): void {
    if (this.closed) return
    this.batch.push(event)
    this.flushing ??= setImmediate(() => {
      this.flushing = undefined
      const events = this.batch
      this.batch = []
      // an event with nowhere to go (the common case of a load) is settled here, without an attempt's promise
      for (const e of events) if (!this.closed && !this.undeliverable(e)) void this.attempt(e, false)
    })
  }

  private later(event: EventRec, delayMs: number, duplicate: boolean): void {
    if (this.closed) return
    const t = setTimeout(() => {
      this.timers.delete(t)
      void this.attempt(event, duplicate)
    }, delayMs)
    t.unref()
    this.timers.add(t)
  }

  /** True (and a pending event marked no_endpoint) when the event's API client has no webhook URL now. */
  private undeliverable(event: EventRec): boolean {
    if (entry(this.core.state.clients, event.client_id)?.webhook_url) return false
    if (event.state === 'pending') event.state = 'no_endpoint'
    return true
  }

  /** One POST of the event to its client's current URL, recorded in its deliveries (undefined: closed meanwhile). */
  private async deliverOnce(event: EventRec, mark: {duplicate?: true; resend?: true}): Promise<DeliveryAttempt | undefined> {
    const client = entry(this.core.state.clients, event.client_id)!
    const url = client.webhook_url!
    const attempt = event.deliveries.length + 1
    let status: number | null = null
    let error: string | undefined
    try {
      status = await this.post(url, deliveryHeaders(event, event.body, client.webhook_secret, {userAgent: 'pay-sandbox-webhooks/1.0', attempt}), event.body)
    } catch (err) {
      error = err instanceof Error ? err.message : String(err)
    }
    if (this.closed) return undefined
    const record: DeliveryAttempt = {attempt, at: new Date().toISOString(), url, status, ...(error ? {error} : {}), ...mark}
    event.deliveries.push(record)
    return record
  }

  private async attempt(event: EventRec, duplicate: boolean): Promise<void> {
    if (this.closed || this.undeliverable(event)) return
    const record = await this.deliverOnce(event, duplicate ? {duplicate: true} : {})
    if (!record || duplicate) return
    // the scheduled attempts: duplicates and resends (`pay sandbox resend`) are not retries
    const scheduled = event.deliveries.filter((d) => !d.duplicate && !d.resend).length
    if (isOk(record.status)) {
      event.state = 'delivered'
      if (this.duplicateRate > 0 && Math.random() < this.duplicateRate) this.later(event, 10, true)
    } else if (scheduled >= this.core.opts.webhookMaxAttempts) {
      event.state = 'failed'
    } else {
      this.later(event, this.core.opts.webhookRetryBaseMs * 2 ** (scheduled - 1), false)
    }
    this.core.changed()
  }

  /**
   * Delivers the event again now, to its client's current webhook URL, outside the retry schedule (the control
   * API's resend): the attempt, or undefined when the client has no URL (or the sandbox is closing). A 2xx makes a
   * failed event delivered.
   */
  async resend(event: EventRec): Promise<DeliveryAttempt | undefined> {
    if (this.closed || !entry(this.core.state.clients, event.client_id)?.webhook_url) return undefined
    const record = await this.deliverOnce(event, {resend: true})
    if (record && isOk(record.status)) event.state = 'delivered'
    this.core.changed()
    return record
  }

  /** POSTs with node:http (https loaded only when a URL needs it); resolves with the status code. */
  private async post(url: string, headers: Record<string, string>, body: string): Promise<number> {
    const target = new URL(url)
    const send = target.protocol === 'https:' ? (await import('node:https')).request : request
    return new Promise<number>((resolve, reject) => {
      const req = send(target, {method: 'POST', headers: {...headers, 'content-length': String(Buffer.byteLength(body))}, agent: target.protocol === 'https:' ? undefined : this.agent, timeout: 10_000}, (res: IncomingMessage) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode ?? 0))
        res.on('error', reject)
      })
      const handle = {destroy: () => req.destroy(new Error('sandbox closing'))}
      this.inflight.add(handle)
      req.on('close', () => this.inflight.delete(handle))
      req.on('timeout', () => req.destroy(new Error('timed out after 10 s')))
      req.on('error', reject)
      req.end(body)
    })
  }

  async close(): Promise<void> {
    this.closed = true
    if (this.flushing) clearImmediate(this.flushing)
    this.batch = []
    for (const t of this.timers) clearTimeout(t)
    this.timers.clear()
    for (const r of this.inflight) r.destroy()
    this.agent.destroy()
  }
}
