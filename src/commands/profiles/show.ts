import {Args} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {connectionFlags} from '../../cli/flags.js'

export default class ProfilesShow extends BaseCommand {
  static override summary = 'Show the settings in effect (secrets redacted) and where each comes from'
  static override description = 'Without NAME, shows what an API command would use now: flag > environment > profile, with the source of each value. Secrets are never printed, only whether they are set; `sources` says where each lives (flag, env, profile: the 0600 profiles file, keyring: the OS keyring).'
  static override examples = [
    {description: 'What would `pay balance` use?', command: '<%= config.bin %> profiles show'},
    {description: 'A named profile', command: '<%= config.bin %> profiles show sandbox --json'},
  ]

  static override args = {name: Args.string({description: 'Profile name (default: the one in effect)'})}
  static override flags = {profile: connectionFlags.profile, 'base-url': connectionFlags['base-url'], 'account-ref': connectionFlags['account-ref']}

  async run(): Promise<void> {
    const {args, flags} = await this.parse(ProfilesShow)
    const {runProfilesShow} = await import('../../profiles/manage.js')
    await runProfilesShow({...flags, name: args.name}, await this.output())
  }
}
