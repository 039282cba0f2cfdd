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
    const rt = await this.runtime()
    const out = await this.output()

    // flag > environment > the profile's stored values, the same precedence as every command
    const settings = await rt.resolveSettings(flags)
    const name = settings.profileName
    const values = {
      base_url: settings.baseUrl,
      client_id: settings.clientId,
      client_secret: settings.clientSecret,
      account_ref: settings.accountRef,
      webhook_secret: settings.webhookSecret,
    }

    if (out.term.interactive && (!values.base_url || !values.client_id || !values.client_secret)) {
      const {input, password} = await import('@inquirer/prompts')
      const opts = {output: process.stderr}
      values.base_url ??= await input({message: 'Base URL', default: 'https://', validate: (v) => validUrl(v, rt.checkBaseUrl)}, opts)
      values.client_id ??= await input({message: 'Client id', validate: (v) => v.trim() !== '' || 'required'}, opts)
      values.client_secret ??= await password({message: 'Client secret', mask: '*', validate: (v) => v !== '' || 'required'}, opts)
      // the sub-account ref is asked for only when the service says this merchant needs one (below)
      if (flags.live === undefined && name !== rt.SANDBOX_PROFILE) {
        const {confirm} = await import('@inquirer/prompts')
        flags.live = await confirm({message: 'Is this the live service? (money-moving commands will then ask before sending)', default: false}, opts)
      }
    }
    const missing = []
    if (!values.base_url) missing.push({flag: '--base-url', rule: 'is required (or PAY_BASE_URL)'})
    if (!values.client_id) missing.push({flag: '--client-id', rule: 'is required (or PAY_CLIENT_ID)'})
    if (!values.client_secret) missing.push({flag: '--client-secret', rule: 'is required (or PAY_CLIENT_SECRET)'})
    if (missing.length > 0) throw new rt.InputError(missing, 'pass them as flags or environment variables, or run `pay login` on a terminal')
    rt.checkBaseUrl(values.base_url!)
    values.base_url = values.base_url!.replace(/\/+$/, '')

    // Always proven: to store a profile without calling the service, `pay profiles add` is the command.
    let account: unknown
    const {client} = await rt.createApiContext(
      {profile: name, 'base-url': values.base_url, 'client-id': values.client_id, 'client-secret': values.client_secret, 'account-ref': values.account_ref, debug: flags.debug},
      this.userAgent,
      out,
    )
    try {
      // a token just issued for exactly these credentials: a cached one would prove nothing about the secret
      await client.tokens.fresh()
      for (let tries = 0; ; tries++) {
        try {
          account = (await client.call('account.get')).body
          break
        } catch (err) {
          // on a terminal, a merchant with sub-accounts is told why a ref is needed, then asked for one
          const asked = out.term.interactive && tries < 5 ? await askAccountRef(err, values.account_ref, out) : undefined
          if (asked === undefined) throw err
          values.account_ref = asked
          client.settings.accountRef = asked
        }
      }
    } finally {
      await client.close()
    }
    // only now, with the credentials proven, is anything written
    const store = await rt.ProfileStore.open()
    const saved = await store.saveWithSecrets(name, {...values, live: name === rt.SANDBOX_PROFILE ? undefined : flags.live}, {activate: true, file: name === rt.SANDBOX_PROFILE})
    if (out.json) {
      out.data(JSON.stringify({profile: name, base_url: values.base_url, client_id: values.client_id, account_ref: values.account_ref ?? null, account: account ?? null}))
      return
    }
    const ctx = account as {merchant?: {name?: string; id?: number}; account?: {name?: string; account_ref?: string}} | undefined
    if (ctx?.merchant) out.info(`Logged in to ${values.base_url} as ${ctx.merchant.name} (merchant ${ctx.merchant.id}), account ${ctx.account?.name} (${ctx.account?.account_ref}).`)
    out.info(`Saved profile "${name}" (active) in ${store.path}${rt.savedSecretsNote(saved)}`)
  }
}

/**
 * The ref to try next when GET /v1/account failed for want of a (known) sub-account ref, else undefined. The
 * service does not list the refs: the person is told where they come from.
 */
async function askAccountRef(err: unknown, tried: string | undefined, out: {info(text: string): void}): Promise<string | undefined> {
  const e = err as {status?: number; message?: string}
  const needed = e.status === 400 && /x-service-account-ref/i.test(e.message ?? '')
  const unknown = e.status === 404 && tried !== undefined
  if (!needed && !unknown) return undefined
  out.info(
    needed
      ? 'This merchant has sub-accounts: every request names one by its account ref (X-Service-Account-Ref). The account owner or the dashboard has the refs.'
      : `No sub-account "${tried}" for these credentials; check the ref.`,
  )
  const {input} = await import('@inquirer/prompts')
  return input({message: 'Sub-account ref', validate: (v) => v.trim() !== '' || 'required: this merchant has sub-accounts'}, {output: process.stderr})
}

function validUrl(v: string, check: (u: string) => unknown): true | string {
  try {
    check(v)
    return true
  } catch (err) {
    return (err as Error).message.replace(/^--base-url /, '')
  }
}
