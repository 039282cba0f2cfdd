/**
 * Everything a command needs at run time, behind one lazily imported module: commands import this with
 * `await import('../runtime.js')` inside run(), so `--help` and `--version` never load undici, zod, conf or
 * cli-table3. (The build may bundle this entry into one file to make loading it cheaper.)
 */
// first: zod's settings must hold before any schema is built
import './api/zod-config.js'
import {ApiClient, type ClientOptions, type RequestJournal} from './client/api-client.js'
import type {ApiContext} from './operation/api-context.js'
import {resolveSettings, type SettingFlags} from './config/settings.js'
import {createJournalGate, type JournalUse} from './journal/index.js'
import {outputOptions, type OutputFlagValues, type OutputOptions} from './output/options.js'
import {Output} from './output/output.js'
import {detectTerminal} from './output/terminal.js'
import {givenValues, runOperation, type Given} from './operation/run-operation.js'
import {renderError} from './output/errors.js'
import type {OperationSpec} from './api/operations.js'

export {ApiClient, splitPath} from './client/api-client.js'
export type {ApiResponse, CallInput, PreparedRequest, RequestJournal, JournalEntryHandle} from './client/api-client.js'
export {resolveSettings, shownBaseUrl} from './config/settings.js'
export type {Settings} from './config/settings.js'
export {Output} from './output/output.js'
export {detectTerminal} from './output/terminal.js'
export {endpoints, matchEndpoint} from './api/endpoints.js'
export type {EndpointId} from './api/endpoints.js'
export {problemsOf} from './api/validate.js'
export {renderDryRun} from './output/dry-run.js'
export {renderError} from './output/errors.js'
export {JqCompileError} from './output/structured.js'
export {outputOptions} from './output/options.js'
export type {OutputOptions} from './output/options.js'

export interface ApiContextFlags extends SettingFlags {
  json?: boolean
  debug?: boolean
  retries?: number
  timeout?: number
  'force-new'?: boolean
}

// what a command talks to the service with; defined beside the cli modules that take it (no import circle)
export type {ApiContext} from './operation/api-context.js'

/** The Output of a command: --json or the output flags' options; --no-input turns prompting off. */
export function createOutput(mode: boolean | OutputOptions, noInput = false): Output {
  const term = detectTerminal()
  return new Output(noInput ? {...term, interactive: false, noInput: true} : term, mode)
}

/**
 * `env` and `transport` are for running a command in-process (tests): the defaults are the process's. `journal`:
 * for a caller other than the command line (`pay mcp`), the origin and resume argv the journal records, and a
 * wrapper that sees each journaled request (whether its answer is a replay, which key it carries).
 */
export async function createApiContext(
  flags: ApiContextFlags,
  userAgent: string,
  out = createOutput(Boolean(flags.json)),
  env: NodeJS.ProcessEnv = process.env,
  transport?: ClientOptions['transport'],
  journal: JournalUse & {wrap?: (gate: RequestJournal) => RequestJournal} = {},
): Promise<ApiContext> {
  const {wrap = (gate: RequestJournal) => gate, ...use} = journal
  const settings = await resolveSettings(flags, env)
  const client = new ApiClient({
    settings,
    transport,
    userAgent,
    retries: flags.retries,
    timeoutMs: flags.timeout === undefined ? undefined : flags.timeout * 1000,
    tokenCacheDir: settings.configDir,
    debug: flags.debug ? (text) => out.trace(text) : undefined,
    notice: (text) => out.trace(text),
    warn: (text) => out.warnQuoting(text),
    // in the state dir of the environment the command was given (an in-process run's, not this process's)
    journal: wrap(createJournalGate(out, flags['force-new'], env, use)),
  })
  return {client, out, settings}
}

/**
 * An operation command once its command line is parsed, by oclif (src/cli/operation-command.ts) or by bin/run.cjs's
 * direct path (src/cli/direct-argv.ts): the one place both run, so they behave alike by construction. As the base
 * command does: the context from the connection flags, runOperation (or the bulk engine for --from-file), any
 * failure rendered with its documented exit code, the client closed. Returns the exit code.
 *
 * oclif's command passes the Output its parse() built from the output flags (src/cli/base-command.ts). The direct
 * path passes none: it is built here the same way, and when the output flags have a problem (a bad --fields, a
 * --jq program that does not compile) this returns undefined and bin/run.cjs hands the command line to oclif,
 * whose message it is.
 */
export async function runOperationCommand(op: OperationSpec, flags: ApiContextFlags & OutputFlagValues & {'no-input'?: boolean}, args: Given, how: {id: string; userAgent: string; out?: Output}): Promise<number | undefined> {
  let out = how.out
  if (!out) {
    const {options, problems} = outputOptions(flags)
    if (problems.length > 0) return undefined
    out = createOutput(options, Boolean(flags['no-input']))
    try {
      await out.prepare()
    } catch {
      return undefined
    }
  }
  let ctx: ApiContext | undefined
  try {
    ctx = await createApiContext(flags, how.userAgent, out)
    const values = givenValues(flags as Given, args)
    // --from-file: the bulk engine (src/bulk/), loaded only then
    return values['from-file'] === undefined ? await runOperation(ctx, op, values) : await (await import('./bulk/index.js')).runBulkOperation(ctx, op, values)
  } catch (error) {
    out.forError()
    return renderError(out, error, how.id)
  } finally {
    await ctx?.client.close()
  }
}

// resource commands: the operation specs' one path from flags to rendered output (src/operation/run-operation.ts)
export {gatherInput, runOperation} from './operation/run-operation.js'
export type {InputField, Given} from './operation/run-operation.js'
export {waitFor, reportWait, classifyState} from './operation/wait.js'
export type {PollSpec} from './operation/wait.js'
export {renderView, viewRows, StreamTable, COLLECTION_COLUMNS} from './output/views.js'
export type {ViewName} from './output/views.js'
export {InputError} from './base/errors.js'
// records of an operation: bulk rows (--from-file) and flow steps, with the command's rules and flag names
export {columnsOf, inputFromRecord, requestFromRecord, validateRecord, valuesFromRecord} from './operation/operation-input.js'
// The specs (src/api/operations.ts) are light: commands import them directly. bin/run.cjs's direct path takes them
// from here, with the User-Agent, so that it loads this one code-cached file and no further ES modules (~2.5 ms).
export {operations} from './api/operations.js'
export type {OperationId, OperationSpec} from './api/operations.js'
export {userAgentOf} from './base/user-agent.js'

// the profile store (profiles migrate); conf loads only to write
export {ProfileStore} from './config/profiles.js'
export {PayError} from './base/errors.js'
export {isLoopbackHost} from './client/transport.js'
// the operation journal as `pay journal` and `pay mcp`'s journal tool show it
export {queryJournal} from './journal/view.js'
// the sandbox's control API (pay sandbox <control>)
export {ControlClient} from './client/control-client.js'
export type {ControlEndpointId, ControlInput} from './client/control-client.js'
