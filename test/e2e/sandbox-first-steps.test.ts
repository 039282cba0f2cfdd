/**
 * A new user's first steps against the sandbox (in-process, on a free loopback port): the curl example of
 * `pay token --help` run as printed, `pay api -i` (the built CLI), and --currency's rule (in-process).
 */
import {execFile} from 'node:child_process'
import {promisify} from 'node:util'
import {chmodSync, mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type Sandbox, startSandbox} from '../../src/sandbox/index.js'
import {BIN, ROOT, cleanEnv, json, runCli, tempConfigDir} from '../helpers/cli.js'
import {runInProcess} from '../helpers/in-process.js'

let sb: Sandbox
let env: Record<string, string>
beforeAll(async () => {
  sb = await startSandbox({port: 0})
  env = {PAY_CONFIG_DIR: tempConfigDir(), PAY_BASE_URL: sb.url, PAY_CLIENT_ID: sb.seed.client_id, PAY_CLIENT_SECRET: sb.seed.client_secret}
})
afterAll(async () => {
  await sb?.close()
})

describe('pay token --help', () => {
  it('its curl example, run as printed (after the "$ "), works against the sandbox', async () => {
    const help = (await runCli(['token', '--help'])).stdout
    const lines = help.split('\n')
    const first = lines.findIndex((l) => l.includes('curl -H'))
    expect(lines[first].trim().startsWith('$ curl ')).toBe(true)
    // the example as wrapped by the help (a trailing backslash continues it), pasted into a shell as is
    let last = first
    while (lines[last].endsWith('\\')) last++
    const line = lines.slice(first, last + 1).join('\n')
    // a `pay` on PATH that is this build
    const bin = mkdtempSync(join(tmpdir(), 'pay-bin-'))
    writeFileSync(join(bin, 'pay'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`)
    chmodSync(join(bin, 'pay'), 0o755)
    const e = cleanEnv({...env, PATH: `${bin}:${process.env.PATH}`})
    // async: the sandbox answers from this process
    const {stdout} = await promisify(execFile)('sh', ['-c', `${line.trim().slice(2)} --fail-with-body`], {env: e, encoding: 'utf8', timeout: 60_000})
    expect(JSON.parse(stdout).object).toBe('balance')
  })

  it('--json is documented as the one command whose JSON is not a service body', async () => {
    const help = (await runCli(['token', '--help'])).stdout
    expect(help).toMatch(/--json[\s\S]*not the service's body|not the service's body[\s\S]*--json/)
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toMatch(/`pay token --json`/)
  })
})

describe('pay api -i', () => {
  it('prints the status line and headers on stderr for an error answer too', async () => {
    const r = await runCli(['api', 'GET', '/v1/collections/CL_does_not_exist', '-i'], {env})
    expect(r.code).toBe(4)
    expect(r.stderr).toMatch(/^HTTP 404/m)
    expect(r.stderr).toMatch(/^content-type: application\/json/m)
    const ok = await runCli(['api', 'GET', '/v1/balance', '-i'], {env})
    expect(ok.code).toBe(0)
    expect(ok.stderr).toMatch(/^HTTP 200/m)
  })
})

describe('--currency', () => {
  it('a bad currency is refused with a rule that matches what is accepted (lower case is upper-cased)', async () => {
    const r = await runInProcess(['balance', '--currency', 'KESX', '--json'], {env})
    expect(r.code).toBe(2)
    const message = json(r).error.message as string
    expect(message).toContain('--currency')
    expect(message).not.toMatch(/upper-case/)
    expect(message).toMatch(/3 letters/)
    expect((await runInProcess(['balance', '--currency', 'kes', '--json'], {env})).code).toBe(0)
  })
})
