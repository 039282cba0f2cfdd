/**
 * `pay flow run` as a process, for what only a process shows: a signal in the middle of a run. The run id is what
 * finds and resumes the run (`--run-id`: the same references, which the journal answers or resumes), so an
 * interrupted run prints it on stderr as a finished one does. The flows' logic in-process: test/flows/run.test.ts.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {signalledRun, tempConfigDir} from '../helpers/cli.js'
import {type FaultRequest, referenceIn} from '../helpers/fault-proxy.js'
import {useFaultProxy, useSandbox} from '../helpers/command-harness.js'

const h = useSandbox()
const faults = useFaultProxy(h)

/** A flow of one step held by the fault proxy (`held`): it is run, and sent `signal` once the proxy holds that step. */
function interrupted(steps: string[], held: (r: FaultRequest) => boolean, signal: NodeJS.Signals): Promise<{code: number | null; stdout: string; stderr: string}> {
  const file = join(tempConfigDir(), 'flow.yaml')
  writeFileSync(file, ['name: held', 'steps:', ...steps, ''].join('\n'))
  faults.proxy.rule = (r) => (held(r) ? 'hold' : 'pass')
  let polls = 0
  // the proxy holds the answer: the step is in flight (a few polls after the proxy saw it)
  const inFlight = () => faults.proxy.seen.some((s) => held(s.req)) && ++polls > 2
  return signalledRun(['flow', 'run', file, '--run-id', 'sig-run-1'], {...h.env, ...faults.env}, inFlight, signal).finally(() => (faults.proxy.rule = () => 'pass'))
}

describe('pay flow run interrupted', () => {
  it('SIGINT during a step\'s --wait ends the whole run: the later flows are skipped, not run; exit 130', async () => {
    const dir = tempConfigDir()
    const first = join(dir, 'first.yaml')
    const second = join(dir, 'second.yaml')
    writeFileSync(first, ['name: first', 'steps:', '  - id: collect', '    call: collections.create', '    body: {amount: "10.00", currency: KES, mobile: "254712345678", provider: mpesa, merchant_reference: "wait-${run.id}"}', '    wait: true', ''].join('\n'))
    writeFileSync(second, ['name: second', 'steps:', '  - id: balance', '    call: balance.get', ''].join('\n'))
    // the wait's poll of the collection is held: the run is inside the wait when the signal comes
    const poll = (q: FaultRequest) => q.method === 'GET' && q.path.startsWith('/v1/collections/')
    faults.proxy.rule = (r) => (poll(r) ? 'hold' : 'pass')
    let polls = 0
    const inWait = () => faults.proxy.seen.some((s) => poll(s.req)) && ++polls > 2
    const r = await signalledRun(['flow', 'run', first, second, '--run-id', 'sig-run-2', '--json'], {...h.env, ...faults.env}, inWait, 'SIGINT').finally(() => (faults.proxy.rule = () => 'pass'))
    expect(r.code, r.stderr).toBe(130)
    expect(faults.proxy.seen.some((s) => s.req.path.startsWith('/v1/balance')), 'the second flow sent nothing').toBe(false)
    expect(r.stderr, 'the given-up poll is ended, not retried').not.toMatch(/retrying/)
    const report = JSON.parse(r.stdout) as {steps: {suite: string; outcome: string; detail?: string}[]}
    expect(report.steps.find((s) => s.suite === 'second')).toMatchObject({outcome: 'skipped', detail: expect.stringContaining('interrupted (SIGINT) during step collect')})
  })

  it('SIGINT while a lookup is in flight: the run id and how to run it again on stderr, exit 130', async () => {
    const r = await interrupted(['  - id: balance', '    call: balance.get'], (q) => q.method === 'GET' && q.path.startsWith('/v1/balance'), 'SIGINT')
    expect(r.code, r.stderr).toBe(130)
    expect(r.stderr).toMatch(/interrupted \(SIGINT\).*run id sig-run-1/)
    expect(r.stderr).toContain('pay flow run --run-id sig-run-1')
  })

  it('SIGTERM while a create is in flight: the run id, and the key of the request whose outcome is unknown; exit 143', async () => {
    const create = ['  - id: collect', '    call: collections.create', '    body: {amount: "10.00", currency: KES, mobile: "254712345678", provider: mpesa, merchant_reference: "sig-${run.id}"}']
    const r = await interrupted(create, (q) => q.method === 'POST' && referenceIn(q.body) === 'sig-sig-run-1', 'SIGTERM')
    expect(r.code, r.stderr).toBe(143)
    expect(r.stderr).toMatch(/run id sig-run-1/)
    expect(r.stderr).toMatch(/idempotency key: [0-9a-f-]{36}/)
  })
})
