/**
 * `pay flow run` (issue 11): references, checking before sending, expectations and the shipped flows —
 * in-process against a sandbox where the logic is, and the built CLI for exit codes, --sandbox and --junit.
 */
import {readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {PassThrough} from 'node:stream'
import {XMLParser} from 'fast-xml-parser'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {ApiClient} from '../../src/client/api-client.js'
import {loadFlows} from '../../src/flows/load.js'
import {runFlows} from '../../src/flows/run.js'
import {resolve, type Scope} from '../../src/flows/template.js'
import {Output} from '../../src/output/output.js'
import type {ApiContext} from '../../src/runtime.js'
import type {Sandbox} from '../../src/sandbox/index.js'
import {reportOf, writeJUnitAfter} from '../../src/flows/report.js'
import {ROOT, json, runCli, tempConfigDir} from '../helpers/cli.js'
import {runCommand} from '../helpers/in-process.js'
import {ACME, start} from '../helpers/sandbox-http.js'
import {waitFor} from '../helpers/wait-for.js'

let sb: Sandbox
beforeAll(async () => {
  sb = await start()
})
afterAll(async () => {
  await sb?.close()
})

const FLOWS_DIR = join(ROOT, 'flows')
const shipped = readdirSync(FLOWS_DIR)
  .filter((f) => /\.(ya?ml|json)$/.test(f))
  .map((f) => join(FLOWS_DIR, f))

function context(): ApiContext {
  const settings = {baseUrl: sb.url, clientId: ACME.client_id, clientSecret: ACME.client_secret}
  const term = {stdoutIsTTY: false, stderrIsTTY: false, stdinIsTTY: false, color: false, colorErr: false, interactive: false, columns: 100}
  return {client: new ApiClient({settings, userAgent: 'pay-test'}), out: new Output(term, false, new PassThrough(), new PassThrough()), settings: {...settings, profileName: 't', profileFound: false, sources: {}, configDir: ''}} as ApiContext
}

function flowFile(name: string, text: string): string {
  const file = join(tempConfigDir(), name)
  writeFileSync(file, text)
  return file
}

describe('references', () => {
  const scope: Scope = {steps: {charge: {id: 'CL_1', amount: '10.00', n: 3, items: [{plan_id: 'PLN_A'}]}}, env: {ORDER: 'o-42'}, run: {id: 'r1'}}

  it('resolve dot paths, env with defaults (nested too) and the run id', () => {
    expect(resolve('${steps.charge.id}', scope)).toBe('CL_1')
    expect(resolve('${steps.charge.n}', scope)).toBe(3) // a whole-string reference keeps its type
    expect(resolve('x-${steps.charge.n}-${run.id}', scope)).toBe('x-3-r1')
    expect(resolve('${steps.charge.items.0.plan_id}', scope)).toBe('PLN_A')
    expect(resolve('${env.ORDER}', scope)).toBe('o-42')
    expect(resolve('${env.MISSING:-dflt}', scope)).toBe('dflt')
    expect(resolve('${env.MISSING:-ord-${run.id}}', scope)).toBe('ord-r1')
    expect(resolve({a: ['${steps.charge.amount}']}, scope)).toEqual({a: ['10.00']})
  })

  it('say which reference cannot resolve', () => {
    expect(() => resolve('${steps.charge.nope}', scope)).toThrow(/has no nope/)
    expect(() => resolve('${steps.later.id}', scope)).toThrow(/step "later" has no result/)
    expect(() => resolve('${env.MISSING}', scope)).toThrow(/MISSING is not set/)
  })

  it('resolve between steps against the sandbox: a later step reads an earlier answer', async () => {
    const file = flowFile('refs.json', JSON.stringify({
      name: 'refs',
      steps: [
        {id: 'charge', call: 'collections.create', body: {amount: '12.50', currency: 'KES', merchant_reference: 'refs-${run.id}', mobile: '254712345670', provider: 'mpesa'}},
        {id: 'again', call: 'collections.get', path: {id: '${steps.charge.id}'}, expect: {fields: {id: '${steps.charge.id}', amount: '12.50', merchant_reference: 'refs-${run.id}'}}},
        {id: 'missing', call: 'collections.get', path: {id: 'CL_NOPE${run.id}'}, expect: {status: 404, exit: 'not_found'}},
      ],
    }))
    const steps = await runFlows(context(), loadFlows([file]), {runId: 'abc'})
    expect(steps.map((s) => [s.name, s.outcome])).toEqual([['charge', 'passed'], ['again', 'passed'], ['missing', 'passed']])
  })
})

describe('steps that name a resource command', () => {
  it('map flag-named inputs onto the endpoint like the command line (upper-casing, alternatives by flag) and run', async () => {
    const file = flowFile('command.json', JSON.stringify({
      name: 'command form',
      steps: [
        {id: 'charge', command: 'collections create', inputs: {amount: '10.00', currency: 'kes', reference: 'cmd-${run.id}', mobile: '254712345670', provider: 'mpesa'}, wait: true, expect: {fields: {status: 'succeeded', currency: 'KES'}}},
        {id: 'byref', command: 'collections get', inputs: {reference: '${steps.charge.merchant_reference}'}, expect: {fields: {id: '${steps.charge.id}'}}},
      ],
    }))
    const steps = await runFlows(context(), loadFlows([file]), {runId: 'cmd1'})
    expect(steps.map((s) => [s.name, s.outcome, s.detail])).toEqual([['charge', 'passed', expect.stringContaining('succeeded')], ['byref', 'passed', 'HTTP 200 succeeded']])
    expect(sb.requests.some((r) => r.method === 'GET' && r.path === '/v1/collections' && r.query?.merchant_reference === 'cmd-cmd1')).toBe(true)
  })

  it('are checked with the command\'s flag names before anything is sent', () => {
    const file = flowFile('command-bad.yaml', 'steps:\n  - id: charge\n    command: collections create\n    inputs: {amount: "ten", currency: KES, mobile: "254712345670", provider: mpesa, colour: red}\n  - id: x\n    command: collections explode\n')
    let problems: {flag: string; rule: string}[] = []
    try {
      loadFlows([file])
    } catch (e) {
      problems = (e as {problems: typeof problems}).problems
    }
    expect(problems.map((p) => `${p.flag.slice(file.length + 2)} ${p.rule}`)).toEqual([
      'step charge (#1): inputs: colour is not an input of `pay collections create`',
      'step charge (#1): inputs: --amount must be a positive decimal string with at most 2 decimal places, such as "10.00"',
      'step charge (#1): inputs: --reference is required',
      'step x (#2): command "collections explode" is not a resource command of pay (e.g. "collections create")',
    ])
  })
})

describe('checking before sending', () => {
  it('lists every problem naming file, step and field, as one exit-2 error', () => {
    const file = flowFile('bad.yaml', [
      'steps:',
      '  - id: charge',
      '    call: collections.create',
      '    body: {amount: "ten", currency: KES, merchant_reference: "x", mobile: "254712345670", provider: mpesa}',
      '  - id: look',
      '    call: collections.get',
      '    path: {id: "${steps.nope.id}"}',
      '  - id: other',
      '    call: collections.nothing',
      '  - id: payout',
      '    call: payouts.get',
      '',
    ].join('\n'))
    let err: {exitCode?: number; problems?: {flag: string; rule: string}[]} = {}
    try {
      loadFlows([file], {})
    } catch (e) {
      err = e as typeof err
    }
    expect(err.exitCode).toBe(2)
    const flags = err.problems!.map((p) => p.flag)
    expect(flags).toEqual([`${file}: step charge (#1): body.amount`, `${file}: step look (#2): reference`, `${file}: step other (#3): call`, `${file}: step payout (#4): path.merchant_reference`])
  })

  it('a path value "." or ".." (given, or from the environment) is refused before anything is sent: the URL would read it as a step', () => {
    const file = flowFile('dots.yaml', ['steps:', '  - id: payout', '    call: payouts.get', '    path: {merchant_reference: ".."}', '  - id: verify', '    call: transactions.verify', '    path: {merchant_reference: "${env.REF}"}', ''].join('\n'))
    let err: {exitCode?: number; problems?: {flag: string; rule: string}[]} = {}
    try {
      loadFlows([file], {REF: '.'})
    } catch (e) {
      err = e as typeof err
    }
    expect(err.exitCode).toBe(2)
    expect(err.problems).toEqual([
      {flag: `${file}: step payout (#1): path.merchant_reference`, rule: 'must not be "." or ".." (a URL reads it as a step in the path)'},
      {flag: `${file}: step verify (#2): path.merchant_reference`, rule: 'must not be "." or ".." (a URL reads it as a step in the path)'},
    ])
  })

  it('a field filled from an earlier step is checked when its value is known', () => {
    const file = flowFile('later.yaml', 'steps:\n  - id: a\n    call: plans.list\n  - id: b\n    call: collections.get\n    path: {id: "${steps.a.data.0.plan_id}"}\n')
    expect(loadFlows([file])).toHaveLength(1)
  })

  it('refuses a bad file with exit 2 and sends nothing (sandbox request log)', async () => {
    const file = flowFile('bad.yaml', 'steps:\n  - id: ok\n    call: balance.get\n  - id: charge\n    call: collections.create\n    body: {amount: 5, currency: KES}\n')
    const before = sb.requests.length
    const r = await runCommand(['flow', 'run', file], {env: {PAY_BASE_URL: sb.url, PAY_CLIENT_ID: ACME.client_id, PAY_CLIENT_SECRET: ACME.client_secret, PAY_CONFIG_DIR: tempConfigDir()}})
    expect(r.code).toBe(2)
    expect(r.stderr).toContain(`${file}: step charge (#2): body.amount`)
    expect(r.stderr).toContain('body.merchant_reference')
    expect(r.stderr).toContain('nothing was sent')
    expect(sb.requests.length).toBe(before)
  })

  it('a failure after the run built its output (no credentials) is shown with its exit code, as the process shows it', async () => {
    const file = flowFile('no-credentials.yaml', 'steps:\n  - id: ok\n    call: balance.get\n')
    const r = await runCommand(['flow', 'run', file], {env: {PAY_CONFIG_DIR: tempConfigDir()}})
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('--base-url')
  })

  it('refuses YAML that does not parse, naming the file', () => {
    const file = flowFile('broken.yaml', 'steps:\n  - id: a\n   call: x\n')
    expect(() => loadFlows([file])).toThrow(/broken\.yaml cannot be read as a flow/)
  })
})

describe('expectations', () => {
  it('a failing expectation fails the step naming it and what differed; the rest is skipped; exit non-zero', async () => {
    const file = flowFile('fail.yaml', [
      'name: wrong outcome',
      'steps:',
      '  - id: charge',
      '    call: collections.create',
      '    body: {amount: "10.00", currency: KES, merchant_reference: "f-${run.id}", mobile: "254712345670", provider: mpesa}',
      '    wait: true',
      '    expect: {fields: {status: failed}}',
      '  - id: after',
      '    call: collections.get',
      '    path: {id: "${steps.charge.id}"}',
      '',
    ].join('\n'))
    const steps = await runFlows(context(), loadFlows([file]))
    expect(steps[0]).toMatchObject({suite: 'wrong outcome', name: 'charge', outcome: 'failed', exit_code: 1})
    expect(steps[0].detail).toBe('step charge: fields.status: expected "failed", got "succeeded"')
    expect(steps[1].outcome).toBe('skipped')
    expect(reportOf(steps).exit_code).toBe(1)
  })

  it('a step that fails without an expectation exits with its own code (8 for a failed transaction)', async () => {
    const file = flowFile('tx.yaml', 'steps:\n  - id: charge\n    call: collections.create\n    body: {amount: "10.00", currency: KES, merchant_reference: "t-${run.id}", mobile: "254712345679", provider: mpesa}\n    wait: true\n')
    const steps = await runFlows(context(), loadFlows([file]))
    expect(steps[0]).toMatchObject({outcome: 'failed', exit_code: 8})
    expect(steps[0].detail).toMatch(/step charge: expected success, got exit 8/)
  })

  it('a create answered failed (no wait) fails the step with exit 8, the state and the reason; expect exit tx_failed passes it', async () => {
    // the sandbox's payout wallet does not hold 200000.00: the payout is answered 201 `failed` (insufficient funds)
    const payout = (id: string, expect = '') => `  - id: ${id}\n    command: payouts create\n    inputs: {amount: "200000.00", currency: KES, reference: "${id}-\${run.id}", mobile: "254712345670", provider: mpesa}\n${expect}`
    const file = flowFile('payroll.yaml', `name: payroll\nsteps:\n${payout('expected', '    expect: {exit: tx_failed}\n')}${payout('pay')}`)
    const steps = await runFlows(context(), loadFlows([file]))
    expect(steps[0]).toMatchObject({name: 'expected', outcome: 'passed'})
    expect(steps[1]).toMatchObject({name: 'pay', outcome: 'failed', exit_code: 8})
    expect(steps[1].detail).toMatch(/^step pay: expected success, got exit 8: HTTP 201: payout pay-\w+ ended failed: insufficient/)
    expect(reportOf(steps).exit_code).toBe(8)
  })

  it('the CLI exits non-zero and prints the step and the difference', async () => {
    const file = flowFile('cli-fail.yaml', 'steps:\n  - id: bal\n    call: balance.get\n    expect: {fields: {object: wallet}}\n')
    const r = await runCommand(['flow', 'run', file], {env: {PAY_BASE_URL: sb.url, PAY_CLIENT_ID: ACME.client_id, PAY_CLIENT_SECRET: ACME.client_secret, PAY_CONFIG_DIR: tempConfigDir()}})
    expect(r.code).toBe(1)
    expect(r.stdout).toContain('FAIL\tcli-fail › bal')
    expect(r.stdout).toContain('fields.object: expected "wallet", got "balance"')
  })
})

describe('the shipped flows', () => {
  it('are the main journeys', () => {
    expect(shipped.map((f) => f.slice(FLOWS_DIR.length + 1)).sort()).toEqual(['collect-and-verify.yaml', 'mandate-and-debit.yaml', 'pay-link.yaml', 'payout.yaml', 'sandbox-approval.yaml', 'subscription-enrolment.yaml'])
  })

  it('every one passes against the sandbox (in-process)', async () => {
    const steps = await runFlows(context(), loadFlows(shipped, {}))
    expect(steps.filter((s) => s.outcome !== 'passed')).toEqual([])
    expect(new Set(steps.map((s) => s.suite)).size).toBe(shipped.length)
  })

  it('pay flow run --sandbox runs them all against an ephemeral sandbox, with a JUnit report of every step', async () => {
    const junit = join(tempConfigDir(), 'flows.xml')
    const r = await runCli(['flow', 'run', '--sandbox', '--json', '--junit', junit, ...shipped], {env: {PAY_CONFIG_DIR: tempConfigDir()}, timeoutMs: 120_000})
    expect(r.code, r.stderr).toBe(0)
    const report = json(r)
    expect(report.ok).toBe(true)
    const parser = new XMLParser({ignoreAttributes: false, attributeNamePrefix: '', isArray: (n) => n === 'testcase' || n === 'testsuite'})
    const doc = parser.parse((await import('node:fs')).readFileSync(junit, 'utf8'))
    expect(doc.testsuites.testsuite).toHaveLength(shipped.length)
    const cases = doc.testsuites.testsuite.flatMap((s: {testcase: {name: string}[]}) => s.testcase.map((c) => c.name))
    expect(cases).toEqual(report.steps.map((s: {name: string}) => s.name))
    expect(r.stderr).toMatch(/sandbox on http:\/\/127\.0\.0\.1:\d+ \(stopped when the flows end\)/)
  })
})

/** The problems of loading `file` (one exit-2 InputError), as "<where after the file name> <rule>". */
function problemsOf(file: string, env: Record<string, string> = {}): string[] {
  try {
    loadFlows([file], env)
  } catch (e) {
    expect((e as {exitCode?: number}).exitCode).toBe(2)
    return (e as {problems: {flag: string; rule: string}[]}).problems.map((p) => `${p.flag.slice(file.length + 2)} ${p.rule}`)
  }
  return []
}

describe('secrets in flows', () => {
  it('${env.NAME} of a secret-named variable (the redactor\'s patterns) is refused unless the flow lists it under secrets:', () => {
    const file = flowFile('leak.yaml', 'steps:\n  - id: charge\n    call: collections.create\n    body: {amount: "1.00", currency: KES, merchant_reference: "${env.PAY_CLIENT_SECRET}", mobile: "254712345670", provider: mpesa}\n    expect: {fields: {note: "${env.shopApiToken}"}}\n')
    const problems = problemsOf(file, {PAY_CLIENT_SECRET: 'sb_acme_secret_x', shopApiToken: 'tok'})
    expect(problems).toEqual([
      expect.stringMatching(/^step charge \(#1\): reference \$\{env\.PAY_CLIENT_SECRET\}: PAY_CLIENT_SECRET looks like a secret; list it under secrets:/),
      expect.stringMatching(/^step charge \(#1\): reference \$\{env\.shopApiToken\}: shopApiToken looks like a secret/),
    ])
    const declared = flowFile('declared.yaml', `secrets: [PAY_CLIENT_SECRET, shopApiToken]\n${readFileSync(file, 'utf8')}`)
    expect(problemsOf(declared, {PAY_CLIENT_SECRET: 'sb_acme_secret_x', shopApiToken: 'tok'})).toEqual([])
    expect(problemsOf(flowFile('plain.yaml', 'steps:\n  - id: b\n    call: balance.get\n    query: {currency: "${env.CURRENCY}"}\n'), {CURRENCY: 'KES'})).toEqual([])
  })

  it('the values of declared secrets are redacted in every step result, the report and the JUnit file', async () => {
    const secret = 'sb_acme_secret_value_42'
    const file = flowFile('redacted.yaml', 'secrets: [SHOP_API_TOKEN]\nsteps:\n  - id: bal\n    name: "balance for ${env.SHOP_API_TOKEN}"\n    call: balance.get\n    expect: {fields: {object: "${env.SHOP_API_TOKEN}"}}\n')
    const env = {SHOP_API_TOKEN: secret}
    const steps = await runFlows(context(), loadFlows([file], env), {env})
    expect(steps[0]).toMatchObject({outcome: 'failed'})
    const junit = join(tempConfigDir(), 'junit.xml')
    writeJUnitAfter(context().out, junit, 'pay flow run', steps, 1)
    const everything = JSON.stringify(reportOf(steps)) + readFileSync(junit, 'utf8')
    expect(everything).toContain('<testcase')
    expect(everything).not.toContain(secret)
    expect(steps[0].error?.message).toMatch(/fields\.object: expected "\[REDACTED\]"/)
  })
})

describe('declared secrets with characters that encodings escape', () => {
  // quotes, backslash, space, &, <, non-ASCII, +, %, an apostrophe: each escaped by JSON, URLs or XML
  const AWKWARD = ['abc"def1', 'back\\slash', 'hunter2 pass', 'p&ss wrd"1', '<b>&amp;x', 'pässwörd€1', 'a+b+c+d', '100%pure', "it's'ok1"]
  const env = () => ({PAY_BASE_URL: sb.url, PAY_CLIENT_ID: ACME.client_id, PAY_CLIENT_SECRET: ACME.client_secret, PAY_CONFIG_DIR: tempConfigDir()})
  /** Every form the value can take in a line, a JSON document, a URL or an XML file (written out here, not taken from src/). */
  const formsOf = (v: string): string[] => {
    const url = new URL('http://h/')
    url.searchParams.set('q', v)
    const json = JSON.stringify(v).slice(1, -1)
    return [v, json, JSON.stringify(json).slice(1, -1), encodeURIComponent(v), url.search.slice(3), v.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;')]
  }
  /** Every string of a parsed document (JSON, or XML parsed with its attributes): the value decoded, whatever its escaping. */
  const strings = (v: unknown): string[] => (typeof v === 'string' ? [v] : v && typeof v === 'object' ? Object.values(v).flatMap(strings) : [])

  it.each(AWKWARD)('%j is in no form in step lines, --json, the JUnit file nor the --debug trace', async (secret) => {
    const write = flowFile('write.yaml', [
      'name: write',
      'secrets: [SHOP_PASSWORD]',
      'steps:',
      '  - id: charge',
      '    call: collections.create',
      '    body: {amount: "1.00", currency: KES, merchant_reference: "sec-${run.id}", mobile: "254712345670", provider: mpesa, description: "${env.SHOP_PASSWORD}"}',
      '  - id: look',
      '    call: metadata.banks',
      '    expect: {fields: {object: "${env.SHOP_PASSWORD}"}}',
      '',
    ].join('\n'))
    const find = flowFile('find.yaml', 'name: find\nsecrets: [SHOP_PASSWORD]\nsteps:\n  - id: find\n    call: collections.getByReference\n    query: {merchant_reference: "${env.SHOP_PASSWORD}"}\n    expect: {exit: not_found}\n')
    const junit = join(tempConfigDir(), 'flows.xml')
    const settings = env() // one config dir for both runs: its journal is read below
    const plain = await runCommand(['flow', 'run', write, find, '--debug', '--junit', junit], {env: {...settings, SHOP_PASSWORD: secret}})
    const xml = readFileSync(junit, 'utf8')
    const asJson = await runCommand(['flow', 'run', write, find, '--json', '--debug'], {env: {...settings, SHOP_PASSWORD: secret}})
    // the steps ran: the value was sent in a body and a query, echoed back, and compared
    expect(plain.stdout.split('\n').map((l) => l.split('\t')[0])).toEqual(['ok', 'FAIL', 'ok', ''])
    expect(plain.stderr).toMatch(/-> GET .*merchant_reference=\[REDACTED\]/)
    expect(plain.stdout).toContain('fields.object: expected "[REDACTED]", got "list"')
    const outputs = {'step lines': plain.stdout, 'the trace': plain.stderr, 'the JUnit file': xml, '--json': asJson.stdout, 'the trace under --json': asJson.stderr}
    for (const [where, text] of Object.entries(outputs)) {
      expect(text, where).toContain('[REDACTED]')
      for (const form of formsOf(secret)) expect(text, `${where} holds ${form}`).not.toContain(form)
    }
    const decoded = [...strings(JSON.parse(asJson.stdout)), ...strings(new XMLParser({ignoreAttributes: false}).parse(xml))]
    expect(decoded.filter((t) => t.includes(secret))).toEqual([])
    // the service echoed it (the description): the operation journal's copy of the answer holds it in no form either
    const files = (function walk(d: string): string[] {
      return readdirSync(d, {withFileTypes: true}).flatMap((e) => (e.isDirectory() ? walk(join(d, e.name)) : [join(d, e.name)]))
    })(settings.PAY_CONFIG_DIR)
    expect(files.length).toBeGreaterThan(0)
    for (const file of files) for (const form of formsOf(secret)) expect(readFileSync(file, 'utf8'), `${file} holds ${form}`).not.toContain(form)
  })
})

describe('a step whose answer was lost (outcome unknown)', () => {
  const env = () => ({PAY_BASE_URL: sb.url, PAY_CLIENT_ID: ACME.client_id, PAY_CLIENT_SECRET: ACME.client_secret, PAY_CONFIG_DIR: tempConfigDir()})
  const dropNext = async () => expect((await fetch(`${sb.url}/_sandbox/faults`, {method: 'PUT', headers: {'content-type': 'application/json'}, body: JSON.stringify({drop_next: 1})})).status).toBe(200)
  const sentKeys = (reference: string) => sb.requests.filter((q) => q.method === 'POST' && q.path === '/v1/collections' && (q.body as {merchant_reference?: string})?.merchant_reference === reference).map((q) => q.headers['idempotency-key'])
  const lost = () =>
    flowFile('lost.yaml', 'name: lost\nsteps:\n  - id: charge\n    call: collections.create\n    body: {amount: "10.00", currency: KES, merchant_reference: "lost-${run.id}", mobile: "254712345670", provider: mpesa}\n  - id: after\n    call: balance.get\n')

  it("the journal offers no resume command for it: a flow takes no --idempotency-key, and running it again is another run", async () => {
    await dropNext()
    const settings = env()
    const r = await runCommand(['flow', 'run', lost(), '--retries', '0', '--json'], {env: settings})
    expect(r.code).toBe(7)
    const key = (json(r) as {steps: {idempotency_key?: string}[]}).steps[0].idempotency_key!
    const entry = await runCommand(['journal', key, '--json'], {env: settings})
    expect(entry.code, entry.stderr).toBe(0)
    expect(json(entry)).toMatchObject({idempotency_key: key, outcome: 'unknown', resume_command: null})
  })

  it('is reported unknown, not failed: the key, the reference and how to check it, in the line, --json and JUnit', async () => {
    await dropNext()
    const junit = join(tempConfigDir(), 'lost.xml')
    const r = await runCommand(['flow', 'run', lost(), '--retries', '0', '--json', '--junit', junit], {env: env()})
    expect(r.code).toBe(7)
    const report = json(r) as {ok: boolean; exit_code: number; steps: {outcome: string; idempotency_key?: string; reference?: string; error?: {code: string; message: string; hint?: string}; detail?: string}[]}
    const [charge, after] = report.steps
    expect(report).toMatchObject({ok: false, exit_code: 7})
    expect(charge).toMatchObject({outcome: 'unknown', error: {code: 'network_error'}})
    expect(charge.reference).toMatch(/^lost-/)
    // the key the request carried, as the sandbox received it
    expect(sentKeys(charge.reference!)).toEqual([charge.idempotency_key])
    expect(charge.error!.message).toMatch(/^outcome unknown: .*may have moved money \(Idempotency-Key [0-9a-f-]{36}, reference lost-/)
    expect(charge.error!.hint).toContain(`pay collections get --reference ${charge.reference}`)
    expect(charge.error!.hint).toContain(`pay journal ${charge.idempotency_key}`)
    expect(charge.error!.hint).toMatch(/before running again: .*a run without --run-id makes new \$\{run\.id\} references, a new payment$/)
    expect(after).toMatchObject({outcome: 'skipped', detail: 'the outcome of step charge is unknown'})
    const xml = new XMLParser({ignoreAttributes: false, attributeNamePrefix: ''}).parse(readFileSync(junit, 'utf8'))
    const failure = xml.testsuites.testsuite.testcase[0].failure
    expect(failure.type).toBe('outcome_unknown')
    expect(failure['#text']).toContain(`idempotency_key: ${charge.idempotency_key}`)
    expect(xml.testsuites.failures).toBe('1')
  })

  it('off a terminal: an UNKNOWN line with the key, and the summary says so on stderr', async () => {
    await dropNext()
    const r = await runCommand(['flow', 'run', lost(), '--retries', '0'], {env: env()})
    expect(r.code).toBe(7)
    const line = r.stdout.split('\n')[0]
    expect(line).toMatch(/^UNKNOWN\tlost › charge\t\d+ms\toutcome unknown: POST \/v1\/collections failed: .*Idempotency-Key [0-9a-f-]{36}.*pay collections get --reference lost-/)
    expect(r.stderr).toMatch(/pay flow run \(1 flow, run id [0-9a-f]{8}\): OUTCOME UNKNOWN \(exit 7\): 0 passed, 0 failed, 1 of unknown outcome, 1 skipped/)
    expect(r.stderr).toMatch(/lost › charge: the outcome is unknown, it may have moved money \(Idempotency-Key [0-9a-f-]{36}, reference lost-/)
  })

  it("--run-id: the resumed key's answer (maybe the service's first one, replayed) is looked up as it is now, one GET", async () => {
    const e = env()
    const runId = `replay-${Date.now()}`
    await dropNext()
    expect((await runCommand(['flow', 'run', lost(), '--retries', '0', '--json', '--run-id', runId], {env: e})).code).toBe(7)
    const before = sb.requests.length
    const again = await runCommand(['flow', 'run', lost(), '--json', '--run-id', runId], {env: e})
    expect(again.code, again.stderr).toBe(0)
    expect(JSON.stringify((json(again) as {steps: unknown[]}).steps[0])).toMatch(/HTTP 201; state now /)
    const later = sb.requests.slice(before).filter((q) => q.path.startsWith('/v1/collections'))
    expect(later.map((q) => q.method)).toEqual(['POST', 'GET'])
  })

  it('--run-id runs a flow again with the same references: the unknown request resumed with its key, an accepted one not sent', async () => {
    const e = env()
    const runId = `resume-${Date.now()}`
    await dropNext()
    const first = await runCommand(['flow', 'run', lost(), '--retries', '0', '--json', '--run-id', runId], {env: e})
    expect(first.code).toBe(7)
    const charge = (json(first) as {run_id: string; steps: {idempotency_key: string; error: {hint: string}}[]})
    expect(charge.run_id).toBe(runId)
    expect(charge.steps[0].error.hint).toContain(`\`pay flow run --run-id ${runId} …\` runs it again with the same references`)
    const again = await runCommand(['flow', 'run', lost(), '--json', '--run-id', runId], {env: e})
    expect(json(again)).toMatchObject({ok: true, run_id: runId, steps: [{outcome: 'passed'}, {outcome: 'passed'}]})
    expect(sentKeys(`lost-${runId}`)).toEqual([charge.steps[0].idempotency_key, charge.steps[0].idempotency_key])
    // a third run: the journal answers the accepted request, nothing is sent
    const third = await runCommand(['flow', 'run', lost(), '--json', '--run-id', runId], {env: e})
    expect(json(third)).toMatchObject({ok: true})
    expect(sentKeys(`lost-${runId}`)).toHaveLength(2)
    // how to send it again, as a flow can (no --force-new there)
    expect(third.stderr).toContain('To send it again as a new request, run the flow without --run-id (a new run id gives its steps new references)')
    expect(third.stderr).not.toContain('--force-new')
    const refused = await runCommand(['flow', 'run', lost(), '--run-id', 'not a run id'], {env: e})
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('--run-id must be 1 to 64 letters, digits, - or _')
  })

  it('--run-id after an accepted create that failed since: the step looks it up (one GET, nothing sent), "state now: failed", exit 8', async () => {
    const e = env()
    const runId = `failed-since-${Date.now()}`
    const file = flowFile('since.yaml', 'name: since\nsteps:\n  - id: pay\n    command: payouts create\n    inputs: {amount: "12.00", currency: KES, reference: "since-${run.id}", mobile: "254700000409", provider: mpesa}\n')
    const first = await runCommand(['flow', 'run', file, '--json', '--run-id', runId], {env: e})
    expect(json(first)).toMatchObject({ok: true, steps: [{outcome: 'passed', detail: 'HTTP 201 processing'}]})
    const ref = `since-${runId}`
    await waitFor(() => Object.values(sb.state.payouts).some((p) => p.merchant_reference === ref && p.status === 'failed'), 10_000, 'the sandbox settles it (failed, for this number)')
    const before = sb.requests.length
    const again = await runCommand(['flow', 'run', file, '--json', '--run-id', runId], {env: e})
    expect(again.code, again.stderr).toBe(8)
    expect(json(again)).toMatchObject({ok: false, exit_code: 8, steps: [{outcome: 'failed', exit_code: 8}]})
    expect((json(again) as {steps: {detail: string}[]}).steps[0].detail).toMatch(new RegExp(`HTTP 201 \\(accepted earlier, nothing sent now\\): payout ${ref} ended failed`))
    expect(again.stderr).toMatch(/accepted \d{4}-\d\d-\d\d \d\d:\d\d UTC as PO_\w+; state now: failed/)
    const since = sb.requests.slice(before).filter((q) => q.path.startsWith('/v1/') && q.path !== '/v1/oauth/token')
    expect(since.map((q) => `${q.method} ${q.path}`)).toEqual([`GET /v1/payouts/${ref}`])
  })

  it('a 5xx on a create is unknown too, unless the step expects that status', async () => {
    const e = env()
    expect((await runCommand(['balance'], {env: e})).code).toBe(0) // a token in the cache: the fault meets the create
    const bug = async () => expect((await fetch(`${sb.url}/_sandbox/faults`, {method: 'PUT', headers: {'content-type': 'application/json'}, body: JSON.stringify({bug_next: 1})})).status).toBe(200)
    const charge = (expect: string) => flowFile('bug.yaml', `steps:\n  - id: charge\n    call: collections.create\n    body: {amount: "10.00", currency: KES, merchant_reference: "bug-\${run.id}", mobile: "254712345670", provider: mpesa}\n${expect}`)
    await bug()
    const unknown = await runCommand(['flow', 'run', charge(''), '--retries', '0', '--json'], {env: e})
    const step = (json(unknown) as {steps: {outcome: string; idempotency_key?: string; error?: {status?: number}}[]}).steps[0]
    expect(step).toMatchObject({outcome: 'unknown', error: {status: 500}})
    expect(step.idempotency_key).toMatch(/^[0-9a-f-]{36}$/)
    await bug()
    const expected = await runCommand(['flow', 'run', charge('    expect: {status: 500}\n'), '--retries', '0', '--json'], {env: e})
    expect(json(expected)).toMatchObject({ok: true, steps: [{outcome: 'passed'}]})
  })
})

describe('expectations a step cannot produce are refused at check time', () => {
  it('wait + a 2xx status, a 2xx status the endpoint never answers, tx_failed without wait but from a create, wait_timeout without wait', () => {
    const file = flowFile('cannot.yaml', [
      'steps:',
      '  - id: waited',
      '    call: collections.create',
      '    body: {amount: "1.00", currency: KES, merchant_reference: "w", mobile: "254712345670", provider: mpesa}',
      '    wait: true',
      '    expect: {status: 200}',
      '  - id: created',
      '    command: collections create',
      '    inputs: {amount: "1.00", currency: KES, reference: c, mobile: "254712345670", provider: mpesa}',
      '    expect: {status: 200, exit: tx_failed}',
      '  - id: fine',
      '    call: collections.get',
      '    path: {id: "${steps.created.id}"}',
      '    expect: {status: 404}',
      '  - id: looked',
      '    call: collections.get',
      '    path: {id: "${steps.created.id}"}',
      '    expect: {exit: tx_failed}',
      '  - id: timed',
      '    command: collections create',
      '    inputs: {amount: "1.00", currency: KES, reference: t, mobile: "254712345670", provider: mpesa}',
      '    expect: {exit: wait_timeout}',
      '',
    ].join('\n'))
    expect(problemsOf(file)).toEqual([
      expect.stringMatching(/^step waited \(#1\): expect\.status 200 cannot tell a waited step's outcome/),
      expect.stringMatching(/^step created \(#2\): expect\.status 200 is never the answer of POST \/v1\/collections: it succeeds with 201/),
      expect.stringMatching(/^step looked \(#4\): expect\.exit 8 comes only from a step that waits \(wait: true\) or creates a transaction/),
      expect.stringMatching(/^step timed \(#5\): expect\.exit 9 comes only from a step that waits/),
    ])
  })

  it('the built `pay flow run` exits 2 naming the step, nothing sent', async () => {
    const file = flowFile('waited.yaml', 'steps:\n  - id: charge\n    call: collections.create\n    body: {amount: "1.00", currency: KES, merchant_reference: "waited-200", mobile: "254712345679", provider: mpesa}\n    wait: true\n    expect: {status: 200}\n')
    const r = await runCli(['flow', 'run', '--sandbox', file])
    expect(r.code, r.stderr).toBe(2)
    expect(r.stderr).toMatch(/step charge \(#1\): expect\.status/)
  })
})

describe('flow file depth', () => {
  it('a 200,000-deep JSON flow file is refused as bad input (exit 2), not a stack overflow', () => {
    const file = flowFile('deep.json', `{"steps":[{"id":"a","call":"balance.get","body":${'['.repeat(200_000)}${']'.repeat(200_000)}}]}`)
    expect(problemsOf(file)).toEqual([expect.stringMatching(/cannot be read as a flow: nests deeper than 32 levels$/)])
  })
})
