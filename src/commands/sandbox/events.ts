import {Flags} from '@oclif/core'
import {SandboxCommand} from '../../cli/base-command.js'

export default class SandboxEvents extends SandboxCommand {
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
    const out = await this.control(flags, 'events.list', {query: {type: flags.type, client_id: flags.client}})
    const lines = (out.data as {id: string; type: string; created_at: string; state: string; deliveries: {status: number | null}[]}[]).map((e) => {
      const attempts = e.deliveries.map((d) => d.status ?? 'unreachable').join(',')
      return `${e.created_at}  ${e.id}  ${e.type.padEnd(28)} ${e.state}${attempts ? ` (${attempts})` : ''}`
    })
    await this.print(out, lines.length === 0 ? 'no events' : lines.join('\n'))
  }
}
