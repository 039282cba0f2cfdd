// The HTTP layer of bulk runs (src/client/pool-transport.ts) against a local node:http server: what it sends and
// gives back, and that its failures are the ones the client core classifies (a timeout, a refused connection,
// a connection cut after the request was sent), through ApiClient.sendUnjournaled as the bulk engine calls it.
import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterEach, describe, expect, it} from 'vitest'
import {ApiClient} from '../../src/client/api-client.js'
import {InvalidResponseError, NetworkError} from '../../src/base/errors.js'
import {PoolTransport} from '../../src/client/pool-transport.js'
import {classifyNetworkError, retryAfterMs} from '../../src/client/request-policy.js'

const TOKEN = JSON.stringify({access_token: 'tok-1', token_type: 'Bearer', expires_in: 3600})
const COLLECTION = {id: 'CL_1', object: 'collection', merchant_reference: 'r-1', amount: '1.00', currency: 'KES', status: 'pending', provider: 'mpesa', mobile: '254712345678'}

const servers: Server[] = []
const pools: PoolTransport[] = []
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()))
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => (s.closeAllConnections(), s.close(r)))))
})

async function serve(handler: (req: IncomingMessage, body: string, res: ServerResponse) => void): Promise<string> {
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (d: Buffer) => (body += d.toString('utf8')))
    req.on('end', () => handler(req, body, res))
  })
  servers.push(server)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

async function pool(): Promise<PoolTransport> {
  const p = await PoolTransport.open(4)
  pools.push(p)
  return p
}

describe('the pool transport', () => {
  it('sends the method, path and query, headers and body bytes; gives back the status, lower-case headers (repeats joined) and the text', async () => {
    const seen: {method?: string; url?: string; headers?: Record<string, unknown>; body?: string}[] = []
    const base = await serve((req, body, res) => {
      seen.push({method: req.method, url: req.url, headers: req.headers, body})
      res.writeHead(201, [['Content-Type', 'application/json'], ['X-Thing', 'a'], ['X-Thing', 'b']])
      res.end('{"ok":"ünïcødé"}')
    })
    const p = await pool()
    const body = '{"amount":"1.00","note":"ü"}'
    const res = await p.send({method: 'POST', url: `${base}/v1/collections?x=1`, headers: {'idempotency-key': 'k-1', 'content-type': 'application/json'}, body, timeoutMs: 5000})
    expect(res).toEqual({status: 201, headers: expect.objectContaining({'content-type': 'application/json', 'x-thing': 'a, b'}), text: '{"ok":"ünïcødé"}'})
    expect(seen).toEqual([{method: 'POST', url: '/v1/collections?x=1', headers: expect.objectContaining({'idempotency-key': 'k-1', 'content-length': String(Buffer.byteLength(body))}), body}])
  })

  it('response headers as node:http gives them: a repeated Retry-After keeps its first value (and still waits), other repeats joined, any name an own key', async () => {
    const base = await serve((_req, _body, res) => {
      res.writeHead(200, [['Retry-After', '5'], ['retry-after', '5'], ['Content-Type', 'application/json'], ['content-type', 'text/html'], ['Vary', 'a'], ['vary', 'b'], ['constructor', 'x'], ['__proto__', 'y']])
      res.end('{}')
    })
    const {headers: h} = await (await pool()).send({method: 'GET', url: `${base}/v1/balance`, headers: {}, timeoutMs: 5000})
    expect(h['retry-after']).toBe('5')
    expect(retryAfterMs(h, undefined)).toBe(5000)
    expect(h['content-type']).toBe('application/json')
    expect(h.vary).toBe('a, b')
    expect(Object.hasOwn(h, 'constructor') && h.constructor).toBe('x')
    expect(Object.getOwnPropertyDescriptor(h, '__proto__')?.value).toBe('y')
    expect(Object.getPrototypeOf(h)).toBe(Object.prototype)
  })

  it('decodes a gzip answer (a server that compresses though asked for identity)', async () => {
    const {gzipSync} = await import('node:zlib')
    const base = await serve((_req, _body, res) => {
      res.writeHead(200, {'content-type': 'application/json', 'content-encoding': 'gzip'})
      res.end(gzipSync('{"ok":"ünïcødé"}'))
    })
    const res = await (await pool()).send({method: 'GET', url: `${base}/v1/balance`, headers: {}, timeoutMs: 5000})
    expect(res.text).toBe('{"ok":"ünïcødé"}')
  })

  it('writes nothing before the request is ready (a journaled request: its fsync)', async () => {
    const seen: string[] = []
    const base = await serve((_req, body, res) => (seen.push(body), res.writeHead(201).end('{}')))
    const p = await pool()
    let go: () => void = () => undefined
    const ready = new Promise<void>((r) => (go = r))
    const sending = p.send({method: 'POST', url: `${base}/v1/collections`, headers: {}, body: '{"a":1}', timeoutMs: 5000, ready})
    await new Promise((r) => setTimeout(r, 100))
    expect(seen).toEqual([])
    go()
    expect((await sending).status).toBe(201)
    expect(seen).toEqual(['{"a":1}'])
  })

  it('an answer that does not come within the time: a timeout (the client core retries it as one, same key)', async () => {
    const base = await serve(() => undefined) // never answers
    const p = await pool()
    const err = await p.send({method: 'POST', url: `${base}/v1/collections`, headers: {}, body: '{}', timeoutMs: 200}).catch((e: unknown) => e)
    expect(classifyNetworkError(err)).toEqual({kind: 'timeout'})
  })

  it('a refused connection: never sent; a connection cut after the request: maybe sent', async () => {
    const closed = await serve(() => undefined)
    const port = new URL(closed).port
    await new Promise((r) => (servers[0].closeAllConnections(), servers[0].close(r)))
    servers.length = 0
    const p = await pool()
    const refused = await p.send({method: 'POST', url: `http://127.0.0.1:${port}/v1/collections`, headers: {}, body: '{}', timeoutMs: 5000}).catch((e: unknown) => e)
    expect(classifyNetworkError(refused)).toEqual({kind: 'network', sent: false})

    const cutting = await serve((req) => req.socket.destroy())
    const cut = await p.send({method: 'POST', url: `${cutting}/v1/collections`, headers: {}, body: '{}', timeoutMs: 5000}).catch((e: unknown) => e)
    expect(classifyNetworkError(cut)).toEqual({kind: 'network', sent: true})
  })

  it('under the client core (sendUnjournaled via the pool): the token attached, a 2xx checked against the response schema, a failure as the plain transport gives it', async () => {
    let answer: (res: ServerResponse) => void = (res) => (res.writeHead(201, {'content-type': 'application/json'}), res.end(JSON.stringify(COLLECTION)))
    const auth: (string | undefined)[] = []
    const base = await serve((req, _body, res) => {
      if (req.url === '/v1/oauth/token') return res.writeHead(200, {'content-type': 'application/json'}).end(TOKEN)
      auth.push(req.headers.authorization)
      answer(res)
    })
    const client = new ApiClient({settings: {baseUrl: base, clientId: 'c', clientSecret: 's'}, userAgent: 't', retries: 0, sleep: async () => {}})
    expect(client.poolable).toBe(true)
    const p = await pool()
    const req = {...client.prepare('collections.create', {body: {amount: '1.00'}, idempotencyKey: 'k-2'}), retries: 0}
    const ok = await client.sendUnjournaled(req, p)
    expect(ok.status).toBe(201)
    expect(ok.body).toEqual(COLLECTION)
    expect(auth).toEqual(['Bearer tok-1'])

    answer = (res) => (res.writeHead(201, {'content-type': 'application/json'}), res.end('{"id":'))
    await expect(client.sendUnjournaled(req, p)).rejects.toBeInstanceOf(InvalidResponseError)
    answer = (res) => (res.writeHead(503, {'content-type': 'application/json'}), res.end('{"error":{"code":"unavailable","message":"down"}}'))
    await expect(client.sendUnjournaled(req, p)).rejects.toMatchObject({status: 503, error: {code: 'unavailable'}})
    answer = (res) => res.socket?.destroy()
    const cut = await client.sendUnjournaled(req, p).catch((e: unknown) => e)
    expect(cut).toBeInstanceOf(NetworkError)
    expect((cut as NetworkError).maybeSent).toBe(true)
  })

  it('is not used with a proxy in the environment or a transport given to the client', () => {
    const transport = {send: async () => ({status: 200, headers: {}, text: ''}), close: async () => {}}
    expect(new ApiClient({settings: {baseUrl: 'http://127.0.0.1:9'}, userAgent: 't', transport}).poolable).toBe(false)
    const saved = process.env.HTTPS_PROXY
    process.env.HTTPS_PROXY = 'http://127.0.0.1:9'
    try {
      expect(new ApiClient({settings: {baseUrl: 'http://127.0.0.1:9'}, userAgent: 't'}).poolable).toBe(false)
    } finally {
      if (saved === undefined) delete process.env.HTTPS_PROXY
      else process.env.HTTPS_PROXY = saved
    }
  })
})

describe('the pool transport once closed', () => {
  it('opens no new pool: a later send fails at once (a worker still running after the run stopped)', async () => {
    const {PoolTransport: P} = await import('../../src/client/pool-transport.js')
    const t = await P.open(1)
    await t.close()
    await expect(t.send({method: 'POST', url: 'http://127.0.0.1:9/v1/collections', headers: {}, body: '{}', timeoutMs: 1000})).rejects.toThrow(/run has ended/)
  })
})
