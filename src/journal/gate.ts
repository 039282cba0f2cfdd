/**
 * The journal's hook in the client core's send path (ApiClient.send): every idempotent request of the endpoint
 * table is journaled before it is sent, and its outcome after. It is also where a plain re-run is recognised:
 *
 *   same endpoint + URL + base URL + client id + account ref (the one the request carries: `pay api -H` may name
 *   another than the settings') + body bytes as a journaled request, and
 *   - it was accepted (the latest such request): the earlier answer is returned and nothing is sent (unless
 *     --force-new, or --idempotency-key for a body without a reference); the command then looks its state up when it
 *     was not final;
 *   - its outcome is unknown (cut connection, timeout, 5xx, interrupted, killed) and no later request with the SAME
 *     key settled it: the journaled key is reused;
 *   - it failed for certain: a new random key;
 *   - none such: the key derived from the request (the one a run with the journal off sends, so it is resumed).
 *   A key of the user's own (--idempotency-key, an Idempotency-Key header) is never replaced; an earlier request of
 *   its reference under another key, its own body included, refuses it as below.
 *   Whether a failure is certain (refused) or unknown is the request policy's verdict (src/client/request-policy.ts),
 *   told that the key's earlier outcome was unknown when it was: this module keeps no rule of its own.
 *   The same merchant reference as an earlier request of another body (accepted, or its outcome unknown) is refused
 *   (exit 5, nothing sent): a reference is one promise to the service (src/journal/references.ts); --force-new sends
 *   it as a new request. The same body as a bulk row of that reference whose outcome is unknown resumes its key.
 *
 * Failures whose outcome is unknown, and SIGINT/SIGTERM while the request is in flight, name the key and the
 * command that resumes it (stderr, and the --json error envelope).
 */
import {type ApiResponse, type ClientSettings, type JournalEntryHandle, type PreparedRequest, type RequestJournal, accountRefOf, maybeReplayed, rekeyed} from '../client/api-client.js'
import {ApiError, InputError, InterruptedError, NetworkError, PayError} from '../base/errors.js'
import {classOfError} from '../client/request-policy.js'
import {ExitCode, exitCodeOfSignal} from '../base/exit-codes.js'
import {REDACTED, redactArgv, redactUrl, redactValues} from '../base/redact.js'
import {canonicalJson} from '../base/canonical-json.js'
import {markLossy} from '../base/json-numbers.js'
import {operationList} from '../api/operations.js'
import {resourceName} from '../api/resource.js'
import {lookupCommand, pathParamsOf} from '../api/kinds.js'
import {shellArgument, shellQuote} from '../base/shell-quote.js'
// sha256 without node:crypto (~3.5 ms of a write's start)
import {sha256Hex as sha256, uuidOfHex} from '../base/digest.js'
import {type JournalEntry, type JournalStore, type OpRecord, type OutcomeRecord, StuckLockError, latestState, unresolved} from './store.js'
import {type AcceptedReference, type Holder, type ReferenceScope, ReferenceIndex, describeAccepted, heldAs, heldByEntry, holdFor, originOf, PROMISE_WAIT_TOLD_MS, promiseLockName, referenceVerdict, sharesPromise} from './references.js'
import {rebuildReferenceIndex} from './reference-rebuild.js'

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
  /** How to send a request again as a new one where --force-new does not exist (a flow, `pay mcp`): said instead of it. */
  newRequest?: string
  now?: () => number
}

/** Beyond twice the request's budget, how long a sender may hold its lock before a waiter takes it over. */
const LEASE_MARGIN_MS = 15_000
/** How long a single command may hold its service's reference lock (its check and its durable record; far less in practice). */
const PROMISE_LEASE_MS = 30_000

/**
 * The SHA-256 of a JSON body as canonical JSON (keys in order), or of its bytes when it is no JSON object or array.
 * A number a double cannot tell from another (12345678901234567890) is compared as written (markLossy), never as
 * the double both would read as.
 */
function sameBodySha(body: string | undefined, bytesSha: string): string {
  if (body === undefined || (body[0] !== '{' && body[0] !== '[')) return bytesSha
  try {
    const canonical = canonicalJson(JSON.parse(markLossy(body)))
    return canonical === body ? bytesSha : sha256(canonical) // pay's own bodies are canonical already: no second hash
  } catch {
    return bytesSha // not JSON after all, or nested beyond what JSON.stringify walks
  }
}

export class JournalGate implements RequestJournal {
  private readonly now: () => number

  constructor(
    readonly store: JournalStore,
    private readonly options: GateOptions,
  ) {
    this.now = options.now ?? Date.now
  }

  /**
   * One sender per request: the same request (its match hash; a given key: that key) is sent by one process at a
   * time. A second process waits for the first's lock, then looks the journal up as a re-run does, so it reports
   * the first's outcome (the same id) or resumes its key; nothing is sent twice. `budgetMs`: the longest the
   * request may take (all attempts), from which the lock's lease is made. A holder stopped past its lease (SIGSTOP)
   * may lose its locks to another process meanwhile: it checks they are still its own (the fence) before its record
   * and again before sending; lost before the record, it looks the journal up again as that second process does.
   */
  async begin(req: PreparedRequest, settings: ClientSettings, baseUrl: string, budgetMs = 60_000, secrets: () => readonly (string | undefined)[] = () => [settings.clientSecret, settings.webhookSecret]): Promise<JournalEntryHandle> {
    refuseRedacted(req)
    const bodySha = sha256(req.body ?? '')
    // the sub-account the request goes to (`pay api -H` may name another than the settings'): its match, record and reference scope
    const accountRef = accountRefOf(req)
    const scope = [req.endpoint?.id ?? '', req.method, req.url, baseUrl, settings.clientId ?? '', accountRef ?? ''].join('\n')
    // the same JSON body in another key order or spacing (`pay api --data`, an agent's arguments) is the same
    // request; `bytesMatch`: the match of journals written before, over the body's bytes
    const sameSha = sameBodySha(req.body, bodySha)
    const bytesMatch = sha256(`${scope}\n${bodySha}`)
    const match = sameSha === bodySha ? bytesMatch : sha256(`${scope}\n${sameSha}`)
    const lockName = req.keyGiven && req.idempotencyKey ? sha256(`key\n${req.idempotencyKey}`) : match
    for (;;) {
      const release = await this.held(req, match, bytesMatch, secrets, () =>
        this.store.holdSender(lockName.slice(0, 40), 2 * budgetMs + LEASE_MARGIN_MS, (pid) =>
          this.options.notice(`waiting: another pay process${pid === undefined ? '' : ` (pid ${pid})`} is sending this same request; its outcome is this one's (nothing is sent twice)`),
        ),
      )
      // a reference is checked and taken (the operation's durable record) under its service's lock, as a bulk run
      // checks and reserves its rows' (promiseLockName): held for the check and the record only, not the request
      const promise = release && !this.options.forceNew ? referenceOf(req.body) : undefined
      const releasePromise =
        promise === undefined
          ? undefined
          : await this.held(req, match, bytesMatch, secrets, () =>
              this.store.holdSender(promiseLockName({endpoint: req.endpoint?.id ?? '', baseUrl: redactUrl(baseUrl)}), PROMISE_LEASE_MS, (pid) =>
                this.options.notice(`waiting: another pay process${pid === undefined ? '' : ` (pid ${pid})`} is checking or reserving references of this service`), PROMISE_WAIT_TOLD_MS),
            )
      // the fence: what was decided under the locks holds only while they are still this process's (one stopped past
      // its lease, by SIGSTOP or a sleeping laptop, may have lost them to another that looked up and sent meanwhile)
      const lost = () => (release && !release.held()) || (releasePromise && !releasePromise.held())
      let entry: JournalEntryHandle
      try {
        // the reference index lost beside the run files is made again before the lookup reads it (references.ts)
        if (promise !== undefined) await rebuildReferenceIndex(this.store, this.options.notice)
        entry = this.entryFor(req, settings.clientId, accountRef, baseUrl, bodySha, match, bytesMatch, secrets, () => {
          if (lost()) throw new LockLostError()
        })
      } catch (err) {
        releasePromise?.()
        release?.()
        if (!(err instanceof LockLostError)) throw err
        this.options.notice('this process was stopped past its lock\'s lease and another pay process took this request over: nothing was sent by this one; looking the journal up again')
        continue
      }
      if (!release) return entry
      if (entry.replay || !entry.durable) releasePromise?.()
      if (entry.replay) {
        release()
        return entry
      }
      if (entry.durable) entry.durable = this.fenced(entry, lost, releasePromise)
      const end = entry.end
      entry.end = () => {
        end()
        release()
      }
      return entry
    }
  }

  /**
   * The record is durable: the request is sent only if the locks are still this process's. Lost meanwhile (stopped
   * past the lease between the fence and the record's write), another process may have looked up before the record
   * was there and sent under its own key: nothing is sent, no outcome is written (the record is the other process's
   * to settle, when it saw it), and the message says to run the command again, which reports what was done.
   */
  private fenced(entry: JournalEntryHandle, lost: () => boolean | undefined, releasePromise: (() => void) | undefined): Promise<void> {
    const key = entry.request.idempotencyKey ?? ''
    const checked = entry.durable!.then(() => {
      if (!lost()) return
      const err = new LockLostError()
      err.outcomeUnknown(key, undefined, `another pay process took this request over while this one was stopped past its lock's lease: this process sent nothing; run the same command again: it reports what that process did, or resumes Idempotency-Key ${key}`)
      throw err
    })
    if (releasePromise) checked.then(releasePromise, releasePromise)
    checked.catch(() => undefined) // awaited by the transport later
    const failed = entry.failed
    entry.failed = (err) => (err instanceof LockLostError ? err : failed(err))
    return checked
  }

  /** store.holdSender, or the error of a stale lock that cannot be removed, naming the key its request left unknown. */
  private async held<T>(req: PreparedRequest, match: string, bytesMatch: string, secrets: () => readonly (string | undefined)[], hold: () => Promise<T>): Promise<T> {
    try {
      return await hold()
    } catch (err) {
      if (!(err instanceof StuckLockError) || !this.store.open()) throw err
      const given = req.keyGiven ? req.idempotencyKey : undefined
      const entries = this.store.entriesAbout(given ? [jsonText(given)] : [...new Set([match, bytesMatch])])
      const same = (e: JournalEntry) => (given ? e.op.key === given : e.op.match === match || e.op.match === bytesMatch)
      const pending = findLast(entries, (e, i) => same(e) && unresolved(entries, i))
      if (pending) {
        const key = pending.op.key
        const command = resumeCommand(this.options.argv ?? process.argv.slice(2), key, req.endpoint?.id, secrets())
        err.outcomeUnknown(key, command?.text, `the same request was sent at ${pending.op.at} and its outcome is unknown (Idempotency-Key ${key}); ${err.hint}: it reuses that key${command ? ` (or resume with \`${command.text}\`${command.putBack})` : ''}`)
      }
      throw err
    }
  }

  /** `secrets`: the ones pay holds, never written to the journal nor shown (an answer, an error, a later state, the resume command). */
  private entryFor(req: PreparedRequest, clientId: string | undefined, accountRef: string | undefined, baseUrl: string, bodySha: string, match: string, bytesMatch: string, secrets: () => readonly (string | undefined)[], fence: () => void = () => undefined): JournalEntryHandle {
    // a text as the journal may write it: a secret echoed back redacted
    const hide = (text: string) => redactValues(text, [...secrets()])
    const reference = referenceOf(req.body)
    const shownBaseUrl = redactUrl(baseUrl)
    const promiseScope: ReferenceScope = {endpoint: req.endpoint?.id ?? '', baseUrl: shownBaseUrl, clientId, accountRef}
    let request = req
    let replay: ApiResponse | undefined
    // the key this request carries was journaled before with an unknown outcome: only an answer that decides it settles it
    let keyWasUnknown = false
    // that earlier request (of the journal), when this one resumes its key
    let earlier: OpRecord | undefined
    // when the key this request resumes was first sent (a bulk row's: when its run reserved it), when known
    let firstSentAt: string | undefined
    const journalOn = this.store.open()
    // a request the journal has no record of is sent under a key derived from the request (its match over the body
    // bytes, as before the match read JSON: a run of an older pay resumes), whether the journal is on or off: so the
    // same command resumes a run made while the journal was off (an unwritable state dir), also once it is back.
    // A new key only when the journal shows that key spent (its request refused); --force-new and a given key as ever
    const derivedKey = req.keyGiven || this.options.forceNew ? undefined : uuidOfHex(bytesMatch)
    if (derivedKey !== undefined && !journalOn) request = rekeyed(req, derivedKey)

    const referenceNeedle = reference === undefined ? [] : [`"reference":${JSON.stringify(reference)}`]
    if (req.keyGiven && req.idempotencyKey && journalOn) {
      const entries = this.store.entriesAbout([jsonText(req.idempotencyKey), ...referenceNeedle])
      const given = findLast(entries, (e) => e.op.key === req.idempotencyKey)
      keyWasUnknown = given !== undefined && requestOf(given) === 'unknown'
      if (keyWasUnknown) earlier = entries.find((e) => e.op.key === req.idempotencyKey)!.op
      firstSentAt = earlier?.at
      // the same request given its own key back (the resume command, with --data in another key order): its first bytes
      if (earlier && (earlier.match === match || earlier.match === bytesMatch)) request = this.resumed(req, earlier, bodySha)
      // a key of the user's own is never swapped for another: an earlier request holding the reference refuses it,
      // its own body under another key included (this lookup matched by key: nothing of the same body was weighed)
      if (!given) this.keepPromise(entries, req, reference, bodySha, [match, bytesMatch], promiseScope, false)
    } else if (!req.keyGiven && journalOn) {
      const entries = this.store.entriesAbout([...new Set([match, bytesMatch]), ...referenceNeedle])
      const same = (e: JournalEntry) => e.op.match === match || e.op.match === bytesMatch
      const latest = findLast(entries, same)
      const pending = findLast(entries, (e, i) => same(e) && unresolved(entries, i))
      if (latest && requestOf(latest) === 'accepted' && latest.outcome?.body !== undefined && !this.options.forceNew) {
        this.options.notice(
          `already sent: this same request was accepted at ${latest.outcome.at}${latest.outcome.id ? ` as ${latest.outcome.id}` : ''} (Idempotency-Key ${latest.op.key}); nothing was sent now. ${this.options.newRequest === undefined ? 'Add --force-new to send it again as a new request' : `To send it again as a new request, ${this.options.newRequest}`}`,
        )
        replay = this.replayOf(req, latest, hide)
      } else if (pending && !this.options.forceNew) {
        // an unknown outcome stays the answer until an entry with the SAME key settles it (a later failure under
        // another key, or one that only looks certain, says nothing about it)
        this.options.notice(`resuming: the same request was sent at ${pending.op.at} and its outcome is unknown; reusing its Idempotency-Key ${pending.op.key}`)
        // the key's first request: the bytes the service holds under it (a resume's record may hold other ones)
        earlier = entries.find((e) => e.op.key === pending.op.key)!.op
        request = this.resumed(req, earlier, bodySha)
        keyWasUnknown = true
        firstSentAt = earlier.at
      } else if (reference !== undefined) {
        const earlier = this.keepPromise(entries, req, reference, bodySha, [match, bytesMatch], promiseScope, true)
        if (earlier) {
          // the same body as an earlier request with this reference whose outcome is unknown (a bulk row's): that
          // request, resumed under its key, so the service answers it once
          this.options.notice(`resuming: reference ${reference} names an earlier request with the same body whose outcome is unknown (${originOf(earlier)}, sent at ${earlier.at}); reusing its Idempotency-Key ${earlier.key}`)
          request = rekeyed(req, earlier.key)
          keyWasUnknown = true
          firstSentAt = earlier.at
        }
      }
      // none of the journal's requests answers or resumes it: the derived key, unless the journal holds it refused
      if (request === req && !replay && derivedKey !== undefined && !entries.some((e) => e.op.key === derivedKey && requestOf(e) === 'refused')) request = rekeyed(req, derivedKey)
    }
    if (replay) return {request, replay, succeeded() {}, failed: (err) => err, end() {}}

    const key = request.idempotencyKey ?? ''
    const resume = resumeCommand(this.options.argv ?? process.argv.slice(2), key, req.endpoint?.id, secrets())
    const command = resume?.text
    const sent = request.body
    const op: OpRecord = {
      t: 'op', at: this.iso(), key, match, endpoint: req.endpoint?.id ?? '', method: req.method, url: redactUrl(req.url), base_url: shownBaseUrl,
      client_id: clientId, account_ref: accountRef, body_sha256: sent === req.body ? bodySha : sha256(sent ?? ''),
      // the bytes, for a later resume to send them again; not when the journal would have to redact them
      ...(sent !== undefined && hide(sent) === sent ? {body: sent} : {}),
      reference, command, origin: this.options.origin, pid: process.pid,
    }
    // The operation is written whole and fsync'd before a byte of the request is sent (the transport waits for
    // `durable`): that record is what makes a re-run reuse the key. When it cannot be written (a full disk), this
    // throws JournalWriteError and nothing is sent; when the fsync fails, `durable` rejects and nothing is sent.
    // Outcomes are written, not fsync'd: one lost with the machine reads as unknown, and the next run resends the
    // same request under the same key, which the service answers once.
    fence() // the locks still this process's: nobody looked up and sent since this lookup (else begin looks up again)
    const durable = journalOn ? this.store.appendDurable(op) : undefined
    // an outcome names its operation: another process may send this key too (src/journal/store.ts, entries)
    const outcome = (o: Omit<OutcomeRecord, 't' | 'at' | 'key' | 'op_at' | 'op_pid'>) => this.store.append({t: 'outcome', at: this.iso(), key, ...o, op_at: op.at, op_pid: op.pid})
    const verify = reference === undefined ? '' : `; check with \`${lookupOf(req, reference)}\``
    // the key is named as the journal's only when the journal holds it
    const unknownHint =
      command === undefined
        ? `the outcome is unknown (Idempotency-Key ${key})${verify || `; check with \`pay journal ${key}\``} before sending it again`
        : journalOn
          ? `the outcome is unknown: run the same command again (it reuses Idempotency-Key ${key} from the journal) or resume with \`${command}\`${resume!.putBack}${verify}`
          : `the outcome is unknown and the journal is off, so pay cannot look this request up: pass \`--idempotency-key ${key}\` when you run it again (\`${command}\`${resume!.putBack})${key === derivedKey ? '; the same command without it derives the same key' : ''}${verify}`
    const onSignal = (signal: NodeJS.Signals) => {
      const code = exitCodeOfSignal(signal)
      const err = new InterruptedError(`interrupted (${signal}) while ${req.method} ${new URL(req.url).pathname} was in flight`, code)
      err.outcomeUnknown(key, command, unknownHint)
      outcome({request: 'unknown', error: {code: 'interrupted', message: err.message}})
      if (this.options.interrupted) this.options.interrupted(err)
      else this.options.warn(`${err.message}\n${unknownHint}`)
      process.exit(code)
    }
    process.on('SIGINT', onSignal)
    process.on('SIGTERM', onSignal)

    return {
      request,
      durable,
      earlierMaybeSent: keyWasUnknown,
      succeeded: (res) => {
        const id = resourceName(res.body)
        const state = (res.body as {status?: unknown} | undefined)?.status
        // an answer that may be the service's first one to this key: its state dated to when the key was first sent
        const replayed = maybeReplayed(res, keyWasUnknown)
        const stateAt = replayed && typeof state === 'string' ? firstSentAt : undefined
        outcome({request: 'accepted', status: res.status, id, ...(typeof state === 'string' ? {resource_state: state} : {}), ...(stateAt === undefined ? {} : {state_at: stateAt}), body: hide(res.text)})
        return {noteState: this.stateNoter(key, hide), ...(replayed ? {maybeReplayed: firstSentAt === undefined ? {} : {firstSentAt}} : {})}
      },
      failed(err) {
        // the request policy's class (src/client/request-policy.ts): refused is the only certain failure
        const certain = classOfError(err, keyWasUnknown) === 'refused'
        const code = err instanceof ApiError ? err.code : err instanceof NetworkError ? 'network_error' : 'error'
        const message = err instanceof Error ? err.message : String(err)
        outcome({request: certain ? 'refused' : 'unknown', status: err instanceof ApiError ? err.status : undefined, error: {code, message: hide(message)}})
        // the service says the key was used with another body: the earlier request under it may have been done, and
        // sending this body again cannot settle it
        const mismatch = !certain && earlier !== undefined && err instanceof ApiError && err.code === 'idempotency_key_mismatch'
        if (mismatch) err.outcomeUnknown(key, earlier!.command, mismatchHint(key, earlier!, verify))
        else if (!certain && err instanceof PayError) err.outcomeUnknown(key, command, unknownHint)
        return err
      },
      end() {
        process.off('SIGINT', onSignal)
        process.off('SIGTERM', onSignal)
      },
    }
  }

  /**
   * A reference is a promise to a service: the earlier requests that hold it against this one (sharesPromise: the same
   * endpoint and base URL, any client id, account refs that may be one), from the operation journal (not those of this
   * request's own `matches`, this very request looked up above, unless it carries a key of its own: that lookup was by
   * key, so the same body sent under another key, accepted or unknown, refuses it as it refuses a bulk row) and from
   * the reference index (bulk rows, whatever the body: a row's key is never a command's), weighed by the one rule
   * (referenceVerdict, src/journal/references.ts):
   * refused (exit 5, naming the earlier request, its client id and account ref) when one was accepted, or when one's
   * outcome is unknown and it cannot be resumed; with `canReuse`, the earlier bulk row of the same body, client id and
   * account ref whose outcome is unknown is returned, for its key. Reads only the reference's own lines of the journal
   * and the one bucket of the index. --force-new skips it.
   */
  private keepPromise(entries: JournalEntry[], req: PreparedRequest, reference: string | undefined, bodySha: string, matches: string[], scope: ReferenceScope, canReuse: boolean): AcceptedReference | undefined {
    if (reference === undefined || this.options.forceNew) return undefined
    const holders = new Map<string, Holder<AcceptedReference>>()
    // the earlier requests of this very body (with a key of the user's own): resumed under their key, not beside it
    const sameRequest = new Set<AcceptedReference>()
    entries.forEach((e, i) => {
      const own = matches.includes(e.op.match)
      if (e.op.reference !== reference || (own && !req.keyGiven) || !sharesPromise(scope, e.op)) return
      const held = heldByEntry(entries, i)
      // another request of the journal is never resumed under its key: another URL, client id or account ref
      if (held) holdFor(holders, scope, held)
      if (held && own) sameRequest.add(held)
    })
    for (const e of new ReferenceIndex(this.store, scope).lookup(reference)) holdFor(holders, scope, e, bodySha)
    const verdict = referenceVerdict(holders.values(), req.keyGiven ? req.idempotencyKey : undefined, canReuse)
    if (verdict.do === 'send') return undefined
    const earlier = verdict.holder.entry
    if (verdict.do === 'reuse') return earlier
    const single = earlier.run === undefined
    const unknown = heldAs(earlier) === 'unknown'
    const resume = sameRequest.has(earlier)
      ? `run this command with --idempotency-key ${shellArgument(earlier.key)} in place of ${shellArgument(req.idempotencyKey ?? '')}, or without one (the journal gives it that key)`
      : single
        ? 'run that command again, with its client and account ref (it reuses its key)'
        : `run the bulk file ${earlier.file ?? ''} again (it resends that row with its key)`
    throw new PayError(
      `reference ${reference} already names another request: ${originOf(earlier)}, ${scope.endpoint} ${describeAccepted(earlier)}; nothing was sent`,
      ExitCode.CONFLICT,
      `a reference is one promise to ${scope.baseUrl}, whatever the client id, and with or without an account ref (only two different account refs are two sub-accounts); look it up with \`${lookupOf(req, reference)}\` (or \`pay journal ${shellArgument(reference)}\`)${unknown ? `; to settle it, ${resume}` : ''}; to send this one as well, on purpose, ${this.options.newRequest ?? 'add --force-new, or give it another reference'}`,
    )
  }

  /**
   * `req` under the key of `earlier`, a journaled request of the same JSON whose outcome is unknown: with the bytes
   * that request was sent with when they differ (keys in another order, other spacing) and the journal holds them,
   * since a service may compare a reused key's body byte for byte; else as it is, said.
   */
  private resumed(req: PreparedRequest, earlier: OpRecord, bodySha: string): PreparedRequest {
    const request = rekeyed(req, earlier.key)
    if (earlier.body_sha256 === bodySha) return request
    if (earlier.body !== undefined && sha256(earlier.body) === earlier.body_sha256) {
      this.options.notice(`the same JSON was sent then with its fields in another order or spacing: sending those bytes again under the key`)
      return {...request, body: earlier.body}
    }
    this.options.warn(`the same JSON was sent then as other bytes, which the journal does not hold: a service that compares a reused key's body byte for byte will answer 409, and the outcome stays unknown; to resume it exactly, run the command that sent it${earlier.command ? ` (\`${earlier.command}\`${putBackOf(earlier.command)})` : ''}`)
    return request
  }

  /** The journaled answer of an accepted request, its latest known body (a later lookup's), and a way to note a newer state. */
  private replayOf(req: PreparedRequest, e: JournalEntry, hide: (text: string) => string): ApiResponse {
    const seen = latestState(e)
    const text = seen?.body ?? e.outcome?.body ?? ''
    let body: unknown
    try {
      body = text === '' ? undefined : JSON.parse(text)
    } catch {
      body = undefined
    }
    const key = e.op.key
    return {
      status: e.outcome?.status ?? 200, headers: {}, body, text, attempts: 0, request: rekeyed(req, key), replayedAt: e.outcome?.at, stateSeenAt: seen?.at,
      noteState: this.stateNoter(key, hide),
    }
  }

  /** Records a later look at the resource a request under `key` made: its state then (`seenAtMs`, else now), and the body seen. */
  private stateNoter(key: string, hide: (text: string) => string): NonNullable<ApiResponse['noteState']> {
    return (state, seenBody, seenAtMs) => this.store.append({t: 'state', at: seenAtMs === undefined ? this.iso() : new Date(seenAtMs).toISOString(), key, state, body: seenBody === undefined ? undefined : hide(seenBody)})
  }

  private iso(): string {
    return new Date(this.now()).toISOString()
  }
}

/**
 * The fence failed: a lock this process took for its lookup is another process's now (this one ran past its lease).
 * Before the record is written, begin looks the journal up again; after it, the request is not sent (fenced).
 */
class LockLostError extends PayError {
  constructor() {
    super('this pay process was stopped past its lock\'s lease, and another pay process took this request over', ExitCode.OTHER)
    this.name = 'LockLostError'
  }
}

/** What to do after a 409 idempotency_key_mismatch to a key whose earlier request's outcome is unknown. */
function mismatchHint(key: string, earlier: OpRecord, verify: string): string {
  const how = earlier.command ? `run the command that sent it, exactly (\`${earlier.command}\`${putBackOf(earlier.command)})` : `send its body exactly as it was, with --idempotency-key ${key}`
  return `the service says Idempotency-Key ${key} was used before with another body: the request sent under it at ${earlier.at} may have been done, and its outcome stays unknown${verify || `; check with \`pay journal ${key}\``}; to resume it, ${how}; never send it again under a new key before you know`
}

/** What an entry's request came to (no outcome recorded: unknown). */
const requestOf = (e: JournalEntry) => e.outcome?.request ?? 'unknown'

/** A string as it appears inside the JSON text of a record (escapes included), to find the lines that hold it. */
function jsonText(value: string): string {
  return JSON.stringify(value).slice(1, -1)
}

function findLast(entries: JournalEntry[], pred: (e: JournalEntry, i: number) => boolean): JournalEntry | undefined {
  for (let i = entries.length - 1; i >= 0; i--) if (pred(entries[i], i)) return entries[i]
  return undefined
}

/**
 * The command that looks up what a request with a reference made: its kind's lookup by reference (src/api/kinds.ts),
 * else `pay find REF` (every kind at once, and what the journal holds of it).
 */
function lookupOf(req: PreparedRequest, reference: string): string {
  return lookupCommand(req.endpoint?.id, reference, req.endpoint ? pathParamsOf(req.endpoint.path, req.url) : {}) ?? `pay find ${shellArgument(reference)}`
}

/** merchant_reference of a JSON body, when it has one. */
function referenceOf(body: string | undefined): string | undefined {
  if (!body || !body.includes('merchant_reference')) return undefined
  try {
    const ref = (JSON.parse(body) as {merchant_reference?: unknown}).merchant_reference
    return typeof ref === 'string' ? ref : undefined
  } catch {
    return undefined
  }
}

/**
 * `pay …` as run, with --idempotency-key KEY added when it was not given and --force-new dropped, redacted as every
 * command line pay prints or stores (redactArgv: secret flags, secret-named headers, a --base-url password, the
 * secrets pay holds typed anywhere); `left`: what a person must put back where it says [REDACTED] (the key and the
 * rest of the request are as sent, so once put back it resumes that key). Undefined when the command line is none
 * that takes --idempotency-key for this request (a flow or smoke step: running it again is another run, with its own
 * references).
 */
function resumeCommand(argv: string[], key: string, endpoint: string | undefined, secrets: readonly (string | undefined)[]): ResumeCommand | undefined {
  const words = argv.slice(0, 2).join(':')
  const takesKey = argv[0] === 'api' || operationList.some((op) => op.command === words && (op.endpoint === endpoint || op.alternatives?.some((a) => a.endpoint === endpoint)))
  if (!takesKey) return undefined
  const given = argv.some((a) => a === '--idempotency-key' || a.startsWith('--idempotency-key='))
  const {args, left} = redactArgv(argv.filter((a) => a !== '--force-new'), secrets)
  if (!given && key) args.push('--idempotency-key', key)
  const text = ['pay', ...args].map(shellQuote).join(' ')
  return {text, putBack: left.length === 0 ? '' : ` (put your ${left.join(', ')} value${left.length > 1 ? 's' : ''} back where it says ${REDACTED})`}
}

/**
 * A request holding [REDACTED] is a resume command run before the secrets it left out were put back: refused (exit 2,
 * nothing sent), naming where, since sent it would carry the placeholder to the service (another body under the key)
 * and settle nothing.
 */
function refuseRedacted(req: PreparedRequest): void {
  const header = Object.keys(req.headers).find((name) => req.headers[name].includes(REDACTED))
  const where = header !== undefined ? `header ${header}` : req.body?.includes(REDACTED) ? 'body' : undefined
  if (where === undefined) return
  throw InputError.one(where, `holds ${REDACTED}, which pay prints in place of a secret: put your own value back (nothing was sent)`, 'a resume command pay printed leaves each secret out; put back the value it names, then run it (it resumes the same Idempotency-Key)')
}

/** A journaled resume command's note: what it left out, when it did (the journal keeps the command, not the names). */
function putBackOf(command: string): string {
  return command.includes(REDACTED) ? ` with your own values put back where it says ${REDACTED}` : ''
}

interface ResumeCommand {
  /** The command line, redacted. */
  text: string
  /** `` or ` (put your -H X-Api-Key value back where it says [REDACTED])`. */
  putBack: string
}
