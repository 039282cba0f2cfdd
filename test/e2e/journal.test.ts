/**
 * The operation journal across processes: the built CLI against the sandbox through a fault proxy that holds an
 * answer, for what only processes show: several senders of one request at once, a sender killed (its lock taken
 * over), SIGINT / SIGTERM. The journal's logic in-process: test/journal/gate.sandbox.test.ts.
 */
import {describe, expect, it} from 'vitest'
import {json, signalledRun, tempConfigDir} from '../helpers/cli.js'
import {referenceIn} from '../helpers/fault-proxy.js'
import {keysSent, ok, useFaultProxy, useSandbox, withReference} from '../helpers/command-harness.js'

const h = useSandbox()
const faults = useFaultProxy(h)

const refOf = referenceIn
const collectionsWith = (ref: string) => withReference(h.sb.state.collections, ref)
const keysOf = (ref: string) => keysSent(h, ref)

const collect = (ref: string, extra: string[] = []) => ['collections', 'create', '--amount', '150.00', '--currency', 'KES', '--reference', ref, '--mobile', '254712345678', '--provider', 'mpesa', '--retries', '1', ...extra]

describe('one sender per request', () => {
  it('20 pairs of identical `pay collections create` started together: 20 collections upstream, and both of each pair print the same id', async () => {
    const dir = tempConfigDir()
    const ids: [string, string][] = []
    for (let batch = 0; batch < 4; batch++) {
      const pairs = Array.from({length: 5}, (_, i) => `jr-pair-${batch * 5 + i + 1}`)
      const runs = await Promise.all(pairs.flatMap((ref) => [h.pay(collect(ref, ['--json']), {PAY_CONFIG_DIR: dir}), h.pay(collect(ref, ['--json']), {PAY_CONFIG_DIR: dir})]))
      for (let i = 0; i < pairs.length; i++) {
        const [a, b] = [runs[2 * i], runs[2 * i + 1]]
        expect(a.code, a.stderr).toBe(0)
        expect(b.code, b.stderr).toBe(0)
        // one of the two sent it; the other waited for it and reports its answer
        expect([a, b].filter((r) => r.stderr.includes('already sent'))).toHaveLength(1)
        ids.push([json(a).id, json(b).id])
      }
    }
    for (const [a, b] of ids) expect(a).toBe(b)
    for (let i = 1; i <= 20; i++) {
      expect(collectionsWith(`jr-pair-${i}`)).toHaveLength(1)
      // the sandbox's request log: one create per pair (the other process sent none)
      expect(h.requests((e) => e.method === 'POST' && (e.body as {merchant_reference?: string})?.merchant_reference === `jr-pair-${i}`)).toHaveLength(1)
    }
  })

  it('a sender killed with SIGKILL while its request is in flight leaves its lock: the next run takes it over and resumes the key', async () => {
    faults.proxy.rule = (r) => (r.method === 'POST' && refOf(r.body) === 'jr-lock-1' ? 'hold' : 'pass')
    const killed = await interrupt(collect('jr-lock-1'), 'jr-lock-1', 'SIGKILL')
    expect(killed.code).toBe(null)
    faults.proxy.rule = () => 'pass'
    const started = Date.now()
    const again = ok(await h.pay(collect('jr-lock-1', ['--json']), faults.env))
    expect(Date.now() - started).toBeLessThan(20_000) // taken over at once, not waited out
    expect(json(again).id).toBe(collectionsWith('jr-lock-1')[0].id)
    expect(collectionsWith('jr-lock-1')).toHaveLength(1)
    expect(keysOf('jr-lock-1').size).toBe(1)
  })
})

/** Runs pay, sends `signal` once the sandbox has the request, and collects the result. */
function interrupt(args: string[], ref: string, signal: NodeJS.Signals): Promise<{code: number | null; stdout: string; stderr: string}> {
  return signalledRun(args, {...h.env, ...faults.env}, () => collectionsWith(ref).length > 0, signal)
}

describe('SIGINT / SIGTERM during a create', () => {
  it('SIGINT prints the key and the resume command and exits 130; a re-run resumes with it', async () => {
    faults.proxy.rule = (r) => (r.method === 'POST' && refOf(r.body) === 'jr-int-1' ? 'hold' : 'pass')
    const r = await interrupt(collect('jr-int-1'), 'jr-int-1', 'SIGINT')
    expect(r.code, r.stderr).toBe(130)
    const key = /idempotency key: (\S+)/.exec(r.stderr)?.[1]
    expect(key, r.stderr).toMatch(/^[0-9a-f-]{36}$/)
    expect(r.stderr).toMatch(/interrupted \(SIGINT\)/)
    expect(r.stderr).toContain(`--idempotency-key ${key}`)
    faults.proxy.rule = () => 'pass'
    const again = ok(await h.pay(collect('jr-int-1', ['--json']), faults.env))
    expect(json(again).id).toBe(collectionsWith('jr-int-1')[0].id)
    expect(collectionsWith('jr-int-1')).toHaveLength(1)
  })

  it('SIGTERM under --json: the envelope names the key; exit 143', async () => {
    faults.proxy.rule = (r) => (r.method === 'POST' && refOf(r.body) === 'jr-int-2' ? 'hold' : 'pass')
    const r = await interrupt(collect('jr-int-2', ['--json']), 'jr-int-2', 'SIGTERM')
    expect(r.code, r.stderr).toBe(143)
    const envelope = JSON.parse(r.stdout)
    expect(envelope.error).toMatchObject({code: 'interrupted'})
    expect(envelope.error.idempotency_key).toMatch(/^[0-9a-f-]{36}$/)
    faults.proxy.rule = () => 'pass'
  })
})

