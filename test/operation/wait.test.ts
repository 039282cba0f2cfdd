/**
 * --wait and states the interface does not list (src/operation/wait.ts): shown as they are, a notice once, never final.
 * In-process against a scripted node:http server on port 0 (the sandbox only uses the listed states).
 */
import {describe, expect, it} from 'vitest'
import {classifyState} from '../../src/operation/wait.js'
import {tempConfigDir} from '../helpers/cli.js'
import {runInProcess} from '../helpers/in-process.js'
import {TEST_CLIENT_ID, TEST_CLIENT_SECRET, useScriptedServer} from '../helpers/scripted-server.js'

const server = useScriptedServer()
const env = () => ({PAY_CONFIG_DIR: tempConfigDir(), PAY_BASE_URL: server.url, PAY_CLIENT_ID: TEST_CLIENT_ID, PAY_CLIENT_SECRET: TEST_CLIENT_SECRET, NO_COLOR: '1'})
const collection = (status: string) => ({status: 200, body: {id: 'CL_7', object: 'collection', status, currency: 'KES', amount: '5.00', merchant_reference: 'w-7'}})

describe('--wait with a state the interface does not list', () => {
  it('is shown as it is, said once, and polling goes on to a listed final state (exit 0); a listed state is not said', async () => {
    server.script('GET /v1/collections/CL_7', collection('processing'), collection('on_hold'), collection('on_hold'), collection('succeeded'))
    const r = await runInProcess(['collections', 'get', 'CL_7', '--wait', '--wait-timeout', '30', '--retries', '0'], {env: env()})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr.match(/state "on_hold", which the interface does not list \(processing, succeeded, failed\); pay treats it as not final/g)).toHaveLength(1)
    expect(r.stderr).not.toMatch(/state "processing"/)
    expect(r.stdout).toMatch(/succeeded/)
    expect(server.apiRequests().filter((q) => q.path === '/v1/collections/CL_7')).toHaveLength(4)
  })

  it('an unlisted word that sounds final (expired) is not taken as failed: exit 9 at --wait-timeout, the body shown as sent', async () => {
    for (let i = 0; i < 20; i++) server.script('GET /v1/collections/CL_7', collection('expired'))
    const r = await runInProcess(['collections', 'get', 'CL_7', '--wait', '--wait-timeout', '1', '--retries', '0', '--json'], {env: env()})
    expect(r.code, r.stderr).toBe(9)
    expect(JSON.parse(r.stdout).status).toBe('expired')
    expect(r.stderr).toMatch(/state "expired", which the interface does not list/)
  })

  it('classifyState: the resource states decide; without them the common words do', () => {
    const states = {succeeded: ['active'], failed: ['failed', 'cancelled'], pending: ['pending_approval']}
    expect(classifyState('active', states)).toBe('succeeded')
    expect(classifyState('cancelled', states)).toBe('failed')
    expect(classifyState('expired', states)).toBeUndefined()
    expect(classifyState('expired')).toBe('failed')
  })
})
