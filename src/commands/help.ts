import {Args, Command, loadHelpClass} from '@oclif/core'

/**
 * `pay help [COMMAND…]`: the help of pay or of a command, exactly as `pay [COMMAND…] --help` prints it (oclif's own
 * Help class, with the same argv). bin/run.cjs serves both from the build's help cache without loading oclif.
 */
export default class Help extends Command {
  static override summary = 'Show the help of pay or of a command (the same as `pay COMMAND --help`)'
  static override description = 'Every word after `help` names the command or topic, as typed: `pay help collections create` prints what `pay collections create --help` prints.'
  static override strict = false
  static override args = {command: Args.string({description: 'The command or topic, e.g. balance, or collections create'})}
  static override examples = [
    {description: 'Every topic and command', command: '<%= config.bin %> help'},
    {description: 'The flags and examples of one command', command: '<%= config.bin %> help collections create'},
  ]

  async run(): Promise<void> {
    const {argv} = await this.parse(Help)
    await showHelp(this.config, argv as string[])
  }
}

/** What `pay WORDS --help` prints, through the same Help class and argv as oclif's own help flag. */
export async function showHelp(config: Help['config'], words: string[]): Promise<void> {
  const HelpClass = await loadHelpClass(config)
  const pjson = config.pjson as {oclif: {helpOptions?: object}; helpOptions?: object}
  await new HelpClass(config, pjson.oclif.helpOptions ?? pjson.helpOptions).showHelp([...words, '--help'])
}
