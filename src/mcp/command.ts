/**
 * `pay mcp`: with --print-config, the JSON MCP clients take to start this server; else the server on stdio until
 * stdin ends (src/mcp/server.ts, loaded only then: no other path loads the SDK).
 */
import {REDACTED, redactUrl} from '../base/redact.js'
import {LOCATION_ENV} from '../config/paths.js'
import {SETTING_ENV} from '../config/settings.js'
import type {Output} from '../output/output.js'
import type {ApiContextFlags} from '../runtime.js'
import {clientConfig} from './config.js'
import type {McpOptions} from './server.js'

interface McpCommandOptions extends ApiContextFlags {
  'allow-money'?: boolean
  'allow-live-money'?: boolean
  'print-config'?: boolean
}

interface McpRun {
  /** The arguments `pay mcp` was given (repeated in the printed configuration, less --print-config). */
  argv: string[]
  /** This pay's entry (bin/run.cjs), started by this Node: the client's PATH does not matter. */
  entry: string
  userAgent: string
  version: string
  commands: McpOptions['commands']
  /** default: the process's */
  env?: NodeJS.ProcessEnv
}

/** The arguments as printed: the value of --base-url as pay shows any URL (a password in it replaced). */
function shownArgs(args: readonly string[]): string[] {
  const flag = '--base-url'
  return args.map((a, i) => (args[i - 1] === flag ? redactUrl(a) : a.startsWith(`${flag}=`) ? `${flag}=${redactUrl(a.slice(flag.length + 1))}` : a))
}

export async function runMcp(flags: McpCommandOptions, out: Output, run: McpRun): Promise<void> {
  const env = run.env ?? process.env
  if (flags['print-config']) {
    const given = run.argv.filter((a) => a !== '--print-config')
    const args = shownArgs(given)
    const config = clientConfig(process.execPath, run.entry, args, [...SETTING_ENV, ...LOCATION_ENV], env)
    out.data(JSON.stringify(config, null, 2))
    if (args.some((a, i) => a !== given[i])) out.info(`args: the password in --base-url is not printed (${REDACTED}): put it back in the client's configuration, or keep the URL in a profile and pass --profile instead`)
    const names = Object.keys(config.mcpServers.pay.env)
    if (names.length > 0) out.info(`env: fill in the values of ${names.join(', ')} (not printed), or use --profile instead`)
    return
  }
  const {serveMcp} = await import('./server.js')
  await serveMcp({
    flags,
    allowMoney: Boolean(flags['allow-money']),
    allowLiveMoney: Boolean(flags['allow-live-money']),
    userAgent: run.userAgent,
    version: run.version,
    info: (text) => out.info(text),
    env: run.env,
    commands: run.commands,
  })
}
