/**
 * `pay profiles migrate` and `saveWithSecrets` in-process, where no keyring can be reached (no D-Bus session in the
 * environment they are given): what falls back, what refuses, what says nothing needs moving. The keyring itself is
 * tested against a real Secret Service in test/e2e/keyring.test.ts.
 */
import {readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {runProfilesMigrate} from '../../src/profiles/migrate.js'
import {ProfileStore, savedSecretsNote} from '../../src/config/profiles.js'
import {keyringAbsence, secretStoreChoice} from '../../src/config/secret-store.js'
import {tempConfigDir} from '../helpers/cli.js'
import {memoryOutput} from '../helpers/in-process.js'

const noBus: NodeJS.ProcessEnv = {}

describe('secrets without a keyring', () => {
  it('auto falls back to the 0600 file and says why; file forces it silently; keyring refuses', async () => {
    const dir = tempConfigDir()
    const store = await ProfileStore.open(dir)
    const saved = await store.saveWithSecrets('a', {client_id: 'c', client_secret: 's-1'}, {}, noBus)
    expect(saved.secrets).toBe('file')
    expect(savedSecretsNote(saved)).toContain('the OS keyring cannot be used: no D-Bus session')
    expect([saved.profile.client_secret, saved.profile.keyring]).toEqual(['s-1', undefined])
    expect(statSync(join(dir, 'profiles.json')).mode & 0o777).toBe(0o600)
    const forcedFile = await store.saveWithSecrets('b', {client_secret: 's-2'}, {}, {PAY_SECRET_STORE: 'file'})
    expect(savedSecretsNote(forcedFile)).toBe('')
    await expect(store.saveWithSecrets('c', {client_secret: 's-3'}, {}, {PAY_SECRET_STORE: 'keyring'})).rejects.toThrow(/PAY_SECRET_STORE=keyring, but the OS keyring cannot be used/)
    expect(store.get('c')).toBeUndefined()
    expect((await store.saveWithSecrets('d', {client_id: 'x'}, {}, noBus)).secrets).toBe('none')
  })

  it('migrate to the keyring fails with the reason and leaves the file as it was; to the file, nothing to move', async () => {
    const dir = tempConfigDir()
    const store = await ProfileStore.open(dir)
    await store.saveWithSecrets('a', {client_secret: 's-1'}, {}, noBus)
    const before = readFileSync(join(dir, 'profiles.json'), 'utf8')
    const {out} = memoryOutput(false)
    await expect(runProfilesMigrate(store, {names: [], to: 'keyring', env: noBus}, out)).rejects.toThrow(/no D-Bus session/)
    expect(readFileSync(join(dir, 'profiles.json'), 'utf8')).toBe(before)
    const {out: out2, stderr} = memoryOutput(false)
    expect(await runProfilesMigrate(store, {names: ['a'], to: 'file', env: noBus}, out2)).toEqual([{profile: 'a', moved: [], store: 'file'}])
    expect(stderr()).toContain('Profile "a": nothing to move')
    await expect(runProfilesMigrate(store, {names: ['zz'], to: 'file'}, out2)).rejects.toThrow('no profile named "zz"')
  })

  it('PAY_SECRET_STORE and the D-Bus check', () => {
    expect(secretStoreChoice({})).toBe('auto')
    expect(secretStoreChoice({PAY_SECRET_STORE: 'Keyring'})).toBe('keyring')
    expect(() => secretStoreChoice({PAY_SECRET_STORE: 'vault'})).toThrow(/file, keyring or auto/)
    if (process.platform === 'linux') {
      expect(keyringAbsence({})).toMatch(/no D-Bus session/)
      expect(keyringAbsence({DBUS_SESSION_BUS_ADDRESS: 'unix:path=/x'})).toBeUndefined()
    }
  })
})
