/**
 * `pay mcp --print-config`: the JSON that MCP clients (Claude Desktop, Cursor, Windsurf and others: an
 * `mcpServers` object) take to start `pay mcp`. Light: no SDK, no import; the names come from the caller
 * (src/mcp/command.ts: the settings' SETTING_ENV and the variables that place pay's files, LOCATION_ENV).
 */

/**
 * Which of `names` are set in `env`; values never printed. A server started without the shell's XDG_STATE_HOME
 * would keep another journal, and a request sent from the command line and again through MCP would not be known as one.
 */
function namesSet(names: readonly string[], env: NodeJS.ProcessEnv): string[] {
  return names.filter((name) => env[name] !== undefined && env[name] !== '')
}

/**
 * The client configuration: the command (this Node and this `pay`'s entry, so that the client's PATH does not
 * matter), the arguments `pay mcp` was given less --print-config (as shown: src/mcp/command.ts), and the names of the settings taken from the
 * environment now, with empty values to fill in (secrets stay out of what is printed).
 */
export function clientConfig(node: string, entry: string, args: readonly string[], names: readonly string[], env: NodeJS.ProcessEnv): {mcpServers: {pay: {command: string; args: string[]; env: Record<string, string>}}} {
  return {mcpServers: {pay: {command: node, args: [entry, 'mcp', ...args], env: Object.fromEntries(namesSet(names, env).map((name) => [name, '']))}}}
}
