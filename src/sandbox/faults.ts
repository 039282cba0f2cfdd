/**
 * Fault injection for /v1 requests: extra latency, random 503s (nothing done), and "drop after commit":
 * a successful POST is committed and then the socket is destroyed before any answer, so a client has to
 * retry with the same Idempotency-Key and gets the replayed answer.
 */
import {setTimeout as sleep} from 'node:timers/promises'
import {inspect} from 'node:util'
import {ApiError} from './errors.js'

/** A bug the control API asked for (bug_next): logged as one line, not a stack trace that reads as a real failure. */
class SimulatedBug extends Error {
  override name = 'SimulatedBug'
}

/** What the sandbox logs of a bug: a simulated one in one line, a real one with its stack. */
function bugLog(err: unknown): unknown {
  return err instanceof SimulatedBug ? `${err.message} (expected: asked for with bug_next)` : err
}

/** Where sandbox bugs are reported (SandboxOptions.onBug); by default, through an Output on the process's stderr. */
let bugSink: ((text: string) => void) | undefined
export function setBugReporter(sink: ((text: string) => void) | undefined): void {
  bugSink = sink
}

/** Reports a sandbox bug: `label` and the bug (a simulated one in one line, a real one with its stack). */
export function reportBug(label: string, err: unknown): void {
  const what = bugLog(err)
  const text = `${label} ${typeof what === 'string' ? what : inspect(what)}`
  if (bugSink) bugSink(text)
  // loaded only when a bug happens (the sandbox's start-up stays as it is)
  else void Promise.all([import('../output/output.js'), import('../output/terminal.js')]).then(([{Output}, {detectTerminal}]) => new Output(detectTerminal(), false).notice(text))
}

export class Faults {
  /** Forces the next N successful POSTs to drop after commit (control API, deterministic tests). */
  dropNext = 0
  /** Simulates a sandbox bug on the next N /v1 requests (control API, to test the 500 path and the guards). */
  bugNext = 0
  /** Also throw one exception outside any request per simulated bug (only with the process guard on). */
  uncaughtBugs = false

  constructor(
    public latencyMs: number,
    public faultRate: number,
    public dropAfterCommitRate: number,
  ) {}

  /** True when before() has anything to do (the hot path skips the await otherwise). */
  get active(): boolean {
    return this.latencyMs > 0 || this.faultRate > 0
  }

  async before(): Promise<void> {
    if (this.latencyMs > 0) await sleep(this.latencyMs)
    if (this.faultRate > 0 && Math.random() < this.faultRate) {
      throw new ApiError(503, 'service_unavailable', 'injected fault (--fault-rate): the service is temporarily unavailable; retry', {
        doc: 'faults',
        headers: {'retry-after': '1'},
      })
    }
  }

  /** Throws a plain Error (not an ApiError: a "bug") when a simulated bug is due. */
  maybeBug(): void {
    if (this.bugNext <= 0) return
    this.bugNext--
    if (this.uncaughtBugs) {
      setImmediate(() => {
        throw new SimulatedBug('simulated sandbox bug outside a request (PUT /_sandbox/faults bug_next)')
      })
    }
    throw new SimulatedBug('simulated sandbox bug (PUT /_sandbox/faults bug_next)')
  }

  /** True when this committed write should lose its answer. */
  dropAfterCommit(): boolean {
    if (this.dropNext > 0) {
      this.dropNext--
      return true
    }
    return this.dropAfterCommitRate > 0 && Math.random() < this.dropAfterCommitRate
  }

  view() {
    return {latency_ms: this.latencyMs, fault_rate: this.faultRate, drop_after_commit_rate: this.dropAfterCommitRate, drop_next: this.dropNext, bug_next: this.bugNext}
  }
}
