/**
 * Prompting for missing input. In a pseudo-terminal (util-linux `script`) with CI unset, the prompts appear,
 * lists come from the service (providers, banks, plans), answers are validated with the same rules as flags,
 * and the answers are what is sent. Without a terminal, or with CI set, nothing waits for input: every missing
 * flag is listed at once and the command exits 2.
 */
import {spawn, spawnSync} from 'node:child_process'
import {describe, expect, it} from 'vitest'
import {BIN, ROOT, cleanEnv} from '../helpers/cli.js'
import {byRef, only, runInPty, useSandbox} from '../helpers/command-harness.js'
import {memoryOutput} from '../helpers/in-process.js'
import {TEST_CLIENT_ID, TEST_CLIENT_SECRET, useScriptedServer} from '../helpers/scripted-server.js'
import {ApiClient} from '../../src/client/api-client.js'
import {fetchChoices} from '../../src/operation/prompts.js'

const h = useSandbox()
/** util-linux `script` gives the CLI a pseudo-terminal; without it these cases are skipped. */
const hasScript = spawnSync('script', ['--version']).status === 0
const DOWN = '\u001B[B'
const BACKSPACE = '\u007F'

describe.skipIf(!hasScript)('on a terminal, missing input is asked for', () => {
  it('collections create: asks the wallet number (validated) and offers the providers from the service', async () => {
    const r = await runInPty(['collections', 'create', '--amount', '10', '--currency', 'kes', '--reference', 'pty-col-1', '--json'], h.env, [
      {expect: /Wallet number \(must be 10 to 15 digits\)/, send: '12345\r'},
      {expect: /must be 10 to 15 digits/, send: `${BACKSPACE.repeat(5)}254712345671\r`},
      {expect: /Mobile money provider[\s\S]*mpesa[\s\S]*airtel[\s\S]*mtn/, send: `${DOWN}\r`},
    ])
    expect(r.code, r.screen).toBe(0)
    expect(r.screen).toMatch(/"merchant_reference":"pty-col-1"/)
    const sent = only(h.requests(byRef('pty-col-1')), 'pty-col-1')
    expect(sent.body).toEqual({amount: '10.00', currency: 'KES', merchant_reference: 'pty-col-1', mobile: '254712345671', provider: 'airtel'})
    expect(h.requests((e) => e.path === '/v1/metadata/mobile_providers').length).toBeGreaterThanOrEqual(1)
  })

  it('subscriptions create: offers the active plans from GET /v1/subscription_plans', async () => {
    const r = await runInPty(['subscriptions', 'create', '--reference', 'pty-sub-1', '--customer-name', 'Otieno Odhiambo', '--customer-email', 'otieno@example.com', '--mobile', '254712340021', '--provider', 'mpesa'], h.env, [
      {expect: /Plan[\s\S]*Gold \(monthly\) \(PLN_ACMEGOLD\)[\s\S]*Silver \(weekly\) \(PLN_ACMESILVER\)/, send: `${DOWN}\r`},
    ])
    expect(r.code, r.screen).toBe(0)
    expect(r.screen).not.toContain('PLN_ACMELEGACY')
    expect(only(h.requests(byRef('pty-sub-1')).filter((e) => e.method === 'POST'), 'pty-sub-1').body).toMatchObject({plan_id: 'PLN_ACMESILVER', merchant_reference: 'pty-sub-1'})
  })

  it('verifications bank-account: offers the banks, then asks the account number', async () => {
    const r = await runInPty(['verifications', 'bank-account'], h.env, [
      {expect: /Bank[\s\S]*KCB Bank \(01\)[\s\S]*Equity Bank \(68\)/, send: `${DOWN}\r`},
      {expect: /Account number/, send: '0123456781\r'},
    ])
    expect(r.code, r.screen).toBe(0)
    expect(r.screen).toMatch(/Result[\s│]+verified/)
    const sent = h.requests((e) => e.path === '/v1/verifications/bank_accounts' && (e.body as {account_number?: string}).account_number === '0123456781')
    expect(only(sent, 'bank check').body).toEqual({bank_code: '03', account_number: '0123456781'})
  })

  it('login: asks base URL, client id and the secret masked (a sub-account ref only when the merchant needs one), then saves the profile', async () => {
    const {tempConfigDir, json, runCli} = await import('../helpers/cli.js')
    const dir = tempConfigDir()
    const acme = h.sb.seed.merchants.find((m) => m.key === 'acme')!
    const secret = acme.clients[0].client_secret
    const r = await runInPty(['login', '--profile', 'pty'], {PAY_CONFIG_DIR: dir}, [
      {expect: /Base URL/, send: `${BACKSPACE.repeat(8)}${h.sb.url}\r`},
      {expect: /Client id/, send: `${acme.clients[0].client_id}\r`},
      {expect: /Client secret/, send: `${secret}\r`},
      {expect: /Is this the live service/, send: 'y\r'},
    ])
    expect(r.code, r.screen).toBe(0)
    expect(r.screen).not.toContain(secret) // masked while typed, never echoed
    expect(r.screen).toContain('Saved profile "pty"')
    const shown = json(await runCli(['profiles', 'show', 'pty', '--json'], {env: {PAY_CONFIG_DIR: dir}}))
    expect(shown).toMatchObject({base_url: h.sb.url, client_id: acme.clients[0].client_id, client_secret: '[REDACTED] (set)', live: true})
  })

  it('virtual-accounts create: asks whose account, then the customer id', async () => {
    const r = await runInPty(['virtual-accounts', 'create', '--json'], h.env, [
      {expect: /Whose account[\s\S]*customer[\s\S]*merchant/, send: '\r'},
      {expect: /Customer id/, send: 'MC_ACME0003\r'},
    ])
    expect(r.code, r.screen).toBe(0)
    expect(r.screen).toMatch(/"customer_id":"MC_ACME0003"/)
    const sent = only(h.requests((e) => e.method === 'POST' && e.path === '/v1/customers/MC_ACME0003/virtual-account'), 'VA create')
    expect(sent.body).toEqual([])
  })

  it('Ctrl+C at a prompt sends nothing and exits 2 naming what is missing', async () => {
    const r = await runInPty(['debits', 'status', '--reference', 'pty-cancel'], h.env, [{expect: /Mandate id/, send: '\u0003'}])
    expect(r.code, r.screen).toBe(2)
    expect(r.screen).toContain('--mandate is required (prompt cancelled; nothing was sent)')
    expect(h.requests(byRef('pty-cancel'))).toHaveLength(0)
  })

  it('does not prompt when a given value is wrong: the problems are listed (exit 2)', async () => {
    const r = await runInPty(['collections', 'create', '--amount', 'ten', '--currency', 'KES', '--reference', 'pty-bad'], h.env, [])
    expect(r.code).toBe(2)
    expect(r.screen).toContain('--amount must be a positive decimal string')
    expect(r.screen).not.toContain('?')
    expect(h.requests(byRef('pty-bad'))).toHaveLength(0)
  })

  it('never prompts with CI set, even on a terminal', async () => {
    const r = await runInPty(['payouts', 'create', '--amount', '10', '--currency', 'KES', '--reference', 'pty-ci'], {...h.env, CI: 'true'}, [])
    expect(r.code).toBe(2)
    expect(r.screen).toContain('--mobile is required when --rail is mobile_money')
    expect(r.screen).toContain('--provider is required when --rail is mobile_money')
    expect(r.screen).toContain('not prompting')
  })
})

describe('without a terminal nothing waits for input', () => {
  it('lists every missing flag and exits 2 at once, with stdin left open and CI unset', async () => {
    const child = spawn(process.execPath, [BIN, 'mandates', 'create', '--amount', '10'], {cwd: ROOT, env: cleanEnv({...h.env, CI: undefined}), stdio: ['pipe', 'pipe', 'pipe']})
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    const code = await new Promise<number | null>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL')
        reject(new Error(`still waiting after 15 s: ${stderr}`))
      }, 15_000)
      child.on('close', (c) => {
        clearTimeout(timer)
        resolve(c)
      })
    })
    expect(code).toBe(2)
    for (const flag of ['--mobile', '--provider', '--currency', '--frequency', '--starts-at', '--reference']) expect(stderr).toContain(`error: ${flag} is required`)
    expect(stderr).toContain('not prompting')
    child.stdin.end()
  })
})

describe.skipIf(!hasScript)('on a terminal, output for people', () => {
  it('--wait shows live progress on the terminal and ends with the final state', async () => {
    const r = await runInPty(['payouts', 'create', '--amount', '5', '--currency', 'KES', '--reference', 'pty-wait-1', '--mobile', '254712345671', '--provider', 'mpesa', '--wait'], h.env, [])
    expect(r.code, r.screen).toBe(0)
    expect(r.screen).toMatch(/waiting for payout pty-wait-1: processing \(\d+ s\)/)
    expect(r.screen).toMatch(/payout pty-wait-1 succeeded after \d+ s/)
    expect(r.screen).toMatch(/State\s*│\s*succeeded/)
  })

  it('--all streams an aligned table with one header', async () => {
    // -o wide: every value whole (the 80-column pseudo-terminal would cut the wider columns with …)
    const r = await runInPty(['customers', 'collections', 'MC_ACME0002', '--all', '--per-page', '2', '-o', 'wide'], h.env, [])
    expect(r.code, r.screen).toBe(0)
    const lines = r.screen.split(/\r?\n/).filter((l) => l.trim() !== '')
    expect(lines.filter((l) => l.startsWith('ID  '))).toHaveLength(1)
    expect(lines.filter((l) => /^CL_SEEDACME02000\d\s+succeeded\s+1200\.00\s+KES/.test(l))).toHaveLength(3)
  })
})

describe('the choices fetched from the service', () => {
  const server = useScriptedServer()
  const client = () => new ApiClient({settings: {baseUrl: server.url, clientId: TEST_CLIENT_ID, clientSecret: TEST_CLIENT_SECRET}, userAgent: 'test', retries: 0})
  const HOSTILE = 'Evil\u001B]0;PWNED\u0007\u001B[2J\u001B[31m\nBank'
  // eslint-disable-next-line no-control-regex -- finding raw control characters is the point
  const rawControls = (text: string) => /[\u0000-\u001F\u007F-\u009F]/.test(text)

  it('are shown printable on one line (bank, provider and plan names, a plan price), and what is sent is the exact value', async () => {
    server.script('GET /v1/metadata/banks', {status: 200, body: {object: 'list', data: [{bank_code: '01', bank_name: HOSTILE}]}})
    server.script('GET /v1/metadata/mobile_providers', {status: 200, body: {object: 'list', data: [{provider: `mpesa${HOSTILE}`}]}})
    server.script('GET /v1/subscription_plans', {status: 200, body: {object: 'list', data: [{plan_id: 'PLN_1', plan_name: HOSTILE, amount: '1.00', currency: 'KES', frequency: 'weekly\u001B[2J'}]}})
    const {out, stderr} = memoryOutput(false)
    const c = client()
    const banks = (await fetchChoices(c, out, 'banks'))!
    const providers = (await fetchChoices(c, out, 'providers'))!
    const plans = (await fetchChoices(c, out, 'plans'))!
    expect(banks).toEqual([{name: 'Evil\\u001b]0;PWNED\\u0007\\u001b[2J\\u001b[31m\\u000aBank (01)', value: '01'}])
    expect(providers[0].value).toBe(`mpesa${HOSTILE}`)
    expect(plans[0]).toMatchObject({value: 'PLN_1', description: '1.00 KES weekly\\u001b[2J'})
    for (const choice of [...banks, ...providers, ...plans]) {
      expect(rawControls(choice.name), choice.name).toBe(false)
      expect(rawControls(choice.description ?? ''), choice.description).toBe(false)
    }
    expect(stderr()).toBe('')
  })

  it('a list the service would not give: its error is quoted printable, and the question falls back to free text', async () => {
    server.script('GET /v1/metadata/banks', {status: 400, body: {error: {code: 'bad', message: `no banks ${HOSTILE}`, request_id: 'REQ_1'}}})
    const {out, stderr} = memoryOutput(false)
    expect(await fetchChoices(client(), out, 'banks')).toBeUndefined()
    expect(stderr()).toContain('could not load the banks list (no banks Evil\\u001b]0;PWNED')
    expect(stderr()).not.toContain('\u001B')
  })
})
