import {Args} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'

export default class ProfilesRemove extends BaseCommand {
  static override summary = 'Delete a profile, its secrets in the OS keyring and its cached token'
  static override aliases = ['profiles:rm']
  static override examples = [
    {description: 'Remove a profile', command: '<%= config.bin %> profiles remove staging'},
    {description: 'Remove and confirm in a script', command: '<%= config.bin %> profiles remove old --json'},
  ]

  static override args = {name: Args.string({description: 'Profile name', required: true})}

  async run(): Promise<void> {
    const {args} = await this.parse(ProfilesRemove)
    const {runProfilesRemove} = await import('../../profiles/manage.js')
    await runProfilesRemove(args.name, await this.output())
  }
}
