/**
 * Flow steps that control the sandbox (src/flows/sandbox-steps.ts): approve, succeed, fail and advance with a
 * target from earlier answers; checked before anything is sent; refused against anything but a pay sandbox (a
 * scripted loopback server that is not one, and a remote URL). In-process.
 */
import {createServer, type Server} from 'node:http'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {PassThrough} from 'node:stream'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {ApiClient} from '../../src/client/api-client.js'
import {loadFlows} from '../../src/flows/load.js'
import {runFlows} from '../../src/flows/run.js'
import {durationSeconds} from '../../src/api/control-endpoints.js'
import {Output} from '../../src/output/output.js'
import type {ApiContext} from '../../src/runtime.js'
import type {Sandbox} from '../../src/sandbox/index.js'
import {ROOT, tempConfigDir} from '../helpers/cli.js'
import {ACME, start} from '../helpers/sandbox-http.js'

let sb: Sandbox
let notSandbox: Server
let notSandboxUrl = ''
const seen: string[] = []
beforeAll(async () => {
  sb = await start({settleMs: 60_000}) // nothing settles by itself: only the flow's sandbox steps move things
  // loopback, answers everything 200 {}, but is no pay sandbox (its "clock" is not one)
  notSandbox = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`)
    res.writeHead(200, {'content-type': 'application/json'}).end('{}')
  })
  await new Promise<void>((resolve) => notSandbox.listen(0, '127.0.0.1', resolve))
  notSandboxUrl = `http://127.0.0.1:${(notSandbox.address() as {port: number}).port}`
})
afterAll(async () => {
  await sb?.close()
  await new Promise((resolve) => notSandbox?.close(resolve))
})

function context(baseUrl = sb.url): ApiContext {
  const settings = {baseUrl, clientId: ACME.client_id, clientSecret: ACME.client_secret}
  const term = {stdoutIsTTY: false, stderrIsTTY: false, stdinIsTTY: false, color: false, colorErr: false, interactive: false, columns: 100}
  return {client: new ApiClient({settings, userAgent: 'pay-test', retries: 0}), out: new Output(term, false, new PassThrough(), new PassThrough()), settings: {...settings, profileName: 't', profileFound: false, sources: {}, configDir: ''}} as ApiContext
}

function flowFile(name: string, text: string): string {
  const file = join(tempConfigDir(), name)
  writeFileSync(file, text)
  return file
}

describe('sandbox steps', () => {
  it('the shipped flows/sandbox-approval.yaml: approve a waiting mandate, force a collection, refuse a second approval, advance the clock', async () => {
    const steps = await runFlows(context(), loadFlows([join(ROOT, 'flows', 'sandbox-approval.yaml')]))
    expect(steps.filter((s) => s.outcome !== 'passed'), JSON.stringify(steps, null, 1)).toEqual([])
    expect(steps.find((s) => s.name === 'the customer approves on their phone')!.detail).toMatch(/^MD_\w+ approved \(sandbox\)$/)
    expect(steps.at(-1)!.detail).toBe('sandbox clock advanced 1d')
  })

  it('fail forces a failure: the step after it, waiting, sees failed', async () => {
    const file = flowFile('fail.yaml', `steps:
  - {id: pay, call: payouts.create, body: {amount: "5.00", currency: KES, merchant_reference: "sbx-fail-\${run.id}", mobile: "254711000038", provider: mpesa}}
  - {id: force, sandbox: fail, target: "\${steps.pay.id}"}
  - {id: after, call: payouts.get, path: {merchant_reference: "\${steps.pay.merchant_reference}"}, wait: true, expect: {exit: tx_failed, fields: {status: failed}}}
`)
    const steps = await runFlows(context(), loadFlows([file]))
    expect(steps.map((s) => s.outcome)).toEqual(['passed', 'passed', 'passed'])
  })

  it('are checked before anything is sent: the action, its target, nothing else of a request', () => {
    const file = flowFile('bad.yaml', `steps:
  - {id: a, sandbox: approve}
  - {id: b, sandbox: advance, target: tomorrow}
  - {id: c, sandbox: succeed, target: CL_1, call: collections.get}
  - {id: e, target: CL_1}
  - {id: f, sandbox: fail, target: "\${steps.nope.id}"}
`)
    const problems = (files: string[]) => {
      try {
        loadFlows(files)
      } catch (err) {
        return (err as Error & {problems?: {flag: string; rule: string}[]}).problems!.map((p) => `${p.flag.split(': ').slice(1).join(': ')} ${p.rule}`).join('\n')
      }
      return ''
    }
    const message = problems([file])
    expect(message).toContain('step a (#1): target is required: the mandate id (MD_…) to approve')
    expect(message).toContain('step b (#2): target must be seconds or a number with s, m, h or d')
    expect(message).toContain('step c (#3): call cannot be combined with `sandbox`')
    expect(message).toContain('step e (#4): sandbox is required with `target`')
    expect(message).toContain('step f (#5): reference ${steps.nope.id} names no earlier step')
    expect(problems([flowFile('action.yaml', 'steps:\n  - {id: d, sandbox: settle, target: CL_1}\n')])).toMatch(/step d \(#1\): sandbox .*"approve"\|"succeed"\|"fail"\|"advance"/)
  })

  it('durations: seconds, s, m, h, d; anything else is not one', () => {
    expect([durationSeconds('90'), durationSeconds('90m'), durationSeconds('1.5h'), durationSeconds('1d')]).toEqual([90, 5400, 5400, 86_400])
    expect([durationSeconds('1w'), durationSeconds(''), durationSeconds('-1')]).toEqual([undefined, undefined, undefined])
  })
})

describe('against anything but a sandbox', () => {
  const flow = () => flowFile('needs-sandbox.yaml', `steps:
  - {id: first, call: metadata.banks}
  - {id: approve, sandbox: approve, target: MD_1}
`)

  it('a loopback service that is not a pay sandbox: refused, exit 2, before any step is sent', async () => {
    seen.length = 0
    const err = await runFlows(context(notSandboxUrl), loadFlows([flow()])).catch((e: unknown) => e as Error & {exitCode?: number})
    expect(err).toBeInstanceOf(Error)
    expect((err as {exitCode?: number}).exitCode).toBe(2)
    expect((err as Error).message).toMatch(/step approve: sandbox controls the sandbox, and http:\/\/127\.0\.0\.1:\d+ is not a pay sandbox: nothing was sent/)
    expect(seen.filter((r) => !r.startsWith('GET /_sandbox/clock'))).toEqual([]) // only the probe: no token, no /v1
  })

  it('a remote base URL: refused without asking it anything', async () => {
    const err = await runFlows(context('https://api.example.com'), loadFlows([flow()])).catch((e: unknown) => e as Error)
    expect((err as {exitCode?: number}).exitCode).toBe(2)
    expect((err as Error).message).toContain('https://api.example.com is not a pay sandbox')
  })

  it('flows without sandbox steps run anywhere, as before (no probe)', async () => {
    seen.length = 0
    const file = flowFile('plain.yaml', 'steps:\n  - {id: banks, call: metadata.banks, expect: {status: 200}}\n')
    await runFlows(context(notSandboxUrl), loadFlows([file]))
    expect(seen.some((r) => r.startsWith('GET /_sandbox'))).toBe(false)
  })
})
