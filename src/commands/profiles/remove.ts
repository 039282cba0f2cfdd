import {Args} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'

export default class ProfilesRemove extends BaseCommand {
  static override summary = 'Delete a profile and its cached token'
  static override aliases = ['profiles:rm']
  static override examples = [
    {description: 'Remove a profile', command: '<%= config.bin %> profiles remove staging'},
    {description: 'Remove and confirm in a script', command: '<%= config.bin %> profiles remove old --json'},
  ]

  static override args = {name: Args.string({description: 'Profile name', required: true})}

  async run(): Promise<void> {
    const {args} = await this.parse(ProfilesRemove)
    const out = await this.output()
    const {ProfileStore} = await import('../../config/profiles.js')
    const {TokenCache, cacheKey} = await import('../../config/token-cache.js')
    const {configDir} = await import('../../config/paths.js')
    const {PayError} = await import('../../client/errors.js')
    const store = new ProfileStore()
    const profile = store.get(args.name)
    if (!profile || !store.remove(args.name)) throw new PayError(`no profile named "${args.name}"`, 4)
    if (profile.base_url && profile.client_id) new TokenCache(configDir()).delete(cacheKey(profile.base_url, profile.client_id))
    if (out.json) out.data(JSON.stringify({removed: args.name}))
    else out.info(`Removed profile "${args.name}"`)
  }
}
