import {Args} from '@oclif/core'
import {SandboxCommand} from '../../cli/base-command.js'

export default class SandboxResend extends SandboxCommand {
  static override description = "Deliver a sandbox event again, now, to its API client's current webhook URL (outside the retry schedule); exits 1 when not answered 2xx"
  static override args = {event: Args.string({description: 'Event id (EVT_…)', required: true})}
  static override examples = [
    {description: 'Send an event to the listener again', command: '<%= config.bin %> <%= command.id %> EVT_8F2K1P0Q9R3S7T5U4V6W2X1Y'},
  ]

  async run(): Promise<void> {
    const {args, flags} = await this.parse(SandboxResend)
    const {runSandboxResend} = await import('../../sandbox/deliveries.js')
    process.exitCode = await runSandboxResend(this.controller(flags), args.event, await this.output())
  }
}
