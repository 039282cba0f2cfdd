/**
 * The sending pass of a bulk run: the spooled rows, in file order, each joined with what an earlier run settled of
 * it (src/bulk/run-journal.ts, sorted by row on disk) and, for a body that came again, its key; `--concurrency`
 * workers send them under the shared adaptive rate (src/bulk/rate.ts), each row until the request policy says what it
 * came to; every outcome is journaled, written to the results and counted.
 */
import {setTimeout as sleep} from 'node:timers/promises'
import {type ApiResponse, type CallInput, type PreparedRequest, maybeReplayed} from '../client/api-client.js'
import type {PoolTransport} from '../client/pool-transport.js'
import type {EndpointId} from '../api/endpoints.js'
import {answeredOther, failureDetail, otherResourceMessage, stateOf} from '../operation/wait.js'
import {resourceName} from '../api/resource.js'
import {type Kind, idOf, kindOfEndpoint} from '../api/kinds.js'
import {type AttemptOutcome, MAX_THROTTLES_PER_ROW, type RequestClass, RequestAttempts, askedWaitMs, pollDelayMs, provesAbsent, throttleOf} from '../client/request-policy.js'
import type {ApiContext} from '../operation/api-context.js'
import type {Checked} from './check.js'
import {AdaptiveRate} from './rate.js'
import {type Counts, MoneyTotals, type ProgressReporter, type ResultSink} from './report.js'
import {type EarlierOutcomes, type EarlierRow, type RowOutcome, type RunJournal, outcomeOf, rowOutcome, rowState, withStatus} from '../journal/run-journal.js'
import type {SpooledRow} from './spool.js'
import type {MoneyCharge} from '../operation/confirm.js'
import {printableLine} from '../output/printable.js'

/** The error_code of a row whose --wait lookup answered another resource (one sharing its reference). */
export const OTHER_RESOURCE = 'other_resource'

/** The error_code of a row whose --wait lookup failed (after its retries): its state is as last seen. */
export const LOOKUP_FAILED = 'lookup_failed'

/** The error_code of a row whose resource ended failed (answered so at create, or seen so by --wait). */
const TRANSACTION_FAILED = 'transaction_failed'

/** Rows in a row left "unknown" by network errors after their retries: the service is unreachable, stop. */
export const UNREACHABLE_AFTER = 24

type Ended = (state: string | null) => 'succeeded' | 'failed' | undefined

interface PollTarget {
  id: EndpointId
  input: CallInput
  states?: {succeeded: readonly string[]; failed: readonly string[]}
}

/** What the sending pass needs besides the rows. */
export interface SendPlan {
  checked: Checked
  earlier: EarlierOutcomes
  /** An earlier run's outcome that stands (not sent again). */
  settledBy: (o: EarlierRow) => boolean
  /** The key of a row whose body is the `occurrence`th of its kind in the file. */
  rekey: (r: SpooledRow, occurrence: number) => string
  /** The request of a spooled row (its endpoint's template with its target, body and key). */
  requestOf: (r: SpooledRow) => PreparedRequest
  journal: RunJournal
  sink: ResultSink
  progress: ProgressReporter
  rate: AdaptiveRate
  concurrency: number
  retries: number
  ended: Ended
  pool?: PoolTransport
  /** --wait: the request that reports a row's state, and how long to poll. */
  wait?: {timeoutSec: number; poll: (endpoint: EndpointId, res: ApiResponse, input: CallInput) => PollTarget}
  /**
   * The request that reports a row's state, with or without --wait: a row resent under its key (its outcome was
   * unknown) whose answer has not ended is looked up once, since that answer may be the service's first one, replayed.
   */
  lookUp?: (endpoint: EndpointId, res: ApiResponse, input: CallInput) => PollTarget
  /** The earlier outcomes are another content's (the lineage's newest run): journaled in this run's file too. */
  adopted?: boolean
  /** Told of each row sent by this run, with its outcome (the reference index, src/bulk/references.ts). */
  sent?: (r: SpooledRow, o: RowOutcome) => void
  /** What a row's request moves, for the money totals (BulkOperation.charge). */
  charge: (r: SpooledRow) => MoneyCharge
}

/** What the sending pass counted, as it goes (an interruption reads it too). */
export class Tally {
  readonly counts: Counts
  readonly money = {succeeded: new MoneyTotals(), processing: new MoneyTotals(), failed: new MoneyTotals()}
  acceptedThenFailed = 0
  /** Rows this run looked up (--wait) whose lookup answered another resource: their state stays as last seen. */
  otherResource = 0
  /** Rows this run could not follow (--wait): a lookup failed after its retries; their state stays as last seen. */
  lookupFailed = 0
  /** The first failed rows, for the summary. */
  readonly failedRows: string[] = []
  /** Why the run stopped before its last row, if it did. */
  stopped?: 'unreachable' | 'results' | 'journal'

  constructor(total: number) {
    this.counts = {total, done: 0, succeeded: 0, processing: 0, failed: 0, unknown: 0, not_sent: 0, earlier: 0}
  }
}

/** Sends every row not settled by an earlier run; `tally` counts the outcomes. */
export async function send(ctx: ApiContext, plan: SendPlan, tally: Tally): Promise<void> {
  const {journal, sink, progress, rate, ended, wait} = plan
  const {counts, money, failedRows} = tally
  let unreachableStreak = 0
  // `news`: this run learnt it (sent the row, or looked an earlier row up): journaled; `again`: refused for now
  const finish = (r: SpooledRow, o: RowOutcome, news: boolean, again = false) => {
    const noAnswer = news && !o.earlier && o.http_status === null && (o.status === 'unknown' || o.status === 'not_sent')
    unreachableStreak = noAnswer ? unreachableStreak + 1 : o.earlier ? unreachableStreak : 0
    if (unreachableStreak >= UNREACHABLE_AFTER) tally.stopped ??= 'unreachable'
    counts.done++
    counts[o.status]++
    if (o.earlier) counts.earlier++
    if (news) journal.record(o, again)
    if (o.status === 'succeeded' || o.status === 'processing' || o.status === 'failed') {
      const charge = plan.charge(r)
      if (charge === 'amount') money[o.status].add(o.amount, o.currency)
      else if (charge === 'plan') money[o.status].planRows++
    }
    if (o.status === 'failed' && o.outcome === 'accepted') tally.acceptedThenFailed++
    if (o.status === 'failed' && failedRows.length < 20) failedRows.push(printableLine(`  line ${o.line}${o.reference ? ` (${o.reference})` : ''}: ${o.error_code ?? ''} ${o.error_message ?? ''}`.trimEnd()))
    sink.write(o)
    if (sink.failed) tally.stopped ??= 'results' // the outcomes are journaled: the run ends cleanly, resumable
    if (journal.failed !== undefined) tally.stopped ??= 'journal' // nothing more is recorded: sending on would hide rows from the checks
    progress.update(counts)
  }

  // the rows, a chunk at a time: a worker takes the next one without an await while the chunk lasts
  const chunks = rowsToSend(plan)
  let chunk: ToSend[] = []
  let taken = 0
  let reading: Promise<boolean> | undefined
  const take = (): ToSend | undefined => (taken < chunk.length ? chunk[taken++] : undefined)
  const readMore = async (): Promise<ToSend | undefined> => {
    for (;;) {
      const r = take()
      if (r !== undefined) return r
      reading ??= chunks.next().then((next) => {
        reading = undefined
        if (next.done) return false
        chunk = next.value
        taken = 0
        return true
      })
      if (!(await reading)) return undefined
    }
  }
  // --wait: a row followed to its end (or as far as its lookups tell)
  // `once`: one lookup, at once (a resumed row's replayed answer), not a wait
  const follow = async (accepted: RowOutcome, target: PollTarget, once = false) => {
    const o = await waitRow(ctx, accepted, target, once ? 0 : wait!.timeoutSec, rate, ended, once)
    if (o.error_code === OTHER_RESOURCE) tally.otherResource++
    if (o.error_code === LOOKUP_FAILED) tally.lookupFailed++
    return o
  }
  const worker = async () => {
    while (tally.stopped === undefined) {
      const next = take() ?? (await readMore())
      if (next === undefined) return
      const {r, known} = next
      if (known && isSettled(plan, r, known)) {
        const settled = withStatus(known, known.status) // without `again`
        // --wait: an earlier row whose resource has not ended is looked up again (GETs; nothing is sent)
        if (wait && settled.status === 'processing') finish(r, await follow(settled, wait.poll(r.endpoint, answerOf(settled), callInputOf(r))), true)
        else finish(r, settled, plan.adopted === true)
        continue
      }
      // an earlier attempt under this key may have reached the service (its outcome was unknown, or a cut run may
      // have had it in flight): the request policy is told, so that a refusal for now cannot read as "not sent"
      const resent = known?.idempotency_key === r.key ? known.outcome === 'unknown' : plan.earlier.cut
      const sent = await sendRow(ctx, plan.requestOf(r), r, rate, plan.retries, resent, ended, plan.pool)
      plan.sent?.(r, sent.outcome)
      if (wait && sent.response) finish(r, await follow(sent.outcome, wait.poll(r.endpoint, sent.response, callInputOf(r))), true)
      // answered in a state that has not ended, maybe the service's first answer replayed (its own record said unknown,
      // or the service marks it; not merely a row of a cut run, which mostly never went): its state as it was then
      // (when, not known here), so looked up once (a GET), as a single command's re-run does
      else if (sent.response && sent.outcome.status === 'processing' && plan.lookUp && maybeReplayed(sent.response, known?.idempotency_key === r.key && known.outcome === 'unknown')) {
        finish(r, await follow(withStatus({...sent.outcome, state_at: null}, 'processing'), plan.lookUp(r.endpoint, sent.response, callInputOf(r)), true), true)
      } else finish(r, sent.outcome, true, sent.again)
    }
  }
  try {
    await Promise.all(Array.from({length: plan.concurrency}, worker))
  } finally {
    await chunks.return(undefined)
  }
}

/** A spooled row with its final key, and what an earlier run settled of it. */
interface ToSend {
  r: SpooledRow
  known?: EarlierRow
}

/** The spool's rows in file order, with their final keys, each saying whether an earlier run settled it (not sent again). */
export async function* rowsAndSettled(plan: Pick<SendPlan, 'checked' | 'earlier' | 'rekey' | 'settledBy'>): AsyncGenerator<Array<{r: SpooledRow; settled: boolean}>> {
  for await (const chunk of rowsToSend(plan)) yield chunk.map(({r, known}) => ({r, settled: isSettled(plan, r, known)}))
}

/** Whether an earlier run settled a row under its key (an accepted request, or a refusal not to be retried). */
function isSettled(plan: Pick<SendPlan, 'settledBy'>, r: SpooledRow, known: EarlierRow | undefined): boolean {
  return known !== undefined && known.idempotency_key === r.key && plan.settledBy(known)
}

/** The spool's rows in file order, joined (by row number) with the repeated bodies and the earlier outcomes. */
async function* rowsToSend(plan: Pick<SendPlan, 'checked' | 'earlier' | 'rekey'>): AsyncGenerator<ToSend[]> {
  const repeats = new RowCursor(pairsOf(plan.checked.repeats.sorted()), (pair: [number, number]) => pair[0])
  const earlier = new RowCursor(plan.earlier.chunks(), (o: EarlierRow) => o.row)
  try {
    for await (const rows of plan.checked.spool.chunks()) {
      const out: ToSend[] = []
      for (const r of rows) {
        // awaited only when a cursor must read its next chunk: an await per row cost two promises a row, each pass
        const repeatAt = repeats.at(r.row)
        const repeat = repeatAt instanceof Promise ? await repeatAt : repeatAt
        if (repeat !== undefined) r.key = plan.rekey(r, repeat[1])
        const knownAt = earlier.at(r.row)
        out.push({r, known: knownAt instanceof Promise ? await knownAt : knownAt})
      }
      yield out
    }
  } finally {
    await repeats.close()
    await earlier.close()
  }
}

/** (row, occurrence) records as pairs. */
async function* pairsOf(chunks: AsyncGenerator<Uint32Array>): AsyncGenerator<[number, number][]> {
  for await (const recs of chunks) {
    const pairs: [number, number][] = []
    for (let i = 0; i < recs.length; i += 2) pairs.push([recs[i], recs[i + 1]])
    yield pairs
  }
}

/** Reads items sorted by row number, for rows asked in increasing order. */
class RowCursor<T> {
  private items: T[] = []
  private at_ = 0
  private done = false

  constructor(
    private readonly source: AsyncGenerator<T[]>,
    private readonly rowOf: (item: T) => number,
  ) {}

  /**
   * The item of `row`, if any (items of earlier rows are passed over): at once while the chunk in hand covers `row`,
   * a promise only when the next chunk must be read first.
   */
  at(row: number): T | undefined | Promise<T | undefined> {
    while (this.at_ < this.items.length && this.rowOf(this.items[this.at_]) < row) this.at_++
    if (this.at_ < this.items.length) return this.rowOf(this.items[this.at_]) === row ? this.items[this.at_] : undefined
    if (this.done) return undefined
    return this.readThenAt(row)
  }

  private async readThenAt(row: number): Promise<T | undefined> {
    const next = await this.source.next()
    if (next.done) this.done = true
    else {
      this.items = next.value
      this.at_ = 0
    }
    return this.at(row)
  }

  async close(): Promise<void> {
    await this.source.return(undefined)
  }
}

/** The operation's input of a spooled row (what --wait's poll reads: path, query, body). */
export function callInputOf(r: SpooledRow): CallInput {
  return {path: r.path, query: r.query, body: r.body === undefined ? undefined : (JSON.parse(r.body) as unknown)}
}

interface ErrorShape {
  status?: number
  error?: {code?: string; message?: string}
  body?: unknown
  message?: string
  responseHeaders?: Record<string, string>
  attemptOutcome?: AttemptOutcome
}

interface Sent {
  outcome: RowOutcome
  response?: ApiResponse
  /** Refused for now: a plain re-run sends it. */
  again?: boolean
}

/** An earlier row's answer as --wait's poll reads it (its id, reference and state). */
function answerOf(o: RowOutcome): ApiResponse {
  const body = {id: o.id ?? undefined, merchant_reference: o.reference ?? undefined, status: o.state ?? undefined}
  return {status: o.http_status ?? 200, headers: {}, body, text: '', attempts: 0, request: undefined as unknown as PreparedRequest}
}

/**
 * --wait: polls an accepted row until its resource ends (its state decides the row: succeeded or failed), under the
 * shared rate; still not ended after the timeout: processing, as last seen (a re-run with --wait polls it again).
 * An earlier run's row is looked up at once; so is one `once` (a resumed row's answer, maybe replayed), which that one
 * lookup decides (no wait, no timeout). A poll that answers another resource (src/api/resource.ts) ends it:
 * processing as last seen, error_code other_resource naming both ids. A poll that fails after its retries ends it as
 * the single command's --wait ends (src/operation/wait.ts, unresolved): as last seen (`state`, `state_at`), error_code
 * lookup_failed naming the failure; a 429 slows the run down and a 404 not_found (not visible yet) polls on.
 */
async function waitRow(ctx: ApiContext, accepted: RowOutcome, spec: PollTarget, timeoutSec: number, rate: AdaptiveRate, ended: Ended, once = false): Promise<RowOutcome> {
  const deadline = Date.now() + timeoutSec * 1000
  let state = accepted.state
  let seen = accepted.state_at
  let detail: string | undefined
  for (let attempt = 0; ; attempt++) {
    const end = ended(state)
    // what an earlier run said of the row (a wait that timed out, a lookup that failed) is replaced by what is known now
    const reached = {...accepted, state, state_at: seen, error_code: null, error_message: null}
    if (end === 'succeeded') return rowOutcome(reached, end)
    if (end === 'failed') return rowOutcome({...reached, ...endedFailed(state, detail)}, end)
    if (attempt > 0 && once) return rowOutcome(reached, undefined)
    if (attempt > 0 && Date.now() >= deadline) return rowOutcome({...reached, error_code: 'wait_timeout', error_message: `still ${state ?? 'in progress'} after ${timeoutSec} s`}, undefined)
    if (attempt > 0 || !(accepted.earlier || once)) await sleep(Math.min(pollDelayMs(attempt), Math.max(0, deadline - Date.now())))
    await rate.acquire()
    try {
      const body = (await ctx.client.sendUnjournaled(ctx.client.prepare(spec.id, spec.input))).body as {failure_reason?: unknown; status_detail?: unknown} | undefined
      // an answer about another resource (one sharing the reference) says nothing of this row's: as last seen
      const other = answeredOther(accepted.id ?? undefined, body)
      if (other) {
        rate.ok()
        return rowOutcome({...accepted, state, state_at: seen, error_code: OTHER_RESOURCE, error_message: otherResourceMessage(undefined, other, state ?? undefined)}, undefined)
      }
      state = stateOf(body) ?? state
      seen = new Date().toISOString()
      detail = failureDetail(body)
      rate.ok()
    } catch (err) {
      const throttled = throttleOf(err)
      if (throttled) rate.throttle(throttled.waitMs)
      else if (!provesAbsent(err)) {
        // no answer about the row (a 5xx, a cut connection, after the retries): not followed, never "still processing"
        const failure = printableLine(err instanceof Error ? err.message : String(err))
        const lastSeen = `${state ?? 'in a state not known'} when last seen${seen ? ` (${seen})` : ''}`
        return rowOutcome({...accepted, state, state_at: seen, error_code: LOOKUP_FAILED, error_message: `could not follow it: ${failure}; it was ${lastSeen}`}, undefined)
      }
    } finally {
      rate.release()
    }
  }
}

/**
 * Sends one row until the request policy (src/client/request-policy.ts) says what it came to: accepted, refused
 * (for now, or for good) or unknown. 429s slow the whole run down (the shared rate) instead of this row waiting alone.
 */
async function sendRow(ctx: ApiContext, req: PreparedRequest, r: SpooledRow, rate: AdaptiveRate, retries: number, earlierMaybeSent: boolean, ended: Ended, via?: PoolTransport): Promise<Sent> {
  // made at the first failure: nearly every row is answered at once, and needs no policy
  let policy: RequestAttempts | undefined
  for (;;) {
    if (!rate.tryAcquire()) await rate.acquire()
    let res: ApiResponse | undefined
    let err: ErrorShape | undefined
    try {
      res = await ctx.client.sendUnjournaled(req, via) // req.retries is 0 (the template's): the policy below repeats it
    } catch (e) {
      err = e as ErrorShape
    } finally {
      rate.release()
    }
    if (res) {
      rate.ok()
      const id = rowIdOf(r.endpoint, res.body)
      const state = stateOf(res.body) ?? null
      const end = ended(state)
      // answered in a failed state at once (a payout its wallet cannot cover): the service's reason, as --wait says it
      const failed = end === 'failed' ? endedFailed(state, failureDetail(res.body)) : NO_ERROR
      return {outcome: sentOutcome(r, 'accepted', end, false, res.status, id, state, new Date().toISOString(), failed.error_code, failed.error_message), response: res}
    }
    const status = typeof err?.status === 'number' ? err.status : undefined
    // a failure the client did not judge (none is expected): it may have reached the service
    const outcome: AttemptOutcome = err?.attemptOutcome ?? {kind: 'network', sent: true}
    const asked = askedWaitMs(status, err?.responseHeaders ?? {}, err?.body)
    policy ??= new RequestAttempts({retries, earlierMaybeSent, safeToRepeat: true, throttles: MAX_THROTTLES_PER_ROW})
    const decision = policy.next(outcome, asked)
    if (decision.retry && decision.throttled) {
      rate.throttle(asked)
      continue
    }
    if (decision.retry) {
      await sleep(decision.waitMs)
      continue
    }
    rate.ok()
    const code = err?.error?.code ?? (status === undefined ? 'network_error' : `http_${status}`)
    const message = err?.error?.message ?? err?.message ?? String(err)
    return {outcome: sentOutcome(r, decision.class, undefined, decision.again, status ?? null, null, null, null, code, message), again: decision.again}
  }
}

/**
 * A sent row's outcome, made by run-journal's one literal (not a spread of shared ones, nor a copy of another), its
 * verdict derived as rowOutcome derives it (rowState of the outcome, the end reached, refused for now).
 */
function sentOutcome(r: SpooledRow, outcome: RequestClass, ended: 'succeeded' | 'failed' | undefined, refusedForNow: boolean, httpStatus: number | null, id: string | null, state: string | null, stateAt: string | null, code: string | null, message: string | null): RowOutcome {
  return outcomeOf(r.row, r.line, r.reference, rowState(outcome, ended, refusedForNow), outcome, httpStatus, id, state, stateAt, code, message, r.key, r.amount, r.currency, false)
}

const NO_ERROR = {error_code: null, error_message: null}

/** The error fields of a row whose resource ended failed: transaction_failed, with the service's reason (else the state). */
function endedFailed(state: string | null, detail: string | undefined): {error_code: string; error_message: string} {
  return {error_code: TRANSACTION_FAILED, error_message: detail ?? `ended ${state}`}
}

/** The kind each endpoint of a run creates (one per run: looked up once). */
const kindsOf = new Map<string, Kind | undefined>()

/**
 * The id of a row's resource in its answer: its kind's own id field (a subscription's `subscription_id`, a mandate
 * cancellation's `mandate_id`: src/api/kinds.ts), else the name the answer gives (resourceName: a mandate's create
 * answer has no id, only its reference). What `pay reconcile` reads a results row's kind from (the id's prefix).
 */
function rowIdOf(endpoint: string, body: unknown): string | null {
  let kind = kindsOf.get(endpoint)
  if (kind === undefined && !kindsOf.has(endpoint)) kindsOf.set(endpoint, (kind = kindOfEndpoint(endpoint)))
  const own = kind && body !== null && typeof body === 'object' ? idOf(kind, body as Record<string, unknown>) : undefined
  return own ?? resourceName(body) ?? null
}
