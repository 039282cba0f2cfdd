import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {globalFlags} from '../../cli/flags.js'

export default class ProfilesMigrate extends BaseCommand {
  static override summary = 'Move stored secrets into the OS keyring (or back to the profiles file)'
  static override description = 'Profiles saved where no keyring was available keep their client and webhook secrets in the 0600 profiles file. This moves them into the OS keyring (macOS Keychain, Windows Credential Manager, the Secret Service on Linux), leaving only a reference in the file; --to file moves them back. Fails, changing nothing of that profile, when the keyring cannot be used.'
  static override strict = false
  static override args = {name: Args.string({description: 'Profile names (default: all)'})}
  static override flags = {
    ...globalFlags,
    to: Flags.string({description: 'Where the secrets go', options: ['keyring', 'file'], default: 'keyring'}),
  }

  static override examples = [
    {description: 'Every profile into the OS keyring (where none can be used, as in CI, it exits 1 and changes nothing)', command: '<%= config.bin %> profiles migrate'},
    {description: 'One profile, back to the file', command: '<%= config.bin %> profiles migrate staging --to file'},
  ]

  async run(): Promise<void> {
    const {argv, flags} = await this.parse(ProfilesMigrate)
    const [{runProfilesMigrate}, rt] = await Promise.all([import('../../profiles/migrate.js'), this.runtime()])
    await runProfilesMigrate(await rt.ProfileStore.open(), {names: argv as string[], to: flags.to as 'keyring' | 'file'}, await this.output())
  }
}
