import {Args} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'

export default class ProfilesUse extends BaseCommand {
  static override summary = 'Make a profile the active one'
  static override examples = [
    {description: 'Switch to the sandbox', command: '<%= config.bin %> profiles use sandbox'},
    {description: 'One command on another profile instead', command: '<%= config.bin %> balance --profile live'},
  ]

  static override args = {name: Args.string({description: 'Profile name', required: true})}

  async run(): Promise<void> {
    const {args} = await this.parse(ProfilesUse)
    const {runProfilesUse} = await import('../../profiles/manage.js')
    await runProfilesUse(args.name, await this.output())
  }
}
