import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {request} from 'undici'
import {describe, expect, it} from 'vitest'
import {type Sandbox, defaultSeed, startSandbox} from '../../src/sandbox/index.js'
import {ACME, Client, acmeClient, checkoutBody, collectionBody, expectError, sandboxPerTest, tokenFor} from '../helpers/sandbox-http.js'

const each = sandboxPerTest()
let sb: Sandbox

describe('seed', () => {
  it('exposes the seeded credentials programmatically and through GET /_sandbox/seed', async () => {
    sb = await each.start()
    expect(sb.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(sb.seed).toMatchObject({client_id: ACME.client_id, client_secret: ACME.client_secret, webhook_secret: ACME.webhook_secret, account_ref: 'acme-main'})
    expect(sb.seed.merchants.map((m) => [m.key, m.testing, m.sub_accounts_enabled, m.account_refs.length])).toEqual([
      ['acme', false, false, 1],
      ['globex', true, true, 2],
    ])
    const r = await new Client(sb.url).get('/_sandbox/seed')
    expect(r.body).toEqual(JSON.parse(JSON.stringify(sb.seed)))
  })

  it('--seed-file replaces the defaults; an invalid seed file is reported with its path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-seed-'))
    const seed = defaultSeed()
    seed.merchants[0].clients[0] = {client_id: 'custom_client', client_secret: 'custom_secret', webhook_secret: 'custom_whsec', enabled: true, webhook_url: null}
    seed.merchants[0].wallets = [{currency: 'KES', collection_wallet: '1.00', collection_wallet_held: '0.00', payout_wallet: '2.00'}]
    const file = join(dir, 'seed.json')
    writeFileSync(file, JSON.stringify(seed))
    sb = await each.start({seedFile: file})
    expect(sb.seed.client_id).toBe('custom_client')
    const c = new Client(sb.url, await tokenFor(sb.url, {client_id: 'custom_client', client_secret: 'custom_secret'}))
    expect((await c.get('/v1/balance')).body.data).toEqual([{currency: 'KES', collection_wallet: '1.00', collection_wallet_actual: '1.00', collection_wallet_held: '0.00', payout_wallet: '2.00'}])
    await sb.close()
    const badFile = join(dir, 'bad.json')
    writeFileSync(badFile, JSON.stringify({...seed, mobile_providers: []}))
    await expect(startSandbox({seedFile: badFile})).rejects.toThrow(/bad\.json: invalid seed at mobile_providers/)
  })
})

describe('control API', () => {
  it('reset returns to the seed', async () => {
    sb = await each.start()
    const acme = await acmeClient(sb)
    await acme.post('/v1/collections', collectionBody({merchant_reference: 'before-reset'}))
    expect((await acme.post('/_sandbox/reset')).body.ok).toBe(true)
    const again = new Client(sb.url, await tokenFor(sb.url, ACME))
    expectError(await again.get('/v1/collections?merchant_reference=before-reset'), 404, 'not_found')
    expect(Object.keys(sb.state.collections).every((id) => id.startsWith('CL_SEED'))).toBe(true)
  })

  it('clock advance and clock read', async () => {
    sb = await each.start()
    const c = new Client(sb.url)
    const r = await c.post('/_sandbox/clock/advance', {seconds: 3600})
    expect(r.body.offset_seconds).toBe(3600)
    expect(Date.parse((await c.get('/_sandbox/clock')).body.now) - Date.now()).toBeGreaterThan(3_590_000)
    expectError(await c.post('/_sandbox/clock/advance', {seconds: 'soon'}), 400, 'invalid_parameter', 'seconds')
  })

  it('unknown ids and paths are 404 with the error envelope; errors link to /_sandbox/docs', async () => {
    sb = await each.start()
    const c = new Client(sb.url)
    expectError(await c.post('/_sandbox/transactions/CL_NOPE/succeed'), 404, 'not_found')
    expectError(await c.post('/_sandbox/mandates/MD_NOPE/approve'), 404, 'not_found')
    expectError(await c.post('/_sandbox/virtual-accounts/000/transfers', {amount: '1.00'}), 404, 'not_found')
    expectError(await c.call('PUT', '/_sandbox/clients/nobody/webhook', {body: {url: null}}), 404, 'not_found')
    expectError(await c.call('PUT', `/_sandbox/clients/${ACME.client_id}/webhook`, {body: {url: 'ftp://x'}}), 400, 'invalid_parameter', 'url')
    const acme = await acmeClient(sb)
    const e = expectError(await acme.post('/v1/collections', collectionBody({amount: 'x'})), 400, 'invalid_parameter', 'amount')
    expect(e.doc_url).toBe(`${sb.url}/_sandbox/docs#rules-enforced`)
    const docs = await request(`${sb.url}/_sandbox/docs`)
    expect(await docs.body.text()).toContain('## Rules enforced')
  })

  it('the pay page bank-transfer rail shows a dynamic account; a transfer into it completes the session', async () => {
    sb = await each.start()
    const acme = await acmeClient(sb)
    const cs = (await acme.post('/v1/checkout/sessions', checkoutBody({amount: '300.00'}))).body
    const page = await request(cs.url, {method: 'POST', headers: {'content-type': 'application/x-www-form-urlencoded'}, body: 'rail=bank_transfer'})
    const html = await page.body.text()
    const account = /id="account_number">(\d+)</.exec(html)?.[1]
    expect(account).toBeDefined()
    const t = await acme.post(`/_sandbox/virtual-accounts/${account}/transfers`, {amount: '300.00'})
    expect(t.body.checkout_session.status).toBe('succeeded')
    expect((await acme.get(`/v1/checkout/sessions/${cs.id}`)).body).toMatchObject({status: 'succeeded', payment_rail: 'bank_transfer'})
  })
})

describe('request log of the pay page', () => {
  it('logs form posts as fields, with the card number redacted', async () => {
    sb = await each.start()
    const acme = await acmeClient(sb)
    const cs = (await acme.post('/v1/checkout/sessions', checkoutBody({payment_rail: 'card'}))).body
    const r = await request(cs.url, {method: 'POST', headers: {'content-type': 'application/x-www-form-urlencoded'}, body: 'rail=card&card_number=4242424242424242'})
    expect(r.statusCode).toBe(303)
    await r.body.dump()
    const entry = sb.requests.find((e) => e.path === `/pay/${cs.id}` && e.method === 'POST')!
    expect(entry.body).toEqual({rail: 'card', card_number: '[REDACTED]'})
    expect(JSON.stringify(sb.requests)).not.toContain('4242424242424242')
  })
})
