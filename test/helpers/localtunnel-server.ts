/**
 * Test scaffolding: a small server of the localtunnel protocol on 127.0.0.1, standing in for the remote side
 * only (the client side under test is pay's own localtunnel client, src/webhooks/tunnels/localtunnel.ts).
 *
 * - `GET /?new` creates a client: {id, port, max_conn_count, url}; `GET /<id>` asks for that id (the library
 *   requests `/${subdomain}` when one is given; we use it on reconnect).
 * - The client opens raw TCP sockets to `port` (on 127.0.0.1); a public request with `Host: <id>.localhost:PORT`
 *   is written through one of them as HTTP/1.1 (an http.Agent whose createConnection hands out tunnel sockets,
 *   as the real server does) and the answer is piped back.
 * - `urlStyle: 'port'` hands out `http://127.0.0.1:<own port>` instead of `http://<id>.localhost:PORT`, for
 *   senders whose resolver does not map `*.localhost` to 127.0.0.1 (the sandbox's undici does a real lookup).
 * - Faults for tests: `mode` ('hang' never answers the handshake, 'html' answers a web page like the
 *   incompatible npm fork, 'error' answers 503, 'bad-port' hands out a port nothing listens on),
 *   `dropSockets()` destroys every tunnel socket, `refuseTunnels()` closes the tunnel ports, `forgetClients()`
 *   forgets every tunnel while its sockets stay open (like a restarted server: public requests get 404, and
 *   only a check through the public URL can tell).
 */
import {Agent, createServer, request, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import {connect, createServer as createTcpServer, type Server as TcpServer, type Socket} from 'node:net'
import type {AddressInfo} from 'node:net'

export type HandshakeMode = 'ok' | 'hang' | 'html' | 'error' | 'bad-port'

type ConnCallback = (err: Error | null, socket?: Socket) => void

class TunnelAgent extends Agent {
  readonly available: Socket[] = []
  readonly waiting: ConnCallback[] = []
  readonly all = new Set<Socket>()

  constructor() {
    super({keepAlive: true, maxFreeSockets: 1})
  }

  addSocket(socket: Socket): void {
    this.all.add(socket)
    socket.once('close', () => {
      this.all.delete(socket)
      const i = this.available.indexOf(socket)
      if (i >= 0) this.available.splice(i, 1)
    })
    socket.on('error', () => socket.destroy())
    const waiter = this.waiting.shift()
    if (waiter) waiter(null, socket)
    else this.available.push(socket)
  }

  override createConnection(_options: unknown, cb: ConnCallback): undefined {
    const socket = this.available.shift()
    if (socket) cb(null, socket)
    else this.waiting.push(cb)
    return undefined
  }
}

export interface TunnelClient {
  id: string
  port: number
  agent: TunnelAgent
  tcp: TcpServer
}

export interface LocaltunnelTestServer {
  /** http://127.0.0.1:PORT: pass as --tunnel-host. */
  url: string
  port: number
  mode: HandshakeMode
  maxConn: number
  /** Like a restarted server: a request for `/<id>` gets a new id (and so a new URL). */
  forgetIds: boolean
  clients: Map<string, TunnelClient>
  /** Paths of the handshake requests received (`/?new`, `/<id>`). */
  handshakes: string[]
  /** Public requests answered through a tunnel. */
  proxied: number
  /** Destroys every tunnel socket (the client should re-open them). */
  dropSockets(): number
  /** Closes the tunnel ports (new tunnel sockets are refused) and destroys the open sockets. */
  refuseTunnels(): Promise<void>
  /** Forgets every tunnel; its sockets stay connected (public requests for it get 404). */
  forgetClients(): void
  /** Number of tunnel sockets currently connected. */
  socketCount(): number
  close(): Promise<void>
}

const listenTcp = (server: TcpServer) =>
  new Promise<number>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port))
  })

/** A free port with nothing listening on it (for "refused" cases). */
/**
 * A port on 127.0.0.1 that is reliably refused for the rest of the test process: the local end of an open
 * connection to a holder server. It stays bound (the kernel does not hand it to another `listen(0)`) and never
 * listens, so a connect gets ECONNREFUSED. A port bound and closed right away could be taken meanwhile by any
 * other test's `listen(0)` (the CLI under test included), which made "refused" tests flaky under load.
 */
export async function closedPort(): Promise<number> {
  holder ??= (async () => {
    const s = createTcpServer((socket) => {
      socket.on('error', () => {})
      socket.unref()
      held.push(socket)
    })
    const port = await listenTcp(s)
    s.unref()
    return port
  })()
  const holderPort = await holder
  const socket = connect({host: '127.0.0.1', port: holderPort})
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject))
  socket.on('error', () => {})
  socket.unref()
  held.push(socket)
  return socket.localPort!
}
let holder: Promise<number> | undefined
const held: Socket[] = []

/** A port that was free a moment ago (bound and closed), for a process that must be given a port to listen on. */
export async function freePort(): Promise<number> {
  const s = createTcpServer()
  const port = await listenTcp(s)
  await new Promise((r) => s.close(r))
  return port
}

export async function startLocaltunnelServer(options: {mode?: HandshakeMode; maxConn?: number; urlStyle?: 'host' | 'port'} = {}): Promise<LocaltunnelTestServer> {
  const clients = new Map<string, TunnelClient>()
  const forgotten: TunnelClient[] = []
  const publicServers = new Map<string, {server: Server; port: number}>()
  const hanging = new Set<ServerResponse>()
  let httpPort = 0

  const newClient = async (id: string): Promise<TunnelClient> => {
    const existing = clients.get(id)
    if (existing) {
      existing.tcp.close()
      for (const s of existing.agent.all) s.destroy()
    }
    const agent = new TunnelAgent()
    const tcp = createTcpServer((socket) => agent.addSocket(socket))
    const port = await listenTcp(tcp)
    const client = {id, port, agent, tcp}
    clients.set(id, client)
    return client
  }

  const handshake = async (req: IncomingMessage, res: ServerResponse, requested: string | undefined) => {
    state.handshakes.push(req.url ?? '')
    if (state.mode === 'hang') {
      hanging.add(res)
      return
    }
    if (state.mode === 'html') {
      res.writeHead(200, {'content-type': 'text/html'})
      res.end('<!doctype html><html><body><h1>localtunnel</h1></body></html>')
      return
    }
    if (state.mode === 'error') {
      res.writeHead(503, {'content-type': 'application/json'})
      res.end(JSON.stringify({message: 'tunnel server overloaded'}))
      return
    }
    const id = (state.forgetIds ? undefined : requested) ?? Math.random().toString(36).slice(2, 12).replace(/[^a-z0-9]/g, 'x').padEnd(10, 'q')
    const client = await newClient(id)
    const port = state.mode === 'bad-port' ? await closedPort() : client.port
    let url = `http://${id}.localhost:${httpPort}`
    if (options.urlStyle === 'port') {
      let pub = publicServers.get(id)
      if (!pub) {
        const server = createServer((preq, pres) => {
          const c = clients.get(id)
          if (c) proxy(c, preq, pres)
          else pres.writeHead(404).end()
        })
        await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
        pub = {server, port: (server.address() as AddressInfo).port}
        publicServers.set(id, pub)
      }
      url = `http://127.0.0.1:${pub.port}`
    }
    res.writeHead(200, {'content-type': 'application/json'})
    res.end(JSON.stringify({id, port, max_conn_count: state.maxConn, url}))
  }

  const proxy = (client: TunnelClient, req: IncomingMessage, res: ServerResponse) => {
    const preq = request({method: req.method, path: req.url, headers: req.headers, agent: client.agent}, (pres) => {
      res.writeHead(pres.statusCode ?? 502, pres.headers)
      pres.pipe(res)
      state.proxied++
    })
    preq.on('error', (err) => {
      if (!res.headersSent) res.writeHead(502, {'content-type': 'text/plain'})
      res.end(`tunnel error: ${err.message}`)
    })
    req.pipe(preq)
  }

  const http: Server = createServer((req, res) => {
    const host = (req.headers.host ?? '').split(':')[0]
    const sub = /^([a-z0-9-]+)\.localhost$/.exec(host)?.[1]
    if (sub) {
      const client = clients.get(sub)
      if (!client) {
        res.writeHead(404, {'content-type': 'text/plain'})
        res.end(`no tunnel ${sub}`)
        return
      }
      proxy(client, req, res)
      return
    }
    const path = req.url ?? '/'
    if (req.method === 'GET' && path === '/?new') {
      void handshake(req, res, undefined)
      return
    }
    const m = /^\/([a-z0-9]{4,63})$/.exec(path)
    if (req.method === 'GET' && m) {
      void handshake(req, res, m[1])
      return
    }
    res.writeHead(404, {'content-type': 'application/json'})
    res.end(JSON.stringify({message: 'not found'}))
  })

  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', () => resolve()))
  httpPort = (http.address() as AddressInfo).port

  const state: LocaltunnelTestServer = {
    url: `http://127.0.0.1:${httpPort}`,
    port: httpPort,
    mode: options.mode ?? 'ok',
    maxConn: options.maxConn ?? 4,
    forgetIds: false,
    clients,
    handshakes: [],
    proxied: 0,
    dropSockets() {
      let n = 0
      for (const c of clients.values()) {
        for (const s of c.agent.all) {
          s.destroy()
          n++
        }
      }
      return n
    },
    async refuseTunnels() {
      for (const c of clients.values()) {
        const closed = new Promise((r) => c.tcp.close(r))
        for (const s of c.agent.all) s.destroy()
        await closed
      }
    },
    forgetClients() {
      forgotten.push(...clients.values())
      clients.clear()
    },
    socketCount() {
      let n = 0
      for (const c of clients.values()) n += c.agent.all.size
      return n
    },
    async close() {
      for (const res of hanging) res.destroy()
      for (const c of [...clients.values(), ...forgotten]) {
        c.tcp.close()
        for (const s of c.agent.all) s.destroy()
        c.agent.destroy()
      }
      for (const {server} of publicServers.values()) {
        server.closeAllConnections()
        await new Promise((r) => server.close(r))
      }
      http.closeAllConnections()
      await new Promise((r) => http.close(r))
    },
  }
  return state
}
