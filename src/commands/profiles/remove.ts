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
    const out = await this.output()
    const rt = await this.runtime()
    const profile = rt.readProfiles()?.profiles[args.name]
    if (!profile || !(await (await rt.ProfileStore.open()).remove(args.name))) throw new rt.PayError(`no profile named "${args.name}"`, 4)
    if (profile.base_url && profile.client_id) new rt.TokenCache(rt.configDir()).delete(rt.cacheKey(profile.base_url, profile.client_id, profile.client_secret, profile.keyring?.client_secret_sha256))
    if (out.json) out.data(JSON.stringify({removed: args.name}))
    else out.info(`Removed profile "${args.name}"`)
  }
}
