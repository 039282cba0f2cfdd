/**
 * A hand-written command in-process: its flags and arguments parsed by oclif's parser from the command class's own
 * definitions, an Output on in-memory streams built from the output flags as src/cli/base-command.ts builds it, then
 * the command's run function; a failure rendered with its exit code as the base command's catch renders it. No
 * process, no build: for the logic. What only a process shows (signals, TTY, start-up) stays with runCli.
 */
import {Parser} from '@oclif/core'
import {InputError} from '../../src/base/errors.js'
import {renderError} from '../../src/output/errors.js'
import {outputOptions} from '../../src/output/options.js'
import type {Output} from '../../src/output/output.js'
import {JqCompileError} from '../../src/output/structured.js'
import type {Terminal} from '../../src/output/terminal.js'
import {cleanEnv, tempConfigDir, type CliResult} from './cli.js'
import {memoryOutput} from './in-process.js'

/** The parts of an oclif command class the parser needs. */
export interface CommandClass {
  id?: string
  flags?: Record<string, unknown>
  baseFlags?: Record<string, unknown>
  args?: Record<string, unknown>
}

export interface RunningCommand {
  stdout(): string
  stderr(): string
  /** The exit code and the whole output, once the run function returned or threw. */
  done: Promise<CliResult>
}

export interface CommandRun<F> {
  flags: F
  args: Record<string, string>
  out: Output
  /** The command's environment: cleanEnv() with a fresh PAY_CONFIG_DIR, and the test's variables. */
  env: NodeJS.ProcessEnv
}

/** The environment a command sees in-process: as runCli's process would, with a config dir of its own. */
export function commandEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  return cleanEnv({PAY_CONFIG_DIR: tempConfigDir(), ...extra})
}

/** Starts `run` with the command line parsed; `done` settles when it is over. */
export function startCommand<F = any>(command: CommandClass, argv: string[], run: (c: CommandRun<F>) => Promise<number>, options: {env?: Record<string, string | undefined>; terminal?: Partial<Terminal>} = {}): RunningCommand {
  let io = memoryOutput(argv.includes('--json'), options.terminal)
  const done = (async (): Promise<CliResult> => {
    try {
      const parsed = await Parser.parse(argv, {flags: {...command.baseFlags, ...command.flags} as never, args: (command.args ?? {}) as never, strict: true})
      const flags = parsed.flags as Record<string, unknown>
      const wanted = outputOptions(flags)
      if (wanted.problems.length > 0) throw new InputError(wanted.problems)
      io = memoryOutput(wanted.options, flags['no-input'] ? {...options.terminal, interactive: false} : options.terminal)
      await io.out.prepare().catch((err: unknown) => {
        throw err instanceof JqCompileError ? InputError.one('--jq', `does not compile: ${err.detail}`) : err
      })
      const code = await run({flags: flags as F, args: parsed.args as Record<string, string>, out: io.out, env: commandEnv(options.env)})
      return {code, stdout: io.stdout(), stderr: io.stderr()}
    } catch (err) {
      const e = err as Error & {exitCode?: number; oclif?: {exit?: number}}
      io.out.forError()
      // an oclif parse error (unknown flag, bad value): exit 2, as src/cli/base-command.ts renders it
      const code = typeof e.exitCode !== 'number' && e.oclif?.exit !== undefined ? (io.out.errorLine(e.message), 2) : renderError(io.out, err, command.id)
      return {code, stdout: io.stdout(), stderr: io.stderr()}
    }
  })()
  return {stdout: () => io.stdout(), stderr: () => io.stderr(), done}
}

/** Runs a command to its end in-process. */
export function runCommand<F = any>(command: CommandClass, argv: string[], run: (c: CommandRun<F>) => Promise<number>, options: {env?: Record<string, string | undefined>; terminal?: Partial<Terminal>} = {}): Promise<CliResult> {
  return startCommand(command, argv, run, options).done
}
