import {Args} from '@oclif/core'
import {SandboxCommand} from '../../cli/base-command.js'

export default class SandboxAdvance extends SandboxCommand {
  static override description = 'Move the sandbox clock forward (releases the T+1 hold, expires tokens and pay links)'
  static override examples = [
    {description: 'One day: held collections become available', command: '<%= config.bin %> <%= command.id %> 1d'},
    {description: 'Ninety minutes', command: '<%= config.bin %> <%= command.id %> 90m'},
  ]
  static override args = {duration: Args.string({description: 'Seconds, or a number with s, m, h or d', required: true})}

  async run(): Promise<void> {
    const {args, flags} = await this.parse(SandboxAdvance)
    const {runSandboxAdvance} = await import('../../sandbox/control-commands.js')
    await runSandboxAdvance(this.controller(flags), args.duration, await this.output())
  }
}
