/**
 * Resolves the settings of one run: flag > environment > profile.
 * Environment: PAY_PROFILE, PAY_BASE_URL, PAY_CLIENT_ID, PAY_CLIENT_SECRET, PAY_ACCOUNT_REF, PAY_WEBHOOK_SECRET,
 * PAY_WEBHOOK_SIGNATURE.
 * With PAY_BASE_URL, PAY_CLIENT_ID and PAY_CLIENT_SECRET set, no config file is read or needed.
 */
import {InputError} from '../base/errors.js'
import {redactUrl} from '../base/redact.js'
import {configDir} from './paths.js'
import {DEFAULT_PROFILE, type Profile} from './profile-schema.js'
import {readProfiles} from './profiles.js'
import {keyringAccount, readKeyringSecret} from './secret-store.js'

export interface SettingFlags {
  profile?: string
  'base-url'?: string
  'account-ref'?: string
  'client-id'?: string
  'client-secret'?: string
  'webhook-secret'?: string
  'webhook-signature'?: string
}

/** Where a setting came from; 'keyring': the profile names it, and the OS keyring holds it (read on first use). */
type Source = 'flag' | 'env' | 'profile' | 'keyring' | 'default'

/** The settings that may be secrets kept in the OS keyring. */
type SecretSetting = 'clientSecret' | 'webhookSecret'

export interface Settings {
  profileName: string
  /** True when the named profile exists in the file. */
  profileFound: boolean
  /** How many profiles the file holds, when it was read (0: all were removed). */
  profilesStored?: number
  baseUrl?: string
  clientId?: string
  clientSecret?: string
  accountRef?: string
  webhookSecret?: string
  /** The one webhook signature scheme accepted, once known (src/webhooks/signature.ts: SCHEME_IDS). */
  webhookSignature?: string
  sources: Partial<Record<'baseUrl' | 'clientId' | 'clientSecret' | 'accountRef' | 'webhookSecret' | 'webhookSignature' | 'profileName', Source>>
  configDir: string
  /** --profile or PAY_PROFILE names a profile the file does not hold, and one of the connection settings was to come from it. */
  missingProfile?: {name: string; known: string[]}
  /** The profile is marked live (`pay profiles add --live`) and its base URL is the one used. */
  live?: boolean
  /** SHA-256 of the client secret while the secret itself stays in the OS keyring (the token cache's key). */
  clientSecretSha256?: string
  /**
   * A secret by its setting: as resolved, or read from the OS keyring on first use (then kept on these settings).
   * Only present when the profile keeps a secret there; commands call `secretSetting()`.
   */
  loadSecret?: (key: SecretSetting) => Promise<string | undefined>
  /** The profile lets `pay mcp` list its money tools (`pay profiles add --mcp-allow-money`). */
  mcpAllowMoney?: boolean
}

/** A secret setting, read from the OS keyring when the profile keeps it there (src/config/secret-store.ts). */
async function secretSetting(settings: Pick<Settings, SecretSetting | 'loadSecret'>, key: SecretSetting): Promise<string | undefined> {
  return settings[key] ?? (await settings.loadSecret?.(key))
}

const FIELDS = [
  ['baseUrl', 'base-url', 'PAY_BASE_URL', 'base_url'],
  ['clientId', 'client-id', 'PAY_CLIENT_ID', 'client_id'],
  ['clientSecret', 'client-secret', 'PAY_CLIENT_SECRET', 'client_secret'],
  ['accountRef', 'account-ref', 'PAY_ACCOUNT_REF', 'account_ref'],
  ['webhookSecret', 'webhook-secret', 'PAY_WEBHOOK_SECRET', 'webhook_secret'],
  ['webhookSignature', 'webhook-signature', 'PAY_WEBHOOK_SIGNATURE', 'webhook_signature'],
] as const

/**
 * The base URL of the settings as pay shows it (a password or token in it replaced: redactUrl); the client's
 * shownBaseUrl() is the same for a checked one. Nothing prints settings.baseUrl itself.
 */
export function shownBaseUrl(settings: Pick<Settings, 'baseUrl'>): string | undefined {
  return settings.baseUrl === undefined ? undefined : redactUrl(settings.baseUrl)
}

/** The environment variables the settings of an API command are read from (besides the config dir's). */
export const SETTING_ENV: readonly string[] = ['PAY_PROFILE', ...FIELDS.map(([, , envName]) => envName)]

/**
 * `--client-secret -`: the secret is read from stdin (one trailing line break dropped), so that it never sits in
 * argv, which the process list and oclif's DEBUG=* show. Any other value is returned as given.
 */
export async function secretFlag(value: string | undefined, flag = '--client-secret', stdin?: NodeJS.ReadableStream): Promise<string | undefined> {
  if (value !== '-') return value
  const chunks: Buffer[] = []
  for await (const chunk of stdin ?? process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk))
  const secret = Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '')
  if (secret === '') throw InputError.one(flag, '- reads the secret from stdin, which was empty')
  return secret
}

/** The webhook secrets to verify or sign with: the --secret flags, else the one in effect (env, profile, keyring). */
export async function webhookSecrets(given: string[] | undefined, settings: Pick<Settings, SecretSetting | 'loadSecret'>): Promise<string[]> {
  if (given?.length) return given
  const secret = await secretSetting(settings, 'webhookSecret')
  return secret ? [secret] : []
}

export async function resolveSettings(given: SettingFlags, env: NodeJS.ProcessEnv = process.env): Promise<Settings> {
  const flags = given['client-secret'] === '-' ? {...given, 'client-secret': await secretFlag(given['client-secret'])} : given
  const dir = configDir(env)
  let profileName = flags.profile
  let nameSource: Source = 'flag'
  if (!profileName && env.PAY_PROFILE) {
    profileName = env.PAY_PROFILE
    nameSource = 'env'
  }

  // Read the profile file only when something is still missing: CI with env vars never touches it.
  const missing = FIELDS.some(([, flag, envName]) => !flags[flag] && !env[envName])
  let profile: Profile | undefined
  const stored = missing || profileName ? readProfiles(dir) : undefined
  if (stored) {
    if (!profileName) {
      profileName = stored.active ?? DEFAULT_PROFILE
      nameSource = 'profile'
    }
    profile = stored.profiles[profileName]
  }
  if (!profileName) {
    profileName = DEFAULT_PROFILE
    nameSource = 'default'
  }

  const settings: Settings = {profileName, profileFound: profile !== undefined, profilesStored: stored && Object.keys(stored.profiles).length, sources: {profileName: nameSource}, configDir: dir}
  for (const [key, flag, envName, profileKey] of FIELDS) {
    const fromFlag = flags[flag]
    const fromEnv = env[envName]
    const fromProfile = profile?.[profileKey]
    if (fromFlag) {
      settings[key] = fromFlag
      settings.sources[key] = 'flag'
    } else if (fromEnv) {
      settings[key] = fromEnv
      settings.sources[key] = 'env'
    } else if (fromProfile) {
      settings[key] = fromProfile
      settings.sources[key] = 'profile'
    } else if ((profileKey === 'client_secret' || profileKey === 'webhook_secret') && profile?.keyring?.fields.includes(profileKey)) {
      settings.sources[key] = 'keyring'
    }
  }
  const kept = profile?.keyring
  if (kept && (settings.sources.clientSecret === 'keyring' || settings.sources.webhookSecret === 'keyring')) {
    if (settings.sources.clientSecret === 'keyring') settings.clientSecretSha256 = kept.client_secret_sha256
    const name = profileName
    settings.loadSecret = async (key) => {
      if (settings[key] !== undefined || settings.sources[key] !== 'keyring') return settings[key]
      const field = key === 'clientSecret' ? 'client_secret' : 'webhook_secret'
      settings[key] = await readKeyringSecret(keyringAccount(kept.id, field), field.replace('_', ' '), name)
      return settings[key]
    }
  }
  // a profile asked for by name that is not there, while the connection still needs something from a profile
  const named = nameSource === 'flag' || nameSource === 'env'
  const needsProfile = (['baseUrl', 'clientId', 'clientSecret'] as const).some((key) => settings.sources[key] !== 'flag' && settings.sources[key] !== 'env')
  if (named && !profile && needsProfile) settings.missingProfile = {name: profileName, known: Object.keys(stored?.profiles ?? {}).sort()}
  if (settings.baseUrl) settings.baseUrl = settings.baseUrl.replace(/\/+$/, '')
  // live only where the profile's own base URL is used (a flag or PAY_BASE_URL points elsewhere)
  settings.live = profile?.live === true && settings.sources.baseUrl === 'profile'
  if (profile?.mcp_allow_money === true) settings.mcpAllowMoney = true
  return settings
}
