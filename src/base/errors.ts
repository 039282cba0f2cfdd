/**
 * Every failure of `pay` is one of these. The base command renders them (human text on stderr, or the JSON
 * envelope on stdout with --json) and exits with their code. Messages never contain secrets.
 */
import {ExitCode, type ExitCodeValue, exitCodeForStatus, exitCodeOfUnknownOutcome} from './exit-codes.js'
import {shellQuote} from './shell-quote.js'
import {UNSAFE_TEXT} from './text-rules.js'

/** What one attempt met; src/client/request-policy.ts decides from it. */
export type AttemptOutcome =
  /** code: the service's error code, only when the body is its error object (code, message, request_id; statusOutcome). */
  | {kind: 'status'; status: number; code?: string}
  /** sent: whether the request may have reached the service (false for refused connections, DNS errors, connect timeouts). */
  | {kind: 'network'; sent: boolean}
  | {kind: 'timeout'}
  /** The server's certificate could not be verified: repeating cannot help. */
  | {kind: 'tls'; code: string}
  /** A success status whose body cannot be used (not JSON, not the endpoint's shape): the service may have acted. */
  | {kind: 'unusable'; status: number}

/** What a request came to. */
export type RequestClass = 'accepted' | 'refused' | 'unknown'

export class PayError extends Error {
  /** The documented exit code (README: Exit codes); that of an unknown outcome once outcomeUnknown marks it. */
  exitCode: ExitCodeValue

  constructor(
    message: string,
    exitCode: ExitCodeValue,
    /** What the user can do next, one line. */
    public hint?: string,
  ) {
    super(message)
    this.name = 'PayError'
    this.exitCode = exitCode
  }

  /** Set when an idempotent request may or may not have been done: the key that resumes it. */
  idempotencyKey?: string
  /** The command that repeats the request with that key. */
  resumeCommand?: string
  /**
   * What the request came to, as the request policy classed it (src/client/request-policy.ts): `refused` (the
   * service certainly did nothing) or `unknown` (it may have acted). Set by the client core on its failures.
   */
  requestClass?: RequestClass
  /** Refused for now (429, never connected): the same request may be sent again later. */
  refusedForNow?: boolean
  /** The last attempt's outcome, for a caller that repeats rows itself (the bulk engine asks the policy with it). */
  attemptOutcome?: AttemptOutcome

  /** Marks this failure as one whose outcome is unknown (src/journal/gate.ts), with its exit code. */
  outcomeUnknown(key: string, command: string | undefined, hint: string): void {
    this.exitCode = exitCodeOfUnknownOutcome(this.exitCode)
    this.idempotencyKey = key
    this.resumeCommand = command
    this.hint = hint
  }

  /** The JSON written to stdout for this error under --json. */
  toJSON(): Record<string, unknown> {
    return {error: {code: 'cli_error', message: this.message, ...(this.hint ? {hint: this.hint} : {})}}
  }
}

export interface InputProblem {
  /** The flag (`--amount`), argument (`ID`) or setting the problem is about. */
  flag: string
  /** The rule it breaks, as a phrase: "must be a 3-letter currency code". */
  rule: string
  /** The line of the input file (bulk runs, --from-file). */
  line?: number
}

/** Input rejected before any request was sent: exit 2. Lists every problem at once. */
export class InputError extends PayError {
  constructor(readonly problems: InputProblem[], hint?: string) {
    super(problems.map((p) => `${p.flag} ${p.rule}`).join('\n'), ExitCode.USAGE, hint)
    this.name = 'InputError'
  }

  static one(flag: string, rule: string, hint?: string): InputError {
    return new InputError([{flag, rule}], hint)
  }

  override toJSON(): Record<string, unknown> {
    return {error: {code: 'invalid_input', message: this.message, problems: this.problems, ...(this.hint ? {hint: this.hint} : {})}}
  }
}

/** The service answered with an error status. */
export class ApiError extends PayError {
  constructor(
    readonly status: number,
    /** The service's `error` object as sent (code, message, request_id, doc_url, retry_after…). */
    readonly error: {code: string; message: string; request_id?: string; doc_url?: string; retry_after?: number; [k: string]: unknown},
    readonly body: unknown,
    hint?: string,
    readonly attempts = 1,
    exitCode: ExitCodeValue = exitCodeForStatus(status, error.code),
  ) {
    super(`${error.message} (${error.code}, HTTP ${status}${error.request_id ? `, request ${error.request_id}` : ''})`, exitCode, hint)
    this.name = 'ApiError'
  }

  /** The answer's headers (for `pay api -i`), set by the client core. */
  responseHeaders?: Record<string, string>

  get code(): string {
    return this.error.code
  }

  get requestId(): string | undefined {
    return this.error.request_id
  }

  override toJSON(): Record<string, unknown> {
    const body = this.body && typeof this.body === 'object' && 'error' in this.body ? (this.body as Record<string, unknown>) : {error: this.error}
    return {...body, status: this.status}
  }
}

/**
 * The service could not be reached, or the connection failed or timed out: exit 7. `code` is `network_error`,
 * or `tls_error` when the server's certificate could not be verified.
 */
export class NetworkError extends PayError {
  constructor(
    message: string,
    readonly attempts = 1,
    hint?: string,
    readonly code: 'network_error' | 'tls_error' = 'network_error',
    /** False when the request certainly never reached the service (connection refused, DNS, TLS handshake). */
    readonly maybeSent = true,
  ) {
    super(message, ExitCode.NETWORK, hint)
    this.name = 'NetworkError'
  }

  override toJSON(): Record<string, unknown> {
    return {error: {code: this.code, message: this.message, attempts: this.attempts, ...(this.hint ? {hint: this.hint} : {})}}
  }
}

/** How much of an unusable body an error keeps (for --debug and the --json envelope). */
const RECEIVED_KEPT_CHARS = 2000

/**
 * A 2xx whose body is not JSON, or does not match the endpoint's response schema: exit 7, never a silent success.
 * The body received is kept (cut to RECEIVED_KEPT_CHARS) so that --debug and --json show what came.
 */
export class InvalidResponseError extends PayError {
  readonly received: string
  constructor(
    message: string,
    readonly status: number,
    received: string,
    /** What breaks the endpoint's response schema (not named `problems`: that is an InputError's list). */
    readonly schemaProblems: string[] = [],
    readonly attempts = 1,
  ) {
    super(message, ExitCode.NETWORK, 'the service answered success with a body pay cannot use: nothing is assumed to have happened or not; look the resource up (a `get` command), or run with --debug to see the body')
    this.name = 'InvalidResponseError'
    this.received = received.length > RECEIVED_KEPT_CHARS ? `${received.slice(0, RECEIVED_KEPT_CHARS)}…` : received
  }

  override toJSON(): Record<string, unknown> {
    return {error: {code: 'invalid_response', message: this.message, status: this.status, problems: this.schemaProblems, received: this.received, hint: this.hint}}
  }
}

/** SIGINT (exit 130) or SIGTERM (exit 143) while an idempotent request was in flight. */
export class InterruptedError extends PayError {
  constructor(message: string, exitCode: typeof ExitCode.INTERRUPTED | typeof ExitCode.TERMINATED) {
    super(message, exitCode)
    this.name = 'InterruptedError'
  }

  override toJSON(): Record<string, unknown> {
    return {error: {code: 'interrupted', message: this.message, ...(this.hint ? {hint: this.hint} : {})}}
  }
}

/**
 * The reference in a 409's `…?merchant_reference=VALUE` (the sandbox's pending-mandate message ends with the URL to
 * poll, the value %-encoded as in any URL): the URL's query runs to the next space, less what ends the sentence
 * around it (`.`, `,`, `;`, `:`, `!`, `?`, and a `)` without its `(`), and is read as a query (URLSearchParams, up
 * to `#`). A reference the CLI's own reference rule refuses (UNSAFE_TEXT: control characters, tab and line breaks
 * included, direction marks) is not named, nor one starting with `-`, which oclif may read as a flag after
 * --reference (`--json`, even as `--reference=--json`).
 */
function pendingReference(message: string): string | undefined {
  for (const [, raw] of message.matchAll(/\?(\S+)/g)) {
    let query = raw
    for (;;) {
      const last = query.at(-1)
      if (last !== undefined && '.,;:!?'.includes(last)) query = query.slice(0, -1)
      else if (last === ')' && query.split(')').length > query.split('(').length) query = query.slice(0, -1)
      else break
    }
    const reference = new URLSearchParams(query.split('#')[0]).get('merchant_reference')
    if (reference !== null) return reference !== '' && !UNSAFE_TEXT.test(reference) && !reference.startsWith('-') ? reference : undefined
  }
  return undefined
}

/**
 * The sub-account to poll from, when the pending request is in another one than the caller's (the sandbox's message
 * goes on `… with X-Service-Account-Ref: REF`); judged as the reference is.
 */
function pendingAccountRef(message: string): string | undefined {
  const ref = /X-Service-Account-Ref: (\S+?)[.,;:!?]?(?:\s|$)/.exec(message)?.[1]
  return ref !== undefined && !UNSAFE_TEXT.test(ref) && !ref.startsWith('-') ? ref : undefined
}

/** What to do next for a service error, where that is known. */
export function hintFor(status: number, code: string | undefined, attempts: number, message = ''): string | undefined {
  if (status === 400 && /x-service-account-ref/i.test(message)) return 'this merchant has sub-accounts: pass --account-ref, set PAY_ACCOUNT_REF, or save account_ref in the profile'
  if (status === 401) return 'check the client id and secret (pay profiles show), or run `pay login`'
  if (status === 403 && code === 'forbidden') return 'the product is not enabled for this merchant, or the credentials lack access; ask the account owner'
  if (status === 403) return 'check the credentials and that the product is enabled for this merchant'
  if (status === 404) return 'check the id or reference, and the profile/sub-account (another merchant\'s resources answer 404)'
  if (status === 409 && code === 'idempotency_key_mismatch') return 'an Idempotency-Key may only be reused with the same body; drop --idempotency-key to get a fresh one'
  // the sandbox's control API: the transaction or mandate already left the state the control acts on
  if (status === 409 && code === 'invalid_state') return 'nothing was changed: it is no longer waiting for this (the message says its state); look it up with its get command'
  if (status === 409) {
    // the pending request may carry another reference than this one (a mandate for the same number): name it
    const pending = pendingReference(message)
    const account = pendingAccountRef(message)
    const from = account ? ` --account-ref ${shellQuote(account)}` : ''
    if (pending) return `an earlier request (reference ${pending}${account ? ` in sub-account ${account}` : ''}) is still pending: look it up with \`pay mandates get --reference ${shellQuote(pending)}${from}\` instead of creating another`
    return 'the service refused a conflicting request: an earlier one (perhaps under another reference) is still pending; look it up instead of creating another'
  }
  if (status === 429) return `retried ${Math.max(0, attempts - 1)} time(s); try again later or lower your request rate`
  if (code === 'gateway_error') return 'the upstream provider failed; try again later'
  if (status >= 500) return `the service failed after ${attempts} attempt(s); try again later`
  if (code === 'invalid_parameter' && status === 400) return 'check the flags against `--help`'
  return undefined
}
