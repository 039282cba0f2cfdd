/**
 * The checking pass of a bulk run (src/bulk/check.ts), in-process against a scripted service: what is refused across
 * rows before anything is sent, and the keys of rows that repeat a body without a reference.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {rowKey} from '../../src/bulk/check.js'
import {ApiClient} from '../../src/client/api-client.js'
import {tempConfigDir} from '../helpers/cli.js'
import {runCommand} from '../helpers/in-process.js'
import {TEST_CLIENT_ID, TEST_CLIENT_SECRET, useScriptedServer} from '../helpers/scripted-server.js'

describe('a reference on more than one row of a file', () => {
  const server = useScriptedServer()
  const env = (dir: string) => ({PAY_CONFIG_DIR: dir, PAY_BASE_URL: server.url, PAY_CLIENT_ID: TEST_CLIENT_ID, PAY_CLIENT_SECRET: TEST_CLIENT_SECRET, NO_COLOR: '1'})
  const bulk = async (name: string, text: string, argv: string[] = ['payouts', 'create']) => {
    const dir = tempConfigDir()
    const file = join(dir, name)
    writeFileSync(file, text)
    return runCommand([...argv, '--from-file', file], {env: env(dir)})
  }
  const HEADER = 'amount,currency,reference,mobile,provider\n'
  const row = (amount: string, ref: string) => `${amount},KES,${ref},254700000001,mpesa\n`

  it('identical rows: exit 2, the repeated line named with the line it repeats, nothing sent (no token either)', async () => {
    const r = await bulk('rows.csv', HEADER + row('10.00', 'INV-77') + row('10.00', 'INV-77'))
    expect(r.code, r.stderr).toBe(2)
    expect(r.stderr).toContain('rows.csv:3 reference "INV-77" is also on line 2: a reference names one payment; remove the repeated row or give it its own reference')
    expect(r.stderr).toContain('nothing was sent')
    expect(server.requests).toEqual([])
  })

  it('whatever the bodies, each repeat named once with the first line; other references untouched', async () => {
    const r = await bulk('mixed.csv', HEADER + row('10.00', 'A-1') + row('5.00', 'B-1') + row('11.00', 'A-1') + row('10.00', 'A-1') + row('5.00', 'C-1'))
    expect(r.code, r.stderr).toBe(2)
    const lines = r.stderr.split('\n').filter((l) => l.includes('is also on line'))
    expect(lines).toEqual([expect.stringContaining('mixed.csv:4 reference "A-1" is also on line 2:'), expect.stringContaining('mixed.csv:5 reference "A-1" is also on line 2:')])
    expect(r.stderr).not.toMatch(/"B-1"|"C-1"/)
    expect(server.requests).toEqual([])
  })

  it('a reference "." or "..": exit 2 naming each row and the rule, nothing sent (no lookup by reference could find it)', async () => {
    const r = await bulk('dots.csv', HEADER + row('10.00', 'E-1') + row('10.00', '.') + row('10.00', '..'))
    expect(r.code, r.stderr).toBe(2)
    for (const line of [3, 4]) expect(r.stderr).toMatch(new RegExp(`dots\\.csv:${line}\\b.*reference.* must not be "\\." or "\\.\\." \\(a URL reads it as a step in the path, so no lookup by reference could find it\\)`))
    expect(r.stderr).not.toMatch(/dots\.csv:2\b/)
    expect(server.requests).toEqual([])
  })

  it('distinct references: the check passes and each row is sent once', async () => {
    const r = await bulk('ok.csv', HEADER + row('10.00', 'D-1') + row('10.00', 'D-2'))
    expect(r.stderr).not.toContain('is also on line')
    expect(server.apiRequests().map((q) => JSON.parse(q.body).merchant_reference)).toEqual(['D-1', 'D-2'])
  })

  it("every row's key is derived from the bytes it sends, the first row's and the later ones' alike (one URL for all)", async () => {
    await bulk('keys.csv', HEADER + row('10.00', 'K-1') + row('10.5', 'K-2') + row(' 7.25 ', 'K-3'))
    const sent = server.apiRequests()
    expect(sent.map((q) => q.path)).toEqual(['/v1/payouts', '/v1/payouts', '/v1/payouts'])
    expect(sent.map((q) => JSON.parse(q.body).amount)).toEqual(['10.00', '10.50', '7.25'])
    const scope = JSON.stringify({v: 2, method: 'POST', url: `${server.url}/v1/payouts`, client: TEST_CLIENT_ID, account: '', salt: ''})
    for (const q of sent) expect(q.headers['idempotency-key']).toBe(rowKey(scope, q.body, 1))
    // and those bytes are the ones a single command sends for that body (the client's prepare), later rows' too
    const client = new ApiClient({settings: {baseUrl: server.url, clientId: TEST_CLIENT_ID, clientSecret: TEST_CLIENT_SECRET}, userAgent: 'pay-test'})
    for (const q of sent) expect(q.body).toBe(client.prepare('payouts.create', {body: JSON.parse(q.body)}).body)
  })

  it('identical rows without a reference (mandates cancel) stay two requests, under two keys (1st and 2nd occurrence)', async () => {
    const text = 'mandate_id,mobile,reason\n' + 'MD_1,254700000001,stop\n'.repeat(2)
    const r = await bulk('cancel.csv', text, ['mandates', 'cancel'])
    expect(r.stderr).not.toContain('is also on line')
    const sent = server.apiRequests().filter((q) => q.path === '/v1/mandates/MD_1/cancel')
    expect(sent.map((q) => q.body)).toEqual([sent[0].body, sent[0].body])
    expect(new Set(sent.map((q) => q.headers['idempotency-key'])).size).toBe(2)
  })
})
