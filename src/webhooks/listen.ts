/**
 * `pay webhook listen`'s run function, in named stages: the flags checked (checkFlags) → the secrets and the pinned
 * signature format (resolveSecrets) → the listener started, each delivery printed (startPrinting) → the tunnel
 * opened, or stopped while it opens (openTunnelOrStop) → the sandbox registration and the announcement
 * (announce) → serving until stopped → everything closed and the summary printed.
 */
import {InputError} from '../base/errors.js'
import {redactUrl} from '../base/redact.js'
import {resolveSettings, webhookSecrets, type Settings} from '../config/settings.js'
import type {Output} from '../output/output.js'
import {printableLine} from '../output/printable.js'
import {HTTP_URL_RULE, isHttpUrl, parsePatterns, parseSize, unknownPatterns} from './filter.js'
import {historyDir, HistoryWriter, type SyncMode} from './history.js'
import {historyBounds, parseRoutes} from './history-commands.js'
import type {ForwardRoute} from './forward.js'
import type {Delivery} from './deliveries.js'
import {startListener, type Listener} from './listener.js'
import {createPingKey, type PingKey} from './ping.js'
import {deliveryLine, formatSummary, lineBatch, urlChangedLines} from './render.js'
import {isLoopbackUrl, SandboxRegistration, sandboxWebhookControl} from './sandbox-link.js'
import {describeScheme, parseSchemeId, pinnedSetting, type Scheme} from './signature.js'
import type {ChosenTunnel, TunnelChoice} from './tunnels/registry.js'
import type {Tunnel, TunnelLogLevel} from './tunnels/tunnel.js'

/**
 * A URL as the listener shows it: a password or a secret-named query value (an api_key, a token) replaced
 * (redactUrl), and printable on one line (a public URL is what a tunnel server answered).
 */
const shown = (url: string) => printableLine(redactUrl(url))

interface ListenOptions {
  profile?: string
  'base-url'?: string
  port: number
  host: string
  path: string
  secret?: string[]
  verify: boolean
  tolerance: number
  'max-body': string
  events?: string[]
  'forward-to'?: string
  route?: string[]
  history: boolean
  'history-max-age'?: string
  'history-sync': string
  'history-max-size'?: string
  'forward-timeout': number
  tunnel: string
  domain?: string
  'health-interval': number
  'tunnel-host'?: string
  subdomain?: string
  'tunnel-timeout': number
  register: boolean
  debug?: boolean
}

interface ListenRun {
  /** Serving stops when it settles (the command: Ctrl-C, SIGTERM). */
  until: Promise<void>
  /** Settings, NGROK_AUTHTOKEN and the history's bounds are read from it (default: the process's). */
  env?: NodeJS.ProcessEnv
  /** Called once ready, with the URL deliveries go to (tests). */
  ready?: (url: string) => void
}

/** What the flags come to, checked. */
interface Checked {
  maxBody: number
  patterns: string[]
  routes: ForwardRoute[]
  history?: HistoryWriter
}

/** Runs `pay webhook listen` until `until` settles; returns the exit code (failures to start throw, for the caller to render). */
export async function runListen(flags: ListenOptions, out: Output, run: ListenRun): Promise<number> {
  const env = run.env ?? process.env
  const checked = checkFlags(flags, env, out)
  const {settings, secrets, pinned} = await resolveSecrets(flags, env)
  warnAboutFlags(flags, checked, out)
  // stopped: by the caller, or when the reader of stdout goes away (`… | head -3`)
  let stop!: () => void
  const stopped = new Promise<void>((resolve) => (stop = resolve))
  void run.until.then(() => stop())
  out.onStdoutClosed(() => stop())
  const pingKey = createPingKey()
  const printing = startPrinting(out, pinned)
  const listener = await startListener({
    pingKey,
    port: flags.port,
    host: flags.host,
    path: flags.path,
    secrets,
    verify: flags.verify,
    pinnedScheme: pinned,
    toleranceSeconds: flags.tolerance,
    maxBodyBytes: checked.maxBody,
    events: checked.patterns,
    forwardTo: flags['forward-to'],
    routes: checked.routes,
    history: checked.history,
    forwardTimeoutMs: flags['forward-timeout'] * 1000,
    onDelivery: printing.show,
  }).catch((err: Error & {code?: string}) => {
    if (err.code === 'EADDRINUSE') throw InputError.one('--port', `${flags.port} is already in use on ${flags.host}`)
    throw err
  })
  out.info(`Listening on ${listener.url}${listener.path}`)
  const summary = (reconnects: number) => {
    printing.flush()
    printSummary(out, listener, reconnects, Boolean(flags['forward-to']) || checked.routes.length > 0)
  }

  const link = await tunnelChoice(flags, settings, env, out)
  const registration = sandboxRegistration(flags, settings, link.sandbox, out)
  const tunnel = await openTunnelOrStop(flags, link.chosen, listener, registration, stopped, out)
  if (!tunnel) {
    summary(0)
    return 0
  }
  const health = await announce(flags, link.chosen, tunnel, registration, checked, pingKey, out)
  run.ready?.(`${tunnel.url}${flags.path}`)

  await stopped
  health?.stop()
  await registration?.clear()
  await tunnel.close()
  await listener.close()
  summary(tunnel.reconnects)
  return 0
}

/** Every flag problem at once (exit 2 naming each); the history writer when kept. */
function checkFlags(flags: ListenOptions, env: NodeJS.ProcessEnv, out: Output): Checked {
  const problems: {flag: string; rule: string}[] = []
  if (!flags.path.startsWith('/')) problems.push({flag: '--path', rule: 'must start with /'})
  const maxBody = parseSize(flags['max-body'])
  if (maxBody === undefined) problems.push({flag: '--max-body', rule: 'must be a size such as 1048576, 512KiB or 1MiB'})
  for (const [flag, value] of [['--forward-to', flags['forward-to']], ['--tunnel-host', flags['tunnel-host']]] as const) {
    if (value !== undefined && !isHttpUrl(value)) problems.push({flag, rule: HTTP_URL_RULE})
  }
  const patterns = parsePatterns(flags.events)
  const routes = parseRoutes(flags.route ?? [], problems)
  if (flags.secret?.some((s) => s.trim() === '')) problems.push({flag: '--secret', rule: 'must not be empty'})
  if (problems.length > 0) throw new InputError(problems)
  const bounds = flags.history ? historyBounds(flags, env) : undefined
  const history = bounds ? new HistoryWriter(historyDir(env), {...bounds, sync: flags['history-sync'] as SyncMode, warn: (text) => out.warnQuoting(text)}) : undefined
  return {maxBody: maxBody!, patterns, routes, history}
}

/** The settings, the secrets to verify with (required unless --no-verify) and the pinned signature format, if any. */
async function resolveSecrets(flags: ListenOptions, env: NodeJS.ProcessEnv): Promise<{settings: Settings; secrets: string[]; pinned?: Scheme}> {
  const settings = await resolveSettings({profile: flags.profile, 'base-url': flags['base-url']}, env)
  const secrets = await webhookSecrets(flags.secret, settings)
  if (flags.verify && secrets.length === 0) {
    throw InputError.one('--secret', 'is required to verify deliveries (or set PAY_WEBHOOK_SECRET, or webhook_secret in the profile)', 'copy the webhook secret from the portal; --no-verify accepts unsigned events (unsafe)')
  }
  return {settings, secrets, pinned: pinnedSetting(settings.webhookSignature)}
}

function warnAboutFlags(flags: ListenOptions, checked: Checked, out: Output): void {
  for (const p of unknownPatterns(checked.patterns)) out.warn(`--events ${p} matches no event type of the spec (see \`pay webhook events\`)`)
  for (const p of unknownPatterns(checked.routes.map((r) => r.pattern))) out.warn(`--route ${p} matches no event type of the spec (see \`pay webhook events\`)`)
  if (!flags.verify) out.warn('signature verification is OFF (--no-verify): anyone who knows the URL can post events')
}

/**
 * Each delivery shown as it is answered: lines written as they are go out in batches; under --jq, --fields or
 * another format each delivery is a document of its own. The signature format that matched is said once (and
 * again if it changes).
 */
function startPrinting(out: Output, pinned: Scheme | undefined): {show: (d: Delivery) => void; flush: () => void} {
  const how = {json: out.json, color: out.term.color, tty: out.term.stdoutIsTTY}
  const line = (d: Delivery) => deliveryLine(d, how)
  const lines = out.linesAsIs ? lineBatch(line, (text) => out.chunk(text)) : undefined
  let scheme: string | undefined
  return {
    show(d) {
      if (d.filtered) return
      if (lines) lines.push(d)
      else out.data(line(d))
      if (d.verdict.scheme && d.verdict.scheme !== scheme) {
        scheme = d.verdict.scheme
        out.info(`signatures match as ${scheme} (${describeScheme(parseSchemeId(scheme)!)})${pinned ? ' (pinned)' : `; pin it with webhook_signature=${scheme} in the profile`}`)
      }
      if (d.verdict.ok && !d.verdict.verified) out.warn(`event ${printableLine(String(d.event?.id))} was NOT verified (--no-verify)`)
    },
    flush: () => lines?.flush(),
  }
}

function printSummary(out: Output, listener: Listener, reconnects: number, forwarding: boolean): void {
  const stats = listener.stats
  if (out.json) out.info(JSON.stringify({summary: {...stats, tunnel_reconnects: reconnects}}))
  else {
    out.info('')
    out.info(formatSummary(stats, forwarding))
    if (reconnects > 0) out.info(`tunnel reconnects ${reconnects}`)
  }
}

/** Which tunnel (--tunnel auto: none against a local sandbox, ngrok with a token, else localtunnel), said when chosen. */
async function tunnelChoice(flags: ListenOptions, settings: Settings, env: NodeJS.ProcessEnv, out: Output): Promise<{chosen: ChosenTunnel; sandbox: boolean}> {
  const {chooseTunnel} = await import('./tunnels/registry.js')
  const sandbox = Boolean(settings.baseUrl && isLoopbackUrl(settings.baseUrl))
  const chosen = chooseTunnel(flags.tunnel as TunnelChoice, {sandbox, ngrokToken: Boolean(env.NGROK_AUTHTOKEN), domain: flags.domain})
  if (chosen.reason) out.info(`Tunnel: ${chosen.provider} (--tunnel auto: ${chosen.reason})`)
  if (chosen.warning) out.warn(chosen.warning)
  return {chosen, sandbox}
}

/**
 * The sandbox's webhook URL of this client: set once the URL is known, set again when it changes, removed on exit
 * while it is one this listener set (another listener on the same profile may have registered its own since).
 */
function sandboxRegistration(flags: ListenOptions, settings: Settings, sandbox: boolean, out: Output): SandboxRegistration | undefined {
  const client = settings.clientId
  if (!flags.register || !sandbox || !client) return undefined
  return new SandboxRegistration(sandboxWebhookControl(settings.baseUrl!, client), (e) => {
    const what = `Sandbox: webhook URL of client ${client}`
    // the reason may quote whatever answered on the sandbox's port: trace makes it printable
    if (e.kind === 'failed') out.trace(`sandbox not updated: ${e.reason}`)
    else if (e.kind === 'set') out.info(`${what} set to ${shown(e.url)}`)
    else if (e.kind === 'changed') out.warn(out.color('bold', `${what} RE-REGISTERED to ${shown(e.url)} (was ${shown(e.was)})`, 'err'))
    else if (e.kind === 'removed') out.info(`${what} removed (was ${shown(e.was)})`)
    else if (e.url === null) out.info(`${what} already removed (by another listener or a command since)`)
    else out.info(`${what} left as ${shown(e.url)} (set since by another listener or a command)`)
  })
}

function tunnelLog(flags: ListenOptions, out: Output): (level: TunnelLogLevel, message: string) => void {
  return (level, message) => {
    if (level === 'debug') {
      if (flags.debug) out.trace(message)
    } else if (level === 'warn') out.warn(message)
    else out.info(message)
  }
}

/**
 * The tunnel, or undefined when stopped while it was opening (the listener then closed): Ctrl-C is honoured from
 * the first line people see on. A failure to open closes the listener and throws.
 */
async function openTunnelOrStop(flags: ListenOptions, chosen: ChosenTunnel, listener: Listener, registration: SandboxRegistration | undefined, stopped: Promise<void>, out: Output): Promise<Tunnel | undefined> {
  const {openTunnel} = await import('./tunnels/registry.js')
  const cancelOpening = new AbortController()
  let shownUrl: string | undefined
  try {
    const opening = openTunnel(chosen.provider, {
      localPort: listener.port,
      localHost: flags.host === '0.0.0.0' || flags.host === '::' ? '127.0.0.1' : flags.host,
      host: flags['tunnel-host'],
      subdomain: flags.subdomain,
      domain: flags.domain,
      startTimeoutMs: flags['tunnel-timeout'] * 1000,
      log: tunnelLog(flags, out),
      onUrlChange: (url) => {
        const now = `${url}${flags.path}`
        for (const line of urlChangedLines(shownUrl === undefined ? '(none)' : shown(shownUrl), shown(now), out.term.colorErr)) out.info(line)
        shownUrl = now
        void registration?.set(now)
      },
      signal: cancelOpening.signal,
    })
    const opened = await Promise.race([opening, stopped.then(() => undefined)])
    if (!opened) {
      out.info('stopped while the tunnel was opening')
      cancelOpening.abort()
      opening.then((t) => t.close()).catch(() => {})
      await listener.close()
      return undefined
    }
    shownUrl = `${opened.url}${flags.path}`
    return opened
  } catch (err) {
    await listener.close()
    throw err
  }
}

/** Registers the public URL with a local sandbox, says where deliveries go, and starts the tunnel's health check. */
async function announce(flags: ListenOptions, chosen: ChosenTunnel, tunnel: Tunnel, registration: SandboxRegistration | undefined, checked: Checked, key: PingKey, out: Output): Promise<{stop(): void} | undefined> {
  const publicUrl = `${tunnel.url}${flags.path}`
  if (chosen.provider === 'none') out.info(`No tunnel: reachable only from this machine at ${shown(publicUrl)}`)
  else out.info(`Public URL: ${out.color('bold', shown(publicUrl), 'err')}   (${tunnel.provider}; paste it into the portal's webhook settings)`)
  await registration?.set(publicUrl)
  if (flags['forward-to']) out.info(`Forwarding accepted events to ${shown(flags['forward-to'])}`)
  for (const r of checked.routes) out.info(`Forwarding ${printableLine(r.pattern)} to ${shown(r.url)}`)
  if (checked.history?.enabled) out.info(`Keeping every delivery in ${checked.history.dir} (pay webhook history)`)
  if (checked.patterns.length > 0) out.info(`Showing and forwarding only: ${checked.patterns.join(', ')}`)
  let health: {stop(): void} | undefined
  if (chosen.provider !== 'none' && flags['health-interval'] > 0) {
    const {watchHealth} = await import('./tunnels/health.js')
    health = watchHealth({tunnel, path: flags.path, key, intervalMs: flags['health-interval'] * 1000, log: tunnelLog(flags, out)})
  }
  out.info(out.color('dim', 'Ready. Press Ctrl-C to stop.', 'err'))
  return health
}
