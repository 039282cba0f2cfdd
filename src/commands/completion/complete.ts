import {BaseCommand} from '../../cli/base-command.js'

export default class CompletionComplete extends BaseCommand {
  static override hidden = true
  static override strict = false
  static override summary = 'What the completion scripts call: prints the candidates for the words after `pay --`'
  static override examples = [{description: 'Candidates after `pay collections c`', command: '<%= config.bin %> completion complete -- collections c'}]

  async run(): Promise<void> {
    const {argv} = await this.parse(CompletionComplete)
    const {runCompletionComplete} = await import('../../cli/complete.js')
    await runCompletionComplete(argv as string[], await this.output(), {commands: this.config.commands, userAgent: this.userAgent})
  }
}
