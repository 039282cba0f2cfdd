import {SandboxControlCommand} from '../../sandbox/control-command.js'

export default class SandboxReset extends SandboxControlCommand {
  static override description = 'Reset the running sandbox to its seed (all resources, tokens, events and the clock)'
  static override examples = [{description: 'Start over', command: '<%= config.bin %> <%= command.id %>'}]

  async run(): Promise<void> {
    const {flags} = await this.parse(SandboxReset)
    const out = await this.control(await this.sandboxUrl(flags.url), 'POST', '/_sandbox/reset')
    this.print(flags.json, out, 'sandbox reset to its seed')
  }
}
