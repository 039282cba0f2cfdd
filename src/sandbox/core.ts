/**
 * The sandbox engine: state + clock + options, event emission and the settlement tick.
 * Resource modules change state through it; the HTTP layer never touches timers or events directly.
 */
import {Clock} from './clock.js'
import {newEventId} from './ids.js'
import type {ResolvedOptions} from './options.js'
import type {ClientRec, EventRec, MerchantRec, State} from './state.js'

export type Ticker = (core: Core, now: number) => void

export class Core {
  readonly clock: Clock
  baseUrl = ''
  /** Called for each emitted event (webhook delivery subscribes). */
  onEvent: (event: EventRec) => void = () => {}
  /** Called after every state change (persistence subscribes). */
  onChange: () => void = () => {}
  private readonly timers = new Set<NodeJS.Timeout>()
  private closed = false

  private tickers: Ticker[] = []

  constructor(
    public state: State,
    readonly opts: ResolvedOptions,
  ) {
    this.clock = new Clock(state.clock_offset_ms)
  }

  /** The settlement functions of the resources (loaded with the request handling, after start-up). */
  setTickers(tickers: Ticker[]): void {
    this.tickers = tickers
  }

  now(): number {
    return this.clock.now()
  }

  iso(ms?: number): string {
    return this.clock.iso(ms)
  }

  merchant(id: number): MerchantRec {
    return this.state.merchants[id]
  }

  client(id: string | null): ClientRec | undefined {
    return id === null ? undefined : this.state.clients[id]
  }

  /** Records an event for the API client that created the resource; portal-created resources (client null) emit none. */
  emit(clientId: string | null, type: string, data: Record<string, unknown>): EventRec | undefined {
    if (clientId === null) return undefined
    const client = this.state.clients[clientId]
    if (!client) return undefined
    const id = newEventId()
    const created_at = this.iso()
    const event: EventRec = {
      id,
      type,
      client_id: clientId,
      merchant_id: client.merchant_id,
      created_at,
      body: JSON.stringify({id, object: 'event', type, created_at, data}),
      state: 'pending',
      deliveries: [],
    }
    this.state.events.push(event)
    this.onEvent(event)
    return event
  }

  /** Runs the tick after `delayMs` of real time (settlement deadlines). */
  schedule(delayMs: number): void {
    if (this.closed) return
    const t = setTimeout(() => {
      this.timers.delete(t)
      this.tick()
    }, Math.max(0, delayMs))
    t.unref()
    this.timers.add(t)
  }

  /** Settles everything due at the current clock time. */
  tick(): void {
    const now = this.now()
    for (const ticker of this.tickers) ticker(this, now)
  }

  advanceClock(seconds: number): void {
    this.clock.advance(seconds)
    this.state.clock_offset_ms = this.clock.offsetMs
    this.tick()
    this.changed()
  }

  changed(): void {
    this.onChange()
  }

  close(): void {
    this.closed = true
    for (const t of this.timers) clearTimeout(t)
    this.timers.clear()
  }
}
