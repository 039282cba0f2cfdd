/**
 * The client core against a scripted HTTP server on loopback: one token for many commands, the 401 refresh,
 * retries with the same key and body, Retry-After, the sub-account header rule, and what is never retried.
 * Resource commands run in-process (test/helpers/in-process.ts: the same client, real HTTP); `pay api`, `pay
 * profiles` and what only processes show (several processes sharing the token cache, the proxy environment) run
 * the built CLI.
 */
import {readFileSync, readdirSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {json, runCli, tempConfigDir} from '../helpers/cli.js'
import {TEST_CLIENT_ID, TEST_CLIENT_SECRET, useScriptedServer} from '../helpers/scripted-server.js'
import {pay} from '../helpers/in-process.js'

const server = useScriptedServer()

const envFor = (configDir = tempConfigDir(), extra: Record<string, string> = {}) => ({
  PAY_CONFIG_DIR: configDir,
  PAY_BASE_URL: server.url,
  PAY_CLIENT_ID: TEST_CLIENT_ID,
  PAY_CLIENT_SECRET: TEST_CLIENT_SECRET,
  ...extra,
})

describe('token cache', () => {
  it('costs one token request for several commands in a row, and the cache file is 0600', async () => {
    const env = envFor()
    const before = server.tokensIssued.length
    for (const args of [['balance'], ['account'], ['metadata', 'banks'], ['balance', '--json']]) {
      const r = await pay(args, {env})
      expect(r.code, r.stderr).toBe(0)
    }
    expect(server.tokensIssued.length - before).toBe(1)
    expect(server.requests.filter((r) => r.path === '/v1/oauth/token')).toHaveLength(1)
    expect(statSync(join(env.PAY_CONFIG_DIR, 'tokens.json')).mode & 0o777).toBe(0o600)
  })

  it('gets one fresh token and retries once when a cached token is rejected', async () => {
    const env = envFor()
    expect((await pay(['balance'], {env})).code).toBe(0)
    server.revokeTokens()
    server.requests.length = 0
    const r = await pay(['balance', '--json'], {env})
    expect(r.code, r.stderr).toBe(0)
    expect(server.requests.map((q) => `${q.method} ${q.path}`)).toEqual(['GET /v1/balance', 'POST /v1/oauth/token', 'GET /v1/balance'])
  })

  it('never loops: a token rejected again exits 3 after one refresh', async () => {
    server.rejectAllTokens = true
    const r = await pay(['balance', '--json'], {env: envFor()})
    expect(r.code).toBe(3)
    expect(server.requests.filter((q) => q.path === '/v1/balance')).toHaveLength(2)
    expect(server.requests.filter((q) => q.path === '/v1/oauth/token').length).toBeLessThanOrEqual(2)
    expect(json(r)).toMatchObject({status: 401, error: {code: 'invalid_client'}})
  })

  it('two processes refreshing at once leave a valid cache', async () => {
    const env = envFor()
    const results = await Promise.all([1, 2, 3, 4].map(() => runCli(['balance', '--json'], {env})))
    for (const r of results) expect(r.code, r.stderr).toBe(0)
    const again = await runCli(['token', '--json'], {env})
    expect(json(again).cached).toBe(true)
  })
})

describe('retries', () => {
  it('repeats an idempotent POST with the same Idempotency-Key and body bytes after 503 and a dropped connection', async () => {
    server.script('POST /v1/collections', {status: 503, body: {error: {code: 'unavailable', message: 'try again', request_id: 'REQ_AAAAAAAAAAAA'}}}, {drop: true})
    const r = await pay(['api', 'POST', '/v1/collections', '--data', '{"amount":"10.00","currency":"KES","merchant_reference":"r-1","mobile":"254700000001","provider":"mpesa"}'], {env: envFor()})
    expect(r.code, r.stderr).toBe(0)
    const posts = server.apiRequests().filter((q) => q.path === '/v1/collections')
    expect(posts).toHaveLength(3)
    const keys = new Set(posts.map((p) => p.headers['idempotency-key']))
    expect(keys.size).toBe(1)
    expect([...keys][0]).toMatch(/^[0-9a-f-]{36}$/)
    expect(new Set(posts.map((p) => p.body)).size).toBe(1)
  })

  it('uses --idempotency-key when given', async () => {
    const r = await pay(['api', 'POST', '/v1/collections', '-F', 'amount=1.00', '--idempotency-key', 'my-key-1'], {env: envFor()})
    expect(r.code, r.stderr).toBe(0)
    expect(server.apiRequests()[0].headers['idempotency-key']).toBe('my-key-1')
    expect(JSON.parse(server.apiRequests()[0].body)).toEqual({amount: '1.00'})
  })

  it('waits for Retry-After on a 429', async () => {
    server.script('GET /v1/balance', {status: 429, headers: {'retry-after': '1'}, body: {error: {code: 'rate_limited', message: 'slow down', request_id: 'REQ_BBBBBBBBBBBB'}}})
    const r = await pay(['balance', '--json'], {env: envFor()})
    expect(r.code, r.stderr).toBe(0)
    const gets = server.apiRequests().filter((q) => q.path === '/v1/balance')
    expect(gets).toHaveLength(2)
    expect(gets[1].at - gets[0].at).toBeGreaterThanOrEqual(950)
  })

  it("waits for the body's retry_after when there is no header", async () => {
    server.script('GET /v1/balance', {status: 429, body: {error: {code: 'rate_limited', message: 'slow down', request_id: 'REQ_CCCCCCCCCCCC', retry_after: 1}}})
    const r = await pay(['balance', '--json'], {env: envFor()})
    expect(r.code).toBe(0)
    const gets = server.apiRequests().filter((q) => q.path === '/v1/balance')
    expect(gets[1].at - gets[0].at).toBeGreaterThanOrEqual(950)
  })

  it('does not retry a non-idempotent POST on 503, but does on 429', async () => {
    server.script('POST /v1/verifications/msisdn', {status: 503, body: {error: {code: 'unavailable', message: 'down', request_id: 'REQ_DDDDDDDDDDDD'}}})
    const r = await pay(['api', 'POST', '/v1/verifications/msisdn', '-F', 'mobile=254700000001'], {env: envFor()})
    expect(r.code).toBe(7)
    expect(server.apiRequests().filter((q) => q.path === '/v1/verifications/msisdn')).toHaveLength(1)
    expect(server.apiRequests()[0].headers['idempotency-key']).toBeUndefined()

    server.requests.length = 0
    server.script(
      'POST /v1/verifications/msisdn',
      {status: 429, headers: {'retry-after': '0'}, body: {error: {code: 'rate_limited', message: 'slow', request_id: 'REQ_EEEEEEEEEEEE'}}},
      {status: 200, body: {status: 'verified', profile: {first_name: 'A', last_name: 'B'}}},
    )
    const ok = await pay(['api', 'POST', '/v1/verifications/msisdn', '-F', 'mobile=254700000001'], {env: envFor()})
    expect(ok.code, ok.stderr).toBe(0)
    expect(server.apiRequests()).toHaveLength(2)
  })

  it('retries the token request on 503 (asking for a token changes nothing)', async () => {
    server.script('POST /v1/oauth/token', {status: 503, body: {error: {code: 'unavailable', message: 'down', request_id: 'REQ_TTTTTTTTTTTT'}}})
    const r = await pay(['balance', '--json'], {env: envFor()})
    expect(r.code, r.stderr).toBe(0)
    expect(server.requests.filter((q) => q.path === '/v1/oauth/token')).toHaveLength(2)
  })

  it('gives up after --retries and exits 6 when still rate limited', async () => {
    const limited = {status: 429, headers: {'retry-after': '0'}, body: {error: {code: 'rate_limited', message: 'slow down', request_id: 'REQ_FFFFFFFFFFFF'}}}
    server.script('GET /v1/balance', limited, limited, limited)
    const r = await pay(['balance', '--retries', '2'], {env: envFor()})
    expect(r.code).toBe(6)
    expect(server.apiRequests()).toHaveLength(3)
    expect(r.stderr).toContain('rate_limited')
    expect(r.stderr).toContain('REQ_FFFFFFFFFFFF')
    expect(r.stderr).toMatch(/retried 2 time/)
  })
})

describe('sub-account header', () => {
  it('is sent exactly where the table says, and never on the token request', async () => {
    const env = envFor(tempConfigDir(), {PAY_ACCOUNT_REF: 'ACC_TWO'})
    for (const args of [['account'], ['balance'], ['metadata', 'banks'], ['api', 'GET', '/v1/somewhere-new']]) await pay(args, {env})
    const byPath = Object.fromEntries(server.requests.map((q) => [q.path, q.headers['x-service-account-ref']]))
    expect(byPath['/v1/oauth/token']).toBeUndefined()
    expect(byPath['/v1/account']).toBe('ACC_TWO')
    expect(byPath['/v1/balance']).toBeUndefined()
    expect(byPath['/v1/metadata/banks']).toBeUndefined()
    expect(byPath['/v1/somewhere-new']).toBe('ACC_TWO')
  })

  it('is absent when no ref is configured', async () => {
    await pay(['account'], {env: envFor()})
    expect(server.apiRequests()[0].headers['x-service-account-ref']).toBeUndefined()
  })

  it('follows flag > env > profile', async () => {
    const dir = tempConfigDir()
    const add = await pay(['profiles', 'add', 'p1', '--base-url', server.url, '--client-id', TEST_CLIENT_ID, '--client-secret', TEST_CLIENT_SECRET, '--account-ref', 'FROM_PROFILE', '--use'], {env: {PAY_CONFIG_DIR: dir}})
    expect(add.code, add.stderr).toBe(0)
    await pay(['account'], {env: {PAY_CONFIG_DIR: dir}})
    await pay(['account'], {env: {PAY_CONFIG_DIR: dir, PAY_ACCOUNT_REF: 'FROM_ENV'}})
    await pay(['account', '--account-ref', 'FROM_FLAG'], {env: {PAY_CONFIG_DIR: dir, PAY_ACCOUNT_REF: 'FROM_ENV'}})
    expect(server.apiRequests().map((q) => q.headers['x-service-account-ref'])).toEqual(['FROM_PROFILE', 'FROM_ENV', 'FROM_FLAG'])
  })
})

describe('headers', () => {
  it('sends Authorization, Content-Type, Accept and a User-Agent naming pay and its version', async () => {
    await pay(['balance'], {env: envFor()})
    const h = server.apiRequests()[0].headers
    expect(h.authorization).toMatch(/^Bearer [A-Za-z0-9]{64}$/)
    expect(h['content-type']).toBe('application/json')
    expect(h.accept).toBe('application/json')
    expect(h['user-agent']).toMatch(/^pay\/\d+\.\d+\.\d+ /)
  })

  it('asks for no content coding (Accept-Encoding: identity), the token request too', async () => {
    await pay(['balance'], {env: envFor()})
    expect(server.requests.length).toBeGreaterThan(1)
    for (const q of server.requests) expect(q.headers['accept-encoding'], q.path).toBe('identity')
  })

  it('reads a gzip answer all the same: a create the service accepted is accepted (exit 0), not unknown', async () => {
    const {gzipSync} = await import('node:zlib')
    const gz = (status: number, body: unknown) => ({
      handle: (_req: unknown, res: import('node:http').ServerResponse) => {
        res.writeHead(status, {'content-type': 'application/json', 'content-encoding': 'gzip'})
        res.end(gzipSync(JSON.stringify(body)))
      },
    })
    server.script('POST /v1/collections', gz(201, {id: 'CL_G1', object: 'collection', status: 'processing', currency: 'KES', amount: '10.00', merchant_reference: 'gz-1'}))
    const r = await pay(['collections', 'create', '--amount', '10', '--currency', 'KES', '-r', 'gz-1', '--mobile', '254700000001', '--provider', 'mpesa', '--yes', '--json'], {env: envFor()})
    expect(r.code, r.stderr).toBe(0)
    expect(json(r).id).toBe('CL_G1')
  })

  it('a coding pay does not read: exit 7 naming the coding, not "cut short?"', async () => {
    server.script('GET /v1/balance', {
      handle: (_req: unknown, res: import('node:http').ServerResponse) => {
        res.writeHead(200, {'content-type': 'application/json', 'content-encoding': 'compress'})
        res.end(Buffer.from([0x1f, 0x9d, 0x90, 0x7b, 0x22, 0x00, 0x81]))
      },
    })
    const r = await pay(['balance', '--retries', '0'], {env: envFor()})
    expect(r.code).toBe(7)
    expect(r.stderr).toContain('not valid JSON (Content-Encoding: compress; pay reads gzip, deflate and br)')
  })
})

describe('timeouts and proxies', () => {
  it('--timeout gives up on a slow answer and retries a GET', async () => {
    server.script('GET /v1/balance', {delayMs: 2500, status: 200, body: {object: 'balance', data: []}})
    const started = Date.now()
    const r = await pay(['balance', '--timeout', '1', '--json'], {env: envFor()})
    expect(r.code, r.stderr).toBe(0)
    expect(server.apiRequests().filter((q) => q.path === '/v1/balance')).toHaveLength(2)
    expect(Date.now() - started).toBeLessThan(10_000)
  })

  it('does not repeat a non-idempotent POST that timed out: exit 7', async () => {
    server.script('POST /v1/verifications/msisdn', {delayMs: 2500, status: 200, body: {status: 'verified', profile: null}})
    const r = await pay(['api', 'POST', '/v1/verifications/msisdn', '-F', 'mobile=254700000001', '--timeout', '1'], {env: envFor()})
    expect(r.code).toBe(7)
    expect(r.stderr).toContain('timeout')
    expect(server.apiRequests().filter((q) => q.path === '/v1/verifications/msisdn')).toHaveLength(1)
  })

  it('goes through HTTP_PROXY, and not for hosts in NO_PROXY', async () => {
    const {createServer, request} = await import('node:http')
    const seen: string[] = []
    const proxy = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`)
      const target = new URL(req.url!)
      const up = request({host: target.hostname, port: target.port, path: target.pathname + target.search, method: req.method, headers: req.headers}, (r) => {
        res.writeHead(r.statusCode!, r.headers)
        r.pipe(res)
      })
      req.pipe(up)
    })
    // undici tunnels through the proxy with CONNECT (also for http:// targets)
    const {connect} = await import('node:net')
    proxy.on('connect', (req, socket, head) => {
      seen.push(`CONNECT ${req.url}`)
      const [host, port] = (req.url ?? '').split(':')
      const up = connect(Number(port), host, () => {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n')
        up.write(head)
        up.pipe(socket)
        socket.pipe(up)
      })
      up.on('error', () => socket.destroy())
      socket.on('error', () => up.destroy())
    })
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', () => resolve()))
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as {port: number}).port}`
    try {
      const viaProxy = await runCli(['balance', '--json'], {env: envFor(tempConfigDir(), {HTTP_PROXY: proxyUrl, http_proxy: proxyUrl, NO_PROXY: '', no_proxy: ''})})
      expect(viaProxy.code, viaProxy.stderr).toBe(0)
      expect(seen.some((l) => l === `CONNECT ${server.url.replace('http://', '')}` || l === `GET ${server.url}/v1/balance`)).toBe(true)
      seen.length = 0
      const direct = await runCli(['balance', '--json'], {env: envFor(tempConfigDir(), {HTTP_PROXY: proxyUrl, http_proxy: proxyUrl, NO_PROXY: '127.0.0.1', no_proxy: '127.0.0.1'})})
      expect(direct.code, direct.stderr).toBe(0)
      expect(seen).toEqual([])
    } finally {
      proxy.closeAllConnections()
      proxy.close()
    }
  })
})

describe('an Idempotency-Key given as a header (pay api -H)', () => {
  it('is the key the request carries, journals and prints, in any case of the header name', async () => {
    const {ApiClient} = await import('../../src/client/api-client.js')
    const client = new ApiClient({settings: {baseUrl: 'http://127.0.0.1:9', clientId: 'c', clientSecret: 's'}, userAgent: 'test'})
    for (const name of ['Idempotency-Key', 'idempotency-key', 'IDEMPOTENCY-KEY']) {
      const req = client.prepare('collections.create', {body: {amount: '1.00'}, headers: {[name]: 'key-from-header-1'}})
      expect(req.idempotencyKey).toBe('key-from-header-1')
      expect(req.headers['idempotency-key']).toBe('key-from-header-1')
      expect(req.keyGiven).toBe(true)
    }
    // --idempotency-key wins over a header; no second, different key is sent
    const both = client.prepare('collections.create', {body: {amount: '1.00'}, idempotencyKey: 'flag-key', headers: {'Idempotency-Key': 'header-key'}})
    expect(both.idempotencyKey).toBe('flag-key')
    expect(both.headers['idempotency-key']).toBe('flag-key')
  })
})

describe('the base URL', () => {
  it('is one spelling for every spelling of one service (scheme and host case, default port, trailing slashes)', async () => {
    const {ApiClient} = await import('../../src/client/api-client.js')
    const base = (baseUrl: string) => new ApiClient({settings: {baseUrl, clientId: 'c', clientSecret: 's'}, userAgent: 't'}).baseUrl()
    for (const spelling of ['http://127.0.0.1:8080', 'HTTP://127.0.0.1:8080', 'http://127.0.0.1:8080/', 'http://127.0.0.1:8080//']) expect(base(spelling)).toBe('http://127.0.0.1:8080')
    for (const spelling of ['https://api.example.com', 'HTTPS://API.Example.COM/', 'https://api.example.com:443']) expect(base(spelling)).toBe('https://api.example.com')
    expect(base('https://api.example.com:8443/v2/')).toBe('https://api.example.com:8443/v2')
    // another host is another service, even when it is the same machine
    expect(base('http://localhost:8080')).not.toBe(base('http://127.0.0.1:8080'))
  })
})

describe('secrets an answer quotes', () => {
  const html = (status: number, text: (authorization: string) => string) => ({
    handle: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
      res.writeHead(status, {'content-type': 'text/html'})
      res.end(text(String(req.headers.authorization ?? '')))
    },
  })
  const journalText = (dir: string) => {
    const days = join(dir, 'state', 'journal')
    return readdirSync(days).filter((f) => f.endsWith('.ndjson')).map((f) => readFileSync(join(days, f), 'utf8')).join('')
  }

  it('the client secret quoted by the token endpoint is hidden on stderr and in the --json envelope', async () => {
    const refused = {status: 401, body: {error: {code: 'invalid_client', message: `unknown client_secret ${TEST_CLIENT_SECRET}`, request_id: 'REQ_0123456789AB'}}}
    server.script('POST /v1/oauth/token', refused, refused)
    for (const args of [['balance'], ['balance', '--json']]) {
      const r = await pay(args, {env: envFor()})
      expect(r.code).toBe(3)
      expect(r.stdout + r.stderr).toContain('unknown client_secret [REDACTED]')
      expect(r.stdout + r.stderr).not.toContain(TEST_CLIENT_SECRET)
    }
  })

  it('the access token quoted by an error page is hidden on stderr, in the --json envelope and in the journal', async () => {
    const dir = tempConfigDir()
    server.script('POST /v1/collections', html(500, (auth) => `<h1>500</h1> upstream said: ${auth}`))
    const r = await pay(['collections', 'create', '--amount', '10', '--currency', 'KES', '-r', 'quoted-1', '--mobile', '254700000001', '--provider', 'mpesa', '--yes', '--retries', '0', '--json'], {env: envFor(dir)})
    expect(r.code, r.stderr).toBe(7) // a 500 to a create: its outcome is unknown
    const token = server.tokensIssued.at(-1)!
    expect(json(r).error.message).toBe('<h1>500</h1> upstream said: Bearer [REDACTED]')
    expect(r.stdout + r.stderr).not.toContain(token)
    expect(journalText(dir)).toContain('"request":"unknown"')
    expect(journalText(dir)).not.toContain(token)
  })

  it('--debug hides the access token an answer quotes: in a JSON message, and after `token=Bearer`', async () => {
    server.script('GET /v1/balance', {
      handle: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
        res.writeHead(401, {'content-type': 'application/json'})
        res.end(JSON.stringify({error: {code: 'invalid_token', message: `access token ${String(req.headers.authorization).slice(7)} has expired`, request_id: 'REQ_0123456789AB'}}))
      },
    })
    server.script('GET /v1/account', html(502, (auth) => `<html>proxy error; request had token=${auth}</html>`))
    const env = envFor()
    const first = await pay(['balance', '--debug', '--retries', '0'], {env})
    const second = await pay(['account', '--debug', '--retries', '0'], {env})
    expect(first.stderr).toContain('access token [REDACTED] has expired')
    expect(second.stderr).toContain('token=[REDACTED] [REDACTED]')
    expect(server.tokensIssued.length).toBeGreaterThan(0)
    for (const token of server.tokensIssued) expect(first.stderr + second.stderr).not.toContain(token)
  })
  it('a 2xx answer quoting a secret is printed redacted: --json, -o yaml/csv, --jq, the table, and `pay api -i` headers', async () => {
    // the account answer quotes the bearer token (once spelled with a JSON escape, which only the parse shows) and
    // the client secret, in the body and in headers; a Set-Cookie is a secret by its name
    const echo = {
      handle: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
        const token = String(req.headers.authorization).slice('Bearer '.length)
        res.writeHead(200, {'content-type': 'application/json', 'set-cookie': 'sid=c00kie-v4lue; HttpOnly', 'x-echo': `Bearer ${token}`, 'x-note': `client ${TEST_CLIENT_SECRET}`})
        const account = `{"id":"MAC_1","object":"merchant_account","account_ref":"main","name":"${token}","status":"active","note":"\\u0074${token.slice(1)}"}`
        res.end(`{"object":"account_context","merchant":{"id":1,"name":"Shop ${TEST_CLIENT_SECRET}","sub_accounts_enabled":false},"account":${account}}`)
      },
    }
    const env = envFor()
    const runs = [
      ['api', 'GET', '/v1/account', '-i', '--json'],
      ['api', 'GET', '/v1/account', '-o', 'yaml'],
      ['api', 'GET', '/v1/account', '--jq', '.account.note'],
      ['api', 'GET', '/v1/account', '-o', 'csv', '--fields', 'merchant.name,account.note'],
      ['account'],
      ['account', '--json'],
    ]
    server.script('GET /v1/account', ...runs.map(() => echo))
    let all = ''
    for (const args of runs) {
      const r = await pay(args, {env})
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0)
      all += r.stdout + r.stderr
      expect(r.stdout + r.stderr, args.join(' ')).toContain('[REDACTED]')
    }
    expect(server.tokensIssued.length).toBeGreaterThan(0)
    for (const secret of [TEST_CLIENT_SECRET, 'c00kie-v4lue', ...server.tokensIssued, ...server.tokensIssued.map((t) => t.slice(1))]) expect(all).not.toContain(secret)
    const included = all.split('\n')
    expect(included).toContain('set-cookie: [REDACTED]')
    expect(included).toContain('x-echo: Bearer [REDACTED]')
    expect(included).toContain('x-note: client [REDACTED]')
    // an error answer's headers under -i alike
    server.script('GET /v1/balance', {status: 404, body: {error: {code: 'not_found', message: 'no', request_id: 'REQ_0123456789AB'}}, headers: {'set-cookie': 'sid=c00kie-v4lue', 'x-note': `client ${TEST_CLIENT_SECRET}`}})
    const missing = await pay(['api', 'GET', '/v1/balance', '-i'], {env})
    expect(missing.code).toBe(4)
    expect(missing.stderr.split('\n')).toEqual(expect.arrayContaining(['set-cookie: [REDACTED]', 'x-note: client [REDACTED]']))
  })

  it('a create whose answer quotes the client secret and the base URL password: redacted on stdout and in the journal', async () => {
    const password = 'pw-5ecret-9q'
    const dir = tempConfigDir()
    const env = envFor(dir, {PAY_BASE_URL: server.url.replace('http://', `http://merchant:${password}@`)})
    const quoting = {
      handle: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
        res.writeHead(201, {'content-type': 'application/json'})
        res.end(JSON.stringify({id: 'CL_9', object: 'collection', status: 'processing', currency: 'KES', amount: '10.00', merchant_reference: 'quoted-2', description: `${TEST_CLIENT_SECRET} / ${password}`}))
      },
    }
    server.script('POST /v1/collections', quoting, quoting)
    const args = ['collections', 'create', '--amount', '10', '--currency', 'KES', '-r', 'quoted-2', '--mobile', '254700000001', '--provider', 'mpesa', '--yes']
    const table = await pay(args, {env})
    const again = await pay([...args, '--json'], {env}) // the journal's answer, reported
    for (const r of [table, again]) {
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout + r.stderr).not.toContain(TEST_CLIENT_SECRET)
      expect(r.stdout + r.stderr).not.toContain(password)
    }
    expect(json(again).description).toBe('[REDACTED] / [REDACTED]')
    expect(journalText(dir)).not.toContain(TEST_CLIENT_SECRET)
  })
})
