/**
 * Opens a URL in the user's browser where one is available (`pay checkout create --open`). $BROWSER wins;
 * otherwise `open` on macOS, `rundll32 url.dll,FileProtocolHandler` on Windows (no shell: `cmd /c start` would
 * read `&` in a query as a second command), `xdg-open` on Linux with a display. Never waits for the browser.
 * The URL comes from the network: only an absolute http(s) URL is opened, as the URL parser writes it (control
 * characters percent-encoded; it starts with `http`, so no browser command can take it for an option: `--` is not
 * passed, as xdg-open refuses it).
 */
import {existsSync} from 'node:fs'
import {delimiter, join} from 'node:path'
import {isHttpUrl} from '../api/schemas.js'

function onPath(cmd: string, env: NodeJS.ProcessEnv): boolean {
  return (env.PATH ?? '').split(delimiter).some((dir) => dir && existsSync(join(dir, cmd)))
}

/** The command that would open a URL here, or undefined when there is no browser to open. */
function browserCommand(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string[] | undefined {
  if (env.BROWSER) return [env.BROWSER]
  if (platform === 'darwin') return ['open']
  if (platform === 'win32') return ['rundll32', 'url.dll,FileProtocolHandler']
  if (!env.DISPLAY && !env.WAYLAND_DISPLAY) return undefined
  return onPath('xdg-open', env) ? ['xdg-open'] : undefined
}

/** What became of a URL to open: opened, no browser here, or refused (not an absolute http(s) URL; nothing started). */
export type OpenResult = 'opened' | 'no-browser' | 'refused'

/** Starts the browser on `url` when it is an absolute http(s) URL. */
export async function openBrowser(url: string, env: NodeJS.ProcessEnv = process.env): Promise<OpenResult> {
  if (!isHttpUrl(url)) return 'refused'
  const cmd = browserCommand(env)
  if (!cmd) return 'no-browser'
  const href = new URL(url).href
  // loaded here, not with the runtime: node:child_process costs every command ~3.5 ms of start-up
  const {spawn} = await import('node:child_process')
  return new Promise((resolve) => {
    try {
      const child = spawn(cmd[0], [...cmd.slice(1), href], {stdio: 'ignore', detached: true})
      child.once('error', () => resolve('no-browser'))
      child.once('spawn', () => {
        child.unref()
        resolve('opened')
      })
    } catch {
      resolve('no-browser')
    }
  })
}
