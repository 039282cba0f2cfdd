/**
 * `pay smoke --contract` (src/smoke/contract.ts), in-process: against the sandbox (whose shapes are our assumptions)
 * it reports no drift; behind a scripted node:http proxy on port 0 that changes two shapes it names exactly those two;
 * an answer that breaks a stated rule is exit 7. Table and JSON.
 */
import {createServer, request as httpRequest, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {PassThrough} from 'node:stream'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {ApiClient} from '../../src/client/api-client.js'
import {Output} from '../../src/output/output.js'
import type {Terminal} from '../../src/output/terminal.js'
import {endpointList} from '../../src/api/endpoints.js'
import {runContractCommand} from '../../src/smoke/contract.js'
import type {Sandbox} from '../../src/sandbox/index.js'
import type {ApiContext} from '../../src/runtime.js'
import {ACME, acmeClient, checkoutBody, collectionBody, mandateBody, start, until} from '../helpers/sandbox-http.js'

let sb: Sandbox
/** Real ids and references of every kind of resource on the sandbox, as --param values. */
let params: Record<string, string>
/** Rewrites the answer of a path (before it reaches pay), or undefined to pass it on. */
let rewrite: (path: string, body: unknown) => unknown = () => undefined
let proxy: Server
let proxyUrl: string

beforeAll(async () => {
  sb = await start({settleMs: 20})
  const acme = await acmeClient(sb)
  const post = async (path: string, body: unknown) => (await acme.post(path, body)).body
  const col = await post('/v1/collections', collectionBody({merchant_reference: 'ct-col'}))
  const cs = await post('/v1/checkout/sessions', checkoutBody({merchant_reference: 'ct-cs'}))
  await post('/v1/payouts', {amount: '10.00', currency: 'KES', merchant_reference: 'ct-po', mobile: '254700000010', provider: 'mpesa'})
  await post('/v1/mandates', mandateBody({mobile: '254700000020', merchant_reference: 'ct-md'}))
  const md = await until(async () => {
    const r = await acme.get('/v1/mandates?merchant_reference=ct-md')
    return r.body.status === 'succeeded' ? r.body : undefined
  }, 5000, 'mandate approval')
  await post(`/v1/mandates/${md.mandate_id}/debits`, {amount: '10.00', currency: 'KES', merchant_reference: 'ct-db', provider: 'mpesa'})
  await post('/v1/subscriptions', {plan_id: 'PLN_ACMEGOLD', merchant_reference: 'ct-sub', customer_name: 'Grace', customer_email: 'grace@example.com', mobile: '254700000030', provider: 'mpesa'})
  await post('/v1/customers/MC_ACME0001/virtual-account', [])
  await post('/v1/virtual-accounts/merchant', [])
  params = {
    'collections.get.id': col.id,
    'collections.getByReference.merchant_reference': 'ct-col',
    'checkout.get.id': cs.id,
    'transactions.verify.merchant_reference': 'ct-po',
    'payouts.get.merchant_reference': 'ct-po',
    'mandates.get.merchant_reference': 'ct-md',
    'debits.status.mandate_id': md.mandate_id,
    'debits.status.merchant_reference': 'ct-db',
    'subscriptions.get.merchant_reference': 'ct-sub',
    id: 'MC_ACME0001',
  }
  // the scripted server: a proxy to the sandbox that can change an answer's shape
  proxy = createServer((req, res) => {
    const up = httpRequest(sb.url + (req.url ?? '/'), {method: req.method, headers: req.headers}, (answer) => {
      const chunks: Buffer[] = []
      answer.on('data', (c: Buffer) => chunks.push(c))
      answer.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8')
        const path = new URL(req.url ?? '/', 'http://x').pathname
        const changed = answer.statusCode === 200 ? rewrite(path, JSON.parse(text)) : undefined
        const body = changed === undefined ? text : JSON.stringify(changed)
        res.writeHead(answer.statusCode ?? 502, {'content-type': 'application/json', 'content-length': Buffer.byteLength(body)})
        res.end(body)
      })
    })
    req.pipe(up)
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`
}, 60_000)
afterAll(async () => {
  proxy?.closeAllConnections()
  await new Promise((resolve) => proxy?.close(resolve))
  await sb?.close()
})

const term: Terminal = {stdoutIsTTY: false, stderrIsTTY: false, stdinIsTTY: false, color: false, colorErr: false, interactive: false, columns: 100}

function context(baseUrl: string, json = false): {ctx: ApiContext; stdout: () => string; stderr: () => string} {
  let out = ''
  let err = ''
  const stdout = new PassThrough().on('data', (d: Buffer) => (out += d.toString()))
  const stderr = new PassThrough().on('data', (d: Buffer) => (err += d.toString()))
  const settings = {baseUrl, clientId: ACME.client_id, clientSecret: ACME.client_secret}
  const client = new ApiClient({settings, userAgent: 'pay-test', retries: 0})
  const ctx = {client, out: new Output(term, json, stdout, stderr), settings: {...settings, profileName: 'test', profileFound: false, sources: {}, configDir: ''}} as unknown as ApiContext
  return {ctx, stdout: () => out, stderr: () => err}
}

describe('pay smoke --contract', () => {
  it('against the sandbox with real ids: every read-only endpoint once, no drift, exit 0', async () => {
    const {ctx, stdout} = context(sb.url, true)
    expect(await runContractCommand(ctx, Object.entries(params).map(([k, v]) => `${k}=${v}`))).toBe(0)
    const report = JSON.parse(stdout()) as {exit_code: number; endpoints: {endpoint: string; verdict: string}[]}
    // the read-only endpoints are the table's GETs
    expect(report.endpoints.map((e) => e.endpoint)).toEqual(endpointList.filter((e) => e.method === 'GET').map((e) => e.id))
    expect(report.endpoints.filter((e) => e.verdict !== 'as-assumed')).toEqual([])
    expect(report.exit_code).toBe(0)
  })

  it('against the sandbox with probes only: no drift (the 404s carry the stated error body), exit 0; table and JSON', async () => {
    const table = context(sb.url)
    expect(await runContractCommand(table.ctx, undefined)).toBe(0)
    expect(table.stdout()).toMatch(/no drift/)
    expect(table.stdout()).toMatch(/balance\.get\tGET \/v1\/balance\t200\tas assumed\t0/)
    expect(table.stdout()).toMatch(/collections\.get\tGET \/v1\/collections\/\{id\}\t404\tnot found/)
    const json = context(sb.url, true)
    expect(await runContractCommand(json.ctx, undefined)).toBe(0)
    const report = JSON.parse(json.stdout())
    expect(report.ok).toBe(true)
    expect(report.endpoints.every((e: {drift: unknown[]}) => e.drift.length === 0)).toBe(true)
    // a parameter no --param names is probed with one value nobody has
    const probes = report.endpoints.flatMap((e: {probe?: Record<string, string>}) => Object.values(e.probe ?? {}))
    expect(report.endpoints.find((e: {endpoint: string}) => e.endpoint === 'collections.get').probe).toEqual({id: expect.stringMatching(/probe/)})
    expect(new Set(probes).size).toBe(1)
  })

  it('behind a scripted server with two shapes changed: names exactly those two, stated rules hold, exit 0', async () => {
    rewrite = (path, body) => {
      const b = body as {data: Record<string, unknown>[]}
      if (path === '/v1/balance') return {object: 'balance', ...b.data[0]}
      if (path === '/v1/subscription_plans') return {...b, data: b.data.map(({plan_id, plan_name, ...rest}) => ({...rest, id: plan_id, name: plan_name}))}
      return undefined
    }
    try {
      const table = context(proxyUrl)
      expect(await runContractCommand(table.ctx, Object.entries(params).map(([k, v]) => `${k}=${v}`))).toBe(0)
      expect(table.stdout()).toMatch(/drift in 2 endpoint\(s\): plans\.list, balance\.get/)
      const json = context(proxyUrl, true)
      expect(await runContractCommand(json.ctx, Object.entries(params).map(([k, v]) => `${k}=${v}`))).toBe(0)
      const report = JSON.parse(json.stdout())
      const drifted = report.endpoints.filter((e: {drift: unknown[]}) => e.drift.length > 0)
      expect(drifted.map((e: {endpoint: string}) => e.endpoint)).toEqual(['plans.list', 'balance.get'])
      expect(drifted.every((e: {verdict: string; stated_rules_hold: boolean}) => e.verdict === 'differs' && e.stated_rules_hold)).toBe(true)
      const plans = drifted[0].drift.map((d: {kind: string; path: string}) => `${d.kind} ${d.path}`)
      expect(plans).toEqual(expect.arrayContaining(['missing data[].plan_id', 'missing data[].plan_name', 'extra data[].id', 'extra data[].name']))
      const balance = drifted[1].drift.map((d: {kind: string; path: string}) => `${d.kind} ${d.path}`)
      expect(balance).toEqual(expect.arrayContaining(['missing data', 'extra currency', 'extra collection_wallet']))
    } finally {
      rewrite = () => undefined
    }
  })

  it('an answer that breaks a stated rule: named, exit 7', async () => {
    rewrite = (path, body) => (path === '/v1/account' ? {...(body as object), object: 'account'} : undefined)
    try {
      const {ctx, stdout, stderr} = context(proxyUrl)
      expect(await runContractCommand(ctx, undefined)).toBe(7)
      expect(stdout()).toMatch(/account\.get\tGET \/v1\/account\t200\tBREAKS A STATED RULE/)
      expect(stdout()).toMatch(/stated rule: object/)
      expect(stderr()).toMatch(/breaks a rule the interface states/)
    } finally {
      rewrite = () => undefined
    }
  })

  it('--param must be NAME=VALUE', async () => {
    const {ctx} = context(sb.url)
    await expect(runContractCommand(ctx, ['id'])).rejects.toThrow(/--param/)
    await expect(runContractCommand(ctx, ['customer=MC_1'])).rejects.toThrow(/--param names no parameter of a read-only endpoint: "customer" \(known: merchant_reference, id, mandate_id/)
  })
})
