/**
 * `pay profiles migrate`: moves the secrets of stored profiles to the OS keyring (or back to the file), so profiles
 * saved before the keyring existed, or on a machine without one, can be moved once one is there.
 */
import {PayError} from '../base/errors.js'
import type {Output} from '../output/output.js'
import {ExitCode} from '../base/exit-codes.js'
import {SANDBOX_PROFILE, SECRET_FIELDS, type Profile, type SecretField} from '../config/profile-schema.js'
import type {ProfileStore} from '../config/profiles.js'
import {keyringAccount, readKeyringSecret} from '../config/secret-store.js'

interface MigrateOptions {
  /** Profiles to move; all when empty. */
  names: string[]
  to: 'keyring' | 'file'
  env?: NodeJS.ProcessEnv
}

interface MigratedProfile {
  profile: string
  /** The secrets moved (already where they were asked to be: none). */
  moved: SecretField[]
  store: 'keyring' | 'file'
}

async function migrateProfiles(store: ProfileStore, options: MigrateOptions): Promise<MigratedProfile[]> {
  const all = store.list()
  for (const name of options.names) if (!all.some((p) => p.name === name)) throw new PayError(`no profile named "${name}"`, ExitCode.NOT_FOUND, 'pay profiles list shows them')
  // the sandbox profile's seed credentials are public: they stay in the file (as `pay sandbox start` saves them)
  const chosen = (options.names.length > 0 ? all.filter((p) => options.names.includes(p.name)) : all).filter((p) => p.name !== SANDBOX_PROFILE || options.to === 'file')
  const results: MigratedProfile[] = []
  for (const {name, profile} of chosen) {
    const moving = SECRET_FIELDS.filter((f) => (options.to === 'keyring' ? profile[f] !== undefined : profile.keyring?.fields.includes(f)))
    if (moving.length > 0) {
      const values: Profile = {}
      for (const field of moving) values[field] = options.to === 'keyring' ? profile[field] : await readKeyringSecret(keyringAccount(profile.keyring!.id, field), field.replace('_', ' '), name)
      // to the keyring or not at all: a forced store fails rather than fall back to the file it is leaving
      await store.saveWithSecrets(name, values, {file: options.to === 'file'}, {...(options.env ?? process.env), PAY_SECRET_STORE: 'keyring'})
    }
    results.push({profile: name, moved: moving, store: options.to})
  }
  return results
}

/** The command: moves the secrets and says what moved (JSON: the list). */
export async function runProfilesMigrate(store: ProfileStore, options: MigrateOptions, out: Output): Promise<MigratedProfile[]> {
  const results = await migrateProfiles(store, options)
  if (out.json) out.data(JSON.stringify(results))
  else if (results.length === 0) out.info('No profiles to migrate.')
  else for (const r of results) out.info(r.moved.length > 0 ? `Profile "${r.profile}": ${r.moved.join(' and ')} moved to the ${r.store === 'keyring' ? 'OS keyring' : 'profiles file'}` : `Profile "${r.profile}": nothing to move`)
  return results
}
