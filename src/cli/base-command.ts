/**
 * The base of every command: the global flags, one Output, and one place that turns any failure into the
 * documented exit code (README: Exit codes) with the error on stderr, or as {"error":…} on stdout under --json.
 * Heavy modules are imported lazily, inside run paths, so that --help and --version stay fast.
 */
import {Command, Errors} from '@oclif/core'
import type {ApiContext, ApiContextFlags} from '../runtime.js'
import type {Output} from '../output/output.js'
import {connectionFlags, globalFlags} from './flags.js'

type Runtime = typeof import('../runtime.js')

export abstract class BaseCommand extends Command {
  static override baseFlags = globalFlags

  private runtimeModule?: Runtime
  private outputInstance?: Output

  protected async runtime(): Promise<Runtime> {
    this.runtimeModule ??= await import('../runtime.js')
    return this.runtimeModule
  }

  /** --json was given (read from argv so that it also holds for errors raised while parsing). */
  protected get jsonMode(): boolean {
    return this.argv.includes('--json')
  }

  protected async output(): Promise<Output> {
    if (!this.outputInstance) this.outputInstance = (await this.runtime()).createOutput(this.jsonMode)
    return this.outputInstance
  }

  protected get userAgent(): string {
    return `pay/${this.config.version} node/${process.version} (${process.platform}-${process.arch})`
  }

  protected override async catch(err: Error & {exitCode?: number; oclif?: {exit?: number}}): Promise<void> {
    // this.exit() and --help/--version flow through here: let oclif handle them.
    if (err instanceof Errors.ExitError || (err.oclif?.exit === 0 && !('exitCode' in err))) throw err
    const rt = await this.runtime()
    const out = await this.output()
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
