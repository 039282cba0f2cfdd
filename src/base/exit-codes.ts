/** The exit codes of `pay`, documented in the README. Scripts depend on them: never renumber. */
export const ExitCode = {
  OK: 0,
  OTHER: 1,
  USAGE: 2,
  AUTH: 3,
  NOT_FOUND: 4,
  CONFLICT: 5,
  RATE_LIMITED: 6,
  NETWORK: 7,
  TX_FAILED: 8,
  WAIT_TIMEOUT: 9,
  /** Interrupted by SIGINT (Ctrl-C), 128 + 2 as shells report it. */
  INTERRUPTED: 130,
  /** Terminated by SIGTERM, 128 + 15. */
  TERMINATED: 143,
} as const
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode]

/**
 * The exit codes by name, lower-cased (`tx_failed`, `wait_timeout`, `not_found`): what a flow step's `expect.exit` may
 * name, and the `code` of a `pay mcp` tool error for an operation that answered but would exit non-zero.
 */
export const EXIT_CLASSES: Record<string, number> = Object.fromEntries(Object.entries(ExitCode).map(([k, v]) => [k.toLowerCase(), v]))

/** The name of an exit code (EXIT_CLASSES), or undefined for a code that has none. */
export function exitClassOf(code: number): string | undefined {
  return Object.keys(EXIT_CLASSES).find((name) => EXIT_CLASSES[name] === code)
}

/**
 * The exit code of a failure whose outcome is unknown (the request may have acted, and pay names the key that
 * resumes it): 7, as a network failure or a 5xx, whatever the last attempt met. A 4xx to a retry says nothing about
 * an earlier attempt that may have reached the service, and its own code (1, 3, 4, 5) would read as a certain
 * failure, which a script may answer by sending the request again under a new key. A signal keeps its code (130, 143).
 */
export function exitCodeOfUnknownOutcome(code: ExitCodeValue): ExitCodeValue {
  return code === ExitCode.INTERRUPTED || code === ExitCode.TERMINATED ? code : ExitCode.NETWORK
}

/** The exit code of a command a signal ended, as shells report it: SIGTERM 143, SIGINT (Ctrl-C) and any other 130. */
export function exitCodeOfSignal(signal: NodeJS.Signals | undefined): typeof ExitCode.INTERRUPTED | typeof ExitCode.TERMINATED {
  return signal === 'SIGTERM' ? ExitCode.TERMINATED : ExitCode.INTERRUPTED
}

/** Exit code for an HTTP error status (and the service's error code where it matters). */
export function exitCodeForStatus(status: number, code?: string): ExitCodeValue {
  if (code === 'gateway_error') return ExitCode.NETWORK
  if (status === 401 || status === 403) return ExitCode.AUTH
  if (status === 404) return ExitCode.NOT_FOUND
  if (status === 409) return ExitCode.CONFLICT
  if (status === 429) return ExitCode.RATE_LIMITED
  if (status >= 500) return ExitCode.NETWORK
  return ExitCode.OTHER
}
