/**
 * Opens a URL in the user's browser where one is available (`pay checkout create --open`). $BROWSER wins;
 * otherwise `open` on macOS, `start` on Windows, `xdg-open` on Linux with a display. Never waits for the
 * browser and never fails the command: the caller prints the URL either way.
 */
import {existsSync} from 'node:fs'
import {delimiter, join} from 'node:path'

function onPath(cmd: string, env: NodeJS.ProcessEnv): boolean {
  return (env.PATH ?? '').split(delimiter).some((dir) => dir && existsSync(join(dir, cmd)))
}

/** The command that would open a URL here, or undefined when there is no browser to open. */
function browserCommand(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string[] | undefined {
  if (env.BROWSER) return [env.BROWSER]
  if (platform === 'darwin') return ['open']
  if (platform === 'win32') return ['cmd', '/c', 'start', '""']
  if (!env.DISPLAY && !env.WAYLAND_DISPLAY) return undefined
  return onPath('xdg-open', env) ? ['xdg-open'] : undefined
}

/** Starts the browser on `url`; resolves true when a browser was started. */
export async function openBrowser(url: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const cmd = browserCommand(env)
  if (!cmd) return false
  // loaded here, not with the runtime: node:child_process costs every command ~3.5 ms of start-up
  const {spawn} = await import('node:child_process')
  return new Promise((resolve) => {
    try {
      const child = spawn(cmd[0], [...cmd.slice(1), url], {stdio: 'ignore', detached: true})
      child.once('error', () => resolve(false))
      child.once('spawn', () => {
        child.unref()
        resolve(true)
      })
    } catch {
      resolve(false)
    }
  })
}
