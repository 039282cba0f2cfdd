/**
 * Stored profiles (conf), one JSON file `profiles.json` in the config dir, mode 0600.
 * Each profile: base URL, client id, client secret, sub-account ref, webhook secret.
 */
import Conf from 'conf'
import {chmodSync, mkdirSync} from 'node:fs'
import {join} from 'node:path'
import {CONFIG_DIR_MODE, SECRET_FILE_MODE, configDir} from './paths.js'
import {DEFAULT_PROFILE, PROFILE_NAME, type Profile, type ProfilesFile, profileSchema, profilesFileSchema} from './profile-schema.js'

export type {Profile} from './profile-schema.js'

export class ProfileStore {
  private readonly conf: Conf<ProfilesFile>
  readonly path: string

  constructor(dir = configDir()) {
    mkdirSync(dir, {recursive: true, mode: CONFIG_DIR_MODE})
    this.conf = new Conf<ProfilesFile>({
      cwd: dir,
      configName: 'profiles',
      projectName: 'pay',
      configFileMode: SECRET_FILE_MODE,
      defaults: {profiles: {}},
      clearInvalidConfig: false,
    })
    this.path = this.conf.path
    this.read() // validate early: a hand-edited broken file is reported, not silently replaced
  }

  static at(dir?: string): ProfileStore {
    return new ProfileStore(dir)
  }

  private read(): ProfilesFile {
    const parsed = profilesFileSchema.safeParse(this.conf.store)
    if (!parsed.success) throw new Error(`${this.path} is not a valid profiles file: ${parsed.error.issues[0]?.message ?? 'invalid'}`)
    return parsed.data
  }

  private write(data: ProfilesFile): void {
    this.conf.store = data
    chmodSync(this.path, SECRET_FILE_MODE)
  }

  list(): {name: string; profile: Profile; active: boolean}[] {
    const data = this.read()
    const active = data.active ?? DEFAULT_PROFILE
    return Object.keys(data.profiles)
      .sort()
      .map((name) => ({name, profile: data.profiles[name], active: name === active}))
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
    const data = this.read()
    const merged = profileSchema.parse({...data.profiles[name], ...stripUndefined(fields)})
    data.profiles[name] = merged
    if (options.activate || data.active === undefined) data.active = name
    this.write(data)
    return merged
  }

  /** Removes the named fields of a profile (e.g. the secrets on `pay logout --all`). */
  unset(name: string, fields: (keyof Profile)[]): void {
    const data = this.read()
    const profile = data.profiles[name]
    if (!profile) return
    for (const f of fields) delete profile[f]
    this.write(data)
  }

  use(name: string): void {
    const data = this.read()
    if (!data.profiles[name]) throw new Error(`no profile named "${name}"`)
    data.active = name
    this.write(data)
  }

  remove(name: string): boolean {
    const data = this.read()
    if (!data.profiles[name]) return false
    delete data.profiles[name]
    if (data.active === name) delete data.active
    this.write(data)
    return true
  }
}

export function assertProfileName(name: string): void {
  if (!PROFILE_NAME.test(name)) throw new Error(`profile name "${name}" must be letters, digits, ".", "_" or "-" (at most 64)`)
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>
}

export function profilesPath(dir = configDir()): string {
  return join(dir, 'profiles.json')
}
