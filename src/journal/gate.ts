/**
 * The journal's hook in the client core's send path (ApiClient.send): every idempotent request of the endpoint
 * table is journaled before it is sent, and its outcome after. It is also where a plain re-run is recognised:
 *
 *   same endpoint + URL + base URL + client id + account ref + body bytes as a journaled request, and
 *   - it succeeded (the latest such request): the earlier answer is returned and nothing is sent (unless
 *     --force-new or --idempotency-key);
 *   - its outcome is unknown (cut connection, timeout, 5xx, interrupted, killed) and no later request with the SAME
 *     key settled it: the journaled key is reused;
 *   - it failed for certain: a new key, as for any new request.
 *   A failure is certain only when nothing may have been done: every attempt certainly unsent or refused before
 *   it was done (a 4xx) under a new key. Once a key's outcome is unknown (any attempt may have reached the
 *   service), only an answer that decides that key settles it (2xx; 400, 409, 422): a later refused connection,
 *   401, 403, 408, 429 or 5xx keeps it unknown (failureState).
 *   Same merchant reference with a different body, earlier outcome unknown: a new key, and a warning.
 *
 * Failures whose outcome is unknown, and SIGINT/SIGTERM while the request is in flight, name the key and the
 * command that resumes it (stderr, and the --json error envelope).
 */
import {type ApiResponse, type ClientSettings, type JournalEntryHandle, type PreparedRequest, type RequestJournal, rekeyed} from '../client/api-client.js'
import {ApiError, InterruptedError, NetworkError, PayError} from '../client/errors.js'
import {ExitCode} from '../client/exit-codes.js'
import {redactUrl} from '../client/redact.js'
import {shellArgument, shellQuote} from '../client/shell-quote.js'
// sha256 without node:crypto (~3.5 ms of a write's start)
import {sha256Hex as sha256} from '../client/digest.js'
import {type JournalEntry, type JournalStore, type OpRecord, type OutcomeRecord, unresolved} from './store.js'

export interface GateOptions {
  /** --force-new: never reuse a journaled key nor a journaled answer. */
  forceNew?: boolean
  /** One-line messages for people (stderr). */
  notice: (text: string) => void
  warn: (text: string) => void
  /** Renders an interruption (stderr, and the envelope under --json) just before the process exits. */
  interrupted?: (err: PayError) => void
  /** The command line of this run, for the resume command (default: process.argv after the script). */
  argv?: string[]
  /** Recorded with each request (OpRecord.origin): `mcp` for `pay mcp`'s tool calls; none for the command line. */
  origin?: string
  now?: () => number
}

export class JournalGate implements RequestJournal {
  private readonly now: () => number

  constructor(
    readonly store: JournalStore,
    private readonly options: GateOptions,
  ) {
    this.now = options.now ?? Date.now
  }

  begin(req: PreparedRequest, settings: ClientSettings, baseUrl: string): JournalEntryHandle {
    const bodySha = sha256(req.body ?? '')
    const scope = [req.endpoint?.id ?? '', req.method, req.url, baseUrl, settings.clientId ?? '', settings.accountRef ?? ''].join('\n')
    const match = sha256(`${scope}\n${bodySha}`)
    const reference = referenceOf(req.body)
    const shownBaseUrl = redactUrl(baseUrl)
    let request = req
    let replay: ApiResponse | undefined
    // the key this request carries was journaled before with an unknown outcome: only an answer that decides it settles it
    let keyWasUnknown = false

    if (req.keyGiven && req.idempotencyKey && this.store.open()) {
      const entries = this.store.entriesAbout([jsonText(req.idempotencyKey)])
      const given = findLast(entries, (e) => e.op.key === req.idempotencyKey)
      keyWasUnknown = given !== undefined && stateOf(given) === 'unknown'
    } else if (!req.keyGiven && this.store.open()) {
      const entries = this.store.entriesAbout(reference === undefined ? [match] : [match, `"reference":${JSON.stringify(reference)}`])
      const latest = findLast(entries, (e) => e.op.match === match)
      const pending = findLast(entries, (e, i) => e.op.match === match && unresolved(entries, i))
      if (latest && stateOf(latest) === 'succeeded' && latest.outcome?.body !== undefined && !this.options.forceNew) {
        this.options.notice(
          `already done: this same request succeeded at ${latest.outcome.at} (Idempotency-Key ${latest.op.key}); showing that answer, nothing was sent. Add --force-new to send it again as a new request`,
        )
        replay = replayOf(req, latest)
      } else if (pending && !this.options.forceNew) {
        // an unknown outcome stays the answer until an entry with the SAME key settles it (a later failure under
        // another key, or one that only looks certain, says nothing about it)
        this.options.notice(`resuming: the same request was sent at ${pending.op.at} and its outcome is unknown; reusing its Idempotency-Key ${pending.op.key}`)
        request = rekeyed(req, pending.op.key)
        keyWasUnknown = true
      } else if (reference !== undefined) {
        const other = findLast(entries, (e) => e.op.reference === reference && e.op.body_sha256 !== bodySha && e.op.endpoint === (req.endpoint?.id ?? '') && e.op.base_url === shownBaseUrl && stateOf(e) === 'unknown')
        if (other) {
          this.options.warn(
            `an earlier request with reference ${reference} (Idempotency-Key ${other.op.key}, ${other.op.at}) had a different body and its outcome is unknown; this one is a different request with a new key. Check the earlier one with \`pay transactions verify ${shellArgument(reference)}\``,
          )
        }
      }
    }
    if (replay) return {request, replay, succeeded() {}, failed: (err) => err, end() {}}

    const key = request.idempotencyKey ?? ''
    const command = resumeCommand(this.options.argv ?? process.argv.slice(2), key)
    const op: OpRecord = {
      t: 'op', at: this.iso(), key, match, endpoint: req.endpoint?.id ?? '', method: req.method, url: redactUrl(req.url), base_url: shownBaseUrl,
      client_id: settings.clientId, account_ref: settings.accountRef, body_sha256: bodySha, reference, command, origin: this.options.origin, pid: process.pid,
    }
    // The operation is fsync'd before a byte of the request is sent (the transport waits for `durable`): that record
    // is what makes a re-run reuse the key. Outcomes are written, not fsync'd: one lost with the machine reads as
    // unknown, and the next run resends the same request under the same key, which the service answers once.
    const durable = this.store.appendDurable(op)
    const outcome = (o: Omit<OutcomeRecord, 't' | 'at' | 'key'>) => this.store.append({t: 'outcome', at: this.iso(), key, ...o})
    const unknownHint = `the outcome is unknown: run the same command again (it reuses Idempotency-Key ${key} from the journal) or resume with \`${command}\`${reference ? `; check with \`pay transactions verify ${shellArgument(reference)}\`` : ''}`
    const onSignal = (signal: NodeJS.Signals) => {
      const code = signal === 'SIGINT' ? ExitCode.INTERRUPTED : ExitCode.TERMINATED
      const err = new InterruptedError(`interrupted (${signal}) while ${req.method} ${new URL(req.url).pathname} was in flight`, code)
      err.outcomeUnknown(key, command, unknownHint)
      outcome({state: 'unknown', error: {code: 'interrupted', message: err.message}})
      if (this.options.interrupted) this.options.interrupted(err)
      else process.stderr.write(`${err.message}\n${unknownHint}\n`)
      process.exit(code)
    }
    process.on('SIGINT', onSignal)
    process.on('SIGTERM', onSignal)

    return {
      request,
      durable,
      succeeded(res) {
        const body = res.body as {id?: unknown; merchant_reference?: unknown} | undefined
        const id = typeof body?.id === 'string' ? body.id : typeof body?.merchant_reference === 'string' ? body.merchant_reference : undefined
        outcome({state: 'succeeded', status: res.status, id, body: res.text})
      },
      failed(err) {
        const certain = failureState(err, keyWasUnknown) === 'failed'
        const code = err instanceof ApiError ? err.code : err instanceof NetworkError ? 'network_error' : 'error'
        const message = err instanceof Error ? err.message : String(err)
        outcome({state: certain ? 'failed' : 'unknown', status: err instanceof ApiError ? err.status : undefined, error: {code, message}})
        if (!certain && err instanceof PayError) err.outcomeUnknown(key, command, unknownHint)
        return err
      },
      end() {
        process.off('SIGINT', onSignal)
        process.off('SIGTERM', onSignal)
      },
    }
  }

  private iso(): string {
    return new Date(this.now()).toISOString()
  }
}

/** A 4xx answer, or a connection that was never made: this one attempt certainly did nothing. */
export function isCertainFailure(err: unknown): boolean {
  if (err instanceof ApiError) return err.status >= 400 && err.status < 500 && err.status !== 408
  if (err instanceof NetworkError) return !err.maybeSent
  return !(err instanceof PayError) || err.exitCode === ExitCode.USAGE || err.exitCode === ExitCode.AUTH
}

/** Answers that decide the request under that key: a validation refusal, an idempotency mismatch or conflict. */
const DECIDING_STATUS = new Set([400, 409, 422])

/**
 * What a failed request's outcome is. Only an answer that decides the key settles it as `failed`; when the key
 * already had an unknown outcome, or any attempt of this run may have reached the service, anything else
 * (connection refused, 401, 403, 408, 429, 5xx, a cut) keeps it `unknown`.
 */
export function failureState(err: unknown, keyWasUnknown = false): 'failed' | 'unknown' {
  if (err instanceof ApiError && DECIDING_STATUS.has(err.status)) return 'failed'
  if (keyWasUnknown || (err instanceof PayError && err.anyAttemptMaybeSent)) return 'unknown'
  return isCertainFailure(err) ? 'failed' : 'unknown'
}

const stateOf = (e: JournalEntry) => e.outcome?.state ?? 'unknown'

/** A string as it appears inside the JSON text of a record (escapes included), to find the lines that hold it. */
function jsonText(value: string): string {
  return JSON.stringify(value).slice(1, -1)
}

function findLast(entries: JournalEntry[], pred: (e: JournalEntry, i: number) => boolean): JournalEntry | undefined {
  for (let i = entries.length - 1; i >= 0; i--) if (pred(entries[i], i)) return entries[i]
  return undefined
}

function replayOf(req: PreparedRequest, e: JournalEntry): ApiResponse {
  const text = e.outcome?.body ?? ''
  let body: unknown
  try {
    body = text === '' ? undefined : JSON.parse(text)
  } catch {
    body = undefined
  }
  return {status: e.outcome?.status ?? 200, headers: {}, body, text, attempts: 0, request: rekeyed(req, e.op.key), replayedAt: e.outcome?.at}
}

/** merchant_reference of a JSON body, when it has one. */
export function referenceOf(body: string | undefined): string | undefined {
  if (!body || !body.includes('merchant_reference')) return undefined
  try {
    const ref = (JSON.parse(body) as {merchant_reference?: unknown}).merchant_reference
    return typeof ref === 'string' ? ref : undefined
  } catch {
    return undefined
  }
}

const SECRET_FLAG = /secret|token|password/i

/** `pay …` as run, secrets masked (a password in --base-url too), with --idempotency-key KEY added when it was not given. */
export function resumeCommand(argv: string[], key: string): string {
  const args: string[] = []
  let hasKey = false
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '--idempotency-key' || a.startsWith('--idempotency-key=')) hasKey = true
    if (a === '--force-new') continue
    if (a.startsWith('--base-url=')) {
      args.push(`--base-url=${redactUrl(a.slice('--base-url='.length))}`)
      continue
    }
    if (a === '--base-url' && i + 1 < argv.length) {
      args.push(a, redactUrl(argv[++i]))
      continue
    }
    const eq = a.indexOf('=')
    if (a.startsWith('--') && eq > 0 && SECRET_FLAG.test(a.slice(0, eq))) {
      args.push(`${a.slice(0, eq)}=***`)
      continue
    }
    args.push(a)
    if (a.startsWith('--') && SECRET_FLAG.test(a) && i + 1 < argv.length) {
      args.push('***')
      i++
    }
  }
  if (!hasKey && key) args.push('--idempotency-key', key)
  return ['pay', ...args].map(shellQuote).join(' ')
}
