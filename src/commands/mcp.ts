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
    'allow-live-money': Flags.boolean({description: 'With --allow-money: list them for a live service too (a profile marked live, or a service not on this machine)', dependsOn: ['allow-money']}),
    'print-config': Flags.boolean({description: 'Print the JSON MCP clients take to start this server (command, args, names of the environment settings in use; no values) and exit'}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(Mcp)
    const out = await this.output()
    if (flags['print-config']) {
      const {clientConfig} = await import('../mcp/config.js')
      const {join} = await import('node:path')
      const args = this.argv.filter((a) => a !== '--print-config')
      const config = clientConfig(process.execPath, join(this.config.root, 'bin', 'run.cjs'), args, (await this.runtime()).SETTING_ENV, process.env)
      out.data(JSON.stringify(config, null, 2))
      if (Object.keys(config.mcpServers.pay.env).length > 0) out.info(`env: fill in the values of ${Object.keys(config.mcpServers.pay.env).join(', ')} (not printed), or use --profile instead`)
      return
    }
    const {serveMcp} = await import('../mcp/server.js')
    const {default: journal} = await import('./journal.js')
    const {default: webhookHistory} = await import('./webhook/history.js')
    await serveMcp({
      flags,
      allowMoney: flags['allow-money'],
      allowLiveMoney: flags['allow-live-money'],
      userAgent: this.userAgent,
      version: this.config.version,
      info: (text) => out.info(text),
      commands: {journal, webhookHistory},
    })
  }
}
