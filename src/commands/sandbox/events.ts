import {Flags} from '@oclif/core'
import {SandboxControlCommand} from '../../sandbox/control-command.js'

export default class SandboxEvents extends SandboxControlCommand {
  static override description = 'List the webhook events the sandbox emitted and their delivery attempts'
  static override examples = [
    {description: 'All events', command: '<%= config.bin %> <%= command.id %>'},
    {description: 'Succeeded collections, as JSON', command: '<%= config.bin %> <%= command.id %> --type collection.succeeded --json'},
  ]
  static override flags = {
    type: Flags.string({description: 'Only this event type'}),
    client: Flags.string({description: 'Only events of this API client id'}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(SandboxEvents)
    const q = new URLSearchParams()
    if (flags.type) q.set('type', flags.type)
    if (flags.client) q.set('client_id', flags.client)
    const out = await this.control(await this.sandboxUrl(flags.url), 'GET', `/_sandbox/events${q.size > 0 ? `?${q}` : ''}`)
    if (flags.json) return this.log(JSON.stringify(out, null, 2))
    if (out.data.length === 0) return this.log('no events')
    for (const e of out.data as {id: string; type: string; created_at: string; state: string; deliveries: {status: number | null}[]}[]) {
      const attempts = e.deliveries.map((d) => d.status ?? 'unreachable').join(',')
      this.log(`${e.created_at}  ${e.id}  ${e.type.padEnd(28)} ${e.state}${attempts ? ` (${attempts})` : ''}`)
    }
  }
}
