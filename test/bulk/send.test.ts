/**
 * What a bulk run's send stage says of its failed rows (src/bulk/send.ts): the service's words, made printable on
 * one line each. In-process against a scripted node:http server on port 0 (the sandbox's messages are plain).
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempConfigDir} from '../helpers/cli.js'
import {runCommand} from '../helpers/in-process.js'
import {TEST_CLIENT_ID, TEST_CLIENT_SECRET, useScriptedServer} from '../helpers/scripted-server.js'

const server = useScriptedServer()
const HOSTILE = 'EVIL\u001B]0;PWNED\u0007\u001B[2J\nline: forged'

describe('the failed rows of a run', () => {
  it("quote the service's error message and a failed row's status_detail escaped, one line each", async () => {
    const dir = tempConfigDir()
    const env = {PAY_CONFIG_DIR: dir, PAY_BASE_URL: server.url, PAY_CLIENT_ID: TEST_CLIENT_ID, PAY_CLIENT_SECRET: TEST_CLIENT_SECRET, NO_COLOR: '1'}
    const collection = (status: string, more = {}) => ({id: 'CL_2', object: 'collection', status, currency: 'KES', amount: '10.00', merchant_reference: 'pf-2', ...more})
    server.script(
      'POST /v1/collections',
      {status: 400, body: {error: {code: 'invalid_parameter', message: `nope ${HOSTILE}`, request_id: 'REQ_F'}}},
      {status: 201, body: collection('processing')},
    )
    for (let i = 0; i < 5; i++) server.script('GET /v1/collections/CL_2', {status: 200, body: collection('failed', {status_detail: `declined ${HOSTILE}`})})
    const file = join(dir, 'rows.csv')
    writeFileSync(file, 'reference,amount,currency,mobile,provider\npf-1,10.00,KES,254700000001,mpesa\npf-2,10.00,KES,254700000002,mpesa\n')
    const r = await runCommand(['collections', 'create', '--from-file', file, '--concurrency', '1', '--wait', '--wait-timeout', '30'], {env})
    expect(r.code, r.stderr).toBe(1)
    expect(r.stderr).toContain('  line 2 (pf-1): invalid_parameter nope EVIL\\u001b]0;PWNED\\u0007\\u001b[2J\\u000aline: forged')
    expect(r.stderr).toContain('  line 3 (pf-2): transaction_failed declined EVIL\\u001b]0;PWNED\\u0007\\u001b[2J\\u000aline: forged')
    // eslint-disable-next-line no-control-regex -- finding raw control characters is the point
    expect(r.stderr).not.toMatch(/[\u0000-\u0009\u000B-\u001F]/)
    expect(r.stderr).not.toMatch(/^line: forged/m)
  })
})
