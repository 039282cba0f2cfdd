/**
 * Data a script can trust: what a hostile or broken server answers must never become a silent success, a hang, or
 * a misleading message. Resource commands in-process against the scripted server (answers written by hand:
 * truncated bodies, trickling bodies, no answer); `pay api` and the TLS failures (NODE_EXTRA_CA_CERTS is read when
 * a process starts) as the built CLI, against TLS servers whose certificates are made in the test with openssl.
 */
import {execFileSync} from 'node:child_process'
import {mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {createServer as createHttpsServer, type Server as HttpsServer} from 'node:https'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {parseJson} from '../../src/client/api-client.js'
import {json, runCli, tempConfigDir} from '../helpers/cli.js'
import {runCommand, runInProcess} from '../helpers/in-process.js'
import {closedPort} from '../helpers/localtunnel-server.js'
import {TEST_CLIENT_ID, TEST_CLIENT_SECRET, useScriptedServer} from '../helpers/scripted-server.js'

const server = useScriptedServer()

const envFor = (extra: Record<string, string | undefined> = {}) => ({
  PAY_CONFIG_DIR: tempConfigDir(),
  PAY_BASE_URL: server.url,
  PAY_CLIENT_ID: TEST_CLIENT_ID,
  PAY_CLIENT_SECRET: TEST_CLIENT_SECRET,
  ...extra,
})

const FRAGMENT = '{"object":"balance","data":[{"currency":"KES","collection_wal'
/** 200, chunked, JSON content type, and a body cut in the middle. */
const truncated = (text = FRAGMENT) => ({
  handle: (_req: unknown, res: import('node:http').ServerResponse) => {
    res.writeHead(200, {'content-type': 'application/json'})
    res.write(text)
    res.end()
  },
})

describe('a 2xx body that does not parse or does not match the endpoint is an error (exit 7)', () => {
  it('pay balance --json: a truncated body exits 7 with the invalid_response envelope, never the fragment', async () => {
    server.script('GET /v1/balance', truncated())
    const r = await runInProcess(['balance', '--json', '--retries', '0'], {env: envFor()})
    expect(r.code, r.stderr).toBe(7)
    const envelope = json(r)
    expect(envelope.error.code).toBe('invalid_response')
    expect(envelope.error.received).toBe(FRAGMENT)
    expect(r.stderr).toMatch(/not valid JSON/)
  })

  it('pay api GET /v1/balance: a truncated body exits 7; --debug shows the body received', async () => {
    server.script('GET /v1/balance', truncated())
    const r = await runCommand(['api', 'GET', '/v1/balance', '--debug', '--retries', '0'], {env: envFor()})
    expect(r.code, r.stderr).toBe(7)
    expect(r.stdout).toBe('')
    expect(r.stderr).toContain(FRAGMENT)
  })

  it('collections get: an empty 200 exits 7 instead of printing an empty line', async () => {
    server.script('GET /v1/collections/CL_1', {status: 200})
    const r = await runInProcess(['collections', 'get', 'CL_1', '--retries', '0'], {env: envFor()})
    expect(r.code, r.stderr).toBe(7)
    expect(r.stdout.trim()).toBe('')
    expect(r.stderr).toMatch(/empty body|not valid JSON|does not match/)
  })

  it('collections create: a truncated 201 exits 7 (a script never gets success without an id)', async () => {
    server.script('POST /v1/collections', {
      handle: (_req: unknown, res: import('node:http').ServerResponse) => {
        res.writeHead(201, {'content-type': 'application/json'})
        res.end('{"id":"CL_9","object":"collec')
      },
    })
    const r = await runInProcess(
      ['collections', 'create', '--amount', '10.00', '--currency', 'KES', '--reference', 'trunc-1', '--mobile', '254700000001', '--provider', 'mpesa', '--json', '--retries', '0'],
      {env: envFor()},
    )
    expect(r.code, r.stderr).toBe(7)
    expect(json(r).error.code).toBe('invalid_response')
  })

  it('a body that parses but breaks a stated rule of the response exits 7 and names the field', async () => {
    // the interface states that amounts are decimal strings (the balance's shape, by contrast, is only assumed)
    server.script('GET /v1/collections/CL_1', {status: 200, body: {id: 'CL_1', object: 'collection', status: 'processing', currency: 'KES', amount: 10, merchant_reference: 'r'}})
    const r = await runInProcess(['collections', 'get', 'CL_1', '--json'], {env: envFor()})
    expect(r.code, r.stderr).toBe(7)
    const envelope = json(r)
    expect(envelope.error.code).toBe('invalid_response')
    expect(envelope.error.problems.join('\n')).toMatch(/amount/)
  })

  it('pay api on a path the table does not know: any JSON passes, non-JSON text is printed as received, broken JSON is exit 7', async () => {
    server.script('GET /v1/not-in-the-table', {status: 200, body: {anything: ['goes']}})
    const ok = await runCommand(['api', 'GET', '/v1/not-in-the-table', '--json'], {env: envFor()})
    expect(ok.code, ok.stderr).toBe(0)
    expect(json(ok)).toEqual({anything: ['goes']})

    server.script('GET /v1/not-in-the-table', {
      handle: (_req: unknown, res: import('node:http').ServerResponse) => {
        res.writeHead(200, {'content-type': 'text/plain'})
        res.end('plain text')
      },
    })
    const text = await runCommand(['api', 'GET', '/v1/not-in-the-table'], {env: envFor()})
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout.trim()).toBe('plain text')

    server.script('GET /v1/not-in-the-table', truncated('{"a":'))
    const broken = await runCommand(['api', 'GET', '/v1/not-in-the-table', '--retries', '0'], {env: envFor()})
    expect(broken.code, broken.stderr).toBe(7)
  })
})

/** Headers at once, then one space a second, for as long as the client listens. */
const trickle = () => ({
  handle: (_req: unknown, res: import('node:http').ServerResponse) => {
    res.writeHead(200, {'content-type': 'application/json'})
    res.write(' ')
    const timer = setInterval(() => res.write(' '), 1000)
    res.on('close', () => clearInterval(timer))
  },
})
/** Never answers (the socket stays open until the client gives up). */
const silent = () => ({handle: () => undefined})

/**
 * An integer of an answer beyond 2^53 (the interface: `merchant.id` integer, of any size): JSON.parse would round it
 * (9007199254740993 reads 9007199254740992), so pay keeps its digits as the service sent them.
 */
describe('an integer beyond 2^53 in an answer', () => {
  const BIG = '9007199254740993'
  const account = (id: string) => ({
    handle: (_req: unknown, res: import('node:http').ServerResponse) => {
      res.writeHead(200, {'content-type': 'application/json'})
      res.end(`{"object":"account_context","merchant":{"id":${id},"name":"Big Shop","sub_accounts_enabled":false},"account":{"id":"MAC_1","object":"merchant_account","account_ref":"main","name":"Main","status":"active"}}`)
    },
  })

  it('pay account: exit 0, the merchant id printed with its digits as sent, never rounded', async () => {
    server.script('GET /v1/account', account(BIG))
    const r = await runInProcess(['account'], {env: {...envFor(), NO_COLOR: '1'}})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain(`merchant.id\t${BIG}`)
    expect(r.stdout).not.toContain('9007199254740992')
  })

  it('pay account --json prints the body as sent, --jq sees the digits; a negative one is kept too', async () => {
    server.script('GET /v1/account', account(BIG), account(BIG), account('-' + BIG))
    const asJson = await runInProcess(['account', '--json'], {env: envFor()})
    expect(asJson.code, asJson.stderr).toBe(0)
    expect(asJson.stdout).toContain(`"id":${BIG}`)
    const jq = await runInProcess(['account', '--jq', '.merchant.id'], {env: envFor()})
    expect(jq.code, jq.stderr).toBe(0)
    expect(jq.stdout).toContain(BIG)
    const negative = await runInProcess(['account'], {env: {...envFor(), NO_COLOR: '1'}})
    expect(negative.code, negative.stderr).toBe(0)
    expect(negative.stdout).toContain(`merchant.id\t-${BIG}`)
  })

  it('parseJson: only an integer beyond 2^53 outside strings becomes its digits; strings, fractions, exponents and safe integers stay', () => {
    const text = `{"a":${BIG},"b":"x\\"${BIG}","c":[9007199254740991,-${BIG},12345678901234567.5,1e400,${BIG}0e2],"d":"${BIG}"}`
    expect(parseJson(text)).toEqual({a: BIG, b: `x"${BIG}`, c: [9007199254740991, `-${BIG}`, Number("12345678901234567.5"), Infinity, Number(`${BIG}0e2`)], d: BIG})
    expect(parseJson('[1,2')).toBeUndefined()
  })
})

describe('--timeout bounds the whole exchange, and all attempts share an overall deadline', () => {
  it('a body trickling one space a second does not outlive --timeout 2 --retries 0', async () => {
    server.script('GET /v1/balance', trickle())
    const r = await runInProcess(['balance', '--timeout', '2', '--retries', '0', '--json'], {env: envFor()})
    expect(r.code, r.stderr).toBe(7)
    expect(json(r).error.code).toBe('network_error')
    expect(r.stderr).toMatch(/timeout/)
  })

  it('a server that never answers gets at most 2 attempts within the deadline (2 x --timeout), not 4', async () => {
    for (let i = 0; i < 4; i++) server.script('GET /v1/balance', silent())
    const r = await runInProcess(['balance', '--timeout', '2', '--json'], {env: envFor()})
    expect(r.code, r.stderr).toBe(7)
    expect(server.apiRequests().filter((q) => q.path === '/v1/balance').length).toBeLessThanOrEqual(2)
    expect(r.stderr).toMatch(/deadline/)
  })
})

describe('failures that say what to do', () => {
  it('a dead proxy is named as the proxy, not as the service', async () => {
    const port = await closedPort()
    const proxy = `http://127.0.0.1:${port}`
    const r = await runCli(['balance', '--retries', '0'], {env: envFor({HTTP_PROXY: proxy, http_proxy: proxy, HTTPS_PROXY: proxy, https_proxy: proxy, NO_PROXY: '', no_proxy: ''})})
    expect(r.code, r.stderr).toBe(7)
    expect(r.stderr).toContain(`proxy ${proxy}`)
    expect(r.stderr).toMatch(/https?_proxy/i)
  })

  it('verifications msisdn (no Idempotency-Key) does not hint at --idempotency-key when it fails', async () => {
    server.script('POST /v1/verifications/msisdn', {drop: true})
    const r = await runInProcess(['verifications', 'msisdn', '--mobile', '254700000001'], {env: envFor()})
    expect(r.code, r.stderr).toBe(7)
    expect(r.stderr).not.toContain('--idempotency-key')
  })
})

describe('TLS errors are not retried and say how to trust a private CA', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pay-tls-'))
  const ssl = (...args: string[]) => execFileSync('openssl', args, {cwd: dir, stdio: 'pipe'})
  const servers: {name: string; url: string; handshakes: number; https: HttpsServer}[] = []

  beforeAll(async () => {
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes']
    ssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=pay test CA')
    ssl('req', ...ec, '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', '/CN=127.0.0.1')
    writeFileSync(join(dir, 'ip.ext'), 'subjectAltName=IP:127.0.0.1\n')
    writeFileSync(join(dir, 'dns.ext'), 'subjectAltName=DNS:wrong.example\n')
    ssl('x509', '-req', '-in', 'leaf.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '2', '-extfile', 'ip.ext', '-out', 'good.pem')
    ssl('x509', '-req', '-in', 'leaf.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '2', '-extfile', 'dns.ext', '-out', 'wronghost.pem')
    // an expired certificate needs explicit dates, which only `openssl ca` takes
    writeFileSync(join(dir, 'ca.cnf'), '[ca]\ndefault_ca=d\n[d]\ndatabase=index.txt\nnew_certs_dir=.\nserial=serial\ndefault_md=sha256\npolicy=p\nunique_subject=no\n[p]\ncommonName=supplied\n[ext]\nsubjectAltName=IP:127.0.0.1\n')
    writeFileSync(join(dir, 'index.txt'), '')
    writeFileSync(join(dir, 'serial'), '1000\n')
    ssl('ca', '-batch', '-config', 'ca.cnf', '-cert', 'ca.pem', '-keyfile', 'ca.key', '-in', 'leaf.csr', '-out', 'expired.pem', '-startdate', '20200101000000Z', '-enddate', '20200102000000Z', '-extensions', 'ext', '-notext')
    const key = readFileSync(join(dir, 'leaf.key'))
    for (const name of ['self-signed', 'expired', 'wrong host']) {
      const cert = name === 'self-signed' ? readFileSync(join(dir, 'ca.pem')) : readFileSync(join(dir, name === 'expired' ? 'expired.pem' : 'wronghost.pem'))
      const https = createHttpsServer({key: name === 'self-signed' ? readFileSync(join(dir, 'ca.key')) : key, cert}, (_req, res) => res.end('{}'))
      const entry = {name, url: '', handshakes: 0, https}
      https.on('tlsClientError', () => entry.handshakes++)
      await new Promise<void>((resolve) => https.listen(0, '127.0.0.1', () => resolve()))
      entry.url = `https://127.0.0.1:${(https.address() as AddressInfo).port}`
      servers.push(entry)
    }
  })
  afterAll(async () => {
    for (const s of servers) {
      s.https.closeAllConnections()
      await new Promise<void>((resolve) => s.https.close(() => resolve()))
    }
  })

  it.each(['self-signed', 'expired', 'wrong host'])('%s: exit 7 after one attempt, naming NODE_EXTRA_CA_CERTS', async (name) => {
    const s = servers.find((x) => x.name === name)!
    // the CA of these certificates is trusted for 'expired' and 'wrong host', so that only the named fault remains
    const extra = name === 'self-signed' ? undefined : join(dir, 'ca.pem')
    const r = await runCli(['balance', '--json'], {env: envFor({PAY_BASE_URL: s.url, NODE_EXTRA_CA_CERTS: extra})})
    expect(r.code, r.stderr).toBe(7)
    expect(json(r).error.code).toBe('tls_error')
    expect(json(r).error.attempts).toBe(1)
    expect(s.handshakes).toBe(1)
    expect(r.stderr).toContain('NODE_EXTRA_CA_CERTS')
    expect(r.stderr).not.toMatch(/retrying/)
    s.handshakes = 0
  })
})

describe('in-process: the rules behind the above', () => {
  it('certificate failures are classified tls and never retried; the exchange timeout is a timeout', async () => {
    const {classifyNetworkError, RequestAttempts} = await import('../../src/client/request-policy.js')
    for (const code of ['DEPTH_ZERO_SELF_SIGNED_CERT', 'CERT_HAS_EXPIRED', 'ERR_TLS_CERT_ALTNAME_INVALID', 'SELF_SIGNED_CERT_IN_CHAIN']) {
      const outcome = classifyNetworkError(Object.assign(new Error('x'), {code: 'UND_ERR_SOCKET', cause: Object.assign(new Error('y'), {code})}))
      expect(outcome).toEqual({kind: 'tls', code})
      expect(new RequestAttempts({retries: 3, safeToRepeat: true}).next(outcome)).toMatchObject({retry: false, class: 'refused'})
    }
    const {ExchangeTimeoutError, within} = await import('../../src/client/transport.js')
    expect(classifyNetworkError(new ExchangeTimeoutError(1000))).toEqual({kind: 'timeout'})
    // within() fails a never-ending exchange with the timeout error, whatever the run did with the signal
    const never = within(50, (signal) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')))))
    await expect(never).rejects.toBeInstanceOf(ExchangeTimeoutError)
  })

  it('the proxy named is the one for the URL scheme, without its userinfo', async () => {
    const {configuredProxy} = await import('../../src/client/transport.js')
    const env = {HTTPS_PROXY: 'http://u:secret@proxy.example:3128', http_proxy: 'http://plain.example:8080'}
    expect(configuredProxy('https://api.example.com', env)).toEqual({origin: 'http://proxy.example:3128', variable: 'HTTPS_PROXY', host: 'proxy.example', port: 3128})
    expect(configuredProxy('http://127.0.0.1:4010', env)?.variable).toBe('http_proxy')
    expect(configuredProxy('http://127.0.0.1:4010', {})).toBeUndefined()
  })
})

describe('the deadline is documented', () => {
  it('--timeout help says it bounds the body and that all attempts stop after twice it', async () => {
    const r = await runCli(['balance', '--help'])
    expect(r.stdout.replace(/\s+/g, " ")).toContain("--timeout=<value> [default: 30] Seconds each attempt may take, body included; all attempts together stop after twice this")
  })
})
