/**
 * `pay sandbox open` in-process: its run function over the control client (a real sandbox), and its command class:
 * $BROWSER started with the URL, a machine with no browser (the URL printed), exit codes. `pay sandbox start`
 * printing the dashboard's URL: test/sandbox/start.test.ts.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {ControlClient} from '../../../src/client/control-client.js'
import {runSandboxOpen} from '../../../src/sandbox/dashboard/open.js'
import type {Sandbox} from '../../../src/sandbox/index.js'
import {tempConfigDir} from '../../helpers/cli.js'
import {fakeBrowser} from '../../helpers/fake-browser.js'
import {USER_AGENT, memoryOutput, runCommand} from '../../helpers/in-process.js'
import {closedPort} from '../../helpers/localtunnel-server.js'
import {start, until} from '../../helpers/sandbox-http.js'

let sb: Sandbox
let off: Sandbox

beforeAll(async () => {
  sb = await start()
  off = await start({dashboard: false})
})

afterAll(async () => {
  await sb?.close()
  await off?.close()
})

describe('runSandboxOpen (in-process)', () => {
  const call = (url: string) => {
    const client = new ControlClient({url, userAgent: USER_AGENT})
    return (id: Parameters<ControlClient['call']>[0], input?: Parameters<ControlClient['call']>[1]) => client.call(id, input)
  }

  it('prints the URL and opens it; says so when there is no browser; --no-browser only prints', async () => {
    const opened: string[] = []
    let io = memoryOutput(false)
    expect(await runSandboxOpen(call(sb.url), {browser: true, open: async (u) => (opened.push(u), 'opened' as const)}, io.out)).toEqual({url: `${sb.url}/_dashboard/`, opened: true})
    expect(io.stdout()).toBe(`${sb.url}/_dashboard/\n`)
    expect(io.stderr()).toMatch(/Opened the sandbox dashboard/)
    expect(opened).toEqual([`${sb.url}/_dashboard/`])

    io = memoryOutput(false)
    await runSandboxOpen(call(sb.url), {browser: true, open: async () => 'no-browser' as const}, io.out)
    expect(io.stdout()).toBe(`${sb.url}/_dashboard/\n`)
    expect(io.stderr()).toMatch(/No browser to open here/)

    io = memoryOutput(true)
    await runSandboxOpen(call(sb.url), {browser: false, open: async () => expect.fail('no browser with --no-browser')}, io.out)
    expect(JSON.parse(io.stdout())).toEqual({url: `${sb.url}/_dashboard/`, opened: false})
  })

  it('a sandbox started with --no-dashboard: a clear error saying what to do', async () => {
    await expect(runSandboxOpen(call(off.url), {browser: true, open: async () => 'opened' as const}, memoryOutput(false).out)).rejects.toMatchObject({
      message: expect.stringMatching(/--no-dashboard/),
      hint: expect.stringMatching(/pay sandbox start/),
      exitCode: 1,
    })
  })
})

describe('pay sandbox open (its command class)', () => {
  it('starts $BROWSER with the URL; with no browser at all it prints the URL; no sandbox exits 7', async () => {
    const browser = fakeBrowser()
    const env = {PAY_CONFIG_DIR: tempConfigDir()}
    const r = await runCommand(['sandbox', 'open', '--url', sb.url], {env: {...env, BROWSER: browser.command}})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe(`${sb.url}/_dashboard/\n`)
    expect(await until(() => browser.opened(), 5000, 'the browser')).toBe(`${sb.url}/_dashboard/`)

    const none = await runCommand(['sandbox', 'open', '--url', sb.url], {env: {...env, BROWSER: undefined, DISPLAY: undefined, WAYLAND_DISPLAY: undefined}})
    expect(none.code).toBe(0)
    expect(none.stdout).toBe(`${sb.url}/_dashboard/\n`)
    expect(none.stderr).toMatch(/No browser to open here/)

    const disabled = await runCommand(['sandbox', 'open', '--url', off.url], {env})
    expect(disabled.code).toBe(1)
    expect(disabled.stderr).toMatch(/--no-dashboard/)
    const down = await runCommand(['sandbox', 'open', '--url', `http://127.0.0.1:${await closedPort()}`], {env})
    expect(down.code).toBe(7)
  })
})
