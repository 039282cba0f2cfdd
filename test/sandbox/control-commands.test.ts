/**
 * The small `pay sandbox` control commands in-process (src/sandbox/control-commands.ts, through their command
 * classes: runCommand) against an in-process sandbox: what each changes in the sandbox and what it prints. Their
 * exit codes and --json errors: test/commands/sandbox.test.ts.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Sandbox} from '../../src/sandbox/index.js'
import {json, tempConfigDir} from '../helpers/cli.js'
import {runCommand} from '../helpers/in-process.js'
import {closedPort} from '../helpers/localtunnel-server.js'
import {acmeClient, collectionBody, mandateBody, start, until} from '../helpers/sandbox-http.js'

let sb: Sandbox
beforeAll(async () => {
  sb = await start({settleMs: 20, tokenTtlSeconds: 10 * 86_400})
})
afterAll(() => sb?.close())
const env = {PAY_CONFIG_DIR: tempConfigDir()}
const pay = (...args: string[]) => runCommand(['sandbox', ...args, '--url', sb.url], {env})

describe('pay sandbox control commands', () => {
  it('succeed, fail, approve, transfer, advance, webhook, events and reset drive a running sandbox', async () => {
    const acme = await acmeClient(sb)
    const held = (await acme.post('/v1/collections', collectionBody({mobile: '254700000008'}))).body
    const ok = await pay('succeed', held.id)
    expect(ok.code).toBe(0)
    expect(ok.stdout.trim()).toBe(`${held.id} succeeded`)
    const again = await pay('fail', held.id)
    expect(again.code).toBe(5) // 409: the shared base class's exit code (test/commands/sandbox.test.ts)
    expect(again.stderr).toMatch(/invalid_state/)

    await acme.post('/v1/mandates', mandateBody({mobile: '254700000018', merchant_reference: 'cli-md'}))
    const md = (await acme.get('/v1/mandates?merchant_reference=cli-md')).body.mandate_id
    expect((await pay('approve', md)).stdout).toBe(`${md} succeeded\n`)

    const bank = (await acme.post('/v1/collections', collectionBody({payment_rail: 'bank_transfer', mobile: undefined, provider: undefined, amount: '10.00'}))).body
    const account = bank.virtual_account.account_number
    const t = await pay('transfer', account, '--amount', '10.00', '--json')
    expect(json(t).collection.status).toBe('succeeded')
    expect(t.stdout).toMatch(/^\{\n {2}"/) // indented
    const bank2 = (await acme.post('/v1/collections', collectionBody({payment_rail: 'bank_transfer', mobile: undefined, provider: undefined, amount: '12.00'}))).body
    expect((await pay('transfer', bank2.virtual_account.account_number, '--amount', '12.00')).stdout).toBe(`transferred 12.00 to ${bank2.virtual_account.account_number}: ${bank2.id} succeeded\n`)

    expect((await acme.get('/v1/balance?currency=KES')).body.data[0].collection_wallet_held).not.toBe('0.00')
    expect((await pay('advance', '1d')).stdout).toMatch(/^sandbox clock now \S+ \(\+86400 s\)\n$/)
    expect((await acme.get('/v1/balance?currency=KES')).body.data[0].collection_wallet_held).toBe('0.00')

    const hook = await pay('webhook', '--client', 'sb_acme_client', '--target', 'http://127.0.0.1:9/x')
    expect(hook.stdout).toBe('sb_acme_client events go to http://127.0.0.1:9/x\n')
    expect(sb.state.clients.sb_acme_client.webhook_url).toBe('http://127.0.0.1:9/x')
    await until(() => sb.events.length > 0, 2000)
    const events = await pay('events', '--type', 'collection.succeeded')
    expect(events.stdout).toMatch(/EVT_[A-Z0-9]{24}\s+collection\.succeeded/)
    expect((await pay('events', '--type', 'payout.failed')).stdout).toBe('no events\n')
    expect((await pay('webhook', '--client', 'sb_acme_client', '--clear')).stdout).toBe('sb_acme_client has no webhook URL\n')

    expect((await pay('reset')).stdout).toBe('sandbox reset to its seed\n')
    expect(sb.state.clients.sb_acme_client.webhook_url).toBeNull()
    const down = await runCommand(['sandbox', 'reset', '--url', `http://127.0.0.1:${await closedPort()}`], {env})
    expect(down.code).toBe(7)
    expect(down.stderr).toMatch(/cannot reach the sandbox/)
  })

  it('bad input: a duration the clock cannot take, a webhook without --target or --clear (exit 2, nothing changed)', async () => {
    const before = sb.requests.length
    const advance = await pay('advance', '1w')
    expect(advance.code).toBe(2)
    expect(advance.stderr).toMatch(/DURATION must be seconds or a number with s, m, h or d/)
    const hook = await pay('webhook', '--client', 'sb_acme_client')
    expect(hook.code).toBe(2)
    expect(hook.stderr).toMatch(/--target or --clear is required/)
    expect(sb.requests.length).toBe(before)
  })

  it("a webhook URL's password and token are shown redacted, in its line, under --json and in the --debug trace; the sandbox keeps the URL", async () => {
    const url = 'http://hookuser:HookPw777@127.0.0.1:9/hooks?token=QTok999'
    for (const more of [[], ['--json'], ['--debug']]) {
      const hook = await pay('webhook', '--client', 'sb_acme_client', '--target', url, ...more)
      expect(hook.code, hook.stderr).toBe(0)
      const shown = hook.stdout + hook.stderr
      expect(shown, more.join(' ')).not.toMatch(/HookPw777|QTok999/)
      expect(shown, more.join(' ')).toContain('http://[REDACTED]@127.0.0.1:9/hooks?token=[REDACTED]')
    }
    expect(sb.state.clients.sb_acme_client.webhook_url).toBe(url)
    expect((await pay('webhook', '--client', 'sb_acme_client', '--clear')).code).toBe(0)
  })

  it('what the sandbox answers is made printable before it reaches a terminal', async () => {
    const hook = await pay('webhook', '--client', 'sb_acme_client', '--target', 'http://127.0.0.1:9/\u001b[2Jx')
    expect(hook.code, hook.stderr).toBe(0)
    expect(hook.stdout).not.toContain('\u001b')
  })
})
