/**
 * Where there is no D-Bus session (CI, containers), profile secrets go to the 0600 profiles file with one notice, and
 * PAY_SECRET_STORE forces a store (src/config/secret-store.ts): the profile commands in-process (runCommand). Against
 * a real Secret Service: test/e2e/keyring.test.ts.
 */
import {readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {json, tempConfigDir} from '../helpers/cli.js'
import {runCommand} from '../helpers/in-process.js'

function profilesFile(config: string): {profiles: Record<string, Record<string, unknown>>} {
  return JSON.parse(readFileSync(join(config, 'profiles.json'), 'utf8'))
}

describe('no D-Bus session (CI, containers): the 0600 file, and PAY_SECRET_STORE', () => {
  const noBus = {DBUS_SESSION_BUS_ADDRESS: undefined, XDG_RUNTIME_DIR: undefined}

  it('saves the secrets in the 0600 file with one notice saying why', async () => {
    const config = tempConfigDir()
    const r = await runCommand(['profiles', 'add', 'shop', '--base-url', 'https://api.example.com', '--client-id', 'cli_1'], {env: {...noBus, PAY_CONFIG_DIR: config, PAY_CLIENT_SECRET: 'file-secret-1'}})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain('secrets in this 0600 file: the OS keyring cannot be used: no D-Bus session')
    expect(r.stderr.match(/keyring/g)).toHaveLength(1)
    expect(profilesFile(config).profiles.shop.client_secret).toBe('file-secret-1')
    expect(statSync(join(config, 'profiles.json')).mode & 0o777).toBe(0o600)
    const shown = json(await runCommand(['profiles', 'show', 'shop', '--json'], {env: {...noBus, PAY_CONFIG_DIR: config}}))
    expect(shown.client_secret).toBe('[REDACTED] (set)')
    expect(shown.sources.clientSecret).toBe('profile')
  })

  it('PAY_SECRET_STORE=keyring refuses to fall back (exit 1) and saves nothing; a bad value is exit 2', async () => {
    const config = tempConfigDir()
    const forced = await runCommand(['profiles', 'add', 'shop', '--client-id', 'cli_1'], {env: {...noBus, PAY_CONFIG_DIR: config, PAY_CLIENT_SECRET: 'x-1', PAY_SECRET_STORE: 'keyring'}})
    expect(forced.code).toBe(1)
    expect(forced.stderr).toContain('PAY_SECRET_STORE=keyring, but the OS keyring cannot be used')
    expect(profilesFile(config).profiles.shop).toBeUndefined()
    const bad = await runCommand(['profiles', 'add', 'shop', '--client-id', 'cli_1'], {env: {...noBus, PAY_CONFIG_DIR: config, PAY_CLIENT_SECRET: 'x-1', PAY_SECRET_STORE: 'vault'}})
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('PAY_SECRET_STORE must be file, keyring or auto')
  })

  it('pay profiles migrate says what it cannot do without a keyring, and changes nothing', async () => {
    const config = tempConfigDir()
    await runCommand(['profiles', 'add', 'shop', '--client-id', 'cli_1'], {env: {...noBus, PAY_CONFIG_DIR: config, PAY_CLIENT_SECRET: 'x-2'}})
    const r = await runCommand(['profiles', 'migrate'], {env: {...noBus, PAY_CONFIG_DIR: config}})
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('the OS keyring cannot be used')
    expect(profilesFile(config).profiles.shop.client_secret).toBe('x-2')
  })
})
