/**
 * The sandbox's error messages name what was asked for (an id from the path): control characters a client put
 * there come back escaped, never raw (issue 12: "the sandbox echoes user input in errors").
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Sandbox} from '../../src/sandbox/index.js'
import {acmeClient, start} from '../helpers/sandbox-http.js'

let sb: Sandbox
beforeAll(async () => {
  sb = await start()
})
afterAll(async () => {
  await sb.close()
})

// eslint-disable-next-line no-control-regex -- finding raw control characters is the point
const RAW = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/

describe('sandbox error messages', () => {
  it('escape control characters from the path (API and control endpoints)', async () => {
    const c = await acmeClient(sb)
    const osc = '%1B%5D0%3BPWNED%07'
    for (const [method, path, what] of [
      ['GET', `/v1/collections/CL_${osc}`, 'collection CL_\\u001b]0;PWNED\\u0007 not found'],
      ['POST', `/_sandbox/mandates/MD_${osc}/approve`, 'mandate MD_\\u001b]0;PWNED\\u0007 not found'],
      ['POST', '/_sandbox/transactions/CL_X%1B%5B2J/succeed', 'transaction CL_X\\u001b[2J not found'],
    ] as const) {
      const r = await c.call(method, path, {body: {}})
      expect(r.status, path).toBe(404)
      expect(r.body.error.message, path).toBe(what)
      expect(RAW.test(r.body.error.message), path).toBe(false)
    }
  })
})
