/** `pay profiles list|use|remove`: options and Output in, the result out (the oclif classes only parse). */
import {PayError} from '../base/errors.js'
import {ExitCode} from '../base/exit-codes.js'
import {configDir} from '../config/paths.js'
import {redactProfile} from '../config/profile-view.js'
import {listProfiles, ProfileStore, readProfiles} from '../config/profiles.js'
import {cacheKey, TokenCache} from '../config/token-cache.js'
import type {Output} from '../output/output.js'

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
