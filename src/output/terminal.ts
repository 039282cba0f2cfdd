/**
 * The one place that decides what the terminal can do (like gh's iostreams): whether stdout is a TTY,
 * whether colour is on, whether we may prompt. Nothing else calls isatty or reads NO_COLOR.
 */
export interface Terminal {
  stdoutIsTTY: boolean
  stderrIsTTY: boolean
  stdinIsTTY: boolean
  /** Colour on stdout: a TTY and NO_COLOR unset (FORCE_COLOR=1 turns it on anyway). */
  color: boolean
  /** Colour on stderr, same rule. */
  colorErr: boolean
  /** Prompting allowed: stdin and stderr are TTYs, and neither CI nor PAY_NO_INPUT is set (nor --no-input). */
  interactive: boolean
  /** Prompting turned off whatever the terminal: CI or PAY_NO_INPUT set, or --no-input (absent: false). */
  noInput?: boolean
  columns: number
}

export function detectTerminal(env: NodeJS.ProcessEnv = process.env): Terminal {
  const stdoutIsTTY = Boolean(process.stdout.isTTY)
  const stderrIsTTY = Boolean(process.stderr.isTTY)
  // isatty, not process.stdin.isTTY: touching process.stdin builds a stream (about 2 ms of start-up for a /dev/null stdin)
  const stdinIsTTY = process.getBuiltinModule('node:tty').isatty(0)
  const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== ''
  const force = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0'
  const set = (v: string | undefined) => v !== undefined && v !== '' && v !== 'false' && v !== '0'
  const ci = set(env.CI)
  const noInput = set(env.PAY_NO_INPUT)
  return {
    stdoutIsTTY,
    stderrIsTTY,
    stdinIsTTY,
    color: !noColor && (force || stdoutIsTTY),
    colorErr: !noColor && (force || stderrIsTTY),
    interactive: stdinIsTTY && stderrIsTTY && !ci && !noInput,
    noInput: ci || noInput,
    columns: process.stdout.columns || 100,
  }
}
