/** Helpers of the webhook tests: an independent signer (openssl), raw HTTP posts on loopback, a test app. */
import {execFileSync} from 'node:child_process'
import {createServer, request, type IncomingHttpHeaders} from 'node:http'
import type {AddressInfo} from 'node:net'

/** HMAC-SHA256 hex of `<t>.<body>` computed by `openssl dgst -sha256 -hmac KEY`, not by our code. */
export function opensslSign(secret: string, timestamp: number, body: string | Buffer): string {
  const input = Buffer.concat([Buffer.from(`${timestamp}.`), Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8')])
  const out = execFileSync('openssl', ['dgst', '-sha256', '-hmac', secret], {input}).toString()
  const m = /([0-9a-f]{64})\s*$/.exec(out.trim())
  if (!m) throw new Error(`unexpected openssl output: ${out}`)
  return m[1]
}

/** The raw HMAC of `<t>.<body>` (SHA-256 or SHA-512) computed by `openssl dgst -binary`, not by our code. */
export function opensslDigest(algorithm: 'sha256' | 'sha512', secret: string, timestamp: number, body: string | Buffer): Buffer {
  const input = Buffer.concat([Buffer.from(`${timestamp}.`), Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8')])
  return execFileSync('openssl', ['dgst', `-${algorithm}`, '-hmac', secret, '-binary'], {input})
}

/** `t=…,v1=…[,v1=…]` with every signature from openssl. */
export function opensslHeader(secrets: string[], timestamp: number, body: string | Buffer): string {
  return [`t=${timestamp}`, ...secrets.map((s) => `v1=${opensslSign(s, timestamp, body)}`)].join(',')
}

export const nowSeconds = () => Math.floor(Date.now() / 1000)

let counter = 0
/** A compact event body with a fresh, valid event id. */
export function eventBody(type = 'collection.succeeded', data: Record<string, unknown> = {}): {id: string; body: string} {
  counter++
  const id = `EVT_${String(counter).padStart(6, '0')}${Math.random().toString(36).slice(2, 20).toUpperCase().padEnd(18, 'X')}`.slice(0, 28)
  const body = JSON.stringify({
    id,
    object: 'event',
    type,
    created_at: new Date().toISOString(),
    data: {id: `CL_${counter}TEST`, object: 'collection', status: type.split('.')[1], amount: '1500.00', currency: 'KES', merchant_reference: `order-${counter}`, ...data},
  })
  return {id, body}
}

export interface PostResult {
  status: number
  body: string
  headers: IncomingHttpHeaders
}

/**
 * POSTs to a URL, always connecting to 127.0.0.1 (the URL's host, e.g. `abc.localhost:PORT`, is sent as the
 * Host header only), so that nothing leaves the loopback interface whatever the resolver does.
 */
export function post(url: string, body: string | Buffer, headers: Record<string, string> = {}, method = 'POST'): Promise<PostResult> {
  const u = new URL(url)
  return new Promise((resolve, reject) => {
    const req = request(
      {host: '127.0.0.1', port: Number(u.port || 80), path: `${u.pathname}${u.search}`, method, headers: {host: u.host, 'content-type': 'application/json', ...headers}, agent: false},
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (d: string) => (text += d))
        res.on('end', () => resolve({status: res.statusCode ?? 0, body: text, headers: res.headers}))
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

export interface TestApp {
  url: string
  received: {headers: IncomingHttpHeaders; body: Buffer}[]
  /** Status to answer (default 200). */
  status: number
  /** Answer this many requests 500 first (then `status`). */
  failNext: number
  close(): Promise<void>
}

/** The developer's app that --forward-to posts to: records what it gets, answers `status`. */
export async function startTestApp(path = '/hooks'): Promise<TestApp> {
  const app: TestApp = {url: '', received: [], status: 200, failNext: 0, close: async () => {}}
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      app.received.push({headers: req.headers, body: Buffer.concat(chunks)})
      const status = app.failNext > 0 ? 500 : app.status
      if (app.failNext > 0) app.failNext--
      res.writeHead(status, {'content-type': 'application/json'})
      res.end(JSON.stringify({app: 'got it', status}))
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  app.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`
  app.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections()
      server.close(() => r())
    })
  return app
}

export {waitFor} from './wait-for.js'

export interface ListenProcess {
  /** The URL deliveries go to (public tunnel URL, or the local one with --tunnel none), path included. */
  url: string
  stdout(): string
  stderr(): string
  /** SIGINT, then the exit code and the whole output. */
  stop(): Promise<{code: number | null; stdout: string; stderr: string}>
  /** SIGKILL (no chance to flush or close anything); resolves once the process is gone. */
  kill(): Promise<void>
}

/** Starts the BUILT `pay webhook listen` and waits until it is ready (or fails). */
export async function startListen(args: string[], env: Record<string, string | undefined> = {}, readyTimeoutMs = 20_000): Promise<ListenProcess> {
  const {spawn} = await import('node:child_process')
  const {BIN, ROOT, cleanEnv} = await import('./cli.js')
  const child = spawn(process.execPath, [BIN, 'webhook', 'listen', ...args], {cwd: ROOT, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe']})
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
  let exitCode: number | null | undefined
  void exited.then((c) => (exitCode = c))
  const started = Date.now()
  while (!/Ready\. Press Ctrl-C/.test(stderr)) {
    if (exitCode !== undefined) throw new Error(`pay webhook listen exited ${exitCode} before it was ready\nstdout: ${stdout}\nstderr: ${stderr}`)
    if (Date.now() - started > readyTimeoutMs) {
      child.kill('SIGKILL')
      throw new Error(`pay webhook listen not ready in ${readyTimeoutMs} ms\nstderr: ${stderr}`)
    }
    await new Promise((r) => setTimeout(r, 20))
  }
  const url = (/Public URL: (\S+)/.exec(stderr) ?? /reachable only from this machine at (\S+)/.exec(stderr))?.[1]
  if (!url) throw new Error(`no URL in the output:\n${stderr}`)
  return {
    url,
    stdout: () => stdout,
    stderr: () => stderr,
    async stop() {
      child.kill('SIGINT')
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
      const code = await exited
      clearTimeout(timer)
      return {code, stdout, stderr}
    },
    async kill() {
      child.kill('SIGKILL')
      await exited
    },
  }
}

/** `pay webhook listen` in-process (its run function, src/webhooks/listen.ts), stopped when `until` settles. */
export async function listenCommand(args: string[], env: Record<string, string | undefined> = {}, until: Promise<void> = new Promise(() => {}), ready?: (url: string) => void) {
  const [{runListen}, {startCommand}] = await Promise.all([import('../../src/webhooks/listen.js'), import('./in-process.js')])
  return startCommand(['webhook', 'listen', ...args], ({flags, out, env}) => runListen(flags, out, {until, env, ready}), {env})
}

/** `pay webhook listen` in-process until it is ready (or fails), with the same handle as startListen's process. */
export async function listenInProcess(args: string[], env: Record<string, string | undefined> = {}, readyTimeoutMs = 20_000): Promise<ListenProcess> {
  let stop!: () => void
  const until = new Promise<void>((resolve) => (stop = resolve))
  let url: string | undefined
  const running = await listenCommand(args, env, until, (u) => (url = u))
  let result: {code: number; stdout: string; stderr: string} | undefined
  void running.done.then((r) => (result = r))
  const started = Date.now()
  while (url === undefined) {
    if (result) throw new Error(`pay webhook listen exited ${result.code} before it was ready\nstdout: ${result.stdout}\nstderr: ${result.stderr}`)
    if (Date.now() - started > readyTimeoutMs) throw new Error(`pay webhook listen not ready in ${readyTimeoutMs} ms\nstderr: ${running.stderr()}`)
    await new Promise((r) => setTimeout(r, 10))
  }
  return {
    url,
    stdout: running.stdout,
    stderr: running.stderr,
    async stop() {
      stop()
      return running.done
    },
    async kill() {
      stop()
      await running.done
    },
  }
}
