/**
 * Hardening (issue 12, "What a new user tripped on"): hints and messages that say what actually happened.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {hintFor} from '../../src/base/errors.js'
import {ROOT, json, runCli, tempConfigDir} from '../helpers/cli.js'
import {runCommand, runInProcess} from '../helpers/in-process.js'
import {TEST_CLIENT_ID, TEST_CLIENT_SECRET, useScriptedServer} from '../helpers/scripted-server.js'
import {useSandbox} from '../helpers/command-harness.js'

const server = useScriptedServer()
const sb = useSandbox()
const env = (extra: Record<string, string> = {}) => ({PAY_CONFIG_DIR: tempConfigDir(), PAY_BASE_URL: server.url, PAY_CLIENT_ID: TEST_CLIENT_ID, PAY_CLIENT_SECRET: TEST_CLIENT_SECRET, ...extra})

describe('the pending-mandate 409', () => {
  it('names the pending mandate\'s own reference, not "this reference"', () => {
    const message = "a mandate for 254700000001 is still awaiting the customer's approval; poll GET /v1/mandates?merchant_reference=first-ref"
    const hint = hintFor(409, 'mandate_pending_approval', 1, message)!
    expect(hint).not.toMatch(/with this reference/)
    expect(hint).toContain('pay mandates get --reference first-ref')
    // the URL inside a sentence: a closing parenthesis and the full stop after it are not part of the reference
    const poll = (ref: string) => hintFor(409, 'mandate_pending_approval', 1, `a mandate is still awaiting approval (poll GET /v1/mandates?merchant_reference=${ref}).`)!
    expect(poll('abc')).toContain('(reference abc) is still pending')
    expect(poll('abc')).toContain('pay mandates get --reference abc`')
    expect(poll('a%28b%29')).toContain('pay mandates get --reference \'a(b)\'`')
    expect(hintFor(409, 'x', 1, 'poll GET /v1/mandates?mandate_id=MD_1&merchant_reference=order%207, then retry')).toContain("--reference 'order 7'`")
    // a reference holding control characters or direction marks is not repeated: the generic hint
    // tab and line breaks too (the reference rule of the CLI refuses them), and a leading `-`, which oclif would
    // read as a flag after --reference (`pay mandates get --reference --json` fails)
    for (const ref of ['a%1B%5D0%3BX%07b', 'a%E2%80%AEb', 'a%C2%9Bb', 'a%0Ab', 'a%09b', 'a%0Db', '--json', '-x']) {
      expect(poll(ref), ref).not.toContain('pay mandates get')
      expect(poll(ref), ref).toContain('an earlier one (perhaps under another reference) is still pending')
    }
    // without a reference in the message it still does not claim it is the user's reference
    expect(hintFor(409, 'some_conflict', 1, 'conflict')).not.toMatch(/with this reference/)
  })

  it('reads the reference from the sandbox\'s own 409 whole and decoded (spaces, commas, &), quoted for the shell', async () => {
    const args = ['mandates', 'create', '--mobile', '254712349998', '--provider', 'mpesa', '--currency', 'KES', '--amount', '400', '--frequency', 'WEEKLY', '--starts-at', '2026-12-07T08:00:00+03:00']
    const reference = "order 7, part&2 (Bob's)"
    expect((await sb.run([...args, '--reference', reference])).code).toBe(0) // a number ending in 8 awaits approval
    const second = await sb.run([...args, '--reference', 'another-ref'])
    expect(second.code, second.stderr).toBe(5)
    expect(second.stderr).toContain(`(reference ${reference}) is still pending`)
    expect(second.stderr).toContain(`pay mandates get --reference 'order 7, part&2 (Bob'\\''s)'`)
  })
})

describe('a 429 with a Retry-After longer than pay waits', () => {
  it('exits 6 and says pay waits at most 30 s, and the README says so too', async () => {
    server.script('GET /v1/balance', {status: 429, headers: {'retry-after': '60'}, body: {error: {code: 'rate_limited', message: 'slow down', request_id: 'REQ_429'}}})
    const r = await runInProcess(['balance'], {env: env()})
    expect(r.code).toBe(6)
    expect(r.stderr).toMatch(/60 s/)
    expect(r.stderr).toMatch(/at most 30 s/)
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toMatch(/Retry-After[^.]*at most 30 s/)
  })
})

describe('after `pay profiles remove` of the active profile', () => {
  it('says there is no active profile and how to choose one, not "--base-url is not set"', async () => {
    const dir = tempConfigDir()
    const e = {PAY_CONFIG_DIR: dir}
    for (const name of ['one', 'two']) expect((await runCommand(['profiles', 'add', name, '--base-url', server.url, '--client-id', TEST_CLIENT_ID], {env: e})).code).toBe(0)
    expect((await runCommand(['profiles', 'use', 'two'], {env: e})).code).toBe(0)
    expect((await runCommand(['profiles', 'remove', 'two'], {env: e})).code).toBe(0)
    const r = await runInProcess(['balance', '--json'], {env: e})
    expect(r.code).toBe(2)
    expect(json(r).error.message).toMatch(/no active profile/)
    expect(r.stderr).toContain('pay profiles use')
    expect(r.stderr).not.toMatch(/--base-url is not set/)
  })

  it('after removing the last profile, says none is left and that `pay login` creates one, not to choose among none', async () => {
    const e = {PAY_CONFIG_DIR: tempConfigDir()}
    expect((await runCommand(['profiles', 'add', 'only', '--base-url', server.url, '--client-id', TEST_CLIENT_ID], {env: e})).code).toBe(0)
    expect((await runCommand(['profiles', 'remove', 'only'], {env: e})).code).toBe(0)
    const r = await runInProcess(['balance', '--json'], {env: e})
    expect(r.code).toBe(2)
    expect(json(r).error.message).toMatch(/no active profile/)
    expect(r.stderr).toContain('pay login')
    expect(r.stderr).not.toContain('pay profiles use')
    expect(r.stderr).not.toContain('pay profiles list')
  })
})

describe('an unknown command', () => {
  it('is named as typed (spaces, not the colon form) and the closest command is suggested; exit 2', async () => {
    const r = await runCli(['colections', 'get'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('"colections get"')
    expect(r.stderr).not.toContain('colections:get')
    expect(r.stderr).toContain('did you mean `pay collections get`')
    const s = await runCli(['sandbox', 'smoke', '--json'])
    expect(s.code).toBe(2)
    expect(s.stderr).not.toContain('sandbox:smoke')
    expect(json(s).error.code).toBe('unknown_command')
  })
})
