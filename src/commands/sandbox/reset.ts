import {SandboxCommand} from '../../cli/base-command.js'

export default class SandboxReset extends SandboxCommand {
  static override description = 'Reset the running sandbox to its seed (all resources, tokens, events and the clock)'
  static override examples = [{description: 'Start over', command: '<%= config.bin %> <%= command.id %>'}]

  async run(): Promise<void> {
    const {flags} = await this.parse(SandboxReset)
    const {runSandboxReset} = await import('../../sandbox/control-commands.js')
    await runSandboxReset(this.controller(flags), await this.output())
  }
}
