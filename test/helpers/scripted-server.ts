/**
 * A small, scriptable HTTP server on loopback for the client-core tests: it issues tokens, records every
 * request, and answers from a script (status, headers, body, or a dropped connection) so retries, Retry-After
 * and the 401 refresh can be proven exactly. Real HTTP over a real socket: nothing is mocked in the CLI.
 * Service behaviour as a whole is tested against the sandbox (test/sandbox, test/commands).
 */
import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterAll, afterEach, beforeAll} from 'vitest'
import {tempConfigDir} from './cli.js'

export interface Recorded {
  method: string
  path: string
  query: Record<string, string>
  headers: Record<string, string>
  body: string
  at: number
}

export type Scripted =
  | {status: number; body?: unknown; headers?: Record<string, string>}
  | {drop: true}
  | {delayMs: number; status: number; body?: unknown}
  /** Answers by hand: raw bytes, a truncated body, a body that trickles, or no answer at all. */
  | {handle: (req: IncomingMessage, res: ServerResponse) => void}

export interface ScriptedServer {
  url: string
  requests: Recorded[]
  tokensIssued: string[]
  /** Responses for METHOD PATH, used in order; when used up, the default answer is given. */
  script(key: string, ...responses: Scripted[]): void
  /** Makes every token issued so far answer 401. */
  revokeTokens(): void
  /** Every bearer token answers 401, new ones too. */
  rejectAllTokens: boolean
  tokenTtl: number
  /** Milliseconds the token endpoint takes to answer (a slow identity provider); 0 by default. */
  tokenDelayMs: number
  /** Requests other than the token endpoint. */
  apiRequests(): Recorded[]
  close(): Promise<void>
}

const CLIENT_ID = 'test_client'
export const TEST_CLIENT_ID = CLIENT_ID
export const TEST_CLIENT_SECRET = 'test_secret_0123456789abcdef'

/**
 * One scripted server for a test file: listening before the first test, closed after the last, its request log
 * and token rejection reset after each test. The object is usable at once; `url` is set when it listens.
 */
export function useScriptedServer(): ScriptedServer {
  const {state, listen} = createScriptedServer()
  beforeAll(listen)
  afterAll(() => state.close())
  afterEach(() => {
    state.requests.length = 0
    state.rejectAllTokens = false
    state.tokenDelayMs = 0
  })
  return state
}

function createScriptedServer(): {state: ScriptedServer; listen(): Promise<void>} {
  const scripts = new Map<string, Scripted[]>()
  const valid = new Set<string>()
  let counter = 0
  const state: ScriptedServer = {
    url: '',
    requests: [],
    tokensIssued: [],
    rejectAllTokens: false,
    tokenTtl: 1200,
    tokenDelayMs: 0,
    script(key, ...responses) {
      scripts.set(key, [...(scripts.get(key) ?? []), ...responses])
    },
    revokeTokens() {
      valid.clear()
    },
    apiRequests() {
      return state.requests.filter((r) => r.path !== '/v1/oauth/token')
    },
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    const text = body === undefined ? '' : JSON.stringify(body)
    res.writeHead(status, {'content-type': 'application/json', ...headers})
    res.end(text)
  }
  const requestId = () => `REQ_${String(++counter).padStart(12, '0')}`
  const error = (code: string, message: string, extra: Record<string, unknown> = {}) => ({error: {code, message, request_id: requestId(), ...extra}})

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x')
      const rec: Recorded = {
        method: req.method ?? '',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')])),
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      }
      state.requests.push(rec)
      const key = `${rec.method} ${rec.path}`
      const queue = scripts.get(key)
      const next = queue?.shift()
      if (next && 'drop' in next) {
        req.socket.destroy()
        return
      }
      if (next && 'handle' in next) return next.handle(req, res)
      const answer = () => {
        if (next && 'status' in next) return send(res, next.status, next.body, 'headers' in next ? next.headers : undefined)
        if (key === 'POST /v1/oauth/token') {
          let body: {client_id?: string; client_secret?: string} = {}
          try {
            body = JSON.parse(rec.body)
          } catch {
            return send(res, 400, error('invalid_parameter', 'body must be JSON'))
          }
          if (body.client_id !== CLIENT_ID || body.client_secret !== TEST_CLIENT_SECRET) return send(res, 401, error('invalid_client', 'bad client credentials'))
          const token = `tok${String(state.tokensIssued.length + 1).padStart(3, '0')}`.padEnd(64, 'x')
          state.tokensIssued.push(token)
          valid.add(token)
          return send(res, 200, {access_token: token, token_type: 'Bearer', expires_in: state.tokenTtl})
        }
        const auth = rec.headers.authorization ?? ''
        const token = auth.replace(/^Bearer /, '')
        if (state.rejectAllTokens || !valid.has(token)) return send(res, 401, error('invalid_client', 'missing or invalid bearer token'))
        if (key === 'GET /v1/balance') {
          return send(res, 200, {object: 'balance', data: [{currency: 'KES', collection_wallet: '100.00', collection_wallet_actual: '150.00', collection_wallet_held: '50.00', payout_wallet: '500.00'}]})
        }
        if (key === 'GET /v1/account') {
          return send(res, 200, {object: 'account_context', merchant: {id: 1, name: 'Test Shop', sub_accounts_enabled: true}, account: {id: 'MAC_1', object: 'merchant_account', account_ref: rec.headers['x-service-account-ref'] ?? 'main', name: 'Main', status: 'active'}})
        }
        if (key === 'GET /v1/metadata/banks') return send(res, 200, {object: 'list', data: [{bank_name: 'Test Bank', bank_code: '001'}]})
        if (key === 'POST /v1/collections') {
          const b = JSON.parse(rec.body || '{}')
          // a real service answers a whole collection whatever the (sloppy) test body was: pay checks the response schema
          return send(res, 201, {id: 'CL_1', object: 'collection', status: 'processing', currency: String(b.currency ?? 'KES'), amount: String(b.amount ?? '1.00'), merchant_reference: String(b.merchant_reference ?? 'ref-1')})
        }
        return send(res, 404, error('not_found', `no route ${key}`))
      }
      if (next && 'delayMs' in next) setTimeout(answer, next.delayMs)
      else if (!next && key === 'POST /v1/oauth/token' && state.tokenDelayMs > 0) setTimeout(answer, state.tokenDelayMs)
      else answer()
    })
  })
  const listen = async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
    state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  }
  return {state, listen}
}

/** The environment of a run against `server` with the test client's credentials, in a fresh config dir. */
export function scriptedEnv(server: ScriptedServer, extra: Record<string, string> = {}): Record<string, string> {
  return {PAY_CONFIG_DIR: tempConfigDir(), PAY_BASE_URL: server.url, PAY_CLIENT_ID: TEST_CLIENT_ID, PAY_CLIENT_SECRET: TEST_CLIENT_SECRET, ...extra}
}

/** A service error body, as the Payments Service sends one. */
export const serviceError = (code: string, message = code) => ({error: {code, message, request_id: 'REQ_0123456789AB'}})
