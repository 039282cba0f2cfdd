// Idempotent replay: the stored answer is the first answer byte for byte, after the resource has moved on and
// after a --state reload (the state file keeps the answer as its text).
import {randomUUID} from 'node:crypto'
import {mkdtempSync, readFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {request} from 'undici'
import {afterEach, describe, expect, it} from 'vitest'
import type {Sandbox} from '../../src/sandbox/index.js'
import {acmeClient, collectionBody, start, until} from '../helpers/sandbox-http.js'

let sb: Sandbox | undefined
afterEach(async () => {
  await sb?.close()
  sb = undefined
})

async function post(s: Sandbox, token: string, key: string, body: unknown): Promise<{status: number; replayed: unknown; text: string}> {
  const headers = {'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${token}`, 'idempotency-key': key}
  const r = await request(`${s.url}/v1/collections`, {method: 'POST', headers, body: JSON.stringify(body)})
  return {status: r.statusCode, replayed: r.headers['idempotent-replayed'], text: await r.body.text()}
}

describe('idempotent replay', () => {
  it('answers the first bytes after the collection settled and after a --state reload', async () => {
    const statePath = join(mkdtempSync(join(tmpdir(), 'sb-replay-')), 'state.json')
    sb = await start({statePath, settleMs: 50})
    let acme = await acmeClient(sb)
    const key = randomUUID()
    const body = collectionBody({merchant_reference: 'replay-bytes'})
    const first = await post(sb, acme.token, key, body)
    expect(first.status).toBe(201)
    expect(JSON.parse(first.text).status).toBe('processing')
    const id = JSON.parse(first.text).id as string
    await until(async () => (await acme.get(`/v1/collections/${id}`)).body.status === 'succeeded', 10_000, 'settlement')

    const again = await post(sb, acme.token, key, body)
    expect(again).toEqual({status: 201, replayed: 'true', text: first.text})

    await sb.close()
    const saved = JSON.parse(readFileSync(statePath, 'utf8')) as {idempotency: Record<string, {body: unknown}>}
    const stored = Object.values(saved.idempotency).find((r) => typeof r.body === 'string' && r.body.includes(id))
    expect(stored?.body).toBe(first.text) // the state file keeps the answer as its text
    sb = await start({statePath, settleMs: 50})
    acme = await acmeClient(sb)
    expect(await post(sb, acme.token, key, body)).toEqual({status: 201, replayed: 'true', text: first.text})
  })
})

describe('the fingerprint of a request (canonical JSON of its parameters and body)', () => {
  it('is the same whatever the key order, at every level (the in-order shortcut and the sorted copy agree)', async () => {
    const {fingerprint} = await import('../../src/sandbox/idempotency.js')
    const of = (body: unknown, params: Record<string, string> = {}) => fingerprint('collections.create', params, 'M1', body)
    const inOrder = {a: 1, b: [{x: 1, y: {p: null, q: 'é'}}, 2], c: {d: true, e: '10.00'}}
    const shuffled = {c: {e: '10.00', d: true}, b: [{y: {q: 'é', p: null}, x: 1}, 2], a: 1}
    expect(of(shuffled)).toBe(of(inOrder))
    expect(of({...inOrder, c: {d: true, e: '10.01'}})).not.toBe(of(inOrder))
    expect(of({10: 'a', 9: 'b', k: 1})).toBe(of({k: 1, 9: 'b', 10: 'a'}))
    expect(of({}, {b: '2', a: '1'})).toBe(of({}, {a: '1', b: '2'}))
    const proto = JSON.parse('{"__proto__": {"x": 1}, "a": 1}') as unknown
    const protoLater = JSON.parse('{"a": 1, "__proto__": {"x": 1}}') as unknown
    expect(of(proto)).toBe(of(protoLater))
    // a body's own __proto__ key counts like any other key: a request with it is another request
    expect(of(proto)).not.toBe(of({a: 1}))
    expect(of(proto)).not.toBe(of(JSON.parse('{"__proto__": {"x": 2}, "a": 1}')))
    expect(of(undefined)).toBe(of(null))
  })
})
