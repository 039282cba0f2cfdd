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
    const {runSandboxEvents} = await import('../../sandbox/control-commands.js')
    await runSandboxEvents(this.controller(flags), flags, await this.output())
  }
}
