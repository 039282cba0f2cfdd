/**
 * Base of the `pay sandbox <control>` commands: they call the sandbox's control API (/_sandbox/...).
 * The sandbox URL comes from --url, else $PAY_SANDBOX_URL, else the base_url of the profile "sandbox"
 * (saved by `pay sandbox start`), else http://127.0.0.1:4010.
 */
import {Command, Flags} from '@oclif/core'

export const DEFAULT_SANDBOX_URL = 'http://127.0.0.1:4010'

export abstract class SandboxControlCommand extends Command {
  static override baseFlags = {
    url: Flags.string({description: 'Sandbox base URL (default: $PAY_SANDBOX_URL, the "sandbox" profile, or http://127.0.0.1:4010)', helpValue: 'URL'}),
    json: Flags.boolean({description: 'Print the control API answer as JSON', default: false}),
  }

  protected async sandboxUrl(flag?: string): Promise<string> {
    if (flag) return flag.replace(/\/+$/, '')
    if (process.env.PAY_SANDBOX_URL) return process.env.PAY_SANDBOX_URL.replace(/\/+$/, '')
    try {
      const {existsSync} = await import('node:fs')
      const {profilesPath} = await import('../config/profiles.js')
      if (existsSync(profilesPath())) {
        const {ProfileStore} = await import('../config/profiles.js')
        const url = new ProfileStore().get('sandbox')?.base_url
        if (url) return url.replace(/\/+$/, '')
      }
    } catch {
      // an unreadable profiles file: fall back to the default
    }
    return DEFAULT_SANDBOX_URL
  }

  /** Calls the control API; prints the error and exits 1 on a non-2xx answer or no connection. */
  protected async control(base: string, method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<any> {
    const {request} = await import('undici')
    let status: number
    let text: string
    try {
      const res = await request(base + path, {
        method,
        headers: {'content-type': 'application/json', accept: 'application/json'},
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      status = res.statusCode
      text = await res.body.text()
    } catch (err) {
      this.error(`cannot reach the sandbox at ${base} (${(err as Error).message}); start it with \`pay sandbox start\` or pass --url`, {exit: 1})
    }
    let parsed: any
    try {
      parsed = JSON.parse(text)
    } catch {
      parsed = text
    }
    if (status < 200 || status >= 300) this.error(`${status} ${parsed?.error?.code ?? ''}: ${parsed?.error?.message ?? text}`, {exit: 1})
    return parsed
  }

  protected print(json: boolean, value: unknown, line: string): void {
    this.log(json ? JSON.stringify(value, null, 2) : line)
  }
}
