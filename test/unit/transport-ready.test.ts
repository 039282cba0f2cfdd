/**
 * The journal's record of an idempotent request is on disk before any byte of the request is written: the client
 * hands the transport the journal's fsync as `ready`, and the transport connects meanwhile but writes nothing
 * before it settles. A loopback server that records every byte it receives (no mock of HTTP).
 */
import {readFileSync} from 'node:fs'
import {createServer, type AddressInfo, type Socket} from 'node:net'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {ApiClient} from '../../src/client/api-client.js'
import {Transport} from '../../src/client/transport.js'
import {JournalGate} from '../../src/journal/gate.js'
import {JournalStore} from '../../src/journal/store.js'
import {tempConfigDir} from '../helpers/cli.js'

const sockets: Socket[] = []
const closers: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy()
  for (const c of closers.splice(0)) await c()
})

/** A raw HTTP server: records the bytes of each connection, answers `answer` once a whole request (headers and body) arrived. */
async function recordingServer(answer: string) {
  let received = ''
  let connected!: () => void
  const connection = new Promise<void>((resolve) => (connected = resolve))
  const server = createServer((socket) => {
    sockets.push(socket)
    connected()
    socket.on('data', (d) => {
      received += d.toString('latin1')
      const end = received.indexOf('\r\n\r\n')
      const length = Number(/content-length: (\d+)/i.exec(received)?.[1] ?? 0)
      if (end >= 0 && received.length >= end + 4 + length) socket.end(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(answer)}\r\nconnection: close\r\n\r\n${answer}`)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  closers.push(() => new Promise((resolve) => server.close(resolve)))
  return {url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connection, received: () => received}
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('no byte of a request before the journal has it on disk', () => {
  it('the transport connects, then writes nothing until `ready` settles', async () => {
    const server = await recordingServer('{}')
    const transport = new Transport({})
    closers.push(() => transport.close())
    let release!: () => void
    const ready = new Promise<void>((resolve) => (release = resolve))
    const answer = transport.send({method: 'POST', url: `${server.url}/v1/collections`, headers: {'content-type': 'application/json'}, body: '{"a":"1.00"}', timeoutMs: 30_000, ready})
    await server.connection
    await settle(150)
    expect(server.received()).toBe('')
    release()
    const res = await answer
    expect(res.status).toBe(200)
    expect(server.received()).toMatch(/^POST \/v1\/collections HTTP\/1\.1\r\n[\s\S]*\r\n\r\n\{"a":"1\.00"\}$/)
  })

  it('the client passes the journal fsync as `ready`: when it settles, the operation record is in the journal', async () => {
    const server = await recordingServer(JSON.stringify({id: 'CL_1', object: 'collection', status: 'processing', currency: 'KES', amount: '1.00', merchant_reference: 'ready-1'}))
    const dir = tempConfigDir()
    const store = new JournalStore(dir)
    const seen: string[] = []
    const real = new Transport({})
    closers.push(() => real.close())
    const transport = {
      async send(r: Parameters<Transport['send']>[0]) {
        if (r.url.endsWith('/v1/oauth/token')) return {status: 200, headers: {}, text: JSON.stringify({access_token: 'a'.repeat(64), token_type: 'Bearer', expires_in: 3600})}
        expect(r.ready).toBeInstanceOf(Promise)
        await r.ready
        seen.push(readFileSync(join(dir, 'journal', `${new Date().toISOString().slice(0, 10)}.ndjson`), 'utf8'))
        return real.send(r)
      },
      close: async () => {},
    }
    const client = new ApiClient({
      settings: {baseUrl: server.url, clientId: 'c', clientSecret: 's'},
      userAgent: 't', retries: 0, sleep: async () => {}, transport, journal: new JournalGate(store, {notice: () => {}, warn: () => {}, argv: ['collections', 'create']}),
    })
    const body = {amount: '1.00', currency: 'KES', merchant_reference: 'ready-1', payment_method: 'mobile_money', mobile: '254712345678', provider: 'mpesa'}
    const res = await client.call('collections.create', {body})
    expect(res.status).toBe(200)
    expect(seen).toHaveLength(1)
    const op = JSON.parse(seen[0].trimEnd().split('\n').at(-1)!)
    expect(op).toMatchObject({t: 'op', reference: 'ready-1', endpoint: 'collections.create'})
    expect(server.received()).toContain(`idempotency-key: ${op.key}`)
  })
})
