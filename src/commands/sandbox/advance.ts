import {Args} from '@oclif/core'
import {SandboxCommand} from '../../cli/base-command.js'

const UNITS: Record<string, number> = {s: 1, m: 60, h: 3600, d: 86_400}

export default class SandboxAdvance extends SandboxCommand {
  static override description = 'Move the sandbox clock forward (releases the T+1 hold, expires tokens and pay links)'
  static override examples = [
    {description: 'One day: held collections become available', command: '<%= config.bin %> <%= command.id %> 1d'},
    {description: 'Ninety minutes', command: '<%= config.bin %> <%= command.id %> 90m'},
  ]
  static override args = {duration: Args.string({description: 'Seconds, or a number with s, m, h or d', required: true})}

  async run(): Promise<void> {
    const {args, flags} = await this.parse(SandboxAdvance)
    const m = /^([0-9]+(?:\.[0-9]+)?)([smhd]?)$/.exec(args.duration.trim())
    if (!m) throw (await this.runtime()).InputError.one('DURATION', 'must be seconds or a number with s, m, h or d (e.g. 86400, 1d, 90m)')
    const seconds = Number(m[1]) * UNITS[m[2] || 's']
    const out = await this.control(flags, 'clock.advance', {body: {seconds}})
    await this.print(out, `sandbox clock now ${out.now} (+${out.offset_seconds} s)`)
  }
}
