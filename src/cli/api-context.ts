/**
 * What a command talks to the service with: the client, the output and the resolved settings. Made once per
 * command run (src/cli/base-command.ts through src/runtime.ts); tests make one in-process with their own
 * Output (in-memory streams) and client.
 */
import {ApiClient, type ClientOptions} from '../client/api-client.js'
import {resolveSettings, type SettingFlags, type Settings} from '../config/settings.js'
import {Output} from '../output/output.js'
import {detectTerminal} from '../output/terminal.js'

export interface ApiContextFlags extends SettingFlags {
  json?: boolean
  debug?: boolean
  retries?: number
  timeout?: number
}

export interface ApiContext {
  client: ApiClient
  out: Output
  settings: Settings
}

export function createOutput(json: boolean): Output {
  return new Output(detectTerminal(), json)
}

export async function createApiContext(flags: ApiContextFlags, userAgent: string, out = createOutput(Boolean(flags.json)), env: NodeJS.ProcessEnv = process.env, transport?: ClientOptions['transport']): Promise<ApiContext> {
  const settings = await resolveSettings(flags, env)
  const client = new ApiClient({
    settings,
    userAgent,
    retries: flags.retries,
    timeoutMs: flags.timeout === undefined ? undefined : flags.timeout * 1000,
    tokenCacheDir: settings.configDir,
    debug: flags.debug ? (text) => out.info(out.color('dim', text, 'err')) : undefined,
    notice: (text) => out.info(out.color('dim', text, 'err')),
    transport,
  })
  return {client, out, settings}
}
