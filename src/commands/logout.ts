import {Flags} from '@oclif/core'
import {BaseCommand} from '../cli/base-command.js'
import {globalFlags} from '../cli/flags.js'

export default class Logout extends BaseCommand {
  static override summary = 'Forget the cached access token (and with --all, every stored secret)'
  static override description = 'Removes the cached token of the active credentials. With --all, removes every cached token and the client and webhook secrets of every profile (base URLs and client ids are kept).'
  static override examples = [
    {description: 'Forget the token of the active profile', command: '<%= config.bin %> logout'},
    {description: 'Wipe all tokens and stored secrets on a shared machine', command: '<%= config.bin %> logout --all'},
  ]

  static override flags = {
    ...globalFlags,
    profile: Flags.string({char: 'p', description: 'Profile whose token to forget'}),
    all: Flags.boolean({description: 'Forget every token and every stored secret'}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(Logout)
    const {runLogout} = await import('../profiles/manage.js')
    await runLogout(flags, await this.output())
  }
}
