/**
 * End to end, built CLI against the sandbox: pay collections create|get, pay checkout create|get,
 * pay transactions verify. Each case checks the human and --json output and, through the sandbox's request
 * log, the exact method, path, query, headers and body that were sent.
 */
import {chmodSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {json, tempConfigDir} from '../helpers/cli.js'
import {byRef, expectServiceHeaders, kv, ok, only, useSandbox} from './support.js'

const h = useSandbox()

describe('pay collections create', () => {
  it('charges a wallet: human view, --json body unchanged, and exactly the documented request', async () => {
    const [human, asJson] = await Promise.all([
      h.pay(['collections', 'create', '--amount', '1500.00', '--currency', 'kes', '--reference', 'col-h-1', '--mobile', '254712345671', '--provider', 'mpesa', '--description', 'Order 1', '--idempotency-key', 'key-col-h-1']),
      h.pay(['collections', 'create', '--amount', '99.5', '--currency', 'KES', '-r', 'col-j-1', '--mobile', '254712345672', '--provider', 'airtel', '--data', '{"metadata":{"order":"42"}}', '-F', 'description=from -F', '--json']),
    ])
    ok(human)
    const v = kv(human)
    expect(v).toMatchObject({Kind: 'Collection (money in)', State: 'processing', Amount: '1500.00 KES', 'Merchant reference': 'col-h-1', Provider: 'mpesa', Mobile: '254712345671', Rail: 'mobile money (mobile_money)'})
    expect(v.ID).toMatch(/^CL_/)

    ok(asJson)
    const body = json(asJson)
    expect(body).toMatchObject({object: 'collection', status: 'processing', merchant_reference: 'col-j-1', amount: '99.50', currency: 'KES'})
    expect(asJson.stdout.trim().split('\n')).toHaveLength(1)

    const sentH = only(h.requests(byRef('col-h-1')), 'col-h-1')
    expect([sentH.method, sentH.path, sentH.query]).toEqual(['POST', '/v1/collections', {}])
    expectServiceHeaders(sentH, {idempotencyKey: 'key-col-h-1'})
    expect(sentH.body).toEqual({amount: '1500.00', currency: 'KES', merchant_reference: 'col-h-1', mobile: '254712345671', provider: 'mpesa', description: 'Order 1'})

    const sentJ = only(h.requests(byRef('col-j-1')), 'col-j-1')
    expectServiceHeaders(sentJ)
    expect(sentJ.body).toEqual({amount: '99.50', currency: 'KES', merchant_reference: 'col-j-1', mobile: '254712345672', provider: 'airtel', description: 'from -F', metadata: {order: '42'}})
  })

  it('bank transfer: shows the account to pay into; --dry-run prints the request and sends nothing', async () => {
    const [bt, dry] = await Promise.all([
      h.run(['collections', 'create', '--amount', '25000', '--currency', 'KES', '--reference', 'col-bt-1', '--rail', 'bank_transfer', '--account-name', 'Acme INV 118']),
      h.run(['collections', 'create', '--amount', '10', '--currency', 'kes', '--reference', 'col-dry-1', '--mobile', '254712345671', '--provider', 'mpesa', '--dry-run', '--idempotency-key', 'dry-key']),
    ])
    ok(bt)
    const v = kv(bt)
    expect(v).toMatchObject({State: 'processing', Amount: '25000.00 KES', Rail: 'bank transfer (bank_transfer)', 'Pay to account name': 'Acme INV 118'})
    expect(v['Pay to account number']).toMatch(/^\d+$/)
    expect(v['Pay to bank']).toMatch(/\(code \w+\)/)
    expect(only(h.requests(byRef('col-bt-1')), 'col-bt-1').body).toEqual({amount: '25000.00', currency: 'KES', merchant_reference: 'col-bt-1', payment_rail: 'bank_transfer', account_name: 'Acme INV 118'})

    ok(dry)
    expect(dry.stdout).toContain(`POST ${h.sb.url}/v1/collections`)
    expect(dry.stdout).toContain('idempotency-key: dry-key')
    expect(dry.stdout).toContain('{"amount":"10.00","currency":"KES","merchant_reference":"col-dry-1","mobile":"254712345671","provider":"mpesa"}')
    expect(dry.stdout).toMatch(/curl -sS -X POST/)
    expect(dry.stdout).not.toContain(h.env.PAY_CLIENT_SECRET)
    expect(h.requests(byRef('col-dry-1'))).toHaveLength(0)
  })

  it('--wait: exit 0 when it succeeds, 8 when it fails, 9 when --wait-timeout runs out; polls GET /v1/collections/{id}', async () => {
    const base = ['collections', 'create', '--amount', '20', '--currency', 'KES', '--provider', 'mpesa', '--wait']
    const [good, bad, slow] = await Promise.all([
      h.run([...base, '--reference', 'col-w-ok', '--mobile', '254712345671']),
      h.run([...base, '--reference', 'col-w-fail', '--mobile', '254712345679', '--json']),
      h.run([...base, '--reference', 'col-w-slow', '--mobile', '254712345678', '--wait-timeout', '1']),
    ])
    ok(good)
    expect(kv(good).State).toBe('succeeded')
    expect(good.stderr).toMatch(/waiting for collection CL_\w+: processing/)
    expect(good.stderr).toMatch(/succeeded after \d+ s/)

    expect(bad.code, bad.stderr).toBe(8)
    expect(json(bad)).toMatchObject({object: 'collection', status: 'failed', merchant_reference: 'col-w-fail'})
    expect(bad.stderr).toMatch(/ended failed/)

    expect(slow.code, slow.stderr).toBe(9)
    expect(kv(slow).State).toBe('processing')
    expect(slow.stderr).toMatch(/still processing after --wait-timeout 1 s/)

    const id = kv(good).ID
    const polls = h.requests((e) => e.path === `/v1/collections/${id}`)
    expect(polls.length).toBeGreaterThanOrEqual(1)
    for (const p of polls) {
      expect(p.method).toBe('GET')
      expectServiceHeaders(p, {idempotencyKey: 'none'})
    }
  })
})

describe('pay collections get', () => {
  it('by id and by --reference, human and --json', async () => {
    const created = json(ok(await h.run(['collections', 'create', '--amount', '5', '--currency', 'KES', '--reference', 'col-get-1', '--mobile', '254712345671', '--provider', 'mpesa', '--json'])))
    const [byId, byReference, byIdJson] = await Promise.all([
      h.run(['collections', 'get', created.id]),
      h.run(['collections', 'get', '--reference', 'col-get-1']),
      h.run(['collections', 'get', created.id, '--json']),
    ])
    expect(kv(ok(byId))).toMatchObject({ID: created.id, Amount: '5.00 KES', 'Merchant reference': 'col-get-1'})
    expect(kv(ok(byReference)).ID).toBe(created.id)
    expect(json(ok(byIdJson))).toMatchObject({id: created.id, object: 'collection', merchant_reference: 'col-get-1'})

    const gets = h.requests((e) => e.method === 'GET' && (e.path === `/v1/collections/${created.id}` || e.query.merchant_reference === 'col-get-1'))
    expect(gets.filter((e) => e.path === `/v1/collections/${created.id}`).every((e) => Object.keys(e.query).length === 0)).toBe(true)
    const q = only(gets.filter((e) => e.path === '/v1/collections'), 'get by reference')
    expect(q.query).toEqual({merchant_reference: 'col-get-1'})
    expectServiceHeaders(q)
    expect(q.body ?? null).toBeNull()
  })

  it('--wait on a get: waits for a forced outcome (exit 0), and 404 is exit 4', async () => {
    const created = json(ok(await h.run(['collections', 'create', '--amount', '5', '--currency', 'KES', '--reference', 'col-get-w', '--mobile', '254712345678', '--provider', 'mpesa', '--json'])))
    const waiting = h.run(['collections', 'get', '--reference', 'col-get-w', '--wait', '--wait-timeout', '20', '--json'])
    setTimeout(() => void h.control(`/_sandbox/transactions/${created.id}/succeed`), 800)
    const [r, missing] = await Promise.all([waiting, h.run(['collections', 'get', 'CL_DOESNOTEXIST'])])
    expect(json(ok(r))).toMatchObject({id: created.id, status: 'succeeded'})
    expect(missing.code).toBe(4)
    expect(missing.stderr).toMatch(/not_found/)
  })
})

describe('pay checkout', () => {
  it('create: the pay link, exact body; --open starts $BROWSER with the URL and prints it either way', async () => {
    const dir = tempConfigDir()
    const opened = join(dir, 'opened.txt')
    const browser = join(dir, 'browser.sh')
    writeFileSync(browser, `#!/bin/sh\necho "$1" > '${opened}'\n`)
    chmodSync(browser, 0o755)
    const common = ['--currency', 'kes', '--success-url', 'https://shop.example/paid', '--cancel-url', 'https://shop.example/cart']
    const [withBrowser, noBrowser, asJson] = await Promise.all([
      h.pay(['checkout', 'create', '--amount', '2500.00', '--reference', 'co-1', ...common, '--open'], {BROWSER: browser}),
      h.pay(['checkout', 'create', '--amount', '10', '--reference', 'co-2', ...common, '--open', '--rail', 'mobile_money', '--mobile', '254712345671', '--provider', 'mpesa'], {DISPLAY: undefined, BROWSER: undefined}),
      h.pay(['checkout', 'create', '--amount', '10', '--reference', 'co-3', ...common, '--description', 'Cart 3', '--json']),
    ])
    const v = kv(ok(withBrowser))
    expect(v).toMatchObject({Kind: 'Checkout session (hosted pay link)', State: 'processing'})
    expect(v.ID).toMatch(/^CS_/)
    expect(v['Pay link']).toBe(`${h.sb.url}/pay/${v.ID}`)
    expect(withBrowser.stderr).toContain(`Opened ${v['Pay link']}`)
    expect(readFileSync(opened, 'utf8').trim()).toBe(v['Pay link'])

    const n = kv(ok(noBrowser))
    expect(n['Pay link']).toMatch(/\/pay\/CS_/)
    expect(noBrowser.stderr).toContain(`No browser available here; open ${n['Pay link']}`)

    const body = json(ok(asJson))
    expect(body).toMatchObject({object: 'checkout_session', status: 'processing'})
    expect(body.url).toMatch(/\/pay\/CS_/)

    const sent = only(h.requests(byRef('co-1')), 'co-1')
    expect([sent.method, sent.path, sent.query]).toEqual(['POST', '/v1/checkout/sessions', {}])
    expectServiceHeaders(sent)
    expect(sent.body).toEqual({amount: '2500.00', currency: 'KES', merchant_reference: 'co-1', success_url: 'https://shop.example/paid', cancel_url: 'https://shop.example/cart'})
    expect(only(h.requests(byRef('co-2')), 'co-2').body).toEqual({amount: '10.00', currency: 'KES', merchant_reference: 'co-2', payment_rail: 'mobile_money', mobile: '254712345671', provider: 'mpesa', success_url: 'https://shop.example/paid', cancel_url: 'https://shop.example/cart'})
  })

  it('get: human and --json; --wait ends when the session is paid (exit 0) or fails (exit 8)', async () => {
    const common = ['--amount', '10', '--currency', 'KES', '--success-url', 'https://shop.example/paid', '--cancel-url', 'https://shop.example/cart', '--json']
    const [a, b] = await Promise.all([h.run(['checkout', 'create', '--reference', 'co-get-1', ...common]), h.run(['checkout', 'create', '--reference', 'co-get-2', ...common])])
    const s1 = json(ok(a))
    const s2 = json(ok(b))
    const [human, asJson] = await Promise.all([h.run(['checkout', 'get', s1.id]), h.run(['checkout', 'get', s1.id, '--json'])])
    expect(kv(ok(human))).toMatchObject({ID: s1.id, State: 'processing', 'Pay link': s1.url})
    expect(json(ok(asJson))).toMatchObject({id: s1.id, object: 'checkout_session', url: s1.url})
    const get = h.requests((e) => e.path === `/v1/checkout/sessions/${s1.id}`)[0]
    expect([get.method, get.query]).toEqual(['GET', {}])
    expectServiceHeaders(get)

    const w1 = h.run(['checkout', 'get', s1.id, '--wait', '--wait-timeout', '20'])
    const w2 = h.run(['checkout', 'get', s2.id, '--wait', '--wait-timeout', '20', '--json'])
    setTimeout(() => {
      void h.control(`/_sandbox/transactions/${s1.id}/succeed`)
      void h.control(`/_sandbox/transactions/${s2.id}/fail`)
    }, 800)
    const w3 = h.run(['checkout', 'create', '--reference', 'co-get-3', ...common, '--wait', '--wait-timeout', '1'])
    const [r1, r2, r3] = await Promise.all([w1, w2, w3])
    expect(r3.code, r3.stderr).toBe(9)
    expect(json(r3)).toMatchObject({object: 'checkout_session', status: 'processing'})
    expect(r3.stderr).toMatch(/checkout session CS_\w+ is still processing after --wait-timeout 1 s/)
    expect(kv(ok(r1)).State).toBe('succeeded')
    expect(r2.code, r2.stderr).toBe(8)
    expect(json(r2).status).toBe('failed')
  })
})

describe('pay transactions verify', () => {
  it('names the kind, state, amounts, rail, references and, for a bank transfer, the virtual account', async () => {
    const created = json(ok(await h.run(['collections', 'create', '--amount', '300', '--currency', 'KES', '--reference', 'order-42', '--rail', 'bank_transfer', '--json'])))
    const [human, asJson, missing] = await Promise.all([
      h.run(['transactions', 'verify', 'order-42']),
      h.run(['transactions', 'verify', 'order-42', '--json']),
      h.run(['transactions', 'verify', 'no-such-order']),
    ])
    const v = kv(ok(human))
    expect(v).toMatchObject({
      Kind: 'Collection (money in)',
      ID: created.id,
      State: 'processing',
      Amount: '300.00 KES',
      Rail: 'bank transfer (bank_transfer)',
      'Merchant reference': 'order-42',
      'Pay to account number': created.virtual_account.account_number,
      'Pay to account name': created.virtual_account.account_name,
      'Account valid until': created.virtual_account.expires_at,
    })
    expect(v['Pay to bank']).toBe(`${created.virtual_account.bank_name} (code ${created.virtual_account.bank_code})`)
    expect(json(ok(asJson))).toEqual(created.status === 'processing' ? expect.objectContaining({id: created.id, object: 'collection'}) : expect.anything())
    expect(missing.code).toBe(4)
    const sent = h.requests((e) => e.path === '/v1/transactions/verify/order-42')
    expect(sent).toHaveLength(2)
    expect([sent[0].method, sent[0].query]).toEqual(['GET', {}])
    expectServiceHeaders(sent[0])
  })
})
