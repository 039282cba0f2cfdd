import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {globalFlags} from '../../cli/flags.js'

export default class ProfilesAdd extends BaseCommand {
  static override summary = 'Create or update a profile without calling the service'
  static override description = 'Stores base URL, client id, client secret, sub-account ref and webhook secret under NAME: the secrets in the OS keyring where there is one (PAY_SECRET_STORE=file|keyring forces one), else in the 0600 profiles file. Secrets may come from PAY_CLIENT_SECRET / PAY_WEBHOOK_SECRET instead of flags. Use `pay login` to also prove the credentials.'
  static override examples = [
    {description: 'A profile for a sub-account', command: 'PAY_CLIENT_SECRET=… <%= config.bin %> profiles add shop2 --base-url https://api.example.com --client-id cli_123 --account-ref ACC_SHOP_2'},
    {description: 'Add and switch to it', command: '<%= config.bin %> profiles add staging --base-url https://staging.example.com --client-id cli_9 --use'},
    {description: 'The live service: payouts, collections and debits ask before sending', command: 'PAY_CLIENT_SECRET=… <%= config.bin %> profiles add live --base-url https://api.example.com --client-id cli_live --live'},
  ]

  static override args = {name: Args.string({description: 'Profile name (letters, digits, . _ -)', required: true})}
  static override flags = {
    ...globalFlags,
    'base-url': Flags.string({description: 'Service base URL'}),
    'client-id': Flags.string({description: 'API client id'}),
    'client-secret': Flags.string({description: "API client secret, or - to read it from stdin; PAY_CLIENT_SECRET or stdin keep it out of argv (the process list and oclif's DEBUG=* show argv)"}),
    'account-ref': Flags.string({description: 'Sub-account ref'}),
    'webhook-secret': Flags.string({description: 'Webhook signing secret (or PAY_WEBHOOK_SECRET)'}),
    'webhook-signature': Flags.string({description: 'Pin the webhook signature format once the service\'s is known (e.g. inline-hex-sha256; see pay webhook verify --explain)'}),
    use: Flags.boolean({description: 'Make it the active profile'}),
    live: Flags.boolean({allowNo: true, description: 'The live service: money-moving commands ask before sending, on a terminal (--yes skips); --no-live clears it'}),
    'mcp-allow-money': Flags.boolean({allowNo: true, description: '`pay mcp` lists its money tools without --allow-money (a live service still needs --allow-live-money); --no-mcp-allow-money clears it'}),
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(ProfilesAdd)
    const {runProfilesAdd} = await import('../../profiles/manage.js')
    await runProfilesAdd({...flags, name: args.name}, await this.output())
  }
}
