/**
 * The `pay sandbox <control>` commands are on the shared base class (src/cli/base-command.ts: SandboxCommand):
 * their failures exit with the documented codes (README: Exit codes) and print {"error":…} on stdout under
 * --json, like every API command; the sandbox URL comes from --url, $PAY_SANDBOX_URL or the "sandbox" profile.
 * In-process (runCommand: the command's class with its base class's catch, as the process runs it) against an
 * in-process sandbox; test/e2e/sandbox-cli.test.ts runs them as the built CLI.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type CliResult, json, tempConfigDir} from '../helpers/cli.js'
import {runCommand} from '../helpers/in-process.js'
import {closedPort} from '../helpers/localtunnel-server.js'
import {collectionBody, acmeClient, start} from '../helpers/sandbox-http.js'

type Sandbox = Awaited<ReturnType<typeof start>>
let sb: Sandbox
const config = tempConfigDir()
const pay = (args: string[], env: Record<string, string> = {}): Promise<CliResult> => runCommand(['sandbox', ...args], {env: {PAY_CONFIG_DIR: config, ...env}})

beforeAll(async () => {
  sb = await start({settleMs: 60_000})
})
afterAll(async () => {
  await sb?.close()
})

describe('sandbox control commands: exit codes and --json errors', () => {
  it('an unknown transaction is a 404: exit 4, the service-style error on stderr, {"error":…} under --json', async () => {
    const human = await pay(['succeed', 'CL_NOSUCHTHING', '--url', sb.url])
    expect(human.code).toBe(4)
    expect(human.stdout).toBe('')
    expect(human.stderr).toMatch(/transaction CL_NOSUCHTHING not found/)
    expect(human.stderr).toMatch(/not_found/)

    const machine = await pay(['fail', 'CL_NOSUCHTHING', '--url', sb.url, '--json'])
    expect(machine.code).toBe(4)
    expect(json(machine)).toMatchObject({error: {code: 'not_found'}, status: 404})
  })

  it('a transaction that already ended is a 409: exit 5', async () => {
    const acme = await acmeClient(sb)
    const created = (await acme.post('/v1/collections', collectionBody({merchant_reference: 'ctl-409'}))).body
    expect((await pay(['succeed', created.id, '--url', sb.url])).code).toBe(0)
    const again = await pay(['fail', created.id, '--url', sb.url, '--json'])
    expect(again.code).toBe(5)
    expect(json(again)).toMatchObject({error: {code: 'invalid_state'}, status: 409})
  })

  it('approving a mandate twice: exit 5, and the hint says nothing changed (not "an earlier one is still pending")', async () => {
    const acme = await acmeClient(sb)
    const body = {mobile: '254712340028', provider: 'mpesa', currency: 'KES', amount: '10.00', frequency: 'MONTHLY', starts_at: '2026-12-01T09:00:00Z', merchant_reference: 'ctl-approve-twice'}
    expect((await acme.post('/v1/mandates', body)).status).toBe(201)
    // the create answer has no mandate id: the lookup by reference has it
    const id = (await acme.get('/v1/mandates?merchant_reference=ctl-approve-twice')).body.mandate_id
    expect((await pay(['approve', id, '--url', sb.url])).code).toBe(0)
    const again = await pay(['approve', id, '--url', sb.url])
    expect(again.code).toBe(5)
    expect(again.stderr).toMatch(/not awaiting approval/)
    expect(again.stderr).toMatch(/next: nothing was changed: it is no longer waiting for this/)
    expect(again.stderr).not.toMatch(/still pending/)
  })

  it('no sandbox at the URL: exit 7 with a network error naming it', async () => {
    const port = await closedPort()
    const down = await pay(['reset', '--url', `http://127.0.0.1:${port}`])
    expect(down.code).toBe(7)
    expect(down.stderr).toContain(`cannot reach the sandbox at http://127.0.0.1:${port}`)
    const machine = await pay(['events', '--url', `http://127.0.0.1:${port}`, '--json'])
    expect(machine.code).toBe(7)
    expect(json(machine)).toMatchObject({error: {code: 'network_error'}})
  })

  it('a password in --url is never printed, in --debug traces or in errors', async () => {
    const port = await closedPort()
    const down = await pay(['reset', '--debug', '--url', `http://u:hunter2@127.0.0.1:${port}`])
    expect(down.code).toBe(7)
    expect(down.stderr).toContain(`cannot reach the sandbox at http://[REDACTED]@127.0.0.1:${port}`)
    expect(down.stdout + down.stderr).not.toContain('hunter2')
  })

  it('bad input is exit 2 with nothing sent, as JSON under --json', async () => {
    const before = sb.requests.length
    const bad = await pay(['advance', 'soon', '--url', sb.url, '--json'])
    expect(bad.code).toBe(2)
    expect(json(bad)).toMatchObject({error: {code: 'invalid_input'}})
    const neither = await pay(['webhook', '--url', sb.url])
    expect(neither.code).toBe(2)
    expect(neither.stderr).toMatch(/--target or --clear is required/)
    expect(sb.requests.length).toBe(before)
  })

  it('finds the sandbox through $PAY_SANDBOX_URL, else the "sandbox" profile', async () => {
    expect((await pay(['advance', '0'], {PAY_SANDBOX_URL: `${sb.url}/`})).stdout).toMatch(/^sandbox clock now /)
    const dir = tempConfigDir()
    writeFileSync(join(dir, 'profiles.json'), JSON.stringify({active: 'sandbox', profiles: {sandbox: {base_url: sb.url}}}), {mode: 0o600})
    const viaProfile = await runCommand(['sandbox', 'advance', '0', '--json'], {env: {PAY_CONFIG_DIR: dir}})
    expect(viaProfile.code, viaProfile.stderr).toBe(0)
    expect(json(viaProfile)).toMatchObject({object: 'clock'})
  })
})
