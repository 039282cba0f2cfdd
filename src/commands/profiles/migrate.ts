import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {globalFlags} from '../../cli/flags.js'

export default class ProfilesMigrate extends BaseCommand {
  static override summary = 'Move stored secrets into the OS keyring (or back to the profiles file)'
  static override description = 'Profiles saved where no keyring was available keep their client and webhook secrets in the 0600 profiles file. This moves them into the OS keyring (macOS Keychain, Windows Credential Manager, the Secret Service on Linux), leaving only a reference in the file; --to file moves them back. Fails, changing nothing of that profile, when the keyring cannot be used.'
  static override examples = [
    {description: 'Every profile', command: '<%= config.bin %> profiles migrate'},
    {description: 'One profile, back to the file', command: '<%= config.bin %> profiles migrate staging --to file'},
  ]

  static override strict = false
  static override args = {name: Args.string({description: 'Profile names (default: all)'})}
  static override flags = {
    ...globalFlags,
    to: Flags.string({description: 'Where the secrets go', options: ['keyring', 'file'], default: 'keyring'}),
  }

  async run(): Promise<void> {
    const {argv, flags} = await this.parse(ProfilesMigrate)
    const out = await this.output()
    const rt = await this.runtime()
    const {migrateProfiles} = await import('../../config/profiles-migrate.js')
    const store = await rt.ProfileStore.open()
    const results = await migrateProfiles(store, {names: argv as string[], to: flags.to as 'keyring' | 'file'})
    if (out.json) {
      out.data(JSON.stringify(results))
      return
    }
    if (results.length === 0) out.info('No profiles to migrate.')
    for (const r of results) out.info(r.moved.length > 0 ? `Profile "${r.profile}": ${r.moved.join(' and ')} moved to the ${r.store === 'keyring' ? 'OS keyring' : 'profiles file'}` : `Profile "${r.profile}": nothing to move`)
  }
}
