import {Flags} from '@oclif/core'
import {ApiCommand} from '../cli/base-command.js'

export default class Mcp extends ApiCommand {
  static override summary = 'Serve the merchant account to AI agents: a Model Context Protocol server on stdio'
  static override description = `Tools derived from the commands: one per operation (the same inputs and rules as its flags, named with _ for -), the journal, and resources for the interface summary and docs/assumptions.md. Results are the service's JSON body; errors carry code, message and request_id, and for an unknown outcome the idempotency key and how to resume.
Read-only by default: the tools that create or move money are listed only with --allow-money (or a profile with mcp_allow_money: \`pay profiles add NAME --mcp-allow-money\`), and never for a live service (a profile marked live, or any service not on this machine) unless --allow-live-money is given too.
A money tool is done at most once across an agent's retries: it runs through the journal like the command line (origin mcp in \`pay journal\`), so the same call whose outcome was unknown reuses its key, and one that succeeded returns the earlier answer and sends nothing. Every money tool takes dry_run.
stdout carries the protocol only; messages go to stderr. --print-config prints the JSON snippet MCP clients take.`

  static override examples = [
    {description: 'Configuration for an MCP client (Claude Desktop, Cursor, …), with the sandbox profile', command: '<%= config.bin %> mcp --profile sandbox --allow-money --print-config'},
    {description: 'Read-only tools on the active profile (what a client runs)', command: '<%= config.bin %> mcp'},
    {description: 'Money tools against the local sandbox', command: '<%= config.bin %> mcp --profile sandbox --allow-money'},
  ]

  static override flags = {
    'allow-money': Flags.boolean({description: 'List the tools that create or move money (collections, payouts, checkout, mandates, debits, subscriptions, virtual accounts)'}),
    'allow-live-money': Flags.boolean({description: 'With --allow-money: list them for a live service too (a profile marked live, or a service not on this machine); the consent for the session: a tool asks no one', dependsOn: ['allow-money']}),
    'print-config': Flags.boolean({description: 'Print the JSON MCP clients take to start this server (command, args, names of the environment settings in use; no values) and exit'}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(Mcp)
    // the commands served as read-only tools, for their flags and help (mcp/ imports no command: no arrow upward)
    const [{runMcp}, {join}, {default: journal}, {default: webhookHistory}] = await Promise.all([import('../mcp/command.js'), import('node:path'), import('./journal.js'), import('./webhook/history.js')])
    await runMcp(flags, await this.output(), {argv: this.argv, entry: join(this.config.root, 'bin', 'run.cjs'), userAgent: this.userAgent, version: this.config.version, commands: {journal, webhookHistory}})
  }
}
