/**
 * The dashboard in a real headless Chromium (the npm-shipped one of the pay-page test, test/helpers/browser.ts):
 * live updates from requests made by the CLI, the buttons and forms (also with JavaScript off), the wallet's held
 * part and its release by the clock, events with their deliveries, the request log's filters.
 */
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import type {Browser, Page} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Sandbox} from '../../../src/sandbox/index.js'
import {launchChromium} from '../../helpers/browser.js'
import {runCli, tempConfigDir} from '../../helpers/cli.js'
import {ACME, type Client, acmeClient, collectionBody, mandateBody, start} from '../../helpers/sandbox-http.js'

let sb: Sandbox
let acme: Client
let browser: Browser
let hooks: Server
const received: string[] = []

// No skip: when the browser cannot start, beforeAll throws and every test below fails with the cause.
beforeAll(async () => {
  // nothing settles by itself: the page's buttons decide
  sb = await start({settleMs: 600_000})
  acme = await acmeClient(sb)
  hooks = createServer((req, res) => {
    received.push(String(req.headers['service-event-type']))
    req.resume()
    res.writeHead(200).end('ok')
  })
  await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r))
  sb.setWebhookUrl(ACME.client_id, `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/hooks`)
  browser = await launchChromium()
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await sb?.close()
  await new Promise<void>((r) => (hooks ? hooks.close(() => r()) : r()))
})

/** A page of the dashboard, once its live stream is connected. */
async function open(path: string): Promise<Page> {
  const page = await browser.newPage()
  await page.goto(sb.dashboardUrl + path)
  await page.waitForFunction(() => document.getElementById('live')?.textContent?.startsWith('Live'))
  return page
}

/** A link of the dashboard's navigation. */
const nav = (page: Page, name: string) => page.getByRole('navigation', {name: 'Dashboard'}).getByRole('link', {name})

/** The text of the cells of the row of the wallets table of `merchant` in `currency`. */
async function walletRow(page: Page, merchant: string, currency: string): Promise<string[]> {
  return page.locator(`section:has(h2:text-is("${merchant}")) table`).first().locator('tr', {has: page.locator(`td:text-is("${currency}")`)}).locator('td').allTextContents()
}

describe('sandbox dashboard in a browser', () => {
  it('a collection created with the CLI appears live; its Succeed button credits the wallet (held) and sends the event, whose delivery is shown', async () => {
    const page = await open('objects?kind=collections')
    await page.evaluate(() => ((window as any).notReloaded = true))
    const env = {PAY_CONFIG_DIR: tempConfigDir(), PAY_BASE_URL: sb.url, PAY_CLIENT_ID: ACME.client_id, PAY_CLIENT_SECRET: ACME.client_secret}
    const created = await runCli(['collections', 'create', '--amount', '150.00', '--currency', 'KES', '--mobile', '254712345670', '--provider', 'mpesa', '--reference', 'dash-live-1', '--json'], {env})
    expect(created.code, created.stderr).toBe(0)
    const id = JSON.parse(created.stdout).id as string
    // appears without a reload: the live stream told the page, which fetched itself again
    const row = page.locator('tr', {has: page.locator(`a:text-is("${id}")`)})
    await row.waitFor({timeout: 10_000})
    expect(await page.evaluate(() => (window as any).notReloaded)).toBe(true)
    expect(await row.textContent()).toContain('processing')
    expect(await row.textContent()).toContain('dash-live-1')

    const before = (await acme.get('/v1/balance')).body.data.find((w: any) => w.currency === 'KES')
    await Promise.all([page.waitForURL(/notice=/), row.getByRole('button', {name: 'Succeed'}).click()])
    expect(await page.getByRole('status').textContent()).toBe(`${id} succeeded`)
    expect(await page.locator('tr', {has: page.locator(`a:text-is("${id}")`)}).textContent()).toContain('succeeded')

    // the wallet: the amount is held (T+1)
    await nav(page, 'Wallets').click()
    const after = (await acme.get('/v1/balance')).body.data.find((w: any) => w.currency === 'KES')
    expect(Number(after.collection_wallet_held) - Number(before.collection_wallet_held)).toBe(150)
    const cells = await walletRow(page, sb.seed.merchants[0].name, 'KES')
    expect(cells.slice(0, 5)).toEqual(['KES', after.collection_wallet, after.collection_wallet_held, after.collection_wallet_actual, after.payout_wallet])
    expect(await page.locator('table', {hasText: 'held credits in KES'}).first().textContent()).toContain('150.00')

    // the event and its delivery
    await nav(page, 'Events').click()
    const eventRow = page.locator('tr', {hasText: 'collection.succeeded'}).first()
    await eventRow.locator('text=delivered').waitFor({timeout: 10_000})
    await eventRow.getByRole('link').click()
    await page.locator('table', {hasText: 'Every delivery attempt'}).locator('td:text-is("200")').waitFor()
    expect(await page.locator('pre').textContent()).toContain(`"id": "${id}"`)
    expect(received).toContain('collection.succeeded')

    // the object's history of states
    await page.getByRole('link', {name: id}).click()
    const history = await page.locator('table', {hasText: 'Changes of state'}).locator('tbody td:nth-child(2)').allTextContents()
    expect(history).toEqual(['created', 'collection.processing', 'collection.succeeded'])
    await page.close()
  })

  it('approves a mandate with its button, also with JavaScript off', async () => {
    const created = await acme.post('/v1/mandates', mandateBody({mobile: '254711000008', merchant_reference: 'dash-mandate'}))
    const id = Object.keys(sb.state.mandates).find((k) => sb.state.mandates[k].merchant_reference === 'dash-mandate')!
    expect(created.status).toBe(201)
    const context = await browser.newContext({javaScriptEnabled: false})
    const page = await context.newPage()
    await page.goto(`${sb.dashboardUrl}objects?kind=mandates`)
    const row = page.locator('tr', {has: page.locator(`a:text-is("${id}")`)})
    expect(await row.textContent()).toContain('processing')
    await Promise.all([page.waitForURL(/notice=/), row.getByRole('button', {name: 'Approve'}).click()])
    expect(await page.getByRole('status').textContent()).toMatch(new RegExp(`mandate ${id} approved: succeeded`))
    expect((await acme.get('/v1/mandates?merchant_reference=dash-mandate')).body.status).toBe('succeeded')
    await context.close()
  })

  it('advancing the clock past the hold from the Clock page moves the held part to available', async () => {
    await acme.post('/_sandbox/wallets/acme/credit', {amount: '75.00', currency: 'KES'})
    const page = await open('wallets')
    const [, available, held] = await walletRow(page, sb.seed.merchants[0].name, 'KES')
    expect(Number(held)).toBeGreaterThanOrEqual(75)
    await nav(page, 'Clock').click()
    await page.getByLabel('By (seconds, or 90m, 2h, 1d)').fill('1d')
    await Promise.all([page.waitForURL(/notice=/), page.getByRole('button', {name: 'Advance'}).click()])
    expect(await page.getByRole('status').textContent()).toMatch(/clock moved by 86400 s/)
    await nav(page, 'Wallets').click()
    const [, availableAfter, heldAfter] = await walletRow(page, sb.seed.merchants[0].name, 'KES')
    expect(heldAfter).toBe('0.00')
    expect(Number(availableAfter)).toBeCloseTo(Number(available) + Number(held), 2)
    acme = await acmeClient(sb) // a day later: the old token has expired
    const api = (await acme.get('/v1/balance')).body.data.find((w: any) => w.currency === 'KES')
    expect(availableAfter).toBe(api.collection_wallet)
    await page.close()
  })

  it('filters the request log by idempotency key', async () => {
    expect((await acme.post('/v1/collections', collectionBody({merchant_reference: 'dash-key-a'}), {key: 'dash-key-A'})).status).toBe(201)
    expect((await acme.post('/v1/collections', collectionBody({merchant_reference: 'dash-key-b'}), {key: 'dash-key-B'})).status).toBe(201)
    const page = await open('requests')
    await page.locator('td', {hasText: 'dash-key-B'}).first().waitFor()
    await page.getByLabel('Idempotency key').fill('dash-key-A')
    await Promise.all([page.waitForURL(/key=dash-key-A/), page.getByRole('button', {name: 'Filter'}).click()])
    const rows = page.locator('table', {hasText: 'Requests, newest first'}).locator('tbody > tr')
    expect(await rows.count()).toBe(1)
    expect(await rows.first().textContent()).toContain('dash-key-A')
    expect(await rows.first().textContent()).toContain('POST')
    expect(await page.content()).not.toContain('dash-key-B')
    // the row's redacted headers and body
    await rows.first().locator('summary').click()
    expect(await rows.first().locator('pre').first().textContent()).toContain('Bearer [REDACTED]')
    await page.close()
  })
})
