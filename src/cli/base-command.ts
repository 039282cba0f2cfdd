/**
 * The base of every command: the global flags, one Output, and one place that turns any failure into the
 * documented exit code (README: Exit codes) with the error on stderr, or as {"error":…} on stdout under --json.
 * Heavy modules are imported lazily, inside run paths, so that --help and --version stay fast.
 * BaseCommand: commands that talk to no server (profiles, webhook tools, sandbox start); ApiCommand: the
 * service; SandboxCommand: the sandbox's control API.
 */
import {Command, Errors, Flags} from '@oclif/core'
import type {Input, ParserOutput} from '@oclif/core/interfaces'
import type {ApiContext, ApiContextFlags, ControlClient, ControlEndpointId, ControlInput} from '../runtime.js'
import {outputFlagsFromArgv, type OutputFlagValues, type OutputOptions} from '../output/options.js'
import type {Output} from '../output/output.js'
import {connectionFlags, globalFlags} from './flags.js'
import {userAgentOf} from '../base/user-agent.js'

type Runtime = typeof import('../runtime.js')

export abstract class BaseCommand extends Command {
  static override baseFlags = globalFlags

  private runtimeModule?: Runtime
  private outputInstance?: Output

  protected async runtime(): Promise<Runtime> {
    this.runtimeModule ??= await import('../runtime.js')
    return this.runtimeModule
  }

  /** The output flags: from the parsed flags once parsed, else read from argv (an error raised while parsing). */
  private outputFlags?: OutputFlagValues & {'no-input'?: boolean}

  /** --json or another structured format was asked for. */
  protected get jsonMode(): boolean {
    return this.outputInstance?.json ?? (this.outputFlags ?? outputFlagsFromArgv(this.argv)).json === true
  }

  protected async output(): Promise<Output> {
    if (!this.outputInstance) {
      const rt = await this.runtime()
      const flags = this.outputFlags ?? outputFlagsFromArgv(this.argv)
      const {options, problems} = rt.outputOptions(flags)
      // problems with the output flags are reported by parse(); an error rendered before that uses what is valid
      const usable: OutputOptions = problems.length > 0 ? {format: flags.json ? 'json' : 'table', quiet: flags.quiet} : options
      this.outputInstance = rt.createOutput(usable, Boolean(this.outputFlags?.['no-input']))
    }
    return this.outputInstance
  }

  /**
   * oclif's parse, then the output flags: checked (a bad --fields or a --jq program that does not compile exits
   * 2 here, before any request) and the Output built from them, with the libraries its format needs loaded.
   */
  protected override async parse<F extends Record<string, any>, B extends Record<string, any>, A extends Record<string, any>>(options?: Input<F, B, A>, argv?: string[]): Promise<ParserOutput<F, B, A>> {
    const parsed = await super.parse(options, argv)
    this.outputFlags = parsed.flags as OutputFlagValues
    this.outputInstance = undefined
    const rt = await this.runtime()
    const {problems} = rt.outputOptions(this.outputFlags)
    if (problems.length > 0) throw new rt.InputError(problems)
    const out = await this.output()
    try {
      await out.prepare()
    } catch (err) {
      if (err instanceof rt.JqCompileError) throw rt.InputError.one('--jq', `does not compile: ${err.detail}`)
      throw err
    }
    return parsed
  }

  protected get userAgent(): string {
    return userAgentOf(this.config.version)
  }

  protected override async catch(err: Error & {exitCode?: number; oclif?: {exit?: number}}): Promise<void> {
    // this.exit() and --help/--version flow through here: let oclif handle them.
    if (err instanceof Errors.ExitError || (err.oclif?.exit === 0 && !('exitCode' in err))) throw err
    const rt = await this.runtime()
    const out = await this.output()
    out.forError()
    if (typeof err.exitCode !== 'number' && err.oclif?.exit !== undefined) {
      // an oclif parse error: missing or unknown flag, bad flag value
      const message = err.message.replace(/\n\s*See more help with --help$/m, '').trim()
      if (out.json) out.data(JSON.stringify({error: {code: 'invalid_input', message}}))
      out.errorLine(message)
      out.info(`  ${out.color('cyan', 'next:', 'err')} see \`pay ${this.id?.replace(/:/g, ' ') ?? ''} --help\``)
      process.exitCode = 2
      return
    }
    process.exitCode = rt.renderError(out, err, this.id)
  }
}

/** A command that talks to the service: adds profile, base URL, sub-account, retries and timeout flags. */
export abstract class ApiCommand extends BaseCommand {
  static override baseFlags = {...globalFlags, ...connectionFlags}

  private context?: ApiContext

  protected async api(flags: ApiContextFlags): Promise<ApiContext> {
    if (!this.context) {
      const rt = await this.runtime()
      this.context = await rt.createApiContext(flags, this.userAgent, await this.output())
    }
    return this.context
  }

  protected override async finally(err: Error | undefined): Promise<void> {
    await this.context?.client.close()
    return super.finally(err)
  }
}

/** The `--url` of the sandbox control commands. */
const sandboxFlags = {
  url: Flags.string({description: 'Sandbox base URL (default: $PAY_SANDBOX_URL, the "sandbox" profile, or http://127.0.0.1:4010)', helpValue: 'URL', helpGroup: 'GLOBAL'}),
}

/**
 * A `pay sandbox <control>` command: calls the running sandbox's control API (src/client/control-client.ts)
 * by endpoint id; failures exit like the service's (404: 4, 409: 5, no sandbox: 7).
 */
export abstract class SandboxCommand extends BaseCommand {
  static override baseFlags = {...globalFlags, ...sandboxFlags}

  private controlClient?: ControlClient

  /** The sandbox's control API for these flags (--url, --debug): one client per command, closed when it ends. */
  protected controller(flags: {url?: string; debug?: boolean}): (id: ControlEndpointId, input?: ControlInput) => Promise<any> {
    return async (id, input) => {
      if (!this.controlClient) {
        const rt = await this.runtime()
        const out = await this.output()
        this.controlClient = new rt.ControlClient({url: flags.url, userAgent: this.userAgent, debug: flags.debug ? (text) => out.trace(text) : undefined})
      }
      return this.controlClient.call(id, input)
    }
  }

  protected override async finally(err: Error | undefined): Promise<void> {
    await this.controlClient?.close()
    return super.finally(err)
  }
}
