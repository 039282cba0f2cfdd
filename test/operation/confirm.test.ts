/**
 * The rule for live money (src/operation/confirm.ts) in-process: which requests move money (movesMoney, over the
 * operations' `confirm`), and every path to them refused with a live profile where no one can be asked (CI is set
 * in runCommand): the resource command, `pay api`, a bulk run, a flow, `pay smoke --money`. On a terminal: test/e2e/paging-confirm.test.ts.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {operations} from '../../src/api/operations.js'
import {chargeOf, confirmationLines, moneyOperation, movesMoney} from '../../src/operation/confirm.js'
import {tempConfigDir} from '../helpers/cli.js'
import {type CommandRun, runCommand} from '../helpers/in-process.js'
import {runFlowCommand} from '../../src/flows/command.js'
import {byRef, useSandbox} from '../helpers/command-harness.js'

const h = useSandbox()
const MOBILE = '254711000009'
const subscriber = {plan_id: 'PLN_ACMESILVER', customer_name: 'Jane', customer_email: 'j@example.com', mobile: MOBILE, provider: 'mpesa'}

describe('which requests move money', () => {
  it("what a request moves, for a bulk run's money totals: its amount, its plan's amount, or nothing", () => {
    for (const id of ['collections:create', 'payouts:create', 'debits:create'] as const) expect(chargeOf(operations[id], {body: {amount: '1.00'}}), id).toBe('amount')
    expect(chargeOf(operations['subscriptions:create'], {body: {plan_id: 'PLN_X'}})).toBe('plan')
    expect(chargeOf(operations['mandates:create'], {body: {amount: '100.00', plan_id: 'PLN_X'}})).toBe('plan')
    expect(chargeOf(operations['mandates:create'], {body: {amount: '100.00'}})).toBe('none')
    expect(chargeOf(operations['checkout:create'], {body: {amount: '100.00'}})).toBe('none')
  })

  it('collections, payouts, debits and subscriptions do; a mandate only with a plan; checkout, cancel, virtual accounts do not', () => {
    for (const id of ['collections:create', 'payouts:create', 'debits:create', 'subscriptions:create'] as const) expect(movesMoney(operations[id], {body: {}}), id).toBe(true)
    for (const id of ['checkout:create', 'mandates:cancel', 'virtual-accounts:create', 'verifications:msisdn'] as const) expect(movesMoney(operations[id], {body: {}}), id).toBe(false)
    const mandate = operations['mandates:create']
    expect(movesMoney(mandate, {body: {amount: '100.00'}})).toBe(false)
    expect(movesMoney(mandate, {body: {amount: '100.00', plan_id: 'PLN_ACMESILVER'}})).toBe(true)
    // what cannot be read may move money: no request yet (a bulk run), a body that is no JSON object
    expect(movesMoney(mandate)).toBe(true)
    expect(movesMoney(mandate, {body: '{"plan_id":"PLN_ACMESILVER"}'})).toBe(true)
    expect(moneyOperation('subscriptions.create')?.command).toBe('subscriptions:create')
    expect(moneyOperation('mandates.create')?.command).toBe('mandates:create')
  })

  it("the question names the plan whose amount is charged, not the mandate's amount", () => {
    const lines = confirmationLines(operations['mandates:create'], {body: {amount: '100.00', currency: 'KES', merchant_reference: 'm-1', ...subscriber}}, 'prod')
    expect(lines.join('\n')).toMatch(/amount +the amount of plan PLN_ACMESILVER, charged once on approval/)
    expect(lines.join('\n')).toMatch(/destination +mobile 254711000009, provider mpesa/)
  })
})

describe('a live profile where no one can be asked: refused naming --yes, nothing sent', () => {
  async function liveProfile(): Promise<Record<string, string>> {
    const dir = tempConfigDir()
    const add = await runCommand(['profiles', 'add', 'prod', '--base-url', h.env.PAY_BASE_URL, '--client-id', h.env.PAY_CLIENT_ID, '--live', '--use'], {env: {PAY_CONFIG_DIR: dir, PAY_CLIENT_SECRET: h.env.PAY_CLIENT_SECRET}})
    expect(add.code, add.stderr).toBe(0)
    return {PAY_CONFIG_DIR: dir}
  }
  const refused = (r: {code: number; stderr: string}, what: string) => {
    expect(r.code, `${what}\n${r.stderr}`).toBe(2)
    expect(r.stderr, what).toMatch(/LIVE profile "prod": this moves real money .*nothing was sent/)
    expect(r.stderr, what).toContain('--yes')
  }
  const mandate = (ref: string, ...more: string[]) => ['mandates', 'create', '--mobile', MOBILE, '--provider', 'mpesa', '--currency', 'KES', '--amount', '100.00', '--frequency', 'MONTHLY', '--starts-at', '2030-01-01T00:00:00Z', '--reference', ref, ...more]

  it('subscriptions create, mandates create --plan and pay api POST /v1/subscriptions; a mandate without a plan is sent', async () => {
    const env = await liveProfile()
    refused(await runCommand(['subscriptions', 'create', '--plan', 'PLN_ACMEGOLD', '--reference', 'live-sub', '--customer-name', 'Jane', '--customer-email', 'j@example.com', '--mobile', MOBILE, '--provider', 'mpesa'], {env}), 'subscriptions create')
    refused(await runCommand(mandate('live-md-plan', '--plan', 'PLN_ACMESILVER', '--customer-name', 'Jane', '--customer-email', 'j@example.com'), {env}), 'mandates create --plan')
    refused(await runCommand(['api', 'POST', '/v1/subscriptions', '--data', JSON.stringify({...subscriber, merchant_reference: 'live-sub-api'})], {env}), 'pay api')
    for (const ref of ['live-sub', 'live-md-plan', 'live-sub-api']) expect(h.requests(byRef(ref)), ref).toHaveLength(0)
    const plain = await runCommand(mandate('live-md'), {env})
    expect(plain.code, plain.stderr).toBe(0)
    expect(h.requests(byRef('live-md'))).toHaveLength(1)
    const confirmed = await runCommand(['subscriptions', 'create', '--plan', 'PLN_ACMEGOLD', '--reference', 'live-sub-yes', '--customer-name', 'Jane', '--customer-email', 'j@example.com', '--mobile', '254711000002', '--provider', 'mpesa', '--yes'], {env})
    expect(confirmed.code, confirmed.stderr).toBe(0)
    expect(h.requests(byRef('live-sub-yes'))).toHaveLength(1)
  })

  it('a bulk run of subscriptions create and a flow with a subscriptions.create step', async () => {
    const env = await liveProfile()
    const dir = tempConfigDir()
    const rows = join(dir, 'subs.csv')
    writeFileSync(rows, `plan,reference,customer_name,customer_email,mobile,provider\nPLN_ACMESILVER,live-bulk-sub,Jane,j@example.com,${MOBILE},mpesa\n`)
    refused(await runCommand(['subscriptions', 'create', '--from-file', rows], {env}), 'bulk')
    const flow = join(dir, 'enrol.yaml')
    writeFileSync(flow, ['steps:', '  - id: enrol', '    call: subscriptions.create', `    body: ${JSON.stringify({...subscriber, merchant_reference: 'live-flow-sub'})}`, ''].join('\n'))
    // the flow command's run function on the harness's Output and environment (no one to ask: noInput)
    const rt = await import('../../src/runtime.js')
    const flowRun = ({argv, flags, out, env: e}: CommandRun<Parameters<typeof runFlowCommand>[2]>) => runFlowCommand({...rt, createOutput: () => out, createApiContext: (f, ua, o) => rt.createApiContext(f, ua, o, e)}, argv, flags, 'pay-test')
    refused(await runCommand(['flow', 'run', flow], {env, run: flowRun, terminal: {noInput: true}}), 'flow')
    for (const ref of ['live-bulk-sub', 'live-flow-sub']) expect(h.requests(byRef(ref)), ref).toHaveLength(0)
  })

  it('pay smoke --money, whatever service the live profile names (here the sandbox): refused without --yes; --yes sends it', async () => {
    const env = await liveProfile()
    const collections = () => h.requests((e) => e.method === 'POST' && e.path === '/v1/collections').length
    const before = collections()
    // live: the sandbox's wallet that succeeds is no default (it may be a real one there)
    const money = ['smoke', '--money', '--mobile', '254712345670']
    expect((await runCommand(['smoke', '--money', '--yes'], {env})).stderr).toContain('--mobile is required with --money')
    refused(await runCommand(money, {env}), 'smoke --money')
    expect(collections()).toBe(before)
    const confirmed = await runCommand([...money, '--yes', '--json'], {env})
    expect(confirmed.code, confirmed.stderr).toBe(0)
    expect(collections()).toBe(before + 1)
  })
})
