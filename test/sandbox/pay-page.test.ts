/** The hosted pay page in a real headless Chromium (shipped in an npm package, driven by playwright-core). */
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import type {Browser} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {launchChromium} from '../helpers/browser.js'
import {checkoutBody, useSandboxClients} from '../helpers/sandbox-http.js'

const t = useSandboxClients()
let browser: Browser
let shop: Server
let shopUrl: string

// No skip: when the browser cannot start, beforeAll throws and every test below fails with the cause.
beforeAll(async () => {
  // The merchant's shop: where success_url / cancel_url point.
  shop = createServer((req, res) => res.writeHead(200, {'content-type': 'text/html'}).end(`<h1 id="shop">${req.url}</h1>`))
  await new Promise<void>((r) => shop.listen(0, '127.0.0.1', r))
  shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`
  browser = await launchChromium()
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await new Promise<void>((r) => (shop ? shop.close(() => r()) : r()))
})

const urls = () => ({success_url: `${shopUrl}/ok`, cancel_url: `${shopUrl}/cancel`})

describe('hosted pay page /pay/{id}', () => {
  it('shows the amount, lets the customer pick the rail and pay; the session succeeds, events are sent, the browser lands on success_url', async () => {
    const cs = (await t.acme.post('/v1/checkout/sessions', checkoutBody({amount: '250.00', merchant_reference: 'pp-1', ...urls()}))).body
    const page = await browser.newPage()
    await page.goto(cs.url)
    expect(await page.textContent('#amount-display')).toContain('KES 250.00')
    expect(await page.isVisible('#rail-mobile_money')).toBe(true)
    expect(await page.isVisible('#rail-card')).toBe(true) // card checkout is on for this merchant
    await page.check('#rail-mobile_money')
    await page.fill('#mobile', '254712345670')
    await page.selectOption('#provider', 'airtel')
    await Promise.all([page.waitForURL(`${shopUrl}/ok**`), page.click('#pay')])
    expect(page.url()).toContain(`session_id=${cs.id}`)
    expect(await page.textContent('#shop')).toContain('/ok')
    const after = await t.acme.get(`/v1/checkout/sessions/${cs.id}`)
    expect(after.body.status).toBe('succeeded')
    expect(t.sb.events.filter((e) => e.body.includes(cs.id)).map((e) => e.type)).toEqual(['checkout_session.processing', 'checkout_session.succeeded'])
    await page.close()
  })

  it('a failing wallet (...9) fails the session and returns to cancel_url', async () => {
    const cs = (await t.acme.post('/v1/checkout/sessions', checkoutBody({payment_rail: 'mobile_money', mobile: '254700000009', provider: 'mpesa', ...urls()}))).body
    const page = await browser.newPage()
    await page.goto(cs.url)
    expect(await page.inputValue('#mobile')).toBe('254700000009')
    expect(await page.isVisible('#rail-card')).toBe(false) // the session is locked to mobile money
    await Promise.all([page.waitForURL(`${shopUrl}/cancel**`), page.click('#pay')])
    expect((await t.acme.get(`/v1/checkout/sessions/${cs.id}`)).body.status).toBe('failed')
    // paying again is not possible
    await page.goto(cs.url)
    expect(await page.getAttribute('#status', 'data-status')).toBe('failed')
    await page.close()
  })

  it('open amount: the Testing-mode cap applies to the amount typed on the page', async () => {
    // a portal pay link of the Testing-mode merchant in open mode (the API refuses open in Testing mode)
    const cs = (await t.acme.post('/_sandbox/portal/checkout-sessions', {merchant: 'globex', amount_mode: 'open', currency: 'KES', merchant_reference: 'pp-open', ...urls()})).body
    const page = await browser.newPage()
    await page.goto(cs.url)
    await page.fill('#amount', '5000.00')
    await page.check('#rail-mobile_money')
    await page.fill('#mobile', '254712345670')
    await page.click('#pay')
    expect(await page.textContent('[role=alert]')).toMatch(/Testing mode maximum of KES 1000.00/)
    await page.fill('#amount', '750.50')
    await Promise.all([page.waitForURL(`${shopUrl}/ok**`), page.click('#pay')])
    const session = t.sb.state.checkouts[cs.id]
    expect(session).toMatchObject({status: 'succeeded', amount: '750.50'})
    await page.close()
  })

  it('cancel returns to cancel_url and leaves the session open', async () => {
    const cs = (await t.acme.post('/v1/checkout/sessions', checkoutBody(urls()))).body
    const page = await browser.newPage()
    await page.goto(cs.url)
    await Promise.all([page.waitForURL(`${shopUrl}/cancel**`), page.click('#cancel')])
    expect((await t.acme.get(`/v1/checkout/sessions/${cs.id}`)).body.status).toBe('processing')
    await page.close()
  })

  it('shows only the fields of the chosen rail, with JavaScript off, and pays by card', async () => {
    const cs = (await t.acme.post('/v1/checkout/sessions', checkoutBody(urls()))).body
    const context = await browser.newContext({javaScriptEnabled: false})
    const page = await context.newPage()
    await page.goto(cs.url)
    // mobile money is chosen first: its fields only
    expect(await page.isChecked('#rail-mobile_money')).toBe(true)
    expect(await page.isVisible('#mobile')).toBe(true)
    expect(await page.isVisible('#provider')).toBe(true)
    expect(await page.isVisible('#card_number')).toBe(false)
    await page.check('#rail-card')
    expect(await page.isVisible('#card_number')).toBe(true)
    expect(await page.isVisible('#mobile')).toBe(false)
    await page.check('#rail-bank_transfer')
    expect(await page.isVisible('#card_number')).toBe(false)
    expect(await page.isVisible('#mobile')).toBe(false)
    await page.check('#rail-card')
    await page.fill('#card_number', '4242 4242 4242 4240')
    await Promise.all([page.waitForURL(`${shopUrl}/ok**`), page.click('#pay')])
    expect((await t.acme.get(`/v1/checkout/sessions/${cs.id}`)).body.status).toBe('succeeded')
    await context.close()
  })

  it('a session locked to card shows the card fields and no mobile-money fields', async () => {
    const cs = (await t.acme.post('/v1/checkout/sessions', checkoutBody({payment_rail: 'card', ...urls()}))).body
    const page = await browser.newPage()
    await page.goto(cs.url)
    expect(await page.isVisible('#card_number')).toBe(true)
    expect(await page.locator('#mobile').count()).toBe(0)
    expect(await page.locator('#provider').count()).toBe(0)
    await page.close()
  })

  it('an unknown link is a 404 page', async () => {
    const page = await browser.newPage()
    const res = await page.goto(`${t.sb.url}/pay/CS_NOPE`)
    expect(res?.status()).toBe(404)
    await page.close()
  })
})
