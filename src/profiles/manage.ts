/**
 * `pay profiles add|show|list|use|remove` and `pay logout`: options and Output in, the result out (the oclif classes
 * only parse).
 */
import {InputError, PayError} from '../base/errors.js'
import {ExitCode} from '../base/exit-codes.js'
import {checkBaseUrl} from '../client/transport.js'
import {configDir} from '../config/paths.js'
import {SANDBOX_PROFILE} from '../config/profile-schema.js'
import {redactProfile, secretView} from '../config/profile-view.js'
import {assertProfileName, listProfiles, ProfileStore, readProfiles, savedSecretsNote} from '../config/profiles.js'
import {resolveSettings, secretFlag} from '../config/settings.js'
import {cacheKey, TokenCache} from '../config/token-cache.js'
import type {ApiContext} from '../operation/api-context.js'
import type {Output} from '../output/output.js'

/** Where a run function reads its settings and, for `--client-secret -`, the secret. */
interface ProfilesRun {
  /** default: the process's */
  env?: NodeJS.ProcessEnv
  /** default: the process's stdin */
  stdin?: NodeJS.ReadableStream
}

interface ProfilesAddOptions {
  name: string
  'base-url'?: string
  'client-id'?: string
  /** the secret, or `-` to read it from stdin */
  'client-secret'?: string
  'account-ref'?: string
  'webhook-secret'?: string
  'webhook-signature'?: string
  use?: boolean
  live?: boolean
  'mcp-allow-money'?: boolean
}

/** `pay profiles add NAME`: every flag checked before anything is stored; secrets to the keyring or the 0600 file. */
export async function runProfilesAdd(o: ProfilesAddOptions, out: Output, run: ProfilesRun = {}): Promise<Record<string, unknown>> {
  const env = run.env ?? process.env
  try {
    assertProfileName(o.name)
  } catch (err) {
    throw InputError.one('NAME', (err as Error).message.replace(/^profile name "[^"]*" /, ''))
  }
  if (o['base-url']) checkBaseUrl(o['base-url'])
  // node:crypto only for a pinned signature scheme (a profile without one loads none)
  const problem = o['webhook-signature'] ? (await import('../webhooks/signature.js')).pinnedScheme(o['webhook-signature']).problem : undefined
  if (problem) throw InputError.one('--webhook-signature', problem)
  if (o.live && o.name === SANDBOX_PROFILE) throw InputError.one('--live', `cannot mark the "${SANDBOX_PROFILE}" profile live (it is the local sandbox)`)
  const store = await ProfileStore.open(configDir(env))
  const saved = await store.saveWithSecrets(
    o.name,
    {
      base_url: o['base-url']?.replace(/\/+$/, ''),
      client_id: o['client-id'],
      client_secret: (await secretFlag(o['client-secret'], '--client-secret', run.stdin)) ?? env.PAY_CLIENT_SECRET,
      account_ref: o['account-ref'],
      webhook_secret: o['webhook-secret'] ?? env.PAY_WEBHOOK_SECRET,
      webhook_signature: o['webhook-signature'],
      live: o.live,
      mcp_allow_money: o['mcp-allow-money'],
    },
    {activate: o.use},
    env,
  )
  const result = {name: o.name, ...redactProfile(saved.profile)}
  return report(out, result, `Saved profile "${o.name}"${store.activeName() === o.name ? ' (active)' : ''} in ${store.path}${savedSecretsNote(saved)}`)
}

/**
 * `pay profiles show [NAME]`: the settings in effect (flag > environment > profile) and where each comes from, the
 * same view as `profiles list` (secrets as whether they are set and where they live, never their values).
 */
export async function runProfilesShow(o: {name?: string; profile?: string; 'base-url'?: string; 'account-ref'?: string}, out: Output, run: ProfilesRun = {}): Promise<Record<string, unknown>> {
  const s = await resolveSettings({profile: o.name ?? o.profile, 'base-url': o['base-url'], 'account-ref': o['account-ref']}, run.env)
  if (o.name && !s.profileFound) throw new PayError(`no profile named "${o.name}"`, ExitCode.NOT_FOUND)
  const shown = redactProfile({base_url: s.baseUrl, client_id: s.clientId, client_secret: s.clientSecret, account_ref: s.accountRef, webhook_secret: s.webhookSecret, webhook_signature: s.webhookSignature, live: s.live === true})
  // where each secret lives: the flag, the environment, the profiles file or the OS keyring (never its value)
  const secret = (key: 'clientSecret' | 'webhookSecret') => secretView(s.sources[key] === 'profile' ? 'file' : s.sources[key] === 'default' ? undefined : s.sources[key])
  const view = {profile: s.profileName, profile_found: s.profileFound, ...shown, client_secret: secret('clientSecret'), webhook_secret: secret('webhookSecret'), sources: s.sources, config_dir: s.configDir}
  out.body(JSON.stringify(view), view)
  return view
}

/** `pay logout [--all]`: the cached token of the credentials in effect, or every token and every stored secret. */
export async function runLogout(o: {profile?: string; all?: boolean}, out: Output, run: ProfilesRun = {}): Promise<Record<string, unknown>> {
  const env = run.env ?? process.env
  const dir = configDir(env)
  const cache = new TokenCache(dir)
  if (o.all) {
    cache.delete()
    let cleared = 0
    if (readProfiles(dir)) {
      const store = await ProfileStore.open(dir)
      for (const {name} of store.list()) {
        await store.unset(name, ['client_secret', 'webhook_secret'])
        cleared++
      }
    }
    return report(out, {tokens_forgotten: 'all', profiles_cleared: cleared}, `Forgot every cached token and the secrets of ${cleared} profile(s).`)
  }
  const settings = await resolveSettings({profile: o.profile}, env)
  if (settings.baseUrl && settings.clientId) cache.delete(cacheKey(settings.baseUrl, settings.clientId, settings.clientSecret, settings.clientSecretSha256))
  return report(out, {profile: settings.profileName, tokens_forgotten: settings.clientId ? 1 : 0}, `Forgot the cached token of profile "${settings.profileName}".`)
}

const COLUMNS = ['active', 'name', 'base_url', 'client_id', 'account_ref', 'client_secret', 'webhook_secret']

export function runProfilesList(out: Output): Record<string, unknown>[] {
  const stored = readProfiles()
  const rows = stored ? listProfiles(stored).map(({name, profile, active}) => ({name, active, ...redactProfile(profile)})) : []
  if (out.json) out.data(JSON.stringify(rows))
  else if (rows.length === 0) out.info('No profiles yet: run `pay login`, or `pay sandbox start` for a local one.')
  else out.data(out.list(rows.map((r) => ({...r, active: r.active ? '*' : ''})), COLUMNS))
  return rows
}

/** The named profile, or exit 4 naming the ones there are. */
function requireProfile(name: string) {
  const stored = readProfiles()
  const profile = stored?.profiles[name]
  if (profile) return profile
  const names = stored ? listProfiles(stored).map((p) => p.name) : []
  throw new PayError(`no profile named "${name}"`, ExitCode.NOT_FOUND, names.length > 0 ? `known profiles: ${names.join(', ')}` : 'run `pay login` to create one')
}

export async function runProfilesUse(name: string, out: Output): Promise<{active: string}> {
  requireProfile(name)
  ;(await ProfileStore.open()).use(name)
  return report(out, {active: name}, `Active profile: ${name}`)
}

export async function runProfilesRemove(name: string, out: Output): Promise<{removed: string}> {
  const profile = requireProfile(name)
  if (!(await (await ProfileStore.open()).remove(name))) throw new PayError(`no profile named "${name}"`, ExitCode.NOT_FOUND)
  if (profile.base_url && profile.client_id) {
    new TokenCache(configDir()).delete(cacheKey(profile.base_url, profile.client_id, profile.client_secret, profile.keyring?.client_secret_sha256))
  }
  return report(out, {removed: name}, `Removed profile "${name}"`)
}

function report<T>(out: Output, result: T, line: string): T {
  if (out.json) out.data(JSON.stringify(result))
  else out.info(line)
  return result
}

/** `pay token`: the bearer token of the credentials in effect (cached while it has time to live); a secret. */
export async function runToken({client, out}: ApiContext): Promise<{access_token: string; expires_at: string; cached: boolean}> {
  const token = await client.token()
  const expires = new Date(token.expires_at).toISOString()
  if (out.json) out.data(JSON.stringify({access_token: token.access_token, token_type: token.token_type, expires_at: expires, cached: token.cached}))
  else {
    out.data(token.access_token)
    out.info(out.color('dim', `${token.cached ? 'cached' : 'new'} token, expires ${expires}`, 'err'))
  }
  return {access_token: token.access_token, expires_at: expires, cached: token.cached}
}
