/**
 * The journal's record of an idempotent request is on disk before any byte of the request is written: the client
 * hands the transport the journal's fsync as `ready`, and the transport connects meanwhile but writes nothing
 * before it settles. A loopback server that records every byte it receives (no mock of HTTP).
 */
import {fsync, readFileSync} from 'node:fs'
import {createServer as createHttpServer} from 'node:http'
import {brotliCompressSync, deflateRawSync, deflateSync, gzipSync} from 'node:zlib'
import {createServer, type AddressInfo, type Socket} from 'node:net'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {PayError} from '../../src/base/errors.js'
import {ExitCode} from '../../src/base/exit-codes.js'
import {ApiClient} from '../../src/client/api-client.js'
import {classifyNetworkError} from '../../src/client/request-policy.js'
import {Transport, bodyText} from '../../src/client/transport.js'
import {JournalGate} from '../../src/journal/gate.js'
import {JournalStore} from '../../src/journal/store.js'
import {tempConfigDir} from '../helpers/cli.js'
import {closedPort} from '../helpers/localtunnel-server.js'

const sockets: Socket[] = []
const closers: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy()
  for (const c of closers.splice(0)) await c()
})

/**
 * A raw HTTP server: records the bytes of each connection, answers `answer` once a whole request (headers and body)
 * arrived. `connection`: its first connection was made; `closed`: that connection was closed.
 */
async function recordingServer(answer: string) {
  let received = ''
  let connected!: () => void
  let ended!: () => void
  const connection = new Promise<void>((resolve) => (connected = resolve))
  const closed = new Promise<void>((resolve) => (ended = resolve))
  const server = createServer((socket) => {
    sockets.push(socket)
    connected()
    socket.on('close', ended)
    socket.on('error', () => undefined)
    socket.on('data', (d) => {
      received += d.toString('latin1')
      const end = received.indexOf('\r\n\r\n')
      const length = Number(/content-length: (\d+)/i.exec(received)?.[1] ?? 0)
      if (end >= 0 && received.length >= end + 4 + length) socket.end(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(answer)}\r\nconnection: close\r\n\r\n${answer}`)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  closers.push(() => new Promise((resolve) => server.close(resolve)))
  return {url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connection, closed, received: () => received}
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A transport (closed after the test) and a `ready` the test settles: the journal's fsync, held. */
function heldFsync() {
  const transport = new Transport({})
  closers.push(() => transport.close())
  let release!: () => void
  let fail!: (err: Error) => void
  const ready = new Promise<void>((resolve, reject) => ((release = resolve), (fail = reject)))
  return {transport, ready, release, fail}
}

describe('no byte of a request before the journal has it on disk', () => {
  it('the transport connects while `ready` is pending but sends no byte until it settles, and its timer starts only then', async () => {
    const server = await recordingServer('{}')
    const {transport, ready, release} = heldFsync()
    // a timeout shorter than the wait: it bounds the exchange, not the journal's fsync
    const answer = transport.send({method: 'POST', url: `${server.url}/v1/collections`, headers: {'content-type': 'application/json'}, body: '{"a":"1.00"}', timeoutMs: 1_000, ready})
    await server.connection // made while the fsync runs: what this overlap is for
    await settle(1_300)
    expect(server.received()).toBe('')
    release()
    const res = await answer
    expect(res.status).toBe(200)
    expect(server.received()).toMatch(/^POST \/v1\/collections HTTP\/1\.1\r\n[\s\S]*\r\n\r\n\{"a":"1\.00"\}$/)
  })

  it('`ready` rejected: the send fails with that same error, not one byte was written, and the connection is closed', async () => {
    const server = await recordingServer('{}')
    const {transport, ready, fail} = heldFsync()
    const answer = transport.send({method: 'POST', url: `${server.url}/v1/collections`, headers: {'content-type': 'application/json'}, body: '{"a":"1.00"}', timeoutMs: 5_000, ready})
    await server.connection
    await settle(300)
    // what the journal rejects with: pay's own failure, before a byte (src/client/api-client.ts, exchange)
    const journalFailed = new PayError('the journal could not be written', ExitCode.OTHER)
    fail(journalFailed)
    await expect(answer).rejects.toBe(journalFailed)
    await server.closed
    expect(server.received()).toBe('')
  })

  it('a connection refused while `ready` is pending fails after it settles, as never sent', async () => {
    const {transport, ready, release} = heldFsync()
    const answer = transport.send({method: 'POST', url: `http://127.0.0.1:${await closedPort()}/v1/collections`, headers: {}, body: '{}', timeoutMs: 5_000, ready})
    let settled = false
    void answer.then(
      () => (settled = true),
      () => (settled = true),
    )
    await settle(300) // a refused loopback connect takes well under a millisecond
    expect(settled).toBe(false)
    release()
    const err = await answer.then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(err).toMatchObject({code: 'ECONNREFUSED'})
    expect(classifyNetworkError(err)).toEqual({kind: 'network', sent: false})
  })

  it('a request with an Expect header (node:http sends its head at once) is not even made before `ready` settles', async () => {
    const server = await recordingServer('{}')
    const {transport, ready, release} = heldFsync()
    let connected = false
    void server.connection.then(() => (connected = true))
    const answer = transport.send({method: 'POST', url: `${server.url}/v1/collections`, headers: {Expect: '100-continue'}, body: '{}', timeoutMs: 5_000, ready})
    await settle(300)
    expect(connected).toBe(false)
    expect(server.received()).toBe('')
    release()
    expect((await answer).status).toBe(200)
    expect(server.received()).toMatch(/\r\nExpect: 100-continue\r\n/i)
  })

  it('a create waits for the fsync of its journal record: held, the service gets nothing; released, the request carries the journaled key', async () => {
    const server = await recordingServer(JSON.stringify({id: 'CL_1', object: 'collection', status: 'processing', currency: 'KES', amount: '1.00', merchant_reference: 'ready-1'}))
    const dir = tempConfigDir()
    const journalFile = join(dir, 'journal', `${new Date().toISOString().slice(0, 10)}.ndjson`)
    let held: (() => void) | undefined
    let atFsync = ''
    // the real fsync, called only when the test lets it
    const heldFsync = ((fd: number, done: (err: NodeJS.ErrnoException | null) => void) => {
      atFsync = readFileSync(journalFile, 'utf8')
      held = () => fsync(fd, done)
    }) as typeof fsync
    const store = new JournalStore(dir, {fsync: heldFsync})
    const transport = new Transport({})
    closers.push(() => transport.close())
    const token = JSON.stringify({access_token: 'a'.repeat(64), token_type: 'Bearer', expires_in: 3600})
    const client = new ApiClient({
      settings: {baseUrl: server.url, clientId: 'c', clientSecret: 's'},
      userAgent: 't', retries: 0, sleep: async () => {},
      // the token from here; the create through the real transport to the recording server
      transport: {send: async (r) => (r.url.endsWith('/v1/oauth/token') ? {status: 200, headers: {}, text: token} : transport.send(r)), close: async () => {}},
      journal: new JournalGate(store, {notice: () => {}, warn: () => {}, argv: ['collections', 'create']}),
    })
    const body = {amount: '1.00', currency: 'KES', merchant_reference: 'ready-1', payment_method: 'mobile_money', mobile: '254712345678', provider: 'mpesa'}
    const answer = client.call('collections.create', {body})
    for (let i = 0; !held && i < 500; i++) await settle(10)
    if (!held) throw new Error('the journal record was never fsync\'d')
    const op = JSON.parse(atFsync.trimEnd().split('\n').at(-1)!)
    expect(op).toMatchObject({t: 'op', reference: 'ready-1', endpoint: 'collections.create'})
    await settle(300)
    expect(server.received()).toBe('')
    held()
    const res = await answer
    expect(res.status).toBe(200)
    expect(server.received()).toContain(`idempotency-key: ${op.key}`)
  })
})

describe('an answer in a content coding (pay asks for none, a server may send one all the same)', () => {
  const JSON_TEXT = '{"object":"balance","note":"ünïcødé"}'
  const raw = Buffer.from(JSON_TEXT)

  it('bodyText decodes gzip, x-gzip, deflate (zlib or bare), br and stacked codings; identity or none as they came', () => {
    expect(bodyText({'content-encoding': 'gzip'}, gzipSync(raw))).toBe(JSON_TEXT)
    expect(bodyText({'content-encoding': 'X-Gzip'}, gzipSync(raw))).toBe(JSON_TEXT)
    expect(bodyText({'content-encoding': 'deflate'}, deflateSync(raw))).toBe(JSON_TEXT)
    expect(bodyText({'content-encoding': 'deflate'}, deflateRawSync(raw))).toBe(JSON_TEXT)
    expect(bodyText({'content-encoding': 'br'}, brotliCompressSync(raw))).toBe(JSON_TEXT)
    expect(bodyText({'content-encoding': 'gzip, br'}, brotliCompressSync(gzipSync(raw)))).toBe(JSON_TEXT)
    expect(bodyText({'content-encoding': 'identity'}, raw)).toBe(JSON_TEXT)
    expect(bodyText({}, raw)).toBe(JSON_TEXT)
  })

  it('a coding pay does not read, or bytes that do not decode, are left as they came', () => {
    expect(bodyText({'content-encoding': 'compress'}, raw)).toBe(JSON_TEXT)
    expect(bodyText({'content-encoding': 'gzip'}, raw)).toBe(JSON_TEXT)
    expect(bodyText({'content-encoding': 'gzip'}, gzipSync(raw).subarray(0, 12))).not.toContain('balance')
  })

  it('the transport decodes the answer of a real server, whatever its coding', async () => {
    const encoders: Record<string, (b: Buffer) => Buffer> = {gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync}
    const server = createHttpServer((req, res) => {
      const coding = req.url!.slice(1)
      res.writeHead(200, {'content-type': 'application/json', 'content-encoding': coding})
      res.end(encoders[coding](raw))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    closers.push(() => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve))))
    const transport = new Transport({})
    closers.push(() => transport.close())
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    for (const coding of Object.keys(encoders)) {
      const res = await transport.send({method: 'GET', url: `${url}/${coding}`, headers: {}, timeoutMs: 5000})
      expect(res.text, coding).toBe(JSON_TEXT)
      expect(res.headers['content-encoding']).toBe(coding)
    }
  })
})

describe('a request in flight when its command ends (close)', () => {
  it('is ended at once, not retried: the client gets a PayError and sends nothing more', async () => {
    // a server that takes requests and never answers (the service stuck while a --wait polls it)
    let requests = 0
    const server = createHttpServer(() => requests++)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    closers.push(() => new Promise((resolve) => server.close(resolve)), async () => server.closeAllConnections())
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const client = new ApiClient({settings: {baseUrl: url, clientId: 'id', clientSecret: 'secret'}, userAgent: 'pay-test', retries: 3, transport: new Transport({})})
    const given = client.call('metadata.banks', {}).then(
      () => 'answered',
      (err: unknown) => err,
    )
    while (requests === 0) await new Promise((resolve) => setTimeout(resolve, 5))
    const started = Date.now()
    await client.close()
    const err = await given
    // (it may have been written: unknown, never refused)
    expect(err).toMatchObject({name: 'PayError', message: 'the command ended before this request was answered', requestClass: 'unknown'})
    expect(Date.now() - started).toBeLessThan(5000)
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(requests).toBe(1)
  })
})
