/** What `pay profiles show` and `pay profiles list` print of a profile: never a secret, a base-URL password included. */
import {describe, expect, it} from 'vitest'
import {tempConfigDir} from '../helpers/cli.js'
import {runCommand} from '../helpers/in-process.js'

describe('profile views', () => {
  it('profiles show NAME redacts a password in the base URL, as profiles list does', async () => {
    const env = {PAY_CONFIG_DIR: tempConfigDir()}
    const add = await runCommand(['profiles', 'add', 'proxied', '--base-url', 'https://merchant:hunter2pass@api.example.com', '--client-id', 'cli_1'], {env})
    expect(add.code, add.stderr).toBe(0)
    for (const args of [['profiles', 'show', 'proxied', '--json'], ['profiles', 'show', 'proxied'], ['profiles', 'list', '--json']]) {
      const r = await runCommand(args, {env})
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout + r.stderr).not.toContain('hunter2pass')
      expect(r.stdout).toContain('[REDACTED]@api.example.com')
    }
    const shown = JSON.parse((await runCommand(['profiles', 'show', 'proxied', '--json'], {env})).stdout)
    expect(shown).toMatchObject({profile: 'proxied', profile_found: true, base_url: 'https://[REDACTED]@api.example.com', client_id: 'cli_1', client_secret: null, live: false})
  })
})
