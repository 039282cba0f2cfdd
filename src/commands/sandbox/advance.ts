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
    // the rule flows' `sandbox: advance` steps use too
    const {durationSeconds, DURATION_RULE} = await import('../../flows/sandbox-steps.js')
    const seconds = durationSeconds(args.duration)
    if (seconds === undefined) throw (await this.runtime()).InputError.one('DURATION', DURATION_RULE)
    const out = await this.control(flags, 'clock.advance', {body: {seconds}})
    await this.print(out, `sandbox clock now ${out.now} (+${out.offset_seconds} s)`)
  }
}
