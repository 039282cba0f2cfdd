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
    const out = await this.output()
    const rt = await this.runtime()
    const dir = rt.configDir()
    const cache = new rt.TokenCache(dir)
    if (flags.all) {
      cache.delete()
      let cleared = 0
      if (rt.readProfiles(dir)) {
        const store = await rt.ProfileStore.open(dir)
        for (const {name} of store.list()) {
          await store.unset(name, ['client_secret', 'webhook_secret'])
          cleared++
        }
      }
      if (out.json) out.data(JSON.stringify({tokens_forgotten: 'all', profiles_cleared: cleared}))
      else out.info(`Forgot every cached token and the secrets of ${cleared} profile(s).`)
      return
    }
    const settings = await rt.resolveSettings({profile: flags.profile})
    if (settings.baseUrl && settings.clientId) cache.delete(rt.cacheKey(settings.baseUrl, settings.clientId, settings.clientSecret, settings.clientSecretSha256))
    if (out.json) out.data(JSON.stringify({profile: settings.profileName, tokens_forgotten: settings.clientId ? 1 : 0}))
    else out.info(`Forgot the cached token of profile "${settings.profileName}".`)
  }
}
