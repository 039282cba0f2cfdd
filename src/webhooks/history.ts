/**
 * The local webhook history of `pay webhook listen` (docs/assumptions.md, Webhooks): every delivery that reached the listener
 * (accepted, duplicate or rejected) with its raw body bytes, its headers, when, the verdict and its reason, and
 * every forward or replay attempt with its URL, status, time and duration.
 *
 * On disk: an append-only log in `<state dir>/webhooks/`, a 0700 directory of 0600 segment files
 * (`<start ms>-<pid>-<random>.log`). Each process appends only to segments of its own, so two listeners (and a
 * replay) never write to the same file. A record is one line of JSON (its metadata), followed, for a delivery,
 * by the raw body bytes (exactly `len` of them) and a newline: the body is stored as received, never re-encoded.
 * A forwarded delivery is written before the forward's result is known: the status it is then answered with follows
 * in an answer record of its own (`answered`), written with its attempts before that answer goes out.
 * The listener's records are written in one writev per batch before any answer of that batch is sent, and
 * fdatasync'd right behind (or, with sync 'answer', before the answers: HistoryWriter). A reader stops at a record
 * it cannot read whole (the tail a kill -9 cut: never answered), and indexes everything it reads in memory.
 * Bounds: segments older than the maximum age, and the oldest segments while the whole store is over its size,
 * are deleted, whole; never the segment another live process is writing. No secret is ever stored: the headers
 * are kept as received with secret-named headers redacted, and the webhook secret is not a header.
 */
import {closeSync, fdatasync, fdatasyncSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, unlinkSync, writevSync} from 'node:fs'
import {join} from 'node:path'
import {processAlive} from '../config/holder-lock.js'
import {CONFIG_DIR_MODE, SECRET_FILE_MODE, stateDir} from '../config/paths.js'
import {isSecretHeader, redactHeader} from '../base/redact.js'

export const DEFAULT_MAX_AGE_MS = 7 * 86_400_000
export const DEFAULT_MAX_BYTES = 256 * 1024 * 1024
/** Environment variables of the two bounds (the listener's flags take them as defaults). */
export const MAX_AGE_ENV = 'PAY_WEBHOOK_HISTORY_MAX_AGE'
export const MAX_SIZE_ENV = 'PAY_WEBHOOK_HISTORY_MAX_SIZE'
const SEGMENT = /^(\d{13,})-(\d+)-[0-9a-z]+\.log$/
const PRUNE_EVERY_MS = 10 * 60_000
/** 'background' sync: under a steady load, one fdatasync every this many ms at most (HistoryWriter.syncBehind). */
const BACKGROUND_SYNC_MS = 10
const NL = Buffer.from('\n')

export type SyncMode = 'answer' | 'background' | 'none'

export type HistoryVerdict = 'accepted' | 'duplicate' | 'rejected'

/** What the listener knows of a delivery when it has judged it. */
interface DeliveryInput {
  event_id?: string
  type?: string
  reference?: string
  verdict: HistoryVerdict
  /**
   * The status answered. A forwarded delivery is kept before its forward ends: its record has none, and its answer
   * record (`answered`) gives it; none when the listener stopped before answering (a history written by an older
   * pay says 200 for every forwarded delivery).
   */
  status?: number
  reason?: string
  detail?: string
  verified: boolean
  filtered?: boolean
}

interface DeliveryMeta extends DeliveryInput {
  k: 'd'
  id: string
  at: number
  /** Raw headers as received, name and value alternating, secret-named ones redacted. */
  h: string[]
  len: number
}

interface AttemptInput {
  url: string
  status?: number
  error?: string
  detail?: string
  ms: number
  /** Sent by `pay webhook replay` (else by the listener's forwarder). */
  replay?: boolean
}

interface AttemptMeta extends AttemptInput {
  k: 'a'
  /** The delivery's id. */
  d: string
  ev?: string
  at: number
}

/** The status a delivery kept earlier was answered with (`HistoryWriter.answered`). */
interface AnswerMeta {
  k: 's'
  /** The delivery's id. */
  d: string
  status: number
}

interface StoredAttempt extends AttemptInput {
  at: number
  ok: boolean
  /** The delivery's id (the listener forwards one delivery to every route at once: one send). */
  delivery: string
}

export interface StoredDelivery extends DeliveryInput {
  id: string
  at: number
  headers: [string, string][]
  body: Buffer
  attempts: StoredAttempt[]
}

export interface HistoryBounds {
  maxAgeMs?: number
  maxBytes?: number
}

export function historyDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(stateDir(env), 'webhooks')
}

const okStatus = (status: number | undefined) => status !== undefined && status >= 200 && status < 300

interface WriterOptions extends HistoryBounds {
  /** Told once when the store cannot be written (the listener carries on without it). */
  warn?: (text: string) => void
  /**
   * When a batch counts as kept: 'answer' (default): written and fdatasync'd before its answers go out;
   * 'background': written before its answers (it survives the process), fdatasync'd right after, without
   * waiting (a machine crash may lose the last few milliseconds); 'none': written only (tests).
   */
  sync?: SyncMode
  now?: () => number
  /** node:fs's fdatasync (tests hold it to see that no answer goes out before it completes). */
  fdatasync?: typeof fdatasync
  /** The clock background syncs are paced by (performance.now; a test reads the same one as the writer). */
  clock?: () => number
}

/**
 * The writer of one process. Records are appended to memory and written together, with one writev(2) (in the
 * page cache from then on: they survive the process, a kill -9 included); `afterCommit(cb)` calls `cb` once every
 * record appended before it is kept as the sync mode says:
 * - 'background' (the default): written at once, then `cb`; an fdatasync runs right behind, one at a time and at
 *   most one every BACKGROUND_SYNC_MS (a machine crash may lose what was answered in the last few milliseconds,
 *   never a listener crash).
 * - 'answer': written and fdatasync'd before `cb`. While one batch is being synced, new records gather for the
 *   next one (group commit): one fdatasync per batch, however many deliveries it holds.
 * docs/assumptions.md (Webhooks) has the measured cost of each.
 */
export class HistoryWriter {
  readonly dir: string
  private fd?: number
  private size = 0
  private seq = 0
  private bufs: Buffer[] = []
  private waiting: (() => void)[] = []
  /** 'answer' mode: callbacks of the batch being synced (undefined: none in flight). */
  private syncing?: (() => void)[]
  private scheduled = false
  private off = false
  private lastPrune = 0
  private readonly mode: SyncMode
  private readonly maxAgeMs: number
  private readonly maxBytes: number
  private readonly segmentBytes: number
  private readonly now: () => number
  private readonly idPrefix: string
  /** The segment this writer appends to. */
  private segment?: string

  constructor(
    dir: string,
    private readonly options: WriterOptions = {},
  ) {
    this.dir = dir
    this.mode = options.sync ?? 'background'
    this.maxAgeMs = options.maxAgeMs ?? DEFAULT_MAX_AGE_MS
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES
    // eight segments or more in a full store: pruning a whole one frees at most an eighth
    this.segmentBytes = Math.max(4096, Math.min(64 * 1024 * 1024, Math.floor(this.maxBytes / 8)))
    this.now = options.now ?? Date.now
    this.idPrefix = `${this.now().toString(36)}${process.pid.toString(36)}${Math.random().toString(36).slice(2, 5)}`
  }

  /** Creates the directory, prunes, opens this process's first segment. False (and one warning) when it cannot. */
  open(): boolean {
    if (this.fd !== undefined) return true
    if (this.off) return false
    try {
      mkdirSync(this.dir, {recursive: true, mode: CONFIG_DIR_MODE})
      this.prune()
      this.newSegment()
      return true
    } catch (err) {
      this.disable(err)
      return false
    }
  }

  get enabled(): boolean {
    return !this.off
  }

  /** True while records wait to be kept (an answer must then wait for afterCommit). */
  get pending(): boolean {
    return !this.off && (this.bufs.length > 0 || this.syncing !== undefined)
  }

  /** Appends a delivery (kept in memory until the batch is written); its id. */
  delivery(input: DeliveryInput, rawHeaders: string[], body: Buffer): string {
    const id = `dlv_${this.idPrefix}${(this.seq++).toString(36)}`
    if (this.off) return id
    const meta: DeliveryMeta = {k: 'd', id, at: this.now(), ...input, h: keptHeaders(rawHeaders), len: body.length}
    this.bufs.push(Buffer.from(`${JSON.stringify(meta)}\n`))
    if (body.length > 0) this.bufs.push(body, NL)
    this.schedule()
    return id
  }

  /** Appends a forward (or replay) attempt of a delivery. */
  attempt(delivery: string, eventId: string | undefined, input: AttemptInput): void {
    if (this.off) return
    const meta: AttemptMeta = {k: 'a', d: delivery, ev: eventId, at: this.now(), ...input}
    this.bufs.push(Buffer.from(`${JSON.stringify(meta)}\n`))
    this.schedule()
  }

  /**
   * Appends the status a delivery appended earlier was answered with, once known (a forwarded one's: the app's, or
   * 502/504): appended before that answer is sent (afterCommit), it is kept with the forward's attempts.
   */
  answered(delivery: string, status: number): void {
    if (this.off) return
    const meta: AnswerMeta = {k: 's', d: delivery, status}
    this.bufs.push(Buffer.from(`${JSON.stringify(meta)}\n`))
    this.schedule()
  }

  /** Calls `cb` once every record appended so far is kept (at once when none waits). */
  afterCommit(cb: () => void): void {
    if (!this.pending) return cb()
    if (this.mode !== 'answer') {
      this.writeOut()
      return cb()
    }
    // nothing new since the batch in flight: that batch's sync covers everything appended so far
    if (this.bufs.length === 0 && this.syncing) this.syncing.push(cb)
    else {
      this.waiting.push(cb)
      this.schedule()
    }
  }

  /** Writes and syncs what is left, and closes the segment. */
  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.afterCommit(resolve))
    if (this.fd !== undefined) {
      try {
        if (this.mode !== 'answer') fdatasyncSync(this.fd)
        closeSync(this.fd)
      } catch {
        // closing is best effort
      }
      this.fd = undefined
    }
    this.off = true
  }

  /** Records appended without an afterCommit (an attempt's) are written at the end of the turn. */
  private schedule(): void {
    if (this.scheduled || this.syncing) return
    this.scheduled = true
    setImmediate(() => this.flush())
  }

  /** Writes what was appended, in one writev; false when the history has turned itself off. */
  private writeOut(): boolean {
    if (this.off) return false
    if (this.bufs.length === 0) return true
    const bufs = this.bufs
    this.bufs = []
    if (this.fd === undefined && !this.open()) return false
    let total = 0
    for (const b of bufs) total += b.length
    try {
      const written = writevSync(this.fd!, bufs)
      if (written !== total) throw new Error(`short write (${written} of ${total} bytes)`)
      this.size += written
    } catch (err) {
      this.disable(err)
      return false
    }
    if (this.mode === 'background') this.syncBehind()
    if (this.mode !== 'answer') this.housekeeping()
    return true
  }

  private flush(): void {
    this.scheduled = false
    if (this.mode !== 'answer') {
      this.writeOut()
      return this.release(this.waiting.splice(0))
    }
    const callbacks = (this.syncing = this.waiting)
    this.waiting = []
    if (!this.writeOut()) {
      this.syncing = undefined
      return this.release(callbacks)
    }
    ;(this.options.fdatasync ?? fdatasync)(this.fd!, (err) => {
      this.syncing = undefined
      if (err) this.disable(err)
      else this.housekeeping()
      this.release(callbacks)
      if (this.bufs.length > 0 || this.waiting.length > 0) this.schedule()
    })
  }

  /** A new segment once this one is full; pruning every PRUNE_EVERY_MS. */
  private housekeeping(): void {
    if (this.size >= this.segmentBytes || this.now() - this.lastPrune > PRUNE_EVERY_MS) this.rotate()
  }

  /**
   * 'background': one fdatasync at a time behind the answers, and under a steady load at most one every
   * BACKGROUND_SYNC_MS (the first after a pause starts at once): back to back, syncs cost more CPU than the
   * deliveries they cover on a disk that syncs fast (docs/performance.md), and a machine crash loses no more.
   */
  private behind = false
  private behindAgain = false
  private lastSync = Number.NEGATIVE_INFINITY
  private syncBehind(): void {
    if (this.behind) {
      this.behindAgain = true
      return
    }
    this.behind = true
    this.syncWhenDue()
  }

  /** A timer starts from the event loop's clock, read once a turn: after a long turn it fires early, so look again. */
  private syncWhenDue(): void {
    const wait = this.lastSync + BACKGROUND_SYNC_MS - (this.options.clock?.() ?? performance.now())
    if (wait > 0) setTimeout(() => this.syncWhenDue(), Math.ceil(wait)).unref()
    else this.syncNow()
  }

  private syncNow(): void {
    // closed meanwhile (and synced then)
    if (this.fd === undefined) {
      this.behind = false
      return
    }
    this.lastSync = this.options.clock?.() ?? performance.now()
    ;(this.options.fdatasync ?? fdatasync)(this.fd, (err) => {
      this.behind = false
      // EBADF: the segment was closed (and synced then) meanwhile
      if (err && (err as NodeJS.ErrnoException).code !== 'EBADF') this.disable(err)
      if (this.behindAgain && this.fd !== undefined) {
        this.behindAgain = false
        this.syncBehind()
      }
    })
  }

  private release(callbacks: (() => void)[]): void {
    for (const cb of callbacks) {
      try {
        cb()
      } catch {
        // an answer that cannot be sent must not stop the others
      }
    }
  }

  private rotate(): void {
    try {
      if (this.size >= this.segmentBytes) {
        if (this.mode !== 'answer') fdatasyncSync(this.fd!)
        closeSync(this.fd!)
        this.fd = undefined
        this.newSegment()
      }
      this.prune()
    } catch (err) {
      this.disable(err)
    }
  }

  private newSegment(): void {
    const name = `${String(this.now()).padStart(13, '0')}-${process.pid}-${Math.random().toString(36).slice(2, 8) || '0'}.log`
    this.fd = openSync(join(this.dir, name), 'wx', SECRET_FILE_MODE)
    this.segment = name
    this.size = 0
  }

  /** Deletes whole segments: those older than the maximum age, then the oldest while the store is over its size. */
  prune(): void {
    this.lastPrune = this.now()
    pruneSegments(this.dir, {maxAgeMs: this.maxAgeMs, maxBytes: Math.max(0, this.maxBytes - this.segmentBytes)}, this.now(), this.segment)
  }

  private disable(err: unknown): void {
    if (this.off) return
    this.off = true
    this.bufs = []
    this.options.warn?.(`webhook history is off from now on: ${(err as Error).message ?? String(err)} (${this.dir})`)
    if (this.fd !== undefined) {
      try {
        closeSync(this.fd)
      } catch {
        // already broken
      }
      this.fd = undefined
    }
  }
}

/** Header names known to be harmless, so that the hot path tests each name against the secret names only once. */
const headerSecret = new Map<string, boolean>()
function keptHeaders(raw: string[]): string[] {
  let out: string[] | undefined
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]
    let secret = headerSecret.get(name)
    if (secret === undefined) {
      secret = isSecretHeader(name)
      if (headerSecret.size > 1000) headerSecret.clear()
      headerSecret.set(name, secret)
    }
    if (secret) {
      out ??= raw.slice()
      out[i + 1] = redactHeader(name, raw[i + 1])
    }
  }
  return out ?? raw
}

interface Segment {
  name: string
  path: string
  started: number
  pid: number
  size: number
  mtime: number
}

function listSegments(dir: string): Segment[] {
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return []
  }
  const out: Segment[] = []
  for (const name of names) {
    const m = SEGMENT.exec(name)
    if (!m) continue
    try {
      const st = statSync(join(dir, name))
      out.push({name, path: join(dir, name), started: Number(m[1]), pid: Number(m[2]), size: st.size, mtime: st.mtimeMs})
    } catch {
      // removed meanwhile
    }
  }
  return out.sort((a, b) => a.started - b.started || (a.name < b.name ? -1 : 1))
}


/**
 * The bounds applied to a directory: `own` (this writer's segment) and another live process's newest segment are
 * never deleted (it may be writing it).
 */
function pruneSegments(dir: string, bounds: {maxAgeMs: number; maxBytes: number}, now = Date.now(), own?: string): void {
  const segments = listSegments(dir)
  const newest = new Map<number, string>()
  for (const s of segments) if (s.pid !== process.pid) newest.set(s.pid, s.name)
  const protectedNames = new Set([...newest].filter(([pid]) => processAlive(pid)).map(([, name]) => name))
  if (own) protectedNames.add(own)
  let total = segments.reduce((sum, s) => sum + s.size, 0)
  for (const s of segments) {
    if (protectedNames.has(s.name)) continue
    if (now - s.mtime > bounds.maxAgeMs || total > bounds.maxBytes) {
      try {
        unlinkSync(s.path)
        total -= s.size
      } catch {
        // another process pruned it first
      }
    }
  }
}

/**
 * Every record of one segment that can be read whole (a cut tail ends it). An answer record sets the status of its
 * delivery, read before it (one writer writes both, in order); one read first waits in `answers`.
 */
function readSegment(path: string, deliveries: Map<string, StoredDelivery>, attempts: AttemptMeta[], answers: Map<string, number>): void {
  let data: Buffer
  try {
    data = readFileSync(path)
  } catch {
    return
  }
  let pos = 0
  while (pos < data.length) {
    const end = data.indexOf(10, pos)
    if (end < 0) return
    let meta: DeliveryMeta | AttemptMeta | AnswerMeta
    try {
      meta = JSON.parse(data.toString('utf8', pos, end))
    } catch {
      return
    }
    pos = end + 1
    if (meta.k === 'd') {
      const len = typeof meta.len === 'number' && meta.len >= 0 ? meta.len : 0
      if (len > 0) {
        if (pos + len >= data.length || data[pos + len] !== 10) return
      }
      const body = data.subarray(pos, pos + len)
      if (len > 0) pos += len + 1
      const headers: [string, string][] = []
      const h = Array.isArray(meta.h) ? meta.h : []
      for (let i = 0; i + 1 < h.length; i += 2) headers.push([String(h[i]), String(h[i + 1])])
      const {k: _k, h: _h, len: _len, ...rest} = meta
      deliveries.set(meta.id, {...rest, headers, body, attempts: []})
    } else if (meta.k === 'a') attempts.push(meta)
    else if (meta.k === 's' && typeof meta.status === 'number') {
      const d = deliveries.get(meta.d)
      if (d) d.status = meta.status
      else answers.set(meta.d, meta.status)
    }
  }
}

/** The whole history, newest delivery first, each with its attempts in order. */
export function readHistory(dir: string = historyDir()): StoredDelivery[] {
  const deliveries = new Map<string, StoredDelivery>()
  const attempts: AttemptMeta[] = []
  const answers = new Map<string, number>()
  for (const s of listSegments(dir)) readSegment(s.path, deliveries, attempts, answers)
  for (const [id, status] of answers) {
    const d = deliveries.get(id)
    if (d) d.status = status
  }
  for (const a of attempts) {
    const d = deliveries.get(a.d)
    if (!d) continue
    const {k: _k, d: _d, ev: _ev, ...rest} = a
    d.attempts.push({...rest, delivery: a.d, ok: okStatus(a.status)})
  }
  const list = [...deliveries.values()]
  for (const d of list) d.attempts.sort((x, y) => x.at - y.at)
  return list.sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : -1))
}

export type ForwardState = 'ok' | 'failed' | 'none'

/**
 * Where forwarding stands for a set of attempts, in time order: the latest send decides, whatever URL it went to
 * and however that URL is spelled. A send is one replay, or the listener's forward of one delivery (to every
 * route at once: failed when any route was not answered 2xx). So one replay answered 2xx clears the event, and a
 * later send not answered 2xx makes it failed again.
 */
export function forwardState(attempts: StoredAttempt[]): ForwardState {
  if (attempts.length === 0) return 'none'
  const last = attempts[attempts.length - 1]
  const send = last.replay ? [last] : attempts.filter((a) => !a.replay && a.delivery === last.delivery)
  return send.every((a) => a.ok) ? 'ok' : 'failed'
}

/**
 * The events whose forwarding has not succeeded: forwarded (or replayed) at least once, and the latest send, over
 * all deliveries of the event, not answered 2xx (forwardState). For each, its newest accepted delivery.
 */
export function failedEvents(all: StoredDelivery[]): StoredDelivery[] {
  const byEvent = new Map<string, StoredDelivery[]>()
  for (const d of all) {
    if (!d.event_id) continue
    const list = byEvent.get(d.event_id)
    if (list) list.push(d)
    else byEvent.set(d.event_id, [d])
  }
  const out: StoredDelivery[] = []
  for (const list of byEvent.values()) {
    const attempts = list.flatMap((d) => d.attempts).sort((a, b) => a.at - b.at)
    if (forwardState(attempts) !== 'failed') continue
    const accepted = list.find((d) => d.verdict === 'accepted')
    if (accepted) out.push(accepted)
  }
  return out.sort((a, b) => b.at - a.at)
}

/**
 * The deliveries kept for a merchant reference (`data.merchant_reference` of the event), newest first; empty when
 * there is no local history. For `pay find` and others that show what this machine received.
 */
export function deliveriesByReference(reference: string, env: NodeJS.ProcessEnv = process.env): StoredDelivery[] {
  return readHistory(historyDir(env)).filter((d) => d.reference === reference)
}
