/**
 * bin/run.cjs's direct path for operation commands (src/cli/direct-argv.ts → runOperationCommand, without oclif)
 * against the sandbox, with a stored profile as users run pay: for each command line, the process prints exactly
 * what the same command line prints through oclif (PAY_NO_FAST_PATH=1), same stdout, stderr and exit code, and the
 * direct path really skips oclif where it should (and leaves to oclif what it should).
 */
import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type Sandbox, startSandbox} from '../../src/sandbox/index.js'
import {bareNodeModules, probedRun, type ProbedRun} from '../helpers/probed-run.js'

let sb: Sandbox
const dir = mkdtempSync(join(tmpdir(), 'pay-direct-'))
const configDir = join(dir, 'config')

beforeAll(async () => {
  sb = await startSandbox({port: 0, settleMs: 60_000})
  const m = sb.seed.merchants[0]
  mkdirSync(configDir, {recursive: true, mode: 0o700})
  writeFileSync(join(configDir, 'profiles.json'), JSON.stringify({active: 'main', profiles: {main: {base_url: sb.url, client_id: m.client_id, client_secret: m.client_secret}}}), {mode: 0o600})
}, 60_000)

afterAll(async () => {
  await sb?.close()
  rmSync(dir, {recursive: true, force: true})
})

// NODE_ENV as users have it (vitest sets test, under which oclif adds a development warning to parse errors)
const run = (args: string[], env: Record<string, string | undefined> = {}) => probedRun(args, {PAY_CONFIG_DIR: configDir, NODE_ENV: undefined, ...env})

/** What differs between two runs of the same request by nature: ids, request ids, times, references. */
function stable(text: string): string {
  return text
    .replace(/\b(req|REQ)[_-][A-Za-z0-9_-]+/g, '<request_id>')
    .replace(/\b[A-Z]{2,4}_[A-Za-z0-9]{6,}\b/g, '<id>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>')
    .replace(/direct-[a-z]+-\d+/g, '<reference>')
}

/**
 * Runs argv both ways: through the direct path (unless `direct` is false: then bin/run.js must hand it to oclif)
 * and through oclif; both must print the same. argv is asked once per way (a create gets a fresh reference each).
 */
async function same(argv: (way: 'direct' | 'oclif') => string[], direct = true, normalise = false): Promise<void> {
  const [fast, oclif] = await Promise.all([run(argv('direct')), run(argv('oclif'), {PAY_NO_FAST_PATH: '1'})])
  const what = `pay ${argv('direct').join(' ')}`
  expect(oclif.oclifLoaded, `oclif should serve: ${what}`).toBe(true)
  expect(fast.oclifLoaded, `${direct ? 'the direct path' : 'oclif'} should serve: ${what}\n${fast.stderr}`).toBe(!direct)
  const view = (r: ProbedRun) => ({code: r.code, stdout: normalise ? stable(r.stdout) : r.stdout, stderr: normalise ? stable(r.stderr) : r.stderr})
  expect(view(fast), what).toEqual(view(oclif))
}

const fixed = (...argv: string[]) => () => argv
const MOBILE = ['--currency', 'KES', '--mobile', '254700000001', '--provider', 'mpesa']
let n = 0
const createWith = (...extra: string[]) => (way: string) => ['collections', 'create', '--amount', '10.00', ...MOBILE, '--reference', `direct-${way}-${n++}`, ...extra]

describe('what the direct path loads', () => {
  // start-up costs that crept in before (docs/build.md): an ES-module loader, a V8 flag set at
  // run time (node:v8), node:crypto for a write's key, and Node's internal undici (Node 22+ loads it for an
  // import() of node:http), node:readline (a bulk run's journal read, in the runtime bundle for `pay journal`)
  it('no ES-module loader, no node:v8, no node:crypto, no undici, no node:readline: for a read and a write', {timeout: 60_000}, async () => {
    const bare = await bareNodeModules() // what this Node loads by itself is not pay's doing
    for (const argv of [['balance'], createWith()('direct')]) {
      const r = await run(argv)
      expect(r.code, r.stderr).toBe(0)
      expect(r.oclifLoaded).toBe(false)
      expect(r.nodeModules).toContain('NativeModule http')
      const unwanted = ['NativeModule internal/modules/esm/module_job', 'NativeModule v8', 'NativeModule crypto', 'NativeModule internal/deps/undici/undici', 'NativeModule readline']
      if (process.platform === 'win32') unwanted.splice(2, 1) // no /dev/urandom: node:crypto makes the key
      expect(r.nodeModules.filter((m) => unwanted.includes(m) && !bare.includes(m)), `pay ${argv.join(' ')}`).toEqual([])
    }
  })
})

describe('the direct path prints what oclif prints', () => {
  it('success, as a table and as --json', {timeout: 120_000}, async () => {
    await same(fixed('balance'))
    await same(fixed('balance', '--json'))
    await same(fixed('balance', '--currency', 'KES', '--retries=1', '-p', 'main'))
    await same(createWith(), true, true)
    await same(createWith('--json'), true, true)
  })

  it('the global output flags: formats, --fields, --jq, --quiet, --no-header', {timeout: 120_000}, async () => {
    await same(fixed('balance', '-o', 'csv'))
    await same(fixed('balance', '--output=yaml', '--fields', 'currency,payout_wallet'))
    await same(fixed('balance', '--jq', '.data[0].currency'))
    await same(fixed('balance', '-o', 'tsv', '--no-header', '-q'))
    await same(fixed('collections', 'get', 'COL_doesnotexist', '-o', 'yaml'), true, true)
  })

  it('--dry-run sends nothing and prints the same request', {timeout: 60_000}, async () => {
    await same(fixed('collections', 'create', '--amount', '10.00', ...MOBILE, '-r', 'dry-1', '--idempotency-key', 'key-1', '--dry-run'))
    await same(fixed('collections', 'create', '--amount', '10.00', ...MOBILE, '-r', 'dry-2', '--idempotency-key', 'key-2', '--dry-run', '--json', '-F', 'metadata.a=1', 'metadata.b:=2'))
  })

  it('bad input found by the operation: a bad value, a missing required flag (exit 2, nothing sent)', {timeout: 60_000}, async () => {
    await same(fixed('balance', '--currency', 'KESX'))
    await same(fixed('balance', '--currency', 'KESX', '--json'))
    await same(fixed('collections', 'create', '--amount', 'ten', ...MOBILE, '-r', 'bad-1'))
    await same(fixed('collections', 'create', ...MOBILE, '-r', 'bad-2'))
    await same(fixed('collections', 'create', ...MOBILE, '-r', 'bad-3', '--json'))
  })

  it('service errors: not found (exit 4), with and without --json', {timeout: 60_000}, async () => {
    await same(fixed('collections', 'get', 'COL_doesnotexist'), true, true)
    await same(fixed('collections', 'get', 'COL_doesnotexist', '--json'), true, true)
  })

  it('no service at the base URL (exit 7)', {timeout: 60_000}, async () => {
    await same(fixed('balance', '--base-url', 'http://127.0.0.1:9', '--retries', '0'))
  })

  it('what the direct path leaves to oclif prints oclif\'s messages: unknown flag, bad flag value, missing value, repeated flag', {timeout: 120_000}, async () => {
    await same(fixed('balance', '--bogus'), false)
    await same(fixed('balance', '--retries', '11'), false)
    await same(fixed('balance', '--timeout', 'soon', '--json'), false)
    await same(fixed('balance', '--currency'), false)
    await same(fixed('balance', 'extra'), false)
    await same(fixed('balance', '--currency', 'KES', '--currency', 'UGX', '--json'), false)
    await same(fixed('balance', '-o', 'xml'), false)
    // a problem the runtime finds in the output flags: the direct path hands the command line to oclif too
    await same(fixed('balance', '--jq', '.data[', '--json'), false)
  })
})
