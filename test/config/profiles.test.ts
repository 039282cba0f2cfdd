/**
 * Hardening (issue 12, concurrency): writes to profiles.json take a lock and re-read the file before writing, so
 * parallel `pay profiles add` with different names keep every profile.
 */
import {statSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {json, runCli, tempConfigDir} from '../helpers/cli.js'
import {savedSecretsNote} from '../../src/config/profiles.js'

describe('parallel profile writes', () => {
  it('ten parallel `pay profiles add` with different names keep all ten, and the file stays 0600', async () => {
    const dir = tempConfigDir()
    const names = Array.from({length: 10}, (_, i) => `p${i}`)
    const results = await Promise.all(
      names.map((name) => runCli(['profiles', 'add', name, '--base-url', 'http://127.0.0.1:9', '--client-id', `id_${name}`], {env: {PAY_CONFIG_DIR: dir}, timeoutMs: 60_000})),
    )
    for (const r of results) expect(r.code, r.stderr).toBe(0)
    const list = await runCli(['profiles', 'list', '--json'], {env: {PAY_CONFIG_DIR: dir}})
    expect(list.code, list.stderr).toBe(0)
    const listed = json(list)
    const found = (Array.isArray(listed) ? listed : (listed.data ?? listed.profiles)).map((p: {name: string}) => p.name).sort()
    expect(found).toEqual(names)
    expect(statSync(join(dir, 'profiles.json')).mode & 0o777).toBe(0o600)
  })
})

describe('where a saved profile says its secrets went', () => {
  it("the keyring holds the secret fields; a base URL's password, kept in the file, is said to stay there", () => {
    const profile = (base_url: string) => ({base_url, client_id: 'c', keyring: {id: 'k', fields: ['client_secret' as const]}})
    expect(savedSecretsNote({profile: profile('https://pay.example'), secrets: 'keyring'})).toBe('; secrets in the OS keyring')
    expect(savedSecretsNote({profile: profile('https://proxy-user:pw@pay.example'), secrets: 'keyring'})).toBe("; secrets in the OS keyring (the base URL's password stays in this 0600 file)")
  })
})
