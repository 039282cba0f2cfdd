/**
 * `pay login` in-process (src/profiles/login.ts) against the sandbox: the credentials proven with a token of their
 * own before anything is saved, the profile saved and made active, what is missing off a terminal (exit 2), and on a
 * terminal the questions (answered by a scripted asker): the missing values, whether the service is live, and a
 * sub-account ref only when the service says one is needed. How the prompts draw on a real terminal:
 * test/e2e/login-terminal.test.ts.
 */
import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {runLogin} from '../../src/profiles/login.js'
import {json, tempConfigDir} from '../helpers/cli.js'
import {useSandbox} from '../helpers/command-harness.js'
import {commandEnv, memoryOutput, runCommand, USER_AGENT} from '../helpers/in-process.js'
import {scriptedEnv, useScriptedServer} from '../helpers/scripted-server.js'

type LoginOptions = Parameters<typeof runLogin>[0]
/** What pay login asks a person with (inquirer's prompts on a terminal). */
type LoginAsker = NonNullable<Parameters<typeof runLogin>[2]['asker']>

const h = useSandbox()
const merchant = (key: string) => h.sb.seed.merchants.find((m) => m.key === key)!.clients[0]
const tokenRequests = () => h.sb.requests.filter((e) => e.path === '/v1/oauth/token').length

/** Answers each question with the next answer; an answer its rule refuses is noted, and the next one is tried. */
function scriptedAsker(answers: (string | boolean)[]): {asker: LoginAsker; asked: string[]} {
  const asked: string[] = []
  const next = (message: string, validate: (v: string) => true | string) => {
    asked.push(message)
    for (;;) {
      const answer = String(answers.shift())
      const ok = validate(answer)
      if (ok === true) return Promise.resolve(answer)
      asked.push(`refused: ${ok}`)
    }
  }
  return {asked, asker: {input: next, password: next, confirm: (message) => (asked.push(message), Promise.resolve(answers.shift() === true))}}
}

/** `pay login` with a terminal that takes answers, in a fresh config dir. */
async function loginOnTerminal(options: LoginOptions, answers: (string | boolean)[]) {
  const env = commandEnv()
  const {asker, asked} = scriptedAsker(answers)
  const io = memoryOutput(false, {interactive: true, stdinIsTTY: true, stderrIsTTY: true})
  const code = await runLogin(options, io.out, {userAgent: USER_AGENT, env, asker})
  const profiles = JSON.parse(readFileSync(join(env.PAY_CONFIG_DIR!, 'profiles.json'), 'utf8'))
  return {code, asked, stderr: io.stderr(), profiles}
}

describe('pay login off a terminal', () => {
  it('proves the credentials with a fresh token even when one is cached, then saves the profile and makes it active', async () => {
    const dir = tempConfigDir()
    const env = {...h.env, PAY_CONFIG_DIR: dir}
    expect((await runCommand(['login', '--profile', 'ci'], {env})).code).toBe(0)
    const before = tokenRequests()
    const r = await runCommand(['login', '--profile', 'ci', '--json'], {env})
    expect(r.code, r.stderr).toBe(0)
    expect(tokenRequests()).toBe(before + 1)
    expect(json(r)).toMatchObject({profile: 'ci', base_url: h.sb.url, client_id: merchant('acme').client_id, account: {merchant: {name: expect.any(String)}}})
    const text = await runCommand(['login', '--profile', 'ci'], {env})
    expect(text.stderr).toMatch(/^Logged in to http:\/\/127\.0\.0\.1:\d+ as .+ \(merchant \d+\), account .+ \(acme-main\)\.\nSaved profile "ci" \(active\) in /)
    expect(JSON.stringify(json(r))).not.toContain(merchant('acme').client_secret)
    const stored = JSON.parse(readFileSync(join(dir, 'profiles.json'), 'utf8'))
    expect(stored.active).toBe('ci')
    expect(stored.profiles.ci).toMatchObject({base_url: h.sb.url, client_id: merchant('acme').client_id})
  })

  it('a password in the base URL: saved, and shown nowhere (the summary, --json)', async () => {
    const url = h.sb.url.replace('http://', 'http://user:Pw5ecretXyz@')
    const env = {...h.env, PAY_CONFIG_DIR: tempConfigDir(), PAY_BASE_URL: url}
    const r = await runCommand(['login', '--profile', 'pw', '--json'], {env})
    expect(r.code, r.stderr).toBe(0)
    expect(json(r).base_url).toBe(h.sb.url.replace('http://', 'http://[REDACTED]@'))
    const text = await runCommand(['login', '--profile', 'pw'], {env})
    expect(text.stderr).toContain('Logged in to http://[REDACTED]@127.0.0.1')
    expect(r.stdout + r.stderr + text.stdout + text.stderr).not.toContain('Pw5ecretXyz')
    expect(JSON.parse(readFileSync(join(env.PAY_CONFIG_DIR, 'profiles.json'), 'utf8')).profiles.pw.base_url).toBe(url)
  })

  it('a wrong secret: exit 3, nothing saved; what is missing: exit 2 naming each, nothing sent', async () => {
    const dir = tempConfigDir()
    const wrong = await runCommand(['login', '--profile', 'ci'], {env: {...h.env, PAY_CONFIG_DIR: dir, PAY_CLIENT_SECRET: 'wrong-secret'}})
    expect(wrong.code).toBe(3)
    expect(wrong.stderr).not.toContain('Saved profile')
    expect(existsSync(join(dir, 'profiles.json'))).toBe(false)
    const before = tokenRequests()
    const missing = await runCommand(['login', '--profile', 'ci'], {env: {PAY_CONFIG_DIR: dir}})
    expect(missing.code).toBe(2)
    for (const flag of ['--base-url', '--client-id', '--client-secret']) expect(missing.stderr).toContain(`${flag} is required`)
    expect(missing.stderr).toMatch(/run `pay login` on a terminal/)
    expect(tokenRequests()).toBe(before)
    const badUrl = await runCommand(['login', '--base-url', 'ftp://x', '--client-id', 'c', '--client-secret', 's'], {env: {PAY_CONFIG_DIR: dir}})
    expect(badUrl.code).toBe(2)
    expect(badUrl.stderr).toMatch(/--base-url/)
  })

  it('--live marks the profile live; the "sandbox" profile is never live and keeps its secrets in the file', async () => {
    const dir = tempConfigDir()
    expect((await runCommand(['login', '--profile', 'prod', '--live'], {env: {...h.env, PAY_CONFIG_DIR: dir}})).code).toBe(0)
    expect((await runCommand(['login', '--profile', 'sandbox', '--live'], {env: {...h.env, PAY_CONFIG_DIR: dir}})).code).toBe(0)
    const stored = JSON.parse(readFileSync(join(dir, 'profiles.json'), 'utf8')).profiles
    expect(stored.prod.live).toBe(true)
    expect(stored.sandbox.live).toBeUndefined()
    expect(stored.sandbox.client_secret).toBe(merchant('acme').client_secret)
  })
})

describe('pay login on a terminal', () => {
  it('asks for what is missing (a bad URL asked again) and whether the service is live; a merchant without sub-accounts is not asked for a ref', async () => {
    const acme = merchant('acme')
    const r = await loginOnTerminal({profile: 'plain'}, ['ftp://nope', h.sb.url, acme.client_id, acme.client_secret, false])
    expect(r.code).toBe(0)
    expect(r.asked).toEqual(['Base URL', expect.stringMatching(/^refused: /), 'Client id', 'Client secret', 'Is this the live service? (money-moving commands will then ask before sending)'])
    expect(r.profiles.profiles.plain).toMatchObject({base_url: h.sb.url, client_id: acme.client_id, live: false})
    expect(r.stderr).toContain('Saved profile "plain"')
  })

  it('a merchant with sub-accounts: explains, says when a ref is unknown, and saves the ref that works', async () => {
    const globex = merchant('globex')
    const r = await loginOnTerminal({profile: 'sub', 'base-url': h.sb.url, 'client-id': globex.client_id, 'client-secret': globex.client_secret, live: false}, ['', 'no-such-account', 'globex-east'])
    expect(r.code).toBe(0)
    expect(r.asked).toEqual(['Sub-account ref', 'refused: required: this merchant has sub-accounts', 'Sub-account ref'])
    expect(r.stderr).toMatch(/This merchant has sub-accounts[\s\S]*No sub-account "no-such-account" for these credentials/)
    expect(r.profiles.profiles.sub).toMatchObject({account_ref: 'globex-east'})
  })
})

describe('pay login against a service whose names hold control characters', () => {
  const server = useScriptedServer()

  it('says who it logged in as printable', async () => {
    const hostile = 'Shop\u001B]0;PWNED\u0007\u001B[2J'
    server.script('GET /v1/account', {status: 200, body: {object: 'account_context', merchant: {id: 1, name: hostile, sub_accounts_enabled: false}, account: {id: 'MAC_1', object: 'merchant_account', account_ref: 'main', name: hostile, status: 'active'}}})
    const r = await runCommand(['login', '--profile', 'odd'], {env: {...scriptedEnv(server), PAY_SECRET_STORE: 'file'}})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain('as Shop\\u001b]0;PWNED\\u0007\\u001b[2J (merchant 1), account Shop\\u001b]0;PWNED')
    expect(r.stderr).not.toContain('\u001B')
  })
})
