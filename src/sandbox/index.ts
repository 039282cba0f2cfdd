/**
 * Programmatic API of the sandbox: `startSandbox(options)` -> a running emulator of the Payments Service.
 *
 *   const sb = await startSandbox({settleMs: 50})
 *   sb.url            // http://127.0.0.1:PORT (no trailing slash)
 *   sb.seed.merchants // seeded merchants with client_id, client_secret, webhook_secret, account_refs
 *   await sb.close()
 */
import {type IncomingMessage, type ServerResponse, createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {Core} from './core.js'
import {Faults, reportBug, setBugReporter} from './faults.js'
import {type SandboxOptions, resolveOptions} from './options.js'
import {Persister, loadState} from './persistence.js'
import {RateLimiter} from './rate-limit.js'
import {type LogEntry, RequestLog} from './request-log.js'
import {DASHBOARD_PATH, type Runtime} from './runtime.js'
import {type Seed, type SeedCredentials, credentialsOf, defaultSeed} from './seed.js'
import {type EventRec, type State, stateFromSeed} from './state.js'
import {WebhookDelivery} from './webhooks-delivery.js'
import {entry} from './state.js'

export type {SandboxOptions, RateLimits} from './options.js'
export {DEFAULT_RATE_LIMITS} from './options.js'
export type {SeedData, SeedCredentials} from './seed.js'
export {ACME, GLOBEX, DEFAULT_TESTING_CAPS, defaultSeed} from './seed.js'
export type {LogEntry} from './request-log.js'
export {PAYOUT_FEES} from './resources/payouts.js'

export interface Sandbox {
  /** Base URL, no trailing slash, e.g. http://127.0.0.1:4010 */
  readonly url: string
  readonly port: number
  readonly host: string
  /** The dashboard's URL (`${url}/_dashboard/`), or null when it is off. */
  readonly dashboardUrl: string | null
  /** Seeded merchants and their API client credentials. */
  readonly seed: SeedCredentials
  /** The request log (newest last; the same entries --log writes), built when read. */
  readonly requests: LogEntry[]
  /** Emitted events with their delivery attempts. */
  readonly events: EventRec[]
  /** The live state (read it; change it through the API or the control API). */
  readonly state: State
  /** Sets (or clears with null) where an API client's webhook events go. */
  setWebhookUrl(clientId: string, url: string | null): void
  /** Moves the sandbox clock forward and settles what becomes due. */
  advanceClock(seconds: number): void
  /** Fresh state from the seed. */
  reset(): void
  close(): Promise<void>
}

/** close() gives up waiting after this long (SIGTERM to exit within 2 s). */
const CLOSE_DEADLINE_MS = 1500

/**
 * Process-level guard for `pay sandbox start`: an exception or rejection that escapes every handler (a sandbox
 * bug outside a request) is logged and the sandbox keeps serving, rather than dying. Returns the remover.
 */
function installProcessGuard(): () => void {
  const onError = (err: unknown) => reportBug('sandbox bug (the sandbox keeps running):', err)
  process.on('uncaughtException', onError)
  process.on('unhandledRejection', onError)
  return () => {
    process.off('uncaughtException', onError)
    process.off('unhandledRejection', onError)
  }
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const opts = resolveOptions(options)
  if (options.onBug) setBugReporter(options.onBug)
  // The heavy part (zod, the endpoint table, the resources) loads while the server starts listening. A sandbox
  // parses a request body per write: zod's compiled parsers pay off (its schemas are built on first use, after
  // this), set here, where a sandbox starts, not when a module of it is imported.
  const impl = import('../api/zod-config.js').then(({compileParsers}) => {
    compileParsers()
    return import('./server.js')
  })
  let seed: Seed
  if (options.seed || options.seedFile) {
    const {loadSeedFile, seedSchema} = await import('./seed-schema.js')
    seed = seedSchema.parse(options.seed ?? (await loadSeedFile(options.seedFile!)))
  } else seed = defaultSeed()
  const loaded = opts.statePath ? await loadState(opts.statePath) : undefined
  const core = new Core(loaded ?? stateFromSeed(seed, Date.now()), opts)
  const log = new RequestLog(opts.logFile, options.onRequest as ((e: LogEntry) => void) | undefined)
  const webhooks = new WebhookDelivery(core)
  core.onEvent = (e) => webhooks.enqueue(e)
  const persister = opts.statePath ? new Persister(opts.statePath, () => core.state) : undefined

  const rt: Runtime = {
    core,
    limiter: new RateLimiter(opts.rateLimits),
    faults: Object.assign(new Faults(opts.latencyMs, opts.faultRate, opts.dropAfterCommitRate), {uncaughtBugs: Boolean(options.processGuard)}),
    log,
    webhooks,
    seed,
    reset() {
      core.replaceState(stateFromSeed(seed, Date.now()))
      rt.limiter.reset()
      core.changed()
    },
    dashboard: options.dashboard ?? true,
  }
  // persistence, and the dashboard's live updates while a page is open
  core.onChange = persister
    ? () => {
        persister.schedule()
        rt.activity?.()
      }
    : () => rt.activity?.()

  let handle: ((rt: Runtime, req: IncomingMessage, res: ServerResponse) => void) | undefined
  const ready = impl.then((m) => {
    core.setScheduling(m.scheduling)
    // events still undelivered when a --state file was saved are delivered again (at-least-once)
    if (loaded) for (const e of core.state.events) if (e.state === 'pending') webhooks.enqueue(e)
    handle = m.handle
  })
  const server = createServer({keepAlive: true, requestTimeout: 30_000, headersTimeout: 15_000}, (req, res) => {
    if (handle) handle(rt, req, res)
    else void ready.then(() => handle!(rt, req, res)).catch((err: Error) => (res.headersSent ? res.destroy() : res.writeHead(500).end(String(err.message))))
  })
  // A malformed request line or header never reaches a handler: node answers 400 and closes.
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n')
    else socket.destroy()
  })
  const unguard = options.processGuard ? installProcessGuard() : undefined
  server.keepAliveTimeout = 5000
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address() as AddressInfo
  const hostForUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address
  const url = `http://${opts.host === '0.0.0.0' || opts.host === '::' ? '127.0.0.1' : hostForUrl}:${address.port}`
  core.baseUrl = url

  let closing: Promise<void> | undefined
  return {
    url,
    dashboardUrl: rt.dashboard ? `${url}${DASHBOARD_PATH}/` : null,
    port: address.port,
    host: opts.host,
    seed: credentialsOf(seed),
    get requests() {
      return log.entries
    },
    get events() {
      return core.state.events
    },
    get state() {
      return core.state
    },
    setWebhookUrl(clientId, target) {
      const client = entry(core.state.clients, clientId)
      if (!client) throw new Error(`no API client ${clientId}`)
      client.webhook_url = target
      core.changed()
    },
    advanceClock: (seconds) => core.advanceClock(seconds),
    reset: () => rt.reset(),
    close() {
      // Stops accepting, drops the connections (in-flight requests are abandoned: no answer is half-written
      // after this), stops the timers and deliveries, then saves --state and flushes --log. Bounded: whatever
      // is not done after CLOSE_DEADLINE_MS (a stuck log file, a slow disk) is left behind.
      closing ??= (async () => {
        core.close()
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()))
        server.closeAllConnections()
        await ready.catch(() => {})
        await Promise.race([
          (async () => {
            await stopped
            await webhooks.close()
            if (persister) {
              core.changed()
              await persister.flush()
            }
            await log.close()
          })(),
          new Promise<void>((resolve) => setTimeout(resolve, CLOSE_DEADLINE_MS).unref()),
        ])
        unguard?.()
      })()
      return closing
    },
  }
}
