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
    const out = await this.output()
    const rt = await this.runtime()
    const stored = rt.readProfiles()
    if (!stored?.profiles[args.name]) {
      const names = stored ? rt.listProfiles(stored).map((p) => p.name) : []
      throw new rt.PayError(`no profile named "${args.name}"`, 4, names.length > 0 ? `known profiles: ${names.join(', ')}` : 'run `pay login` to create one')
    }
    ;(await rt.ProfileStore.open()).use(args.name)
    if (out.json) out.data(JSON.stringify({active: args.name}))
    else out.info(`Active profile: ${args.name}`)
  }
}
