/**
 * The sandbox engine: state + clock + options, lookup indexes, event emission and the one timer queue.
 * Resource modules change state through it; the HTTP layer never touches timers or events directly.
 *
 * Scheduling: every state change that waits for a time (settlement, mandate approval, checkout expiry) pushes
 * one entry (due clock time, kind, record id) on a min-heap (timer-queue.ts). One real timer is armed for the
 * earliest entry; a tick takes only what is due and hands each entry to the handler of its kind, which checks
 * that the record still waits for that time. Cost per request and per settlement is O(log n).
 */
import {eventEnvelope, newEventId} from '../webhooks/events.js'
import {Clock} from './clock.js'
import {Indexes, type Kind, type Records, idOf} from './indexes.js'
import type {ResolvedOptions} from './options.js'
import type {ClientRec, EventRec, MerchantRec, State} from './state.js'
import {TimerQueue} from './timer-queue.js'
import {entry} from './state.js'

/** Settles one record whose due time came (must check the record still waits for it). */
type DueHandler = (core: Core, id: string, now: number) => void

/** What the resource modules give the engine once they are loaded (after start-up). */
export interface Scheduling {
  /** Due handlers by entry kind. */
  due: Record<string, DueHandler>
  /** Pushes the queue entries of records already waiting in a state (loaded from --state, or reset). */
  rescan: (core: Core) => void
}

/** Events kept in memory (GET /_sandbox/events); older ones are dropped, oldest first. */
const MAX_EVENTS = 10_000
/** setTimeout's largest delay. */
const MAX_DELAY_MS = 2 ** 31 - 1

/**
 * An emitted event. Its JSON body (the bytes delivered and signed) is built from the resource view the first
 * time it is read (a delivery, GET /_sandbox/events, a --state save), not for every event: most events of a
 * load are never read. The view is a snapshot: resource modules build a fresh view per event and never change it.
 */
class SandboxEvent implements EventRec {
  state: EventRec['state'] = 'pending'
  deliveries: EventRec['deliveries'] = []
  #data: Record<string, unknown> | undefined
  #body: string | undefined

  constructor(
    readonly id: string,
    readonly type: string,
    readonly client_id: string,
    readonly merchant_id: number,
    readonly created_at: string,
    data: Record<string, unknown>,
    /** The id of the resource the event is about (the dashboard's history of an object); not saved. */
    readonly subject: string | undefined,
  ) {
    this.#data = data
  }

  get body(): string {
    if (this.#body === undefined) {
      this.#body = JSON.stringify(eventEnvelope(this.id, this.type, this.created_at, this.#data))
      this.#data = undefined
    }
    return this.#body
  }

  toJSON(): EventRec {
    const {id, type, client_id, merchant_id, created_at, body, state, deliveries} = this
    return {id, type, client_id, merchant_id, created_at, body, state, deliveries}
  }
}

/** The id of the resource an event's data is (a mandate's and a subscription's views name it differently). */
function subjectOf(type: string, data: Record<string, unknown>): string | undefined {
  const id = data.id ?? (type.startsWith('subscription.') ? data.subscription_id : type.startsWith('mandate.') ? data.mandate_id : undefined)
  return typeof id === 'string' ? id : undefined
}

export class Core {
  readonly clock: Clock
  readonly index = new Indexes()
  readonly queue = new TimerQueue()
  baseUrl = ''
  /** Called for each emitted event (webhook delivery subscribes). */
  onEvent: (event: EventRec) => void = () => {}
  /** Called after every state change (persistence subscribes). */
  onChange: () => void = () => {}
  private timer?: NodeJS.Timeout
  private timerAt = Infinity
  private closed = false
  private scheduling?: Scheduling

  constructor(
    public state: State,
    readonly opts: ResolvedOptions,
  ) {
    this.clock = new Clock(state.clock_offset_ms)
    this.index.rebuild(state)
  }

  /** Hands the engine the due handlers of the resources, and queues what the current state waits for. */
  setScheduling(scheduling: Scheduling): void {
    this.scheduling = scheduling
    scheduling.rescan(this)
    this.tick()
  }

  /** Replaces the whole state (reset): rebuilds the indexes and the queue. */
  replaceState(state: State): void {
    this.state = state
    this.clock.offsetMs = state.clock_offset_ms
    this.index.rebuild(state)
    this.queue.clear()
    this.disarm()
    this.scheduling?.rescan(this)
    this.tick()
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
    return id === null ? undefined : entry(this.state.clients, id)
  }

  /** Stores a new record and lists it in the indexes. */
  insert<K extends Kind>(kind: K, rec: Records[K]): void {
    ;(this.state[kind] as Record<string, Records[K]>)[idOf(kind, rec)] = rec
    this.index.add(kind, rec)
  }

  /** The records listed under an index key, oldest first. */
  lookup<K extends Kind>(kind: K, key: string): Records[K][] {
    const table = this.state[kind] as Record<string, Records[K]>
    const out: Records[K][] = []
    for (const id of this.index.ids(key)) {
      const rec = table[id]
      if (rec) out.push(rec)
    }
    return out
  }

  /** Records an event for the API client that created the resource; portal-created resources (client null) emit none. */
  emit(clientId: string | null, type: string, data: Record<string, unknown>): EventRec | undefined {
    if (clientId === null) return undefined
    const client = entry(this.state.clients, clientId)
    if (!client) return undefined
    const event = new SandboxEvent(newEventId(), type, clientId, client.merchant_id, this.iso(), data, subjectOf(type, data))
    const events = this.state.events
    events.push(event)
    if (events.length > MAX_EVENTS + 1000) events.splice(0, events.length - MAX_EVENTS) // trimmed in batches
    this.onEvent(event)
    return event
  }

  /** Queues `kind`/`id` for clock time `at`; its due handler runs once the clock reaches it. */
  at(at: number, kind: string, id: string): void {
    this.queue.push(at, kind, id)
    if (at < this.timerAt) this.arm()
  }

  /** Settles everything due at the current clock time, then arms the timer for the next entry. */
  tick(): void {
    const due = this.scheduling?.due
    if (!due) return
    const now = this.now()
    for (let e = this.queue.popDue(now); e; e = this.queue.popDue(now)) due[e.kind]?.(this, e.id, now)
    this.arm()
  }

  private arm(): void {
    this.disarm()
    const next = this.queue.peek()
    if (next === undefined || this.closed) return
    this.timerAt = next
    // +2: timers may fire a millisecond early against Date.now()
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.timerAt = Infinity
      this.tick()
    }, Math.min(MAX_DELAY_MS, Math.max(0, next - this.now() + 2)))
    this.timer.unref()
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    this.timerAt = Infinity
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
    this.disarm()
  }
}
