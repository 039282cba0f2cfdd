/**
 * Bounded fuzz of the running sandbox (3,000 generated requests, a fixed seed, so every run sends the same ones):
 * deep and wide JSON, huge strings, invalid UTF-8 and percent-encoding, wrong methods, odd paths and headers,
 * control API values. Afterwards the sandbox is alive, every answer was a 4xx or the right 2xx (a /v1 2xx has the
 * endpoint's success status and matches its response schema), and the request log holds none of the secrets sent.
 */
import {Agent, request as httpRequest} from 'node:http'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {endpointList, matchEndpoint} from '../../src/api/endpoints.js'
import type {Sandbox} from '../../src/sandbox/index.js'
import {ACME, GLOBEX, collectionBody, checkoutBody, mandateBody, start, tokenFor} from '../helpers/sandbox-http.js'

const COUNT = 3000
const IN_FLIGHT = 8
/** Planted in secret-named fields, query parameters and headers: must never reach the log. */
const MARK = 'fuzzsecret7f3a9c'

let sb: Sandbox
let agent: Agent
beforeAll(async () => {
  sb = await start({settleMs: 20})
  agent = new Agent({keepAlive: true, maxSockets: IN_FLIGHT})
})
afterAll(async () => {
  agent?.destroy()
  await sb?.close()
})

/** mulberry32: a small deterministic generator. */
function prng(seed: number) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number) => Math.floor(next() * n)
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]
  return {next, int, pick}
}

interface Req {
  method: string
  path: string
  headers: Record<string, string>
  body?: Buffer
}

function generator(seed: number, token: () => string) {
  const r = prng(seed)
  const strings = () => r.pick(['', 'x', 'é', '\u0000', '<script>', 'a'.repeat(r.int(3) === 0 ? 200_000 : 300), '%ZZ', '254712345670', '10.00', '-1', '1e308'])
  const scalar = (): unknown => r.pick([null, true, false, 0, -1, 1e308, -1e308, 0.1, 2 ** 53, strings(), strings()])
  const deep = (depth: number): string => (r.int(2) ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth))
  const mutate = (base: Record<string, unknown>): Record<string, unknown> => {
    const out: Record<string, unknown> = {...base}
    const keys = Object.keys(out)
    for (let i = r.int(4); i >= 0; i--) {
      const k = r.pick(keys)
      const what = r.int(6)
      if (what === 0) delete out[k]
      else if (what === 1) out[k] = scalar()
      else if (what === 2) out[k] = {nested: scalar()}
      else if (what === 3) out[k] = [scalar(), scalar()]
      else if (what === 4) out[r.pick(['client_secret', 'CLIENT_SECRET', 'password', 'Access_Token', 'api_key', 'card_number', 'clientSecret', 'accessToken'])] = MARK
    }
    return out
  }
  const validBodies: Record<string, () => Record<string, unknown>> = {
    '/v1/collections': () => collectionBody(),
    '/v1/checkout/sessions': () => checkoutBody(),
    '/v1/mandates': () => mandateBody({mobile: `2547${String(r.int(1e8)).padStart(8, '0')}`}),
    '/v1/payouts': () => ({amount: '1.00', currency: 'KES', merchant_reference: `po-${r.int(1e9)}`, mobile: '254712345670', provider: 'mpesa'}),
    '/v1/verifications/msisdn': () => ({mobile: '254712345670'}),
    '/v1/oauth/token': () => ({grant_type: 'client_credentials', client_id: ACME.client_id, client_secret: ACME.client_secret}),
  }
  const paths = [...endpointList.map((e) => e.path.replace(/\{[a-z_]+\}/g, () => r.pick(['CL_X', '%ZZ', '..', 'a%2Fb', '%E0%A4%A', 'MD_1', 'x'.repeat(300)]))), '/', '/pay/CS_NOPE', '/pay/%ZZ/cancel', '//v1//collections', '/v1/../_sandbox/reset', '/_sandbox/nope', '/v1', '/v1/collections?merchant_reference=%ZZ']
  const control: (() => Req)[] = [
    () => json('POST', '/_sandbox/clock/advance', {seconds: r.pick([1e308, -1, 'x', null, 1, 30, Number.MAX_SAFE_INTEGER, 0.5])}),
    () => json('PUT', '/_sandbox/faults', r.pick([{latency_ms: 1e12}, {latency_ms: -1}, {fault_rate: 1.5}, {drop_next: 'x'}, {duplicate_rate: 9}, {latency_ms: 0, fault_rate: 0}, {bug_next: -1}, {bug_next: 1e9}])),
    () => json('PUT', `/_sandbox/clients/${r.pick([ACME.client_id, 'nope', '%ZZ'])}/webhook`, {url: r.pick(['javascript:alert(1)', 'http://127.0.0.1:9/h', null, 5, 'x'.repeat(5000)])}),
    () => json('POST', `/_sandbox/transactions/${r.pick(['CL_NOPE', '%ZZ', 'x'])}/${r.pick(['succeed', 'fail'])}`, undefined),
    () => json('POST', `/_sandbox/wallets/${r.pick(['acme', 'globex', 'nope'])}/credit`, {amount: r.pick(['1.00', '-1', 1, 'x', '1e9']), currency: r.pick(['KES', 'XXX', 7, undefined])}),
    () => json('PUT', `/_sandbox/merchants/${r.pick(['acme', 'nope'])}`, r.pick([{testing: 'yes'}, {products: 'x'}, {products: {nope: true}}, []])),
    () => json('POST', '/_sandbox/portal/checkout-sessions', mutate({merchant: r.pick(['acme', 'globex', 'nope', 5]), ...checkoutBody()})),
    () => json('POST', `/_sandbox/virtual-accounts/${r.pick(['9000000000', '%ZZ'])}/transfers`, {amount: r.pick(['1.00', 'x'])}),
  ]
  function headersFor(path: string, extra: Record<string, string> = {}): Record<string, string> {
    const h: Record<string, string> = {'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${token()}`, 'idempotency-key': `fz-${r.int(1e12)}`}
    if (path.startsWith('/v1/') && r.int(8) === 0) h['x-service-account-ref'] = r.pick(['acme-main', 'nope', '', 'x'.repeat(1000)])
    return {...h, ...extra}
  }
  function json(method: string, path: string, body: unknown): Req {
    return {method, path, headers: headersFor(path), body: body === undefined ? undefined : Buffer.from(JSON.stringify(body))}
  }
  const kinds: (() => Req)[] = [
    // a valid or mutated body to a real endpoint
    () => {
      const path = r.pick(Object.keys(validBodies))
      const body = r.int(3) === 0 ? validBodies[path]() : mutate(validBodies[path]())
      return json('POST', path, body)
    },
    // deep or wide JSON
    () => ({method: 'POST', path: r.pick(Object.keys(validBodies)), headers: headersFor('/v1/'), body: Buffer.from(r.int(2) ? deep(r.pick([31, 33, 1000, 60_000])) : `[${'1,'.repeat(r.pick([100, 20_000]))}1]`)}),
    // invalid UTF-8, truncated JSON, binary
    () => ({method: 'POST', path: r.pick(Object.keys(validBodies)), headers: headersFor('/v1/'), body: Buffer.concat([Buffer.from('{"client_secret":"' + MARK), Buffer.from([0xff, 0xfe, 0xc3, 0x28, r.int(256)])])}),
    // wrong methods and odd paths
    () => ({method: r.pick(['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'POST']), path: r.pick(paths), headers: headersFor('/v1/')}),
    // odd headers on a real endpoint
    () => ({
      method: 'GET',
      path: r.pick(['/v1/balance', '/v1/account', `/v1/balance?client_secret=${MARK}&currency=${r.pick(['KES', '%ZZ', 'xx'])}`, '/v1/metadata/banks']),
      headers: r.pick([
        {authorization: r.pick(['Bearer', 'Basic ' + MARK, 'Bearer ' + 'x'.repeat(4000), `Bearer ${token()} extra`]), accept: 'application/json', 'content-type': 'application/json'},
        headersFor('/v1/', {'content-type': r.pick(['text/plain', 'application/json; charset=latin1', '', 'application/jsonx'])}),
        headersFor('/v1/', {accept: r.pick(['text/html', '', '*/*;q=0'])}),
        headersFor('/v1/', {cookie: `s=${MARK}`, 'x-api-key': MARK, 'x-odd': 'é'.repeat(100)}),
      ]),
    }),
    // control API values
    () => r.pick(control)(),
  ]
  return () => r.pick(kinds)()
}

function send(req: Req): Promise<{status: number; text: string}> {
  return new Promise((resolve, reject) => {
    const path = req.path
    const headers = req.body ? {...req.headers, 'content-length': String(req.body.length)} : req.headers
    const url = new URL(sb.url)
    // host, port and path given apart: the path goes out exactly as generated (a URL string would be normalised)
    const out = httpRequest({host: url.hostname, port: url.port, path, method: req.method, headers, agent}, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (d: Buffer) => chunks.push(d))
      res.on('end', () => resolve({status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8')}))
      res.on('error', reject)
    })
    out.on('error', reject)
    out.end(req.body)
  })
}

describe('fuzz: 3,000 generated requests', () => {
  it('every answer is a 4xx or the right 2xx, the sandbox stays up, the log holds no secret', async () => {
    let token = await tokenFor(sb.url, ACME)
    const next = generator(0x5eed10, () => token)
    const wrong: string[] = []
    const statuses = new Map<number, number>()
    let sent = 0
    const worker = async () => {
      while (sent < COUNT) {
        const n = sent++
        if (n % 250 === 0) token = await tokenFor(sb.url, n % 500 === 0 ? ACME : GLOBEX) // the clock may have moved past the TTL
        const req = next()
        const res = await send(req)
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
        const where = `${req.method} ${req.path.slice(0, 120)}`
        if (res.status >= 200 && res.status < 300) {
          if (!req.path.startsWith('/v1/')) continue
          const m = matchEndpoint(req.method, req.path.split('?')[0])
          if (!m) wrong.push(`${where}: 2xx for no endpoint`)
          else if (res.status !== m.endpoint.success) wrong.push(`${where}: ${res.status}, the table says ${m.endpoint.success}`)
          else if (req.method !== 'HEAD' && !m.endpoint.response.safeParse(JSON.parse(res.text)).success) wrong.push(`${where}: answer off its schema: ${res.text.slice(0, 200)}`)
        } else if (res.status < 400 || res.status >= 500) {
          if (!(res.status === 303 && req.path.startsWith('/pay/'))) wrong.push(`${where}: ${res.status} ${res.text.slice(0, 200)}`)
        }
      }
    }
    await Promise.all(Array.from({length: IN_FLIGHT}, worker))
    expect(wrong, `statuses: ${JSON.stringify([...statuses])}`).toEqual([])
    expect([...statuses.keys()].some((s) => s >= 200 && s < 300)).toBe(true) // the fuzz also reached the handlers
    // alive and serving
    const health = await send({method: 'GET', path: '/v1/balance', headers: {authorization: `Bearer ${await tokenFor(sb.url, ACME)}`, accept: 'application/json', 'content-type': 'application/json'}})
    expect(health.status).toBe(200)
    // the log: in memory and as served
    const served = (await send({method: 'GET', path: '/_sandbox/requests', headers: {}})).text
    const leaks = [...sb.requests.map((e) => JSON.stringify(e)), served].filter((t) => [MARK, ACME.client_secret, GLOBEX.client_secret].some((s) => t.includes(s)))
    expect(leaks.map((t) => t.slice(0, 300) + ' … ' + t.slice(Math.max(0, t.indexOf(MARK) - 150), t.indexOf(MARK) + 50))).toEqual([])
  }, 180_000)
})
