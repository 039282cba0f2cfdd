/**
 * `pay mcp` as a process over stdio, driven by the MCP SDK's own client, against the sandbox (through the fault
 * proxy where an answer must be lost after the service committed). What is upstream is read from the sandbox's
 * state and request log.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BIN, ROOT, cleanEnv, runCli, tempConfigDir} from '../helpers/cli.js'
import {type FaultProxy, referenceIn, startFaultProxy} from '../helpers/fault-proxy.js'
import {useSandbox} from '../helpers/command-harness.js'

const h = useSandbox()
let proxy: FaultProxy
const clients: Client[] = []

beforeAll(async () => {
  proxy = await startFaultProxy(h.sb.url)
})
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined)
  await proxy?.close()
})

interface Started {
  client: Client
  stderr: () => string
}

/** `pay mcp ARGS` as a process, connected with the SDK's client over its stdin/stdout. */
async function start(args: string[], env: Record<string, string | undefined> = {}): Promise<Started> {
  const transport = new StdioClientTransport({command: process.execPath, args: [BIN, 'mcp', ...args], env: cleanEnv({...h.env, ...env}) as Record<string, string>, cwd: ROOT, stderr: 'pipe'})
  let stderr = ''
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()))
  const client = new Client({name: 'pay-test', version: '1.0.0'})
  await client.connect(transport)
  clients.push(client)
  return {client, stderr: () => stderr}
}

const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name)
const collectionsWith = (ref: string) => Object.values(h.sb.state.collections).filter((c) => c.merchant_reference === ref)
const postsWith = (ref: string) => h.requests((e) => e.method === 'POST' && (e.body as {merchant_reference?: string} | undefined)?.merchant_reference === ref)
const collection = (ref: string) => ({amount: '150.00', currency: 'kes', reference: ref, mobile: '254712345678', provider: 'mpesa'})

type ToolResult = {isError?: boolean; content: {type: string; text?: string}[]; structuredContent?: Record<string, any>; _meta?: Record<string, any>}
const call = async (client: Client, name: string, args: Record<string, unknown>) => (await client.callTool({name, arguments: args})) as ToolResult
const textOf = (r: ToolResult) => r.content.map((c) => c.text ?? '').join('\n')

describe('pay mcp over stdio', () => {
  let readOnly: Started
  let money: Started

  beforeAll(async () => {
    readOnly = await start([])
    money = await start(['--allow-money'])
  })

  it('lists the read-only tools by default, and the money tools only with --allow-money; says both rules in its instructions', async () => {
    const ro = await names(readOnly.client)
    expect(ro).toEqual(expect.arrayContaining(['transactions_verify', 'balance', 'account', 'journal', 'webhook_history', 'collections_get', 'metadata_banks']))
    expect(ro).not.toContain('collections_create')
    expect(ro).not.toContain('payouts_create')
    const instructions = readOnly.client.getInstructions() ?? ''
    expect(instructions).toContain('--allow-money')
    expect(instructions).toContain('--allow-live-money')
    expect(instructions).toMatch(/not listed now/)

    const all = await names(money.client)
    expect(all).toEqual(expect.arrayContaining(['collections_create', 'payouts_create', 'debits_create', 'mandates_cancel', ...ro]))
    expect(money.client.getInstructions()).toMatch(/Money tools are listed now/)
    // a money tool called on the read-only server: refused, nothing sent
    const before = h.requests().length
    const refused = await call(readOnly.client, 'collections_create', collection('mcp-ro-1'))
    expect(refused.isError).toBe(true)
    expect(refused.structuredContent?.error.code).toBe('money_not_allowed')
    expect(h.requests().length).toBe(before)
  })

  it('lists no money tool for a live profile unless --allow-live-money is given too', async () => {
    const dir = tempConfigDir()
    const acme = h.sb.seed.merchants.find((m) => m.key === 'acme')!
    writeFileSync(join(dir, 'profiles.json'), JSON.stringify({active: 'prod', profiles: {prod: {base_url: h.sb.url, client_id: acme.clients[0].client_id, client_secret: acme.clients[0].client_secret, live: true}}}), {mode: 0o600})
    const env = {PAY_CONFIG_DIR: dir, PAY_BASE_URL: undefined, PAY_CLIENT_ID: undefined, PAY_CLIENT_SECRET: undefined}
    const live = await start(['--allow-money'], env)
    const listed = await names(live.client)
    expect(listed).toContain('balance')
    expect(listed.some((n) => /_create$|_cancel$/.test(n))).toBe(false)
    expect(live.client.getInstructions()).toMatch(/live.*--allow-live-money/)
    const both = await start(['--allow-money', '--allow-live-money'], env)
    expect(await names(both.client)).toContain('payouts_create')
    expect(both.client.getInstructions()).toContain('LIVE')
  })

  it('calls a lookup: the service body as the structured result', async () => {
    const balance = await call(readOnly.client, 'balance', {currency: 'kes'})
    expect(balance.isError, textOf(balance)).toBeFalsy()
    expect(balance.structuredContent?.data?.[0]?.currency).toBe('KES')
    const account = await call(readOnly.client, 'account', {})
    expect(account.structuredContent?.merchant).toBeDefined()
    expect(JSON.parse(account.content[0].text!)).toEqual(account.structuredContent)
    // the webhook deliveries kept on this machine (none here), and a filter the command refuses, in the tool's names
    const history = await call(readOnly.client, 'webhook_history', {type: ['payout.*'], limit: 5})
    expect(history.isError, textOf(history)).toBeFalsy()
    expect(history.structuredContent).toEqual({deliveries: []})
    const since = await call(readOnly.client, 'webhook_history', {since: 'last tuesday'})
    expect(since.isError).toBe(true)
    expect(since.structuredContent?.error.problems?.[0]?.field).toBe('since')
  })

  it('creates a collection once: the same call again returns the earlier answer, says so, and sends nothing', async () => {
    const first = await call(money.client, 'collections_create', collection('mcp-col-1'))
    expect(first.isError, textOf(first)).toBeFalsy()
    expect(first.structuredContent?.merchant_reference).toBe('mcp-col-1')
    expect(first._meta?.pay.replayed).toBe(false)
    const sent = h.requests().length

    const again = await call(money.client, 'collections_create', collection('mcp-col-1'))
    expect(again.isError).toBeFalsy()
    expect(again.structuredContent?.id).toBe(first.structuredContent?.id)
    expect(again._meta?.pay).toMatchObject({replayed: true, idempotency_key: first._meta?.pay.idempotency_key})
    expect(textOf(again)).toMatch(/Nothing was sent: the service already accepted this same call/)
    // nothing sent: at most one lookup of the collection's state now (a GET; it had not ended when it was accepted)
    expect(h.requests().slice(sent).filter((e) => e.method !== 'GET')).toHaveLength(0)
    expect(h.requests().length - sent).toBeLessThanOrEqual(1)
    expect(collectionsWith('mcp-col-1')).toHaveLength(1)
    expect(postsWith('mcp-col-1')).toHaveLength(1)

    // journaled with its origin, and `pay journal` shows it
    const journal = await call(money.client, 'journal', {key: 'mcp-col-1'})
    expect(journal.structuredContent).toMatchObject({origin: 'mcp', reference: 'mcp-col-1', outcome: 'accepted'})
    const shown = await runCli(['journal', '--json'], {env: h.env})
    const rows = JSON.parse(shown.stdout) as {reference: string; origin: string}[]
    expect(rows.find((r) => r.reference === 'mcp-col-1')?.origin).toBe('mcp')
    const table = await runCli(['journal'], {env: h.env})
    expect(table.stdout).toMatch(/mcp\s+collections\.create\s+mcp-col-1/)
  })

  it('dry_run returns the request and sends nothing', async () => {
    const before = h.requests().length
    const dry = await call(money.client, 'collections_create', {...collection('mcp-dry-1'), dry_run: true})
    expect(dry.isError, textOf(dry)).toBeFalsy()
    expect(dry.structuredContent).toMatchObject({dry_run: true, method: 'POST', body: {merchant_reference: 'mcp-dry-1', currency: 'KES'}})
    expect(h.requests().length).toBe(before)
  })

  it('an answer cut after the service committed: a tool error with the key and how to resume; the same call again creates nothing new', async () => {
    const cut = await start(['--allow-money', '--retries', '0'], {PAY_BASE_URL: proxy.url})
    proxy.rule = (r) => (r.method === 'POST' && referenceIn(r.body) === 'mcp-cut-1' ? 'cut' : 'pass')
    const first = await call(cut.client, 'collections_create', collection('mcp-cut-1'))
    expect(first.isError).toBe(true)
    const error = first.structuredContent?.error
    expect(error.code).toBe('network_error')
    expect(error.outcome).toBe('unknown')
    expect(error.idempotency_key).toMatch(/^[0-9a-f-]{36}$/)
    expect(error.resume).toMatchObject({tool: 'collections_create', arguments: collection('mcp-cut-1')})
    expect(textOf(first)).toContain(`Idempotency-Key ${error.idempotency_key}`)
    expect(collectionsWith('mcp-cut-1')).toHaveLength(1)

    proxy.rule = () => 'pass'
    const again = await call(cut.client, 'collections_create', collection('mcp-cut-1'))
    expect(again.isError, textOf(again)).toBeFalsy()
    expect(again.structuredContent?.id).toBe(collectionsWith('mcp-cut-1')[0].id)
    expect(collectionsWith('mcp-cut-1')).toHaveLength(1)
    expect(new Set(postsWith('mcp-cut-1').map((e) => e.headers['idempotency-key']))).toEqual(new Set([error.idempotency_key]))
  })

  it('a bad argument: a tool error naming the field and the rule, nothing sent', async () => {
    const before = h.requests().length
    const bad = await call(money.client, 'collections_create', {...collection('mcp-bad-1'), mobile: '12ab'})
    expect(bad.isError).toBe(true)
    expect(bad.structuredContent?.error).toMatchObject({code: 'invalid_input', sent: false, problems: [{field: 'mobile', rule: 'must be 10 to 15 digits'}]})
    expect(textOf(bad)).toContain('mobile must be 10 to 15 digits')
    const number = await call(money.client, 'collections_create', {...collection('mcp-bad-2'), amount: 150})
    expect(number.structuredContent?.error.problems).toEqual([{field: 'amount', rule: expect.stringContaining('must be a string')}])
    const missing = await call(money.client, 'collections_create', {amount: '1.00', currency: 'KES', reference: 'mcp-bad-3', rail: 'mobile_money'})
    expect(missing.structuredContent?.error.problems).toEqual(expect.arrayContaining([{field: 'mobile', rule: 'is required when rail is mobile_money'}]))
    const unknown = await call(money.client, 'collections_create', {...collection('mcp-bad-4'), colour: 'red'})
    expect(unknown.structuredContent?.error.problems[0]).toMatchObject({field: 'colour'})
    expect(h.requests().length).toBe(before)
  })

  it('serves the interface summary and docs/assumptions.md as resources; stdout carried the protocol only', async () => {
    const {resources} = await readOnly.client.listResources()
    expect(resources.map((r) => r.uri)).toEqual(['pay://interface', 'pay://docs/assumptions.md'])
    const summary = await readOnly.client.readResource({uri: 'pay://interface'})
    expect(String(summary.contents[0].text)).toContain('## collections_create (money)')
    const assumptions = await readOnly.client.readResource({uri: 'pay://docs/assumptions.md'})
    expect(String(assumptions.contents[0].text)).toMatch(/^# /)
    // every line on stdout was a JSON-RPC message (the SDK's client fails on anything else); people's lines went to stderr
    expect(readOnly.stderr()).toMatch(/pay mcp: \d+ tools on stdio \(read-only/)
  })
})
