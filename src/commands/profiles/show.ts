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
    const out = await this.output()
    const rt = await this.runtime()
    const s = await rt.resolveSettings({...flags, profile: args.name ?? flags.profile})
    if (args.name && !s.profileFound) throw new rt.PayError(`no profile named "${args.name}"`, 4)
    const {redactProfile} = await import('../../config/profile-view.js')
    // the same view as `profiles list`: secrets as whether they are set, a password in the base URL redacted
    const shown = redactProfile({base_url: s.baseUrl, client_id: s.clientId, client_secret: s.clientSecret, account_ref: s.accountRef, webhook_secret: s.webhookSecret, webhook_signature: s.webhookSignature, live: s.live === true})
    // where each secret lives: the flag, the environment, the profiles file or the OS keyring (never its value)
    const secret = (key: 'clientSecret' | 'webhookSecret') => rt.secretView(s.sources[key] === 'profile' ? 'file' : s.sources[key] === 'default' ? undefined : s.sources[key])
    const view = {profile: s.profileName, profile_found: s.profileFound, ...shown, client_secret: secret('clientSecret'), webhook_secret: secret('webhookSecret'), sources: s.sources, config_dir: s.configDir}
    out.body(JSON.stringify(view), view)
  }
}
