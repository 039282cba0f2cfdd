/**
 * A reference is one promise to the service across processes: two bulk runs of the merchant's two clients started
 * together, and a single command while a bulk run's rows are in flight. The built CLI against the sandbox through a
 * fault proxy that holds the answer of the first create of each reference (the create is made upstream), so the
 * requests stay in flight while the other process checks; the sandbox's objects are counted.
 */
import {type ChildProcess, spawn} from 'node:child_process'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {BIN, ROOT, cleanEnv, json, tempConfigDir} from '../helpers/cli.js'
import {referenceIn} from '../helpers/fault-proxy.js'
import {keysSent, useFaultProxy, useSandbox, withReference, writeRows} from '../helpers/command-harness.js'
import {ACME_OPS} from '../helpers/sandbox-http.js'

const h = useSandbox()
const faults = useFaultProxy(h)
const OPS = {PAY_CLIENT_ID: ACME_OPS.client_id, PAY_CLIENT_SECRET: ACME_OPS.client_secret}
const HEADER = 'reference,amount,currency,mobile,provider'
const amount = (i: number) => `1${i}.00`
const collectionsWith = (ref: string) => withReference(h.sb.state.collections, ref)

/** Holds the answer of the first create of each reference with `prefix` (the sandbox makes it); the others pass. */
function holdFirstCreates(prefix: string): void {
  const seen = new Set<string>()
  faults.proxy.rule = (r) => {
    const ref = r.method === 'POST' ? referenceIn(r.body) : undefined
    if (ref === undefined || !ref.startsWith(prefix) || seen.has(ref)) return 'pass'
    seen.add(ref)
    return 'hold'
  }
}

/** pay as a process through the fault proxy, sharing one config dir; `done` its result. */
function start(args: string[], env: Record<string, string>): {child: ChildProcess; done: Promise<{code: number | null; stderr: string; stdout: string}>} {
  const child = spawn(process.execPath, [BIN, ...args], {cwd: ROOT, env: cleanEnv({...h.env, ...faults.env, ...env}), stdio: ['ignore', 'pipe', 'pipe']})
  let stdout = ''
  let stderr = ''
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d))
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d))
  return {child, done: new Promise((resolve) => child.on('close', (code) => resolve({code, stdout, stderr})))}
}

/** Resolves once the sandbox holds a collection of each reference. */
async function untilCreated(refs: string[]): Promise<void> {
  const started = Date.now()
  while (!refs.every((ref) => collectionsWith(ref).length > 0)) {
    if (Date.now() - started > 60_000) throw new Error(`not created upstream: ${refs.filter((ref) => collectionsWith(ref).length === 0).join(', ')}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

describe('one promise per reference across processes', () => {
  it('two bulk runs of one file by the merchant\'s two clients, started together: each reference is created once, the later run refused (exit 5)', async () => {
    const dir = tempConfigDir()
    const refs = [1, 2, 3, 4].map((i) => `rp-two-${i}`)
    const a = writeRows(dir, 'a.csv', HEADER, refs.length, (i) => `${refs[i - 1]},${amount(i)},KES,254700000001,mpesa`)
    const b = writeRows(dir, 'b.csv', HEADER, refs.length, (i) => `${refs[i - 1]},${amount(i)},KES,254700000001,mpesa`)
    holdFirstCreates('rp-two-')
    const env = {PAY_CONFIG_DIR: join(dir, 'cfg')}
    const runs = [start(['collections', 'create', '--from-file', a], env), start(['collections', 'create', '--from-file', b], {...env, ...OPS})]
    // one run's creates are held in flight; the other ends first (refused, or on a pay without the lock: sent)
    const first = await Promise.race(runs.map((r, i) => r.done.then((res) => ({...res, i}))))
    await untilCreated(refs)
    const held = runs[1 - first.i]
    held.child.kill('SIGKILL')
    await held.done
    faults.proxy.rule = () => 'pass'
    expect(first.code, first.stderr).toBe(5)
    expect(first.stderr).toContain(`${refs.length} row(s) reuse a reference`)
    for (const ref of refs) expect(collectionsWith(ref)).toHaveLength(1)
  })

  it('a single command while a bulk row with its reference is in flight: another client is refused (exit 5); the same client and body resumes the row\'s key', async () => {
    const dir = tempConfigDir()
    const refs = [1, 2].map((i) => `rp-one-${i}`)
    const file = writeRows(dir, 'rows.csv', HEADER, refs.length, (i) => `${refs[i - 1]},${amount(i)},KES,254700000001,mpesa`)
    holdFirstCreates('rp-one-')
    const env = {PAY_CONFIG_DIR: join(dir, 'cfg')}
    const run = start(['collections', 'create', '--from-file', file], env)
    await untilCreated(refs)
    const single = (i: number, extra: Record<string, string> = {}) =>
      h.pay(['collections', 'create', '--amount', amount(i), '--currency', 'KES', '--reference', refs[i - 1], '--mobile', '254700000001', '--provider', 'mpesa', '--json'], {...faults.env, ...env, ...extra})
    const other = await single(1, OPS)
    expect(other.code, other.stderr).toBe(5)
    expect(other.stderr).toContain(`reference ${refs[0]} already names another request: line 2 of`)
    const same = await single(2)
    expect(same.code, same.stderr).toBe(0)
    expect(same.stderr).toContain('resuming')
    run.child.kill('SIGKILL')
    await run.done
    faults.proxy.rule = () => 'pass'
    for (const ref of refs) expect(collectionsWith(ref)).toHaveLength(1)
    expect(json(same).id).toBe(collectionsWith(refs[1])[0].id)
    expect(keysSent(h, refs[1]).size).toBe(1)
  })
})
