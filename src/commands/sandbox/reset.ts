import {SandboxCommand} from '../../cli/base-command.js'

export default class SandboxReset extends SandboxCommand {
  static override description = 'Reset the running sandbox to its seed (all resources, tokens, events and the clock)'
  static override examples = [{description: 'Start over', command: '<%= config.bin %> <%= command.id %>'}]

  async run(): Promise<void> {
    const {flags} = await this.parse(SandboxReset)
    const out = await this.control(flags, 'reset')
    await this.print(out, 'sandbox reset to its seed')
  }
}
