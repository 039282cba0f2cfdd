/**
 * What `pay mcp` lists, decided from the settings and its two flags (the process over stdio is in
 * test/e2e/mcp.test.ts).
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {resolveSettings, type Settings} from '../../src/config/settings.js'
import {tempConfigDir} from '../helpers/cli.js'
import {instructionsOf, policyOf} from '../../src/mcp/policy.js'

const settings = (over: Partial<Settings>): Settings => ({profileName: 'default', profileFound: true, sources: {baseUrl: 'profile'}, configDir: '/tmp/x', baseUrl: 'http://127.0.0.1:4010', ...over})

describe('which tools pay mcp lists', () => {
  it('a live service is a profile marked live, or any service not on this machine', () => {
    const isLive = (s: Settings) => policyOf(s, {allowMoney: false, allowLiveMoney: false}).live
    expect(isLive(settings({}))).toBe(false)
    expect(isLive(settings({baseUrl: 'http://localhost:9'}))).toBe(false)
    expect(isLive(settings({live: true}))).toBe(true)
    expect(isLive(settings({baseUrl: 'https://api.example.com'}))).toBe(true)
  })

  it('read-only by default; money with --allow-money or the profile setting; a live service also needs --allow-live-money', () => {
    expect(policyOf(settings({}), {allowMoney: false, allowLiveMoney: false})).toMatchObject({moneyListed: false, why: expect.stringContaining('--allow-money')})
    expect(policyOf(settings({}), {allowMoney: true, allowLiveMoney: false})).toMatchObject({moneyListed: true, live: false})
    expect(policyOf(settings({mcpAllowMoney: true}), {allowMoney: false, allowLiveMoney: false})).toMatchObject({moneyListed: true})
    const live = policyOf(settings({live: true, profileName: 'prod'}), {allowMoney: true, allowLiveMoney: false})
    expect(live).toMatchObject({moneyListed: false, live: true, why: expect.stringContaining('profile "prod" is marked live')})
    expect(policyOf(settings({baseUrl: 'https://api.example.com', mcpAllowMoney: true}), {allowMoney: false, allowLiveMoney: false})).toMatchObject({moneyListed: false, why: expect.stringContaining('not the local sandbox')})
    expect(policyOf(settings({live: true}), {allowMoney: true, allowLiveMoney: true})).toMatchObject({moneyListed: true, live: true})
    const text = instructionsOf(live, settings({live: true, profileName: 'prod'}))
    expect(text).toContain('--allow-money')
    expect(text).toContain('--allow-live-money')
    expect(text).toContain('Money tools are not listed now')
  })
})

describe('the profile setting', () => {
  it('mcp_allow_money in a stored profile lets pay mcp list the money tools without the flag', async () => {
    const dir = tempConfigDir()
    writeFileSync(join(dir, 'profiles.json'), JSON.stringify({active: 'sb', profiles: {sb: {base_url: 'http://127.0.0.1:4010', client_id: 'c', client_secret: 's', mcp_allow_money: true}, other: {base_url: 'http://127.0.0.1:4010'}}}), {mode: 0o600})
    const sb = await resolveSettings({}, {PAY_CONFIG_DIR: dir})
    expect(sb.mcpAllowMoney).toBe(true)
    expect(policyOf(sb, {allowMoney: false, allowLiveMoney: false}).moneyListed).toBe(true)
    const other = await resolveSettings({profile: 'other'}, {PAY_CONFIG_DIR: dir})
    expect(policyOf(other, {allowMoney: false, allowLiveMoney: false}).moneyListed).toBe(false)
  })
})
