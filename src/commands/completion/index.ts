import {Args} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {SHELLS, type Shell} from '../../cli/completion.js'
import {CACHE_TTL_MS} from '../../cli/completion-cache.js'

export default class Completion extends BaseCommand {
  static override summary = 'Print the shell completion script for bash, zsh or fish'
  static override description = `Completes commands, flags, fixed flag values (-o, …) and the values the service knows (--provider, --bank-code, --plan) or the profiles file has (--profile). Those lists come from a local cache kept ${CACHE_TTL_MS / 60_000} minutes: at most one request when it is stale, never one per keystroke.`

  static override examples = [
    {description: 'bash, for this shell', command: 'source <(<%= config.bin %> completion bash)'},
    {description: 'zsh, for good (a directory of $fpath, before compinit)', command: '<%= config.bin %> completion zsh > "${fpath[1]}/_pay"'},
    {description: 'fish, for good', command: '<%= config.bin %> completion fish > ~/.config/fish/completions/pay.fish'},
  ]

  static override args = {shell: Args.string({description: 'The shell', required: true, options: [...SHELLS]})}

  async run(): Promise<void> {
    const {args} = await this.parse(Completion)
    const {runCompletion} = await import('../../cli/completion.js')
    runCompletion(args.shell as Shell, await this.output(), this.config.bin)
  }
}
