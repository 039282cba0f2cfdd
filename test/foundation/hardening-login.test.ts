/**
 * Hardening (issue 12, "What a new user tripped on"): interactive `pay login` for a merchant with sub-accounts
 * explains why a ref is needed only when the service says so, insists on one, says when a ref is unknown, and
 * saves the profile that works. In a pseudo-terminal (util-linux `script`), against the sandbox.
 */
import {spawnSync} from 'node:child_process'
import {describe, expect, it} from 'vitest'
import {json, runCli, tempConfigDir} from '../helpers/cli.js'
import {runInPty, useSandbox} from '../commands/support.js'

const h = useSandbox()
const hasScript = spawnSync('script', ['--version']).status === 0
const BACKSPACE = '\u007F'

describe.skipIf(!hasScript)('interactive pay login, sub-accounts', () => {
  it('explains, refuses an empty ref, says when a ref is unknown, and saves the ref that works', async () => {
    const dir = tempConfigDir()
    const globex = h.sb.seed.merchants.find((m) => m.key === 'globex')!
    const r = await runInPty(['login', '--profile', 'sub'], {PAY_CONFIG_DIR: dir}, [
      {expect: /Base URL/, send: `${BACKSPACE.repeat(8)}${h.sb.url}\r`},
      {expect: /Client id/, send: `${globex.clients[0].client_id}\r`},
      {expect: /Client secret/, send: `${globex.clients[0].client_secret}\r`},
      {expect: /sub-accounts[\s\S]*Sub-account ref/, send: '\r'},
      {expect: /required/, send: 'no-such-account\r'},
      {expect: /no-such-account[\s\S]*Sub-account ref/, send: 'globex-east\r'},
    ], 30_000)
    expect(r.code, r.screen).toBe(0)
    expect(r.screen).toContain('Saved profile "sub"')
    const shown = json(await runCli(['profiles', 'show', 'sub', '--json'], {env: {PAY_CONFIG_DIR: dir}}))
    expect(shown).toMatchObject({account_ref: 'globex-east'})
  })

  it('a merchant without sub-accounts is not asked for a ref', async () => {
    const dir = tempConfigDir()
    const acme = h.sb.seed.merchants.find((m) => m.key === 'acme')!
    const r = await runInPty(['login', '--profile', 'plain'], {PAY_CONFIG_DIR: dir}, [
      {expect: /Base URL/, send: `${BACKSPACE.repeat(8)}${h.sb.url}\r`},
      {expect: /Client id/, send: `${acme.clients[0].client_id}\r`},
      {expect: /Client secret/, send: `${acme.clients[0].client_secret}\r`},
    ], 30_000)
    expect(r.code, r.screen).toBe(0)
    expect(r.screen).not.toMatch(/Sub-account ref/)
    expect(r.screen).toContain('Saved profile "plain"')
  })
})
