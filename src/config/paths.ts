/** Where `pay` keeps its files: $PAY_CONFIG_DIR, else $XDG_CONFIG_HOME/pay, else ~/.config/pay. */
import {homedir} from 'node:os'
import {join} from 'node:path'

/**
 * The environment variables that choose where pay's files are (configDir, stateDir): a process started without the
 * shell's values (an MCP client's server) would read other profiles and another journal (src/mcp/config.ts names them).
 */
export const LOCATION_ENV = ['PAY_CONFIG_DIR', 'XDG_CONFIG_HOME', 'XDG_STATE_HOME'] as const

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PAY_CONFIG_DIR) return env.PAY_CONFIG_DIR
  const xdg = env.XDG_CONFIG_HOME
  return join(xdg && xdg.length > 0 ? xdg : join(homedir(), '.config'), 'pay')
}

/** Mode of every file that may hold a secret. */
export const SECRET_FILE_MODE = 0o600
export const CONFIG_DIR_MODE = 0o700

/**
 * Where `pay` keeps state that is not configuration (the operation journal): $PAY_CONFIG_DIR/state when
 * PAY_CONFIG_DIR is set, else $XDG_STATE_HOME/pay, else ~/.local/state/pay.
 */
export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PAY_CONFIG_DIR) return join(env.PAY_CONFIG_DIR, 'state')
  const xdg = env.XDG_STATE_HOME
  return join(xdg && xdg.length > 0 ? xdg : join(homedir(), '.local', 'state'), 'pay')
}
