/**
 * Hardening (issue 12, "What a new user tripped on"): interactive `pay login` for a merchant with sub-accounts
 * explains why a ref is needed only when the service says so, insists on one, says when a ref is unknown, and
 * saves the profile that works. In a pseudo-terminal (util-linux `script`), against the sandbox; the questions'
 * logic in-process: test/profiles/login.test.ts.
 */
import {spawnSync} from 'node:child_process'
import {describe, expect, it} from 'vitest'
import {json, tempConfigDir} from '../helpers/cli.js'
import {runCommand} from '../helpers/in-process.js'
import {runInPty, useSandbox} from '../helpers/command-harness.js'

const h = useSandbox()
const hasScript = spawnSync('script', ['--version']).status === 0
const BACKSPACE = '\u007F'

/** `pay login --profile NAME` in a pseudo-terminal: base URL, client id and secret of a seeded merchant, then `more`. */
async function login(profile: string, merchant: string, more: Parameters<typeof runInPty>[2]) {
  const dir = tempConfigDir()
  const client = h.sb.seed.merchants.find((m) => m.key === merchant)!.clients[0]
  const steps = [
    {expect: /Base URL/, send: `${BACKSPACE.repeat(8)}${h.sb.url}\r`},
    {expect: /Client id/, send: `${client.client_id}\r`},
    {expect: /Client secret/, send: `${client.client_secret}\r`},
    {expect: /Is this the live service/, send: '\r'}, // no (issue 14: live profiles)
    ...more,
  ]
  return {dir, r: await runInPty(['login', '--profile', profile], {PAY_CONFIG_DIR: dir}, steps, 30_000)}
}

describe.skipIf(!hasScript)('interactive pay login, sub-accounts', () => {
  it('explains, refuses an empty ref, says when a ref is unknown, and saves the ref that works', async () => {
    const {dir, r} = await login('sub', 'globex', [
      {expect: /sub-accounts[\s\S]*Sub-account ref/, send: '\r'},
      {expect: /required/, send: 'no-such-account\r'},
      {expect: /no-such-account[\s\S]*Sub-account ref/, send: 'globex-east\r'},
    ])
    expect(r.code, r.screen).toBe(0)
    expect(r.screen).toContain('Saved profile "sub"')
    const shown = json(await runCommand(['profiles', 'show', 'sub', '--json'], {env: {PAY_CONFIG_DIR: dir}}))
    expect(shown).toMatchObject({account_ref: 'globex-east'})
  })
})
