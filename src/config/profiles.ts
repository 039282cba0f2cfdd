/**
 * Stored profiles, one JSON file `profiles.json` in the config dir, mode 0600.
 * Each profile: base URL, client id, client secret, sub-account ref, webhook secret.
 *
 * Reading (every API command, with a stored profile) parses the file here, directly, with the profile schema
 * (src/config/profile-schema.ts): no conf, so none of its ajv, ajv-formats and semver (~130 ms) on that path.
 * Writing goes through conf (atomic writes, 0600), loaded by ProfileStore.open() only. Every change holds
 * `profiles.lock` while it re-reads the file, changes it and writes it, so parallel `pay profiles add` never lose
 * each other's profiles.
 */
import {chmodSync, mkdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import type Conf from 'conf'
import {PayError} from '../base/errors.js'
import {ExitCode} from '../base/exit-codes.js'
import {withFileLockSync} from './file-lock.js'
import {CONFIG_DIR_MODE, SECRET_FILE_MODE, configDir} from './paths.js'
import {randomUUID, sha256Hex} from '../base/digest.js'
import {DEFAULT_PROFILE, PROFILE_NAME, SECRET_FIELDS, type Profile, type ProfilesFile, type SecretField, profileSchema, profilesFileSchema} from './profile-schema.js'
import {exactPlans} from './profile-plans.generated.js'
import {storedCheck} from '../api/sure-match.js'
import {forgetKeyringSecrets, keyringAbsence, keyringAccount, keyringReason, keyringSet, secretStoreChoice} from './secret-store.js'

export type {Profile} from './profile-schema.js'

const PROFILES_FILE = 'profiles.json'

function profilesPath(dir = configDir()): string {
  return join(dir, PROFILES_FILE)
}

/** The profiles file of `dir`, validated; undefined when there is none. A broken file is reported, never replaced. */
export function readProfiles(dir = configDir()): ProfilesFile | undefined {
  const path = profilesPath(dir)
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    // no file, or a config dir that is not a directory (PAY_CONFIG_DIR naming a file, a home that is a file)
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined
    throw err
  }
  let json: unknown
  try {
    // an empty file is what conf itself reads as no settings
    json = text.trim() === '' ? {} : JSON.parse(text)
  } catch (err) {
    throw brokenFile(path, (err as Error).message)
  }
  // the usual file, judged by its stored plan without building the schema (a yes: zod's output is the value itself)
  if (storedCheck(exactPlans, 'profilesFile')?.(json)) return json as ProfilesFile
  const parsed = profilesFileSchema().safeParse(json)
  if (!parsed.success) throw brokenFile(path, parsed.error.issues[0]?.message ?? 'invalid')
  return parsed.data
}

/** A profiles file that cannot be used: where it is and what to do about it. */
function brokenFile(path: string, why: string): PayError {
  return new PayError(
    `${path} is not a valid profiles file: ${why}`,
    ExitCode.OTHER,
    'fix it by hand, or move it aside and run `pay login` again; PAY_BASE_URL, PAY_CLIENT_ID and PAY_CLIENT_SECRET work without it',
  )
}

/** The profiles, sorted by name, the active one marked. */
export function listProfiles(data: ProfilesFile): {name: string; profile: Profile; active: boolean}[] {
  const active = data.active ?? DEFAULT_PROFILE
  return Object.keys(data.profiles)
    .sort()
    .map((name) => ({name, profile: data.profiles[name], active: name === active}))
}

/** The profiles file for commands that change it (login, profiles add|use|remove, logout --all, sandbox start). */
export class ProfileStore {
  readonly path: string

  private constructor(
    private readonly conf: Conf<ProfilesFile>,
    private readonly dir: string,
  ) {
    this.path = profilesPath(dir)
  }

  static async open(dir = configDir()): Promise<ProfileStore> {
    try {
      mkdirSync(dir, {recursive: true, mode: CONFIG_DIR_MODE})
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'error'
      throw new PayError(
        `cannot create the config dir ${dir} to save profiles (${code}${code === 'EEXIST' || code === 'ENOTDIR' ? ': a file is in the way' : ''})`,
        ExitCode.OTHER,
        'set PAY_CONFIG_DIR to a writable directory, or use PAY_BASE_URL, PAY_CLIENT_ID and PAY_CLIENT_SECRET without a profile',
      )
    }
    readProfiles(dir) // a hand-edited broken file is reported before conf sees it
    const {default: ConfClass} = await import('conf')
    // conf writes its defaults when the file is missing: under the lock, so that cannot undo another's write
    const conf = withFileLockSync(lockPath(dir), () => new ConfClass<ProfilesFile>({
      cwd: dir,
      configName: PROFILES_FILE.replace(/\.json$/, ''),
      projectName: 'pay',
      configFileMode: SECRET_FILE_MODE,
      defaults: {profiles: {}},
      clearInvalidConfig: false,
    }))
    return new ProfileStore(conf, dir)
  }

  private read(): ProfilesFile {
    return readProfiles(this.dir) ?? {profiles: {}}
  }

  /** Re-reads the file, changes it and writes it back, all under the lock. */
  private update<T>(change: (data: ProfilesFile) => T): T {
    return withFileLockSync(lockPath(this.dir), () => {
      const data = this.read()
      const result = change(data)
      this.conf.store = data
      chmodSync(this.path, SECRET_FILE_MODE)
      return result
    })
  }

  list(): {name: string; profile: Profile; active: boolean}[] {
    return listProfiles(this.read())
  }

  activeName(): string {
    return this.read().active ?? DEFAULT_PROFILE
  }

  get(name: string): Profile | undefined {
    return this.read().profiles[name]
  }

  /** Creates or updates a profile; fields given as undefined are left as they were. */
  save(name: string, fields: Profile, options: {activate?: boolean} = {}): Profile {
    assertProfileName(name)
    return this.update((data) => {
      const merged = profileSchema().parse({...data.profiles[name], ...stripUndefined(fields)})
      data.profiles[name] = merged
      if (options.activate || data.active === undefined) data.active = name
      return merged
    })
  }

  /** Removes the named fields of a profile (e.g. the secrets on `pay logout --all`), from the OS keyring too. */
  async unset(name: string, fields: (keyof Profile)[]): Promise<void> {
    let leaving: {id: string; fields: SecretField[]} | undefined
    this.update((data) => {
      const profile = data.profiles[name]
      if (!profile) return
      for (const f of fields) delete profile[f]
      if (profile.keyring) ({leaving, keyring: profile.keyring} = dropKeyringFields(profile.keyring, fields))
      if (!profile.keyring) delete profile.keyring
    })
    if (leaving) await forgetKeyringSecrets(leaving.id, leaving.fields)
  }

  /**
   * Creates or updates a profile as save() does, its secrets in the OS keyring where one answers (PAY_SECRET_STORE
   * decides; `file: true` keeps them in this file, as for the sandbox's public seed credentials), else in this 0600
   * file, saying why in `fallback`. A secret moved to the file leaves the keyring, and one moved to the keyring the
   * file.
   */
  async saveWithSecrets(name: string, fields: Profile, options: {activate?: boolean; file?: boolean} = {}, env: NodeJS.ProcessEnv = process.env): Promise<SavedProfile> {
    assertProfileName(name)
    const given = SECRET_FIELDS.filter((f) => fields[f] !== undefined)
    if (given.length === 0) return {profile: this.save(name, fields, options), secrets: 'none'}
    const choice = options.file ? 'file' : secretStoreChoice(env)
    let fallback: string | undefined
    if (choice !== 'file') {
      const id = this.get(name)?.keyring?.id ?? randomUUID()
      try {
        const absent = keyringAbsence(env)
        if (absent) throw new Error(absent)
        for (const field of given) await keyringSet(keyringAccount(id, field), fields[field] as string)
      } catch (err) {
        if (choice === 'keyring') {
          throw new PayError(`PAY_SECRET_STORE=keyring, but the OS keyring cannot be used: ${keyringReason(err)}`, ExitCode.OTHER, 'start or unlock the keyring (the Secret Service on Linux), or set PAY_SECRET_STORE=file')
        }
        fallback = keyringReason(err)
      }
      if (fallback === undefined) {
        const profile = this.merge(name, fields, options, (merged, old) => {
          const kept = old?.keyring?.id === id ? old.keyring.fields : []
          for (const field of given) delete merged[field]
          merged.keyring = {
            id,
            fields: SECRET_FIELDS.filter((f) => given.includes(f) || kept.includes(f)),
            client_secret_sha256: fields.client_secret !== undefined ? sha256Hex(fields.client_secret) : old?.keyring?.client_secret_sha256,
          }
        })
        return {profile, secrets: 'keyring'}
      }
    }
    let leaving: {id: string; fields: SecretField[]} | undefined
    const profile = this.merge(name, fields, options, (merged) => {
      if (merged.keyring) ({leaving, keyring: merged.keyring} = dropKeyringFields(merged.keyring, given))
    })
    if (leaving) await forgetKeyringSecrets(leaving.id, leaving.fields)
    return {profile, secrets: 'file', fallback}
  }

  /** save() with a last change to the merged profile, under the same lock. */
  private merge(name: string, fields: Profile, options: {activate?: boolean}, change: (merged: Profile, old: Profile | undefined) => void): Profile {
    return this.update((data) => {
      const old = data.profiles[name]
      const merged: Profile = {...old, ...stripUndefined(fields)}
      change(merged, old)
      data.profiles[name] = profileSchema().parse(stripUndefined(merged))
      if (options.activate || data.active === undefined) data.active = name
      return data.profiles[name]
    })
  }

  use(name: string): void {
    this.update((data) => {
      if (!data.profiles[name]) throw new Error(`no profile named "${name}"`)
      data.active = name
    })
  }

  /** Deletes a profile and its secrets in the OS keyring; false when there was none. */
  async remove(name: string): Promise<boolean> {
    const removed = this.update((data) => {
      const profile = data.profiles[name]
      if (!profile) return undefined
      delete data.profiles[name]
      if (data.active === name) delete data.active
      return profile
    })
    if (removed?.keyring) await forgetKeyringSecrets(removed.keyring.id, removed.keyring.fields)
    return removed !== undefined
  }
}

/** What saveWithSecrets() did: where the secrets went, and why not to the keyring when it was tried. */
interface SavedProfile {
  profile: Profile
  secrets: 'keyring' | 'file' | 'none'
  fallback?: string
}

/** The end of a "Saved profile" line: where its secrets went, and why not to the keyring when it was tried. */
export function savedSecretsNote(saved: SavedProfile): string {
  // the keyring holds the secret fields; a password in the base URL stays in the URL, in the file
  if (saved.secrets === 'keyring') return `; secrets in the OS keyring${urlHasPassword(saved.profile.base_url) ? " (the base URL's password stays in this 0600 file)" : ''}`
  if (saved.secrets === 'file' && saved.fallback) return ` (secrets in this 0600 file: the OS keyring cannot be used: ${saved.fallback})`
  return ''
}

function urlHasPassword(url: string | undefined): boolean {
  if (url === undefined) return false
  try {
    return new URL(url).password !== ''
  } catch {
    return false
  }
}

type KeyringRef = NonNullable<Profile['keyring']>

/** A keyring reference without `fields`: what is left of it (undefined: nothing), and the entries leaving it. */
function dropKeyringFields(kept: KeyringRef, fields: readonly string[]): {keyring?: KeyringRef; leaving: {id: string; fields: SecretField[]}} {
  const left = kept.fields.filter((f) => !fields.includes(f))
  const leaving = {id: kept.id, fields: kept.fields.filter((f) => fields.includes(f))}
  if (left.length === 0) return {leaving}
  return {leaving, keyring: {...kept, fields: left, client_secret_sha256: left.includes('client_secret') ? kept.client_secret_sha256 : undefined}}
}

function lockPath(dir: string): string {
  return join(dir, 'profiles.lock')
}

export function assertProfileName(name: string): void {
  if (!PROFILE_NAME.test(name)) throw new Error(`profile name "${name}" must be letters, digits, ".", "_" or "-" (at most 64)`)
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>
}
