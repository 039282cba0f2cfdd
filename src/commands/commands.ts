import {BaseCommand} from '../cli/base-command.js'

export default class Commands extends BaseCommand {
  static override summary = 'List every command; with --json, the whole command surface for scripts and agents'
  static override description = `Each command with its arguments and flags: type (boolean, string, integer), whether it is required, its choices (fixed values) or the list its values come from (providers, banks, plans, profiles), its default, and the command's examples. Read from the manifest and the operation specs: no command is loaded, nothing is sent.`

  static override examples = [
    {description: 'Commands and what they do', command: '<%= config.bin %> commands'},
    {description: 'The required flags of one command', command: `<%= config.bin %> commands --jq '.[] | select(.id == "payouts:create") | .flags[] | select(.required) | .name'`},
  ]

  async run(): Promise<void> {
    await this.parse(Commands)
    const {runCommands} = await import('../cli/surface.js')
    runCommands(this.config.commands, await this.output())
  }
}
