/**
 * Runs a resource command in-process: its flags and arguments parsed by oclif's parser from the operation spec
 * (the same definitions the command file declares; test/api/operations.test.ts proves they are the command's),
 * then runOperation with an Output on in-memory streams and a client with an optional injected transport. No
 * process, no build: for the logic of the commands. What only a process shows (exit status of the real binary,
 * TTY, signals, start-up) stays with runCli.
 */
import {Parser} from '@oclif/core'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {Writable} from 'node:stream'
import {operations, type OperationSpec} from '../../src/api/operations.js'
import type {ApiClient, ClientOptions} from '../../src/client/api-client.js'
import {createApiContext, type ApiContextFlags} from '../../src/runtime.js'
import {connectionFlags, globalFlags} from '../../src/cli/flags.js'
import {operationInputs} from '../../src/cli/operation-command.js'
import {givenValues, runOperation} from '../../src/operation/run-operation.js'
import {InputError} from '../../src/base/errors.js'
import {outputOptions, type OutputOptions} from '../../src/output/options.js'
import {renderError} from '../../src/output/errors.js'
import {JqCompileError} from '../../src/output/structured.js'
import {Output} from '../../src/output/output.js'
import {userAgentOf} from '../../src/base/user-agent.js'
import type {Terminal} from '../../src/output/terminal.js'
import {ROOT, cleanEnv, runCli, tempConfigDir, type CliResult, type RunOptions} from './cli.js'

const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {version: string}).version
export const USER_AGENT = userAgentOf(VERSION)

export interface InProcessOptions {
  /** The whole environment the command sees (nothing of process.env leaks in). */
  env?: Record<string, string | undefined>
  transport?: ClientOptions['transport']
  terminal?: Partial<Terminal>
}

/** The strings a memoryOutput writes into: one pair may be shared by several Outputs (those one command makes). */
interface MemoryStreams {
  stdout: string
  stderr: string
}

/** An Output writing into strings (`into`: given, they are shared with other Outputs, in the order written). */
export function memoryOutput(json: boolean | OutputOptions, terminal: Partial<Terminal> = {}, into: MemoryStreams = {stdout: '', stderr: ''}): {out: Output; stdout: () => string; stderr: () => string} {
  const sink = (stream: keyof MemoryStreams) =>
    new Writable({
      write(chunk, _encoding, done) {
        into[stream] += String(chunk)
        done()
      },
    })
  const term: Terminal = {stdoutIsTTY: false, stderrIsTTY: false, stdinIsTTY: false, color: false, colorErr: false, interactive: false, columns: 100, ...terminal}
  const out = new Output(term, json, sink('stdout'), sink('stderr'))
  return {out, stdout: () => into.stdout, stderr: () => into.stderr}
}

/** True when the command line is a resource command (one of the operation specs). */
export function isOperation(argv: string[]): boolean {
  return [2, 1].some((n) => argv.slice(0, n).join(':') in operations)
}

/** The operation of a command line (`['collections', 'create', …]`) and the rest of its words. */
export function operationOf(argv: string[]): {op: OperationSpec; rest: string[]} {
  for (const n of [2, 1]) {
    const op = (operations as Record<string, OperationSpec>)[argv.slice(0, n).join(':')]
    if (op) return {op, rest: argv.slice(n)}
  }
  throw new Error(`no operation for: pay ${argv.join(' ')}`)
}

/** `pay <argv>` in-process: exit code, stdout and stderr as the process would give them. */
export async function runInProcess(argv: string[], options: InProcessOptions = {}): Promise<CliResult> {
  const {op, rest} = operationOf(argv)
  const json = argv.includes('--json')
  let io = memoryOutput(json, options.terminal)
  let client: ApiClient | undefined
  try {
    const {flags, args} = operationInputs(op)
    const parsed = await Parser.parse(rest, {flags: {...globalFlags, ...connectionFlags, ...flags}, args, strict: true})
    // the output flags as src/cli/base-command.ts's parse() applies them (checked, libraries loaded)
    const wanted = outputOptions(parsed.flags)
    if (wanted.problems.length > 0) throw new InputError(wanted.problems)
    io = memoryOutput(wanted.options, parsed.flags['no-input'] ? {...options.terminal, interactive: false} : options.terminal)
    await io.out.prepare().catch((err: unknown) => {
      throw err instanceof JqCompileError ? InputError.one('--jq', `does not compile: ${err.detail}`) : err
    })
    // the journal's resume command is made from the command line, as the process's argv gives it to the built CLI
    const ctx = await createApiContext(parsed.flags as ApiContextFlags, USER_AGENT, io.out, {...options.env}, options.transport, {argv})
    client = ctx.client
    const code = await runOperation(ctx, op, givenValues(parsed.flags, parsed.args))
    return {code, stdout: io.stdout(), stderr: io.stderr()}
  } catch (err) {
    const e = err as Error & {exitCode?: number; oclif?: {exit?: number}}
    io.out.forError()
    // an oclif parse error (unknown flag, bad value): exit 2, as src/cli/base-command.ts renders it
    const code = typeof e.exitCode !== 'number' && e.oclif?.exit !== undefined ? (io.out.errorLine(e.message), 2) : renderError(io.out, err, op.command)
    return {code, stdout: io.stdout(), stderr: io.stderr()}
  } finally {
    await client?.close()
  }
}

/**
 * The commands that serve until a signal: through their classes they would never end in-process, so pay() runs them
 * as the built CLI (in-process, with a promise to stop on: listenInProcess, test/sandbox/start.test.ts).
 */
export const PROCESS_ONLY = ['webhook listen', 'sandbox start']

/**
 * `pay <args>` in-process where it can be: a resource command through runInProcess, any other command through
 * runCommand; the built CLI for PROCESS_ONLY commands and when stdin is given.
 */
export function pay(args: string[], options: RunOptions & {env: Record<string, string | undefined>}): Promise<CliResult> {
  if (options.input !== undefined || PROCESS_ONLY.some((c) => args.join(' ').startsWith(c + ' ') || args.join(' ') === c)) return runCli(args, options)
  return isOperation(args) ? runInProcess(args, {env: {NO_COLOR: '1', ...options.env}}) : runCommand(args, {env: options.env})
}

/**
 * A command's run function in-process (`pay find`, `pay reconcile`: the commands that are not operation specs): an
 * ApiContext on an in-memory Output, as its oclif class builds one after parsing, and any failure rendered with its
 * exit code as the base command's catch does.
 */
export async function runWithContext(run: (ctx: Awaited<ReturnType<typeof createApiContext>>) => Promise<number>, options: InProcessOptions & {json?: boolean | OutputOptions; flags?: ApiContextFlags} = {}): Promise<CliResult> {
  const io = memoryOutput(options.json ?? false, options.terminal)
  let client: ApiClient | undefined
  try {
    await io.out.prepare()
    const ctx = await createApiContext(options.flags ?? {}, USER_AGENT, io.out, {...options.env}, options.transport)
    client = ctx.client
    const code = await run(ctx)
    return {code, stdout: io.stdout(), stderr: io.stderr()}
  } catch (err) {
    io.out.forError()
    return {code: renderError(io.out, err), stdout: io.stdout(), stderr: io.stderr()}
  } finally {
    await client?.close()
  }
}

/** The parts of an oclif command class runCommand uses: its definitions for the parser, and oclif's static run. */
type CommandClass = {
  id?: string
  strict?: boolean
  flags?: Record<string, unknown>
  baseFlags?: Record<string, unknown>
  args?: Record<string, unknown>
  run(argv: string[], config: unknown): Promise<unknown>
  new (argv: string[], config: any): any
}
let oclifConfig: Promise<unknown> | undefined
let queue: Promise<unknown> = Promise.resolve()

/** The command file of a command line: the longest run of leading words that names a file of src/commands/. */
async function commandOf(argv: string[]): Promise<{Command: CommandClass; id: string; rest: string[]}> {
  const {existsSync} = await import('node:fs')
  for (let n = Math.min(argv.length, 3); n >= 1; n--) {
    const words = argv.slice(0, n)
    if (words.some((w) => !/^[a-z][a-z-]*$/.test(w))) continue
    for (const file of [join(ROOT, 'src/commands', ...words) + '.ts', join(ROOT, 'src/commands', ...words, 'index.ts')]) {
      if (existsSync(file)) return {Command: ((await import(file)) as {default: CommandClass}).default, id: words.join(':'), rest: argv.slice(n)}
    }
  }
  throw new Error(`no command file for: pay ${argv.join(' ')}`)
}

/** What a run function given to runCommand gets: the command line parsed by the command's own class. */
export interface CommandRun<F> {
  flags: F
  args: Record<string, string>
  /** The words a command of `strict = false` takes beyond its flags. */
  argv: string[]
  out: Output
  /** The command's environment: cleanEnv() with a fresh PAY_CONFIG_DIR, and the test's variables. */
  env: NodeJS.ProcessEnv
}

export interface CommandOptions<F> {
  /** The variables the command sees beyond cleanEnv()'s (undefined removes one). */
  env?: Record<string, string | undefined>
  /**
   * The command's run function (src/<room>/…), called with the command line as its class parses it, an Output on
   * in-memory streams and the environment, instead of the class's run(): for what a test hands in (a signal to stop
   * on, a prompt's answers, a terminal). Its number is the exit code (anything else: 0).
   */
  run?: (c: CommandRun<F>) => Promise<unknown>
  /** The terminal the Output believes it writes to (with `run`). */
  terminal?: Partial<Terminal>
}

export interface RunningCommand {
  stdout(): string
  stderr(): string
  /** The exit code and the whole output, once the run function returned or threw. */
  done: Promise<CliResult>
}

/** The environment a command's run function sees in-process: as runCli's process would, with a config dir of its own. */
export function commandEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  return cleanEnv({PAY_CONFIG_DIR: tempConfigDir(), ...extra})
}

/**
 * `pay <argv>` in-process, any command but the resource commands (runInProcess): `pay profiles add …`,
 * `pay journal`, `pay sandbox reset`, `pay webhook trigger`, … Without `run`, the command's oclif class from
 * src/commands/ runs as the built CLI runs it (parse, run, the base command's catch with its exit code), its Output
 * writing into strings through a terminal that is not a TTY, as runCli's pipes are; the command sees `env` as its
 * whole environment (cleanEnv, as runCli gives the process): commands read process.env, so these runs are one at a
 * time and process.env and process.exitCode are put back after each. With `run`, the class only parses (as its
 * run() does) and `run` is called with what it parsed, an in-memory Output and its own env object (process.env
 * untouched), a failure rendered with its exit code as the base command's catch renders it. For what only a process
 * shows (its real exit status, stdin, a TTY, signals, start-up), use runCli.
 */
export function runCommand<F = any>(argv: string[], options: CommandOptions<F> = {}): Promise<CliResult> {
  if (options.run) return startCommand(argv, options.run, options).done
  const run = queue.then(() => runCommandClass(argv, options))
  queue = run.catch(() => undefined)
  return run
}

/** runCommand with a run function, started: its output so far, and `done` once it is over (a listener, a sandbox). */
export function startCommand<F = any>(argv: string[], run: (c: CommandRun<F>) => Promise<unknown>, options: Omit<CommandOptions<F>, 'run'> = {}): RunningCommand {
  let io = memoryOutput(argv.includes('--json'), options.terminal)
  let id: string | undefined
  const done = (async (): Promise<CliResult> => {
    try {
      const {Command, id: commandId, rest} = await commandOf(argv)
      id = commandId
      const parsed = await Parser.parse(rest, {flags: {...Command.baseFlags, ...Command.flags} as never, args: (Command.args ?? {}) as never, strict: Command.strict ?? true})
      const flags = parsed.flags as Record<string, unknown>
      const wanted = outputOptions(flags)
      if (wanted.problems.length > 0) throw new InputError(wanted.problems)
      io = memoryOutput(wanted.options, flags['no-input'] ? {...options.terminal, interactive: false} : options.terminal)
      await io.out.prepare().catch((err: unknown) => {
        throw err instanceof JqCompileError ? InputError.one('--jq', `does not compile: ${err.detail}`) : err
      })
      const result = await run({flags: flags as F, args: parsed.args as Record<string, string>, argv: parsed.argv as string[], out: io.out, env: commandEnv(options.env)})
      return {code: typeof result === 'number' ? result : 0, stdout: io.stdout(), stderr: io.stderr()}
    } catch (err) {
      const e = err as Error & {exitCode?: number; oclif?: {exit?: number}}
      io.out.forError()
      // an oclif parse error (unknown flag, bad value): exit 2, as src/cli/base-command.ts renders it
      const code = typeof e.exitCode !== 'number' && e.oclif?.exit !== undefined ? (io.out.errorLine(e.message), 2) : renderError(io.out, err, id)
      return {code, stdout: io.stdout(), stderr: io.stderr()}
    }
  })()
  return {stdout: () => io.stdout(), stderr: () => io.stderr(), done}
}

async function runCommandClass(argv: string[], options: {env?: Record<string, string | undefined>}): Promise<CliResult> {
  const {Config} = await import('@oclif/core')
  oclifConfig ??= Config.load(ROOT)
  const config = await oclifConfig
  const {Command, id, rest} = await commandOf(argv)
  // every Output the command makes (the base command's, and one a run function makes itself, as `pay flow run` does)
  // writes into these strings instead of the process's streams, as all of them write into the process's own
  const written: MemoryStreams = {stdout: '', stderr: ''}
  class InProcess extends (Command as unknown as new (argv: string[], config: any) => {runtime(): Promise<Record<string, unknown>>}) {
    static id = id
    async runtime(): Promise<Record<string, unknown>> {
      const rt = await super.runtime()
      return {...rt, createOutput: (mode: boolean | OutputOptions) => memoryOutput(mode, {}, written).out}
    }
  }
  const savedEnv = {...process.env}
  const savedExitCode = process.exitCode
  const env = cleanEnv(options.env)
  for (const k of Object.keys(process.env)) if (!(k in env)) delete process.env[k]
  Object.assign(process.env, env)
  process.exitCode = undefined
  let code: number
  try {
    await (InProcess as unknown as CommandClass).run(rest, config)
    code = typeof process.exitCode === 'number' ? process.exitCode : Number(process.exitCode ?? 0)
  } catch (err) {
    // this.exit(n), or what the base command's catch passes on (oclif's own exit errors)
    const e = err as {oclif?: {exit?: number}; message?: string}
    if (e.oclif?.exit === undefined) throw err
    code = e.oclif.exit
  } finally {
    for (const k of Object.keys(process.env)) if (!(k in savedEnv)) delete process.env[k]
    Object.assign(process.env, savedEnv)
    process.exitCode = savedExitCode
  }
  return {code, ...written}
}
