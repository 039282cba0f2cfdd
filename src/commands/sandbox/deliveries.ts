import {Args, Flags} from '@oclif/core'
import {SandboxCommand} from '../../cli/base-command.js'

export default class SandboxDeliveries extends SandboxCommand {
  static override description = "The sandbox's webhook delivery attempts (scheduled, retries, duplicates, resends), newest first: of one event, or of all"
  static override args = {event: Args.string({description: 'Only the attempts of this event (EVT_…)'})}
  static override examples = [
    {description: 'Every attempt', command: '<%= config.bin %> <%= command.id %>'},
    {description: 'One event', command: '<%= config.bin %> <%= command.id %> EVT_8F2K1P0Q9R3S7T5U4V6W2X1Y'},
    {description: 'Failed payout attempts, as CSV', command: "<%= config.bin %> <%= command.id %> --type payout.failed -o csv"},
  ]
  static override flags = {
    type: Flags.string({description: 'Only events of this type'}),
    client: Flags.string({description: 'Only events of this API client id'}),
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(SandboxDeliveries)
    const {runSandboxDeliveries} = await import('../../sandbox/deliveries.js')
    await runSandboxDeliveries(this.controller(flags), {eventId: args.event, type: flags.type, client: flags.client}, await this.output())
  }
}
