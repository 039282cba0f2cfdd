/** Plain-HTTP helpers for the sandbox end-to-end tests (real loopback requests, no mocks). */
import {randomUUID} from 'node:crypto'
import {request} from 'undici'
import {afterAll, afterEach, beforeAll} from 'vitest'
import {matchEndpoint} from '../../src/api/endpoints.js'
import {type Sandbox, type SandboxOptions, startSandbox} from '../../src/sandbox/index.js'
import {waitFor} from './wait-for.js'

export const ACME = {client_id: 'sb_acme_client', client_secret: 'sb_acme_secret_4f8a2c1e9b7d', webhook_secret: 'whsec_sb_acme_1c9e7a5b3d'}
/** Merchant A's second enabled client (the back office): events go to the client that created the resource. */
export const ACME_OPS = {client_id: 'sb_acme_ops_client', client_secret: 'sb_acme_ops_secret_6b3e9d2a7c1f', webhook_secret: 'whsec_sb_acme_ops_5a7c9e1b3d'}
export const GLOBEX = {client_id: 'sb_globex_client', client_secret: 'sb_globex_secret_7d2b9e4a1c6f', webhook_secret: 'whsec_sb_globex_8e2f6a4c0b', east: 'globex-east', west: 'globex-west'}

export interface Reply {
  status: number
  headers: Record<string, string>
  body: any
  text: string
}

export interface CallOptions {
  token?: string
  body?: unknown
  /** Raw body text (sent as is). */
  raw?: string
  headers?: Record<string, string | undefined>
  /** Idempotency-Key; true = a fresh UUID (the default for POST). */
  key?: string | false
  accountRef?: string
}

export class Client {
  constructor(
    readonly base: string,
    public token?: string,
    public accountRef?: string,
  ) {}

  async call(method: 'GET' | 'POST' | 'PUT', path: string, o: CallOptions = {}): Promise<Reply> {
    const headers: Record<string, string> = {'content-type': 'application/json', accept: 'application/json'}
    const token = o.token ?? this.token
    if (token) headers.authorization = `Bearer ${token}`
    const ref = o.accountRef ?? this.accountRef
    if (ref) headers['x-service-account-ref'] = ref
    if (method === 'POST' && path.startsWith('/v1/') && o.key !== false) headers['idempotency-key'] = o.key ?? randomUUID()
    for (const [k, v] of Object.entries(o.headers ?? {})) {
      if (v === undefined) delete headers[k.toLowerCase()]
      else headers[k.toLowerCase()] = v
    }
    const body = o.raw ?? (o.body === undefined ? undefined : JSON.stringify(o.body))
    const res = await request(this.base + path, {method, headers, body})
    const text = await res.body.text()
    let parsed: any
    try {
      parsed = text ? JSON.parse(text) : undefined
    } catch {
      parsed = undefined
    }
    // Every successful /v1 answer must satisfy the response schema of the endpoint table (the CLI parses with it).
    if (path.startsWith('/v1/') && res.statusCode >= 200 && res.statusCode < 300) {
      const m = matchEndpoint(method, path.split('?')[0])
      const check = m?.endpoint.response.safeParse(parsed)
      if (!check?.success) throw new Error(`${method} ${path}: answer does not match the response schema: ${check?.error.message ?? 'no endpoint'}\n${text}`)
      if (res.statusCode !== m!.endpoint.success) throw new Error(`${method} ${path}: answered ${res.statusCode}, the table says ${m!.endpoint.success}`)
    }
    const flat: Record<string, string> = {}
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) flat[k] = Array.isArray(v) ? v.join(', ') : v
    return {status: res.statusCode, headers: flat, body: parsed, text}
  }

  get = (path: string, o?: CallOptions) => this.call('GET', path, o)
  post = (path: string, body?: unknown, o: CallOptions = {}) => this.call('POST', path, {...o, body})
}

export async function tokenFor(base: string, creds: {client_id: string; client_secret: string}): Promise<string> {
  const r = await new Client(base).post('/v1/oauth/token', {grant_type: 'client_credentials', ...creds})
  if (r.status !== 200) throw new Error(`token: ${r.status} ${r.text}`)
  return r.body.access_token
}

export async function acmeClient(sb: Sandbox): Promise<Client> {
  return new Client(sb.url, await tokenFor(sb.url, ACME))
}

export async function globexClient(sb: Sandbox, ref: string = GLOBEX.east): Promise<Client> {
  return new Client(sb.url, await tokenFor(sb.url, GLOBEX), ref)
}

export function start(options: SandboxOptions = {}): Promise<Sandbox> {
  return startSandbox({settleMs: 30, webhookRetryBaseMs: 20, ...options})
}

/** A file's sandbox and a client of each seeded merchant (globex: one per sub-account; anon: no token). */
export interface SandboxClients {
  sb: Sandbox
  acme: Client
  globexEast: Client
  globexWest: Client
  anon: Client
}

/** One sandbox for the calling test file with its clients, ready before the file's tests and closed after them. */
export function useSandboxClients(options: SandboxOptions = {}): SandboxClients {
  const t = {} as SandboxClients
  beforeAll(async () => {
    t.sb = await start(options)
    ;[t.acme, t.globexEast, t.globexWest] = await Promise.all([acmeClient(t.sb), globexClient(t.sb, GLOBEX.east), globexClient(t.sb, GLOBEX.west)])
    t.anon = new Client(t.sb.url)
  })
  afterAll(() => t.sb?.close())
  return t
}

/** Sandboxes that live for one test: each one `start` gives is closed after the test (a test may close it earlier). */
export function sandboxPerTest(): {start(options?: SandboxOptions): Promise<Sandbox>} {
  const started: Sandbox[] = []
  afterEach(async () => {
    await Promise.all(started.splice(0).map((sb) => sb.close()))
  })
  return {
    async start(options) {
      const sb = await start(options)
      started.push(sb)
      return sb
    },
  }
}

/** waitFor (test/helpers/wait-for.ts) with a shorter default bound. */
export function until<T>(fn: () => Promise<T> | T, timeoutMs = 5000, what = 'condition'): Promise<NonNullable<T>> {
  return waitFor(fn, timeoutMs, what, 15)
}

export const collectionBody = (over: Record<string, unknown> = {}) => ({
  amount: '100.00',
  currency: 'KES',
  merchant_reference: `order-${randomUUID().slice(0, 8)}`,
  mobile: '254712345670',
  provider: 'mpesa',
  ...over,
})

export const checkoutBody = (over: Record<string, unknown> = {}) => ({
  amount: '250.00',
  currency: 'KES',
  merchant_reference: `cs-${randomUUID().slice(0, 8)}`,
  success_url: 'https://shop.example/ok',
  cancel_url: 'https://shop.example/cancel',
  ...over,
})

export const mandateBody = (over: Record<string, unknown> = {}) => ({
  mobile: '254711000001',
  provider: 'mpesa',
  currency: 'KES',
  amount: '500.00',
  frequency: 'MONTHLY',
  starts_at: '2026-12-01T09:00:00Z',
  merchant_reference: `md-${randomUUID().slice(0, 8)}`,
  ...over,
})

export const REQUEST_ID = /^REQ_[A-Z0-9]{12}$/

/** Asserts the spec's error envelope and returns the error object. */
export function expectError(r: Reply, status: number, code: string, param?: string) {
  if (r.status !== status || r.body?.error?.code !== code || (param !== undefined && r.body?.error?.param !== param)) {
    throw new Error(`expected ${status} ${code}${param ? ` (${param})` : ''}, got ${r.status} ${r.text}`)
  }
  if (!REQUEST_ID.test(r.body.error.request_id)) throw new Error(`bad request_id ${r.body.error.request_id}`)
  if (typeof r.body.error.message !== 'string' || r.body.error.message.length === 0) throw new Error('error without message')
  return r.body.error as {code: string; message: string; request_id: string; param?: string; retry_after?: number; doc_url?: string}
}
