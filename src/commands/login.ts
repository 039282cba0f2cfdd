import {Flags} from '@oclif/core'
import {BaseCommand} from '../cli/base-command.js'
import {globalFlags} from '../cli/flags.js'

export default class Login extends BaseCommand {
  static override summary = 'Save credentials in a profile after proving they work'
  static override description = `Gets a fresh token with the client credentials (never a cached one) and calls GET /v1/account, shows the merchant and account, then saves base URL, client id, client secret, sub-account ref and webhook secret in the profile (0600 file in the config dir) and makes it active. Nothing is written unless the service accepts the credentials (\`pay profiles add\` stores a profile without calling the service).
On a terminal, missing values are asked for (the secret masked). With flags or environment variables (PAY_BASE_URL, PAY_CLIENT_ID, PAY_CLIENT_SECRET, PAY_ACCOUNT_REF, PAY_WEBHOOK_SECRET), or when not interactive, it never prompts.`

  static override examples = [
    {description: 'Interactive on a terminal; elsewhere from the flags, PAY_* variables and the active profile (exit 2 naming what is missing)', command: '<%= config.bin %> login'},
    {description: 'Non-interactive, into a named profile', command: 'PAY_CLIENT_SECRET=… <%= config.bin %> login --profile live --base-url https://api.example.com --client-id cli_123'},
    {description: 'Against the local sandbox (its seeded credentials)', command: 'PAY_CLIENT_SECRET=sb_acme_secret_4f8a2c1e9b7d <%= config.bin %> login --profile sandbox --base-url http://127.0.0.1:4010 --client-id sb_acme_client'},
  ]

  static override flags = {
    ...globalFlags,
    profile: Flags.string({char: 'p', description: 'Profile to save into (default: the active profile, else "default")'}),
    'base-url': Flags.string({description: 'Service base URL'}),
    'client-id': Flags.string({description: 'API client id'}),
    'client-secret': Flags.string({description: "API client secret, or - to read it from stdin; PAY_CLIENT_SECRET or stdin keep it out of argv (the process list and oclif's DEBUG=* show argv), or use the prompt"}),
    'account-ref': Flags.string({description: 'Sub-account ref (when sub-accounts are enabled)'}),
    'webhook-secret': Flags.string({description: 'Webhook signing secret, for `pay webhook listen`'}),
    live: Flags.boolean({allowNo: true, description: 'Mark the profile live: money-moving commands ask before sending, on a terminal (asked when prompting)'}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(Login)
    const {runLogin} = await import('../profiles/login.js')
    process.exitCode = await runLogin(flags, await this.output(), {userAgent: this.userAgent})
  }
}
