/**
 * pay checkout create|get, in-process against the sandbox (test/helpers/command-harness.ts). Each case checks the human
 * and --json output and, through the sandbox's request log, the exact method, path, query, headers and body sent.
 */
import {chmodSync, existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {json, tempConfigDir} from '../helpers/cli.js'
import {byRef, expectServiceHeaders, kv, ok, only, useSandbox} from '../helpers/command-harness.js'
import {waitFor} from '../helpers/wait-for.js'

const h = useSandbox()

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
    // the browser is started, not waited for: its file appears when it has run
    expect(await waitFor(() => existsSync(opened) && readFileSync(opened, 'utf8').trim(), 10_000, 'the browser to run')).toBe(v['Pay link'])

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

    const lookups = (id: string) => h.requests((e) => e.method === 'GET' && e.path === `/v1/checkout/sessions/${id}`).length
    const before = [lookups(s1.id), lookups(s2.id)]
    const w1 = h.run(['checkout', 'get', s1.id, '--wait', '--wait-timeout', '20'])
    const w2 = h.run(['checkout', 'get', s2.id, '--wait', '--wait-timeout', '20', '--json'])
    // the outcomes are forced once both commands are waiting (each has had a lookup answered), not after a guessed time
    void waitFor(() => lookups(s1.id) > before[0] && lookups(s2.id) > before[1], 20_000, 'the first lookups of --wait').then(() =>
      Promise.all([h.control(`/_sandbox/transactions/${s1.id}/succeed`), h.control(`/_sandbox/transactions/${s2.id}/fail`)]),
    )
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
