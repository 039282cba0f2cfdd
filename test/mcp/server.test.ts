/**
 * `pay mcp`'s server in-process (src/mcp/server.ts connectMcp), driven by the MCP SDK's own client over an
 * in-memory transport, against this file's sandbox (through the fault proxy where an answer must be lost after the
 * service committed): what an agent is told (instructions, tools, results, errors) and what the server logs. The
 * server as a process over stdio: test/e2e/mcp.test.ts.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {InMemoryTransport} from '@modelcontextprotocol/sdk/inMemory.js'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import journal from '../../src/commands/journal.js'
import webhookHistory from '../../src/commands/webhook/history.js'
import {connectMcp} from '../../src/mcp/server.js'
import type {ApiContextFlags} from '../../src/runtime.js'
import {tempConfigDir} from '../helpers/cli.js'
import {useSandbox} from '../helpers/command-harness.js'
import {type FaultProxy, referenceIn, startFaultProxy} from '../helpers/fault-proxy.js'
import {commandEnv} from '../helpers/in-process.js'

const h = useSandbox()
let proxy: FaultProxy
const sessions: {close(): Promise<void>}[] = []

beforeAll(async () => {
  proxy = await startFaultProxy(h.sb.url)
})
afterAll(async () => {
  for (const s of sessions) await s.close().catch(() => undefined)
  await proxy?.close()
})

const PASSWORD = 'Pw5ecretXyz'
/** A base URL with a user and password in it. */
const withPassword = (url: string) => url.replace('http://', `http://user:${PASSWORD}@`)

interface Session {
  client: Client
  /** The server's lines for people (its stderr). */
  info: string[]
}

/** `pay mcp` with these flags, in-process, connected to the SDK's client. */
async function connect(flags: ApiContextFlags, options: {allowMoney?: boolean; allowLiveMoney?: boolean; env?: NodeJS.ProcessEnv} = {}): Promise<Session> {
  const info: string[] = []
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  const env = options.env ?? commandEnv({PAY_CLIENT_ID: h.env.PAY_CLIENT_ID, PAY_CLIENT_SECRET: h.env.PAY_CLIENT_SECRET, PAY_BASE_URL: h.sb.url})
  const server = await connectMcp(
    {flags, allowMoney: options.allowMoney ?? false, allowLiveMoney: options.allowLiveMoney ?? false, userAgent: 'pay-test', version: '0.0.0', info: (t) => info.push(t), env, commands: {journal, webhookHistory}},
    () => serverSide,
  )
  const client = new Client({name: 'pay-test', version: '1.0.0'})
  await client.connect(clientSide)
  sessions.push({close: async () => (await client.close(), await server.close())})
  return {client, info}
}

type ToolResult = {isError?: boolean; content: {type: string; text?: string}[]; structuredContent?: Record<string, any>; _meta?: Record<string, any>}
const call = async (client: Client, name: string, args: Record<string, unknown>) => (await client.callTool({name, arguments: args})) as ToolResult
const textOf = (r: ToolResult) => r.content.map((c) => c.text ?? '').join('\n')
const collection = (ref: string) => ({amount: '150.00', currency: 'KES', reference: ref, mobile: '254712345678', provider: 'mpesa'})
const collectionsWith = (ref: string) => Object.values(h.sb.state.collections).filter((c) => c.merchant_reference === ref)
const postsWith = (ref: string) => h.requests((e) => e.method === 'POST' && (e.body as {merchant_reference?: string} | undefined)?.merchant_reference === ref)

describe('a password in the base URL', () => {
  it('is in none of the instructions, the start-up line, results, errors or the resume command', async () => {
    const mcp = await connect({'base-url': withPassword(proxy.url), retries: 0}, {allowMoney: true})
    const instructions = mcp.client.getInstructions() ?? ''
    expect(instructions).toContain('http://[REDACTED]@127.0.0.1')
    expect(mcp.info.join('\n')).toMatch(/pay mcp: \d+ tools on stdio .* at http:\/\/\[REDACTED\]@127\.0\.0\.1/)

    const balance = await call(mcp.client, 'balance', {})
    expect(balance.isError, textOf(balance)).toBeFalsy()
    // an answer lost after the service committed: the error carries the resume command, with the connection flags
    proxy.rule = (r) => (r.method === 'POST' && referenceIn(r.body) === 'mcp-pw-1' ? 'cut' : 'pass')
    const cut = await call(mcp.client, 'collections_create', collection('mcp-pw-1'))
    proxy.rule = () => 'pass'
    expect(cut.structuredContent?.error.outcome).toBe('unknown')
    expect(cut.structuredContent?.error.resume_command).toContain('--base-url')
    const entries = await call(mcp.client, 'journal', {key: 'mcp-pw-1'})

    const everything = JSON.stringify([instructions, mcp.info, await mcp.client.listTools(), balance, cut, entries])
    expect(everything).not.toContain(PASSWORD)
  })
})

describe('money tools and the idempotency key', () => {
  it('take no idempotency_key: the journal keys each call, and a key given is refused with nothing sent', async () => {
    const mcp = await connect({}, {allowMoney: true})
    const {tools} = await mcp.client.listTools()
    const money = tools.filter((t) => t.annotations?.readOnlyHint === false)
    expect(money.map((t) => t.name)).toContain('collections_create')
    for (const tool of money) expect(Object.keys(tool.inputSchema.properties ?? {}), tool.name).not.toContain('idempotency_key')

    const first = await call(mcp.client, 'collections_create', collection('mcp-ik-1'))
    expect(first.isError, textOf(first)).toBeFalsy()
    const before = h.requests().length
    const keyed = await call(mcp.client, 'collections_create', {...collection('mcp-ik-1'), idempotency_key: '6f1c2a7e-0d3b-4c8e-9a51-2b7d4e8f0a13'})
    expect(keyed.isError).toBe(true)
    expect(keyed.structuredContent?.error).toMatchObject({code: 'invalid_input', sent: false, problems: [{field: 'idempotency_key'}]})
    expect(h.requests().length).toBe(before)
    expect(collectionsWith('mcp-ik-1')).toHaveLength(1)
  })

  it('an unknown outcome says to call the same tool with the same arguments, and gives the shell command whole', async () => {
    const mcp = await connect({'base-url': proxy.url, retries: 0}, {allowMoney: true})
    proxy.rule = (r) => (r.method === 'POST' && referenceIn(r.body) === 'mcp-ik-2' ? 'cut' : 'pass')
    const args = collection('mcp-ik-2')
    const cut = await call(mcp.client, 'collections_create', args)
    proxy.rule = () => 'pass'
    const error = cut.structuredContent?.error
    expect(error.outcome).toBe('unknown')
    expect(error.idempotency_key).toMatch(/^[0-9a-f-]{36}$/)
    expect(error.resume).toEqual({tool: 'collections_create', arguments: args, how: expect.stringContaining('call collections_create again with the same arguments')})
    // no hint with the command line renamed into tool names (`pay collections create amount 150.00 …`)
    expect(error.hint).toBeUndefined()
    expect(JSON.stringify(cut)).not.toMatch(/pay collections create amount/)
    expect(error.resume_command).toMatch(/^pay collections create --amount 150\.00 .*--idempotency-key [0-9a-f-]{36}$/)
    expect(error.resume_command).toContain(`--idempotency-key ${error.idempotency_key}`)
    expect(collectionsWith('mcp-ik-2')).toHaveLength(1)

    // as told: the same arguments again reuse the key, and the service's one collection is the answer
    const again = await call(mcp.client, error.resume.tool, error.resume.arguments)
    expect(again.isError, textOf(again)).toBeFalsy()
    expect(again.structuredContent?.id).toBe(collectionsWith('mcp-ik-2')[0].id)
    expect(collectionsWith('mcp-ik-2')).toHaveLength(1)
    expect(new Set(postsWith('mcp-ik-2').map((e) => e.headers['idempotency-key']))).toEqual(new Set([error.idempotency_key]))
  })
})

describe('an operation answered, but not as it should end', () => {
  it('a create answered failed, a wait that ends failed and one that times out are tool errors with code, message, exit code and the answer', async () => {
    const mcp = await connect({}, {allowMoney: true})
    // the payout wallet cannot cover it: answered 201 `failed` (insufficient funds), without any wait
    const payout = await call(mcp.client, 'payouts_create', {amount: '900000000.00', currency: 'KES', reference: 'mcp-po-failed', mobile: '254712345670', provider: 'mpesa'})
    expect(payout.isError, textOf(payout)).toBe(true)
    expect(payout.structuredContent?.error).toMatchObject({code: 'tx_failed', exit_code: 8, state: 'failed', status_detail: expect.stringMatching(/^insufficient_funds/)})
    expect(payout.structuredContent?.error.message).toMatch(/^payout mcp-po-failed ended failed: insufficient_funds/)
    expect(payout.structuredContent?.answer).toMatchObject({merchant_reference: 'mcp-po-failed', status: 'failed'})
    expect(textOf(payout)).toMatch(/^tx_failed: payout mcp-po-failed ended failed/)

    const failed = await call(mcp.client, 'collections_create', {...collection('mcp-wait-failed'), mobile: '254712345679', wait: true})
    expect(failed.isError, textOf(failed)).toBe(true)
    expect(failed.structuredContent?.error).toMatchObject({code: 'tx_failed', exit_code: 8, state: 'failed'})
    expect(failed.structuredContent?.answer.status).toBe('failed')

    // a wallet number ending in 8 stays processing
    const slow = await call(mcp.client, 'collections_create', {...collection('mcp-wait-slow'), wait: true, wait_timeout: 1})
    expect(slow.isError, textOf(slow)).toBe(true)
    expect(slow.structuredContent?.error).toMatchObject({code: 'wait_timeout', exit_code: 9, state: 'processing', message: expect.stringContaining('still processing after wait_timeout 1 s')})
    expect(slow._meta?.pay.idempotency_key).toMatch(/^[0-9a-f-]{36}$/)

    const ok = await call(mcp.client, 'collections_create', {...collection('mcp-wait-ok'), mobile: '254712345670', wait: true})
    expect(ok.isError, textOf(ok)).toBeFalsy()
    expect(ok.structuredContent?.status).toBe('succeeded')
  }, 30_000)
})

describe('a live profile', () => {
  function liveEnv(): NodeJS.ProcessEnv {
    const dir = tempConfigDir()
    const acme = h.sb.seed.merchants.find((m) => m.key === 'acme')!
    writeFileSync(join(dir, 'profiles.json'), JSON.stringify({active: 'prod', profiles: {prod: {base_url: h.sb.url, client_id: acme.clients[0].client_id, client_secret: acme.clients[0].client_secret, live: true}}}), {mode: 0o600})
    return commandEnv({PAY_CONFIG_DIR: dir})
  }

  it('with --allow-live-money: a money call proceeds, as --yes would, and asks no one', async () => {
    const mcp = await connect({}, {allowMoney: true, allowLiveMoney: true, env: liveEnv()})
    expect(mcp.client.getInstructions()).toContain('LIVE')
    const created = await call(mcp.client, 'collections_create', collection('mcp-live-1'))
    expect(created.isError, textOf(created)).toBeFalsy()
    expect(created.structuredContent?.merchant_reference).toBe('mcp-live-1')
    expect(postsWith('mcp-live-1')).toHaveLength(1)
  })

  it('without it: refused, naming --allow-live-money (no --yes, which no tool takes), nothing sent', async () => {
    const mcp = await connect({}, {allowMoney: true, env: liveEnv()})
    const refused = await call(mcp.client, 'collections_create', collection('mcp-live-2'))
    expect(refused.isError).toBe(true)
    expect(refused.structuredContent?.error).toMatchObject({code: 'money_not_allowed', sent: false})
    expect(textOf(refused)).toContain('--allow-live-money')
    expect(textOf(refused)).not.toContain('--yes')
    expect(postsWith('mcp-live-2')).toHaveLength(0)
  })
})
