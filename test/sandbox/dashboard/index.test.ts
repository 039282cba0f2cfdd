/**
 * The dashboard's rules over plain HTTP against a real sandbox: who may use it (loopback peer and Host name, same
 * origin and the form token for actions; cross-site requests to the control API refused), that no page holds a
 * secret, that every value is escaped, live updates coalesced, and --no-dashboard.
 */
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {request} from 'undici'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Sandbox} from '../../../src/sandbox/index.js'
import {ACME, type Client, acmeClient, collectionBody, checkoutBody, globexClient, mandateBody, start, until} from '../../helpers/sandbox-http.js'

let sb: Sandbox
let acme: Client
let hooks: Server

async function get(path: string, headers: Record<string, string> = {}) {
  const res = await request(new URL(path, sb.url), {headers})
  return {status: res.statusCode, headers: res.headers, text: await res.body.text()}
}

async function post(path: string, form: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await request(new URL(path, sb.url), {method: 'POST', body: new URLSearchParams(form).toString(), headers: {'content-type': 'application/x-www-form-urlencoded', ...headers}})
  return {status: res.statusCode, headers: res.headers, text: await res.body.text()}
}

async function csrf(): Promise<string> {
  const page = await get('/_dashboard/clock')
  return /name="_csrf" value="([^"]+)"/.exec(page.text)![1]
}

beforeAll(async () => {
  sb = await start({settleMs: 600_000})
  acme = await acmeClient(sb)
  hooks = createServer((_req, res) => res.writeHead(200).end('ok'))
  await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r))
  // userinfo in a webhook URL is a secret too: the dashboard shows the URL without it
  sb.setWebhookUrl(ACME.client_id, `http://hookuser:hookpass@127.0.0.1:${(hooks.address() as AddressInfo).port}/hooks`)
})

afterAll(async () => {
  await sb?.close()
  await new Promise<void>((r) => (hooks ? hooks.close(() => r()) : r()))
})

describe('who may use the dashboard', () => {
  it('refuses a cross-origin POST to an action (Origin, Sec-Fetch-Site), a POST without the form token, and changes nothing', async () => {
    const c = (await acme.post('/v1/collections', collectionBody({merchant_reference: 'dash-xorigin'}))).body
    const token = await csrf()
    const origin = sb.url
    const host = new URL(sb.url).host
    const form = {id: c.id, _csrf: token, return: '/_dashboard/objects'}
    const refused = [
      await post('/_dashboard/actions/succeed', form, {origin: 'http://evil.example', host}),
      await post('/_dashboard/actions/succeed', form, {origin: 'null'}),
      await post('/_dashboard/actions/succeed', form, {'sec-fetch-site': 'cross-site'}),
      await post('/_dashboard/actions/succeed', form, {'sec-fetch-site': 'same-site'}),
      await post('/_dashboard/actions/succeed', {...form, _csrf: 'wrong'}, {origin}),
      await post('/_dashboard/actions/succeed', {id: c.id}, {origin, 'sec-fetch-site': 'same-origin'}),
    ]
    expect(refused.map((r) => r.status)).toEqual([403, 403, 403, 403, 403, 403])
    expect(refused[0].text).toMatch(/another origin/)
    expect(refused[4].text).toMatch(/token/)
    expect(sb.state.collections[c.id].status).toBe('processing')

    // the same form from the dashboard's own origin, with its token: done, back to the page with a notice
    const ok = await post('/_dashboard/actions/succeed', form, {origin, 'sec-fetch-site': 'same-origin'})
    expect(ok.status).toBe(303)
    expect(ok.headers.location).toMatch(/^\/_dashboard\/objects\?notice=[\w-]+$/)
    expect(sb.state.collections[c.id].status).toBe('succeeded')
    expect((await get(ok.headers.location as string)).text).toContain(`${c.id} succeeded`)
  })

  it('refuses a cross-site request to the control API itself (a form or fetch of another site); the CLI sends neither header', async () => {
    const c = (await acme.post('/v1/collections', collectionBody({merchant_reference: 'dash-control-xsite'}))).body
    for (const headers of [{'sec-fetch-site': 'cross-site'}, {origin: 'http://evil.example'}]) {
      const res = await request(`${sb.url}/_sandbox/transactions/${c.id}/succeed`, {method: 'POST', headers: {'content-type': 'text/plain', ...headers}})
      expect(res.statusCode).toBe(403)
      expect(((await res.body.json()) as any).error.code).toBe('forbidden')
    }
    const reset = await request(`${sb.url}/_sandbox/reset`, {method: 'POST', headers: {'sec-fetch-site': 'cross-site'}})
    expect(reset.statusCode).toBe(403)
    await reset.body.dump()
    expect(sb.state.collections[c.id].status).toBe('processing') // nothing happened
    // reads stay open (a doc_url link followed from anywhere)
    expect((await request(`${sb.url}/_sandbox/clock`, {headers: {'sec-fetch-site': 'cross-site'}})).statusCode).toBe(200)
    const plain = await request(`${sb.url}/_sandbox/transactions/${c.id}/fail`, {method: 'POST'})
    expect(plain.statusCode).toBe(200)
    await plain.body.dump()
  })

  it('answers only loopback names: a DNS name rebound to 127.0.0.1 is refused; /_dashboard redirects to /_dashboard/', async () => {
    const rebound = await get('/_dashboard/', {host: `evil.example:${sb.port}`})
    expect(rebound.status).toBe(403)
    expect(rebound.text).toMatch(/only on this machine/)
    expect((await get('/_dashboard/', {host: `localhost:${sb.port}`})).status).toBe(200)
    const bare = await get('/_dashboard')
    expect(bare.status).toBe(303)
    expect(bare.headers.location).toBe('/_dashboard/')
    const page = await get('/_dashboard/')
    expect(page.headers['x-frame-options']).toBe('DENY')
    expect(page.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/)
    expect(page.headers['content-security-policy']).toMatch(/script-src 'self'/)
  })
})

describe('what the pages show', () => {
  it('no page contains a secret of the seeded merchants (client secrets, webhook secrets, access tokens, URL userinfo)', async () => {
    const globex = await globexClient(sb)
    const col = (await acme.post('/v1/collections', collectionBody({merchant_reference: 'dash-secrets'}))).body
    await acme.post('/v1/checkout/sessions', checkoutBody())
    await acme.post('/v1/mandates', mandateBody({mobile: '254711000008'}))
    await globex.post('/v1/collections', collectionBody({merchant_reference: 'dash-secrets-globex'}))
    // a request whose body carries a secret (a token request) and one sending a secret-named header
    await request(`${sb.url}/v1/oauth/token`, {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify({grant_type: 'client_credentials', client_id: ACME.client_id, client_secret: ACME.client_secret})}).then((r) => r.body.dump())
    await acme.post(`/_sandbox/transactions/${col.id}/succeed`)
    await until(() => sb.events.some((e) => e.deliveries.length > 0), 5000, 'a delivery')

    const secrets = new Set<string>(['hookpass'])
    for (const c of Object.values(sb.state.clients)) {
      secrets.add(c.client_secret)
      secrets.add(c.webhook_secret)
    }
    for (const token of Object.keys(sb.state.tokens)) secrets.add(token)
    expect(secrets.size).toBeGreaterThan(6)

    const paths = ['/_dashboard/', '/_dashboard/wallets', '/_dashboard/events', '/_dashboard/requests', '/_dashboard/clock']
    for (const kind of ['collections', 'checkouts', 'payouts', 'mandates', 'debits', 'subscriptions', 'customers', 'virtual_accounts']) paths.push(`/_dashboard/objects?kind=${kind}`)
    for (const table of ['collections', 'checkouts', 'mandates', 'customers'] as const) for (const id of Object.keys(sb.state[table])) paths.push(`/_dashboard/objects/${encodeURIComponent(id)}`)
    for (const e of sb.events) paths.push(`/_dashboard/events/${e.id}`)
    paths.push('/_dashboard/requests?path=oauth', '/_dashboard/events?client=sb_acme_client')
    let checked = 0
    for (const path of paths) {
      const page = await get(path)
      expect(page.status, path).toBe(200)
      for (const secret of secrets) expect(page.text.includes(secret), `${path} shows a secret`).toBe(false)
      checked++
    }
    expect(checked).toBeGreaterThan(20)
    // what is shown instead
    const overview = (await get('/_dashboard/')).text
    expect(overview).toContain(ACME.client_id)
    expect(overview).toContain('http://[REDACTED]@127.0.0.1:')
    expect((await get('/_dashboard/requests?path=oauth')).text).toContain('[REDACTED]')
  })

  it('escapes every value taken from requests (paths, headers, bodies, references)', async () => {
    const evil = '<script>alert(1)</script>'
    await request(`${sb.url}/v1/${encodeURIComponent('<img src=x onerror=alert(1)>')}`, {headers: {'x-evil': evil}}).then((r) => r.body.dump())
    await acme.post('/v1/collections', {...collectionBody(), description: evil}, {key: `"><script>k</script>`})
    const requests = (await get('/_dashboard/requests')).text
    const events = (await get('/_dashboard/events')).text
    for (const page of [requests, events, (await get('/_dashboard/objects')).text]) {
      expect(page).not.toMatch(/<script>(alert|k)/)
      expect(page).not.toMatch(/<img src=x/)
    }
    expect(requests).toContain('&lt;script&gt;alert(1)&lt;/script&gt;')
    // an unknown page or id is a 404 page, with the id escaped
    const missing = await get(`/_dashboard/objects/${encodeURIComponent(evil)}`)
    expect(missing.status).toBe(404)
    expect(missing.text).toContain('&lt;script&gt;')
    expect(missing.text).not.toContain(evil)
  })

  it('an action the control API refuses comes back as an error notice on the page (409: no longer processing)', async () => {
    const c = (await acme.post('/v1/collections', collectionBody({merchant_reference: 'dash-409'}))).body
    const token = await csrf()
    const form = {id: c.id, _csrf: token, return: '/_dashboard/objects?kind=collections'}
    expect((await post('/_dashboard/actions/fail', form)).status).toBe(303)
    const again = await post('/_dashboard/actions/fail', form)
    const page = await get(again.headers.location as string)
    expect(page.text).toMatch(/role="alert">transaction CL_\w+ is no longer processing/)
    // the return address is a dashboard page, never another site
    const away = await post('/_dashboard/actions/advance', {duration: '10', _csrf: token, return: '//evil.example/x'})
    expect(away.headers.location).toMatch(/^\/_dashboard\/\?notice=/)
    const bad = await post('/_dashboard/actions/advance', {duration: 'soon', _csrf: token, return: '/_dashboard/clock'})
    expect((await get(bad.headers.location as string)).text).toMatch(/the duration must be seconds or a number with s, m, h or d/)
  })
})

describe('live updates', () => {
  it('pushes coalesced "change" events over server-sent events while a page listens, not one per request', async () => {
    const controller = new AbortController()
    const res = await request(`${sb.url}/_dashboard/live`, {signal: controller.signal})
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/)
    let text = ''
    res.body.setEncoding('utf8')
    res.body.on('data', (d: string) => (text += d))
    res.body.on('error', () => undefined)
    await until(() => text.includes('event: hello'), 5000, 'the hello')
    const started = Date.now()
    await Promise.all(Array.from({length: 40}, () => acme.get('/v1/balance')))
    await until(() => text.includes('event: change'), 5000, 'a change')
    await new Promise((r) => setTimeout(r, 1200))
    const changes = text.split('event: change').length - 1
    const seconds = (Date.now() - started) / 1000
    // 40 requests and their log entries: at most one push a second, as docs/sandbox.md promises
    expect(changes).toBeGreaterThanOrEqual(1)
    expect(changes).toBeLessThanOrEqual(Math.ceil(seconds) + 1)
    controller.abort()
  })
})

describe('--no-dashboard', () => {
  it('serves no dashboard and says so through the control API', async () => {
    const off = await start({dashboard: false})
    try {
      expect(off.dashboardUrl).toBeNull()
      const page = await request(`${off.url}/_dashboard/`)
      expect(page.statusCode).toBe(404)
      expect(await page.body.text()).toMatch(/--no-dashboard/)
      const info = await request(`${off.url}/_sandbox/dashboard`)
      expect(await info.body.json()).toEqual({object: 'dashboard', enabled: false, url: null})
    } finally {
      await off.close()
    }
    const info = await request(`${sb.url}/_sandbox/dashboard`)
    expect(await info.body.json()).toEqual({object: 'dashboard', enabled: true, url: `${sb.url}/_dashboard/`})
  })
})
