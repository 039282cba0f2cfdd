/**
 * Hardening (issue 12, secrets): what --debug and --dry-run print never holds the password of a base URL's
 * userinfo, a Cookie or an X-Api-Key (the one redaction module, src/base/redact.ts, is used by both), and
 * `--client-secret -` reads the secret from stdin so that it is never in argv.
 */
import {describe, expect, it} from 'vitest'
import {json, runCli, tempConfigDir} from '../helpers/cli.js'
import {runInProcess} from '../helpers/in-process.js'
import {TEST_CLIENT_ID, TEST_CLIENT_SECRET, useScriptedServer} from '../helpers/scripted-server.js'

const server = useScriptedServer()
const PASSWORD = 'Pw_userinfo_9f8e7d'
const COOKIE = 'session_cookie_5a4b3c'
const API_KEY = 'api_key_value_1a2b3c'
const withUserinfo = () => server.url.replace('http://', `http://user:${PASSWORD}@`)
const env = (extra: Record<string, string> = {}) => ({PAY_CONFIG_DIR: tempConfigDir(), PAY_BASE_URL: server.url, PAY_CLIENT_ID: TEST_CLIENT_ID, PAY_CLIENT_SECRET: TEST_CLIENT_SECRET, ...extra})

describe('--dry-run and --debug print no secret', () => {
  it('the dry-run block and its curl line: no userinfo password, no Cookie, no X-Api-Key', async () => {
    const r = await runCli(
      ['api', 'POST', '/v1/collections', '--dry-run', '--base-url', withUserinfo(), '-F', 'amount=1.00', '-H', `Cookie: sid=${COOKIE}`, '-H', `X-Api-Key: ${API_KEY}`],
      {env: env()},
    )
    expect(r.code, r.stderr).toBe(0)
    const printed = r.stdout + r.stderr
    for (const secret of [PASSWORD, COOKIE, API_KEY, TEST_CLIENT_SECRET]) expect(printed).not.toContain(secret)
    const curl = r.stdout.split('\n').find((l) => l.startsWith('curl '))!
    expect(curl).toContain('[REDACTED]')
    expect(curl).toMatch(/cookie: \[REDACTED\]/i)
    expect(curl).toMatch(/x-api-key: \[REDACTED\]/i)
    expect(server.requests).toHaveLength(0)

    const asJson = await runCli(['api', 'GET', '/v1/balance', '--dry-run', '--json', '--base-url', withUserinfo(), '-H', `X-Api-Key: ${API_KEY}`], {env: env()})
    expect(asJson.code, asJson.stderr).toBe(0)
    expect(asJson.stdout).not.toContain(PASSWORD)
    expect(asJson.stdout).not.toContain(API_KEY)
  })

  it('--debug traces: no userinfo password, no Cookie, no X-Api-Key', async () => {
    const r = await runCli(['api', 'GET', '/v1/balance', '--debug', '--base-url', withUserinfo(), '-H', `Cookie: sid=${COOKIE}`, '-H', `X-Api-Key: ${API_KEY}`], {env: env()})
    expect(r.stderr).toContain('-> GET')
    for (const secret of [PASSWORD, COOKIE, API_KEY, TEST_CLIENT_SECRET]) expect(r.stdout + r.stderr).not.toContain(secret)
  })
})

describe('--client-secret - reads the secret from stdin', () => {
  it('pay login --client-secret - saves the secret read from stdin, and it works', async () => {
    const dir = tempConfigDir()
    const r = await runCli(['login', '--profile', 'fromstdin', '--base-url', server.url, '--client-id', TEST_CLIENT_ID, '--client-secret', '-', '--json'], {env: {PAY_CONFIG_DIR: dir}, input: `${TEST_CLIENT_SECRET}\n`})
    expect(r.code, r.stderr).toBe(0)
    const balance = await runInProcess(['balance', '--json', '--profile', 'fromstdin'], {env: {PAY_CONFIG_DIR: dir}})
    expect(balance.code, balance.stderr).toBe(0)
  })

  it('pay profiles add --client-secret - stores the secret read from stdin; an empty stdin is exit 2', async () => {
    const dir = tempConfigDir()
    const r = await runCli(['profiles', 'add', 'piped', '--base-url', server.url, '--client-id', TEST_CLIENT_ID, '--client-secret', '-'], {env: {PAY_CONFIG_DIR: dir}, input: `${TEST_CLIENT_SECRET}\n`})
    expect(r.code, r.stderr).toBe(0)
    const balance = await runInProcess(['balance', '--json', '--profile', 'piped'], {env: {PAY_CONFIG_DIR: dir}})
    expect(balance.code, balance.stderr).toBe(0)
    expect(json(balance).object).toBe('balance')

    const empty = await runCli(['profiles', 'add', 'empty', '--client-secret', '-'], {env: {PAY_CONFIG_DIR: dir}, input: ''})
    expect(empty.code).toBe(2)
    expect(empty.stderr).toContain('--client-secret')
  })

  it('the help of login and profiles add says that the env var or stdin keeps the secret out of argv', async () => {
    for (const cmd of [['login'], ['profiles', 'add']]) {
      const r = await runCli([...cmd, '--help'])
      expect(r.stdout).toMatch(/--client-secret[\s\S]*stdin/)
      expect(r.stdout).toMatch(/PAY_CLIENT_SECRET/)
      expect(r.stdout).toMatch(/argv|process list/)
    }
  })
})
