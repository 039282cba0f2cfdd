/**
 * `pay login`'s run function: settings → (on a terminal) the missing values asked for → checked → credentials
 * proven (a fresh token, GET /v1/account; a sub-account ref asked for when the service says one is needed) → the
 * profile saved → a summary. Nothing is written unless the service accepted the credentials.
 */
import type {ClientOptions} from '../client/api-client.js'
import {SANDBOX_PROFILE} from '../config/profile-schema.js'
import {InputError} from '../base/errors.js'
import {redactUrl} from '../base/redact.js'
import {checkBaseUrl} from '../client/transport.js'
import {provesAbsent} from '../client/request-policy.js'
import {configDir} from '../config/paths.js'
import {ProfileStore, savedSecretsNote} from '../config/profiles.js'
import {resolveSettings} from '../config/settings.js'
import type {Output} from '../output/output.js'
import {printable} from '../output/printable.js'

interface LoginOptions {
  profile?: string
  'base-url'?: string
  'client-id'?: string
  'client-secret'?: string
  'account-ref'?: string
  'webhook-secret'?: string
  live?: boolean
  debug?: boolean
}

/** The questions `pay login` asks on a terminal (validate: true, or the rule the answer breaks). */
interface LoginAsker {
  input(message: string, validate: (value: string) => true | string, initial?: string): Promise<string>
  password(message: string, validate: (value: string) => true | string): Promise<string>
  confirm(message: string): Promise<boolean>
}

/** The questions asked with @inquirer/prompts, drawn on the Output's stderr. */
function inquirerAsker(out: Output): LoginAsker {
  const context = {output: out.errorStream}
  const inquirer = import('@inquirer/prompts')
  return {
    input: async (message, validate, initial) => (await inquirer).input({message, default: initial, validate}, context),
    password: async (message, validate) => (await inquirer).password({message, mask: '*', validate}, context),
    confirm: async (message) => (await inquirer).confirm({message, default: false}, context),
  }
}

interface LoginRun {
  userAgent: string
  /** The environment settings and the config dir are read from (default: the process's). */
  env?: NodeJS.ProcessEnv
  transport?: ClientOptions['transport']
  /** Default: inquirerAsker(out). Asked only when out.term.interactive. */
  asker?: LoginAsker
}

type Values = {base_url?: string; client_id?: string; client_secret?: string; account_ref?: string; webhook_secret?: string}

/** Runs `pay login`; returns the exit code (failures throw, for the caller to render). */
export async function runLogin(options: LoginOptions, out: Output, run: LoginRun): Promise<number> {
  const env = run.env ?? process.env
  const asker = run.asker ?? inquirerAsker(out)
  // flag > environment > the profile's stored values, the same precedence as every command
  const settings = await resolveSettings(options, env)
  const name = settings.profileName
  const values: Values = {base_url: settings.baseUrl, client_id: settings.clientId, client_secret: settings.clientSecret, account_ref: settings.accountRef, webhook_secret: settings.webhookSecret}
  let live = options.live
  if (out.term.interactive && (!values.base_url || !values.client_id || !values.client_secret)) live = await askMissing(values, asker, name === SANDBOX_PROFILE ? false : live)
  checkValues(values)
  const account = await proveCredentials(values, name, out, asker, {...run, env, debug: options.debug})
  // only now, with the credentials proven, is anything written
  const store = await ProfileStore.open(configDir(env))
  const saved = await store.saveWithSecrets(name, {...values, live: name === SANDBOX_PROFILE ? undefined : live}, {activate: true, file: name === SANDBOX_PROFILE}, env)
  if (out.json) {
    out.data(JSON.stringify({profile: name, base_url: redactUrl(values.base_url!), client_id: values.client_id, account_ref: values.account_ref ?? null, account: account ?? null}))
    return 0
  }
  const ctx = account as {merchant?: {name?: string; id?: number}; account?: {name?: string; account_ref?: string}} | undefined
  // the names and ids are the service's (GET /v1/account): made printable
  if (ctx?.merchant) out.info(printable(`Logged in to ${redactUrl(values.base_url!)} as ${ctx.merchant.name} (merchant ${ctx.merchant.id}), account ${ctx.account?.name} (${ctx.account?.account_ref}).`))
  out.info(`Saved profile "${name}" (active) in ${store.path}${savedSecretsNote(saved)}`)
  return 0
}

/** Asks for what is missing (the secret masked), and whether the profile is live unless that is known; returns it. */
async function askMissing(values: Values, asker: LoginAsker, live: boolean | undefined): Promise<boolean | undefined> {
  values.base_url ??= await asker.input('Base URL', (v) => validUrl(v), 'https://')
  values.client_id ??= await asker.input('Client id', (v) => v.trim() !== '' || 'required')
  values.client_secret ??= await asker.password('Client secret', (v) => v !== '' || 'required')
  // the sub-account ref is asked for only when the service says this merchant needs one (proveCredentials)
  return live ?? (await asker.confirm('Is this the live service? (money-moving commands will then ask before sending)'))
}

/** Every required value there (exit 2 naming each missing one), the base URL checked; its trailing slashes dropped. */
function checkValues(values: Values): void {
  const missing = []
  if (!values.base_url) missing.push({flag: '--base-url', rule: 'is required (or PAY_BASE_URL)'})
  if (!values.client_id) missing.push({flag: '--client-id', rule: 'is required (or PAY_CLIENT_ID)'})
  if (!values.client_secret) missing.push({flag: '--client-secret', rule: 'is required (or PAY_CLIENT_SECRET)'})
  if (missing.length > 0) throw new InputError(missing, 'pass them as flags or environment variables, or run `pay login` on a terminal')
  checkBaseUrl(values.base_url!)
  values.base_url = values.base_url!.replace(/\/+$/, '')
}

/**
 * A token just issued for exactly these credentials (a cached one would prove nothing about the secret), then
 * GET /v1/account: its answer. On a terminal, a merchant with sub-accounts is told why a ref is needed, then asked.
 */
async function proveCredentials(values: Values, name: string, out: Output, asker: LoginAsker, run: LoginRun & {env: NodeJS.ProcessEnv; debug?: boolean}): Promise<unknown> {
  const {createApiContext} = await import('../runtime.js')
  const flags = {profile: name, 'base-url': values.base_url, 'client-id': values.client_id, 'client-secret': values.client_secret, 'account-ref': values.account_ref, debug: run.debug}
  const {client} = await createApiContext(flags, run.userAgent, out, run.env, run.transport)
  try {
    await client.tokens.fresh()
    for (let tries = 0; ; tries++) {
      try {
        return (await client.call('account.get')).body
      } catch (err) {
        const asked = out.term.interactive && tries < 5 ? await askAccountRef(err, values.account_ref, out, asker) : undefined
        if (asked === undefined) throw err
        values.account_ref = asked
        client.settings.accountRef = asked
      }
    }
  } finally {
    await client.close()
  }
}

/**
 * The ref to try next when GET /v1/account failed for want of a (known) sub-account ref, else undefined. The
 * service does not list the refs: the person is told where they come from.
 */
async function askAccountRef(err: unknown, tried: string | undefined, out: Output, asker: LoginAsker): Promise<string | undefined> {
  const e = err as {status?: number; message?: string}
  const needed = e.status === 400 && /x-service-account-ref/i.test(e.message ?? '')
  const unknown = provesAbsent(err) && tried !== undefined
  if (!needed && !unknown) return undefined
  out.info(
    needed
      ? 'This merchant has sub-accounts: every request names one by its account ref (X-Service-Account-Ref). The account owner or the dashboard has the refs.'
      : `No sub-account "${tried}" for these credentials; check the ref.`,
  )
  return asker.input('Sub-account ref', (v) => v.trim() !== '' || 'required: this merchant has sub-accounts')
}

function validUrl(v: string): true | string {
  try {
    checkBaseUrl(v)
    return true
  } catch (err) {
    return (err as Error).message.replace(/^--base-url /, '')
  }
}
