import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {connectionFlags} from '../../cli/flags.js'
import type {SyncMode} from '../../webhooks/history.js'
import type {Delivery} from '../../webhooks/listener.js'
import type {TunnelChoice} from '../../webhooks/tunnels/registry.js'
import type {TunnelLogLevel} from '../../webhooks/tunnels/tunnel.js'

export default class WebhookListen extends BaseCommand {
  static override summary = 'Receive webhook events locally, through a public tunnel, verified and readable'
  static override description = `Starts an HTTP server on 127.0.0.1, opens a tunnel to it and prints the public URL to paste into the merchant portal. --tunnel auto (the default) opens no tunnel when the profile is a local sandbox's (the sandbox delivers on this machine), ngrok when NGROK_AUTHTOKEN is set (--domain for a reserved domain whose URL survives restarts), else localtunnel with a warning (its public server is often down and its URL changes when it reconnects). When the profile is a local sandbox's, the URL is set there for the profile's API client, set again when it changes, and removed on exit (unless it has been changed since, e.g. by a second listener on the same profile).

Every --health-interval seconds a signed ping goes through the public URL to the listener (answered, never shown or counted); when it fails twice in a row the tunnel is reconnected. A new public URL after a reconnect is announced loudly: it must be updated in the portal.

Each delivery at --path is verified against the raw body (Service-Signature; see docs/assumptions.md) and shown on one line: time, event id, type, resource id, state, amount and currency, merchant reference. Every plausible signature format is accepted (t=…,v1=…; a hex or base64 digest, SHA-256 or SHA-512, with the timestamp in Service-Timestamp), each a full HMAC comparison; the first match names it, and webhook_signature in the profile pins one. Rejected deliveries (missing signature header or one of an unrecognised format, no matching signature, timestamp outside --tolerance, body not JSON, body over --max-body) are answered 400/401/413, shown in red with the reason, and never forwarded. An event id seen before is answered 200 and not forwarded again (delivery is at-least-once).

With --forward-to, the raw body and the original headers (signature included) are posted to your app and its status and body are passed back, so the service retries what your app failed; an unreachable app answers 502. --route 'GLOB=URL' (repeatable) forwards by event type: each event goes to every route whose glob matches its type, and the worst status (the highest; unreachable 502, timeout 504) is passed back.

Every delivery (accepted, duplicate or rejected) is kept in the local history with its raw body, headers, verdict and each forward attempt, on disk before it is answered: \`pay webhook history\`, \`pay webhook show EVT_…\`, and \`pay webhook replay --failed --to URL\` once your app is fixed. The webhook secret is never kept.

The secret comes from --secret, PAY_WEBHOOK_SECRET or the profile; without one the command refuses to start unless --no-verify is given. With --json, stdout carries one JSON object per delivery ({time, event, verdict, duplicate, forward}) and everything else goes to stderr. Ctrl-C closes the tunnel and prints a summary.`

  static override examples = [
    {description: 'Listen (tunnel chosen by --tunnel auto: none for the local sandbox) and forward to your app; runs until Ctrl-C', command: '<%= config.bin %> webhook listen --forward-to http://localhost:3000/webhooks'},
    {description: 'Through ngrok with a reserved domain: the URL in the portal stays valid across restarts', command: 'NGROK_AUTHTOKEN=... <%= config.bin %> webhook listen --domain shop-dev.ngrok.app'},
    {description: 'Only payment outcomes, as JSON lines for jq', command: "<%= config.bin %> webhook listen --events 'collection.*,payout.failed' --json | jq -c '{type: .event.type, ok: .verdict.ok}'"},
    {description: 'Local only, fixed port, secret from the environment', command: 'PAY_WEBHOOK_SECRET=whsec_... <%= config.bin %> webhook listen --tunnel none --port 4242'},
    {description: 'Through your own localtunnel server', command: '<%= config.bin %> webhook listen --tunnel-host https://tunnel.example.com --subdomain shop-dev'},
    {description: 'Through ngrok, against the sandbox profile (needs NGROK_AUTHTOKEN: without it, exits 2 saying so)', command: '<%= config.bin %> webhook listen --tunnel ngrok --profile sandbox'},
  ]

  static override flags = {
    profile: connectionFlags.profile,
    'base-url': connectionFlags['base-url'],
    port: Flags.integer({description: 'Local port to listen on (default: any free port)', min: 0, max: 65535, default: 0}),
    host: Flags.string({description: 'Local address to bind', default: '127.0.0.1'}),
    path: Flags.string({description: 'Path that accepts deliveries; other paths answer 404', default: '/webhooks'}),
    secret: Flags.string({description: 'Webhook secret (env PAY_WEBHOOK_SECRET, or the profile); repeat during rotation: any one matching passes', multiple: true}),
    verify: Flags.boolean({description: 'Verify signatures (--no-verify accepts unsigned events, with a warning on each)', default: true, allowNo: true}),
    tolerance: Flags.integer({description: 'Seconds a signature timestamp may differ from now, either way', default: 300, min: 0}),
    'max-body': Flags.string({description: 'Largest body accepted (bytes, or with KiB/MiB); larger answers 413', default: '1MiB'}),
    events: Flags.string({description: "Only show and forward these types: comma-separated globs ('collection.*,payout.failed'); others are answered 200 and counted", multiple: true}),
    'forward-to': Flags.string({description: 'Post each accepted event (raw body, original headers) to this URL and answer with its status'}),
    route: Flags.string({description: "Forward by type: GLOB=URL ('payout.*=http://localhost:4000/p'); repeat; each event goes to every matching route, and the worst status is answered", multiple: true}),
    history: Flags.boolean({description: 'Keep every delivery and forward attempt in the local history (`pay webhook history`); --no-history keeps nothing', default: true, allowNo: true}),
    'history-max-age': Flags.string({description: 'Delete kept deliveries older than this (12h, 7d, 2w; env PAY_WEBHOOK_HISTORY_MAX_AGE; default 7d)'}),
    'history-sync': Flags.string({description: "When a delivery counts as kept: background (written before the answer, fdatasync'd right after) or answer (fdatasync'd before the answer: slower)", options: ['background', 'answer'], default: 'background'}),
    'history-max-size': Flags.string({description: 'Keep the history under this size, oldest deleted first (64MiB; env PAY_WEBHOOK_HISTORY_MAX_SIZE; default 256MiB)'}),
    'forward-timeout': Flags.integer({description: 'Seconds to wait for the --forward-to app (then 504)', default: 10, min: 1}),
    tunnel: Flags.string({description: 'Tunnel to the internet; auto: none against a local sandbox, ngrok when NGROK_AUTHTOKEN is set, else localtunnel', options: ['auto', 'localtunnel', 'ngrok', 'none'], default: 'auto'}),
    domain: Flags.string({description: 'Reserved ngrok domain for a public URL that survives restarts (needs NGROK_AUTHTOKEN)'}),
    'health-interval': Flags.integer({description: 'Seconds between health checks through the public URL (0: none); two failures in a row reconnect the tunnel', default: 5, min: 0}),
    'tunnel-host': Flags.string({description: 'localtunnel server (default https://localtunnel.me; env PAY_TUNNEL_HOST)', env: 'PAY_TUNNEL_HOST'}),
    subdomain: Flags.string({description: 'Ask the localtunnel server for this subdomain'}),
    'tunnel-timeout': Flags.integer({description: 'Seconds to wait for the tunnel to open (and for each reconnect attempt)', default: 15, min: 1}),
    register: Flags.boolean({description: 'When the profile is a local sandbox\'s, set its webhook URL there (--no-register to leave it)', default: true, allowNo: true}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(WebhookListen)
    const out = await this.output()
    const {InputError} = await import('../../base/errors.js')
    const {isHttpUrl, parsePatterns, unknownPatterns, parseSize} = await import('../../webhooks/filter.js')
    const {historyBounds, parseRoutes} = await import('../../webhooks/history-commands.js')

    const problems: {flag: string; rule: string}[] = []
    if (!flags.path.startsWith('/')) problems.push({flag: '--path', rule: 'must start with /'})
    const maxBody = parseSize(flags['max-body'])
    if (maxBody === undefined) problems.push({flag: '--max-body', rule: 'must be a size such as 1048576, 512KiB or 1MiB'})
    for (const [flag, value] of [['--forward-to', flags['forward-to']], ['--tunnel-host', flags['tunnel-host']]] as const) {
      if (value !== undefined && !isHttpUrl(value)) problems.push({flag, rule: 'must be an http:// or https:// URL'})
    }
    const patterns = parsePatterns(flags.events)
    const routes = parseRoutes(flags.route ?? [], problems)
    if (flags.secret?.some((s) => s.trim() === '')) problems.push({flag: '--secret', rule: 'must not be empty'})
    if (problems.length > 0) throw new InputError(problems)
    const bounds = flags.history ? historyBounds(flags) : undefined

    const {resolveSettings, webhookSecrets} = await import('../../config/settings.js')
    const settings = await resolveSettings({profile: flags.profile, 'base-url': flags['base-url']})
    const secrets = await webhookSecrets(flags.secret, settings)
    if (flags.verify && secrets.length === 0) {
      throw InputError.one('--secret', 'is required to verify deliveries (or set PAY_WEBHOOK_SECRET, or webhook_secret in the profile)', 'copy the webhook secret from the portal; --no-verify accepts unsigned events (unsafe)')
    }
    const {describeScheme, parseSchemeId, pinnedScheme} = await import('../../webhooks/signature.js')
    const pinned = pinnedScheme(settings.webhookSignature)
    if (pinned.problem) throw InputError.one('webhook_signature', pinned.problem, 'fix it in the profile (pay profiles add NAME --webhook-signature …) or PAY_WEBHOOK_SIGNATURE')
    for (const p of unknownPatterns(patterns)) out.warn(`--events ${p} matches no event type of the spec (see \`pay webhook events\`)`)
    for (const p of unknownPatterns(routes.map((r) => r.pattern))) out.warn(`--route ${p} matches no event type of the spec (see \`pay webhook events\`)`)
    if (!flags.verify) out.warn('signature verification is OFF (--no-verify): anyone who knows the URL can post events')

    const {startListener} = await import('../../webhooks/listener.js')
    const {HistoryWriter, historyDir} = await import('../../webhooks/history.js')
    const history = bounds ? new HistoryWriter(historyDir(), {...bounds, sync: flags['history-sync'] as SyncMode, warn: (text) => out.warnQuoting(text)}) : undefined
    const {deliveryLine, formatSummary, lineBatch, urlChangedLines} = await import('../../webhooks/render.js')
    const {printable, printableLine} = await import('../../output/printable.js')
    // lines written as they are go out in batches; under --jq, --fields or another format each delivery is a document of its own
    const how = {json: out.json, color: out.term.color, tty: out.term.stdoutIsTTY}
    const line = (d: Delivery) => deliveryLine(d, how)
    const lines = out.linesAsIs ? lineBatch(line, (text) => out.chunk(text)) : undefined
    const {createPingKey} = await import('../../webhooks/ping.js')
    const pingKey = createPingKey()
    let scheme: string | undefined
    const listener = await startListener({
      pingKey,
      port: flags.port,
      host: flags.host,
      path: flags.path,
      secrets,
      verify: flags.verify,
      pinnedScheme: pinned.scheme,
      toleranceSeconds: flags.tolerance,
      maxBodyBytes: maxBody,
      events: patterns,
      forwardTo: flags['forward-to'],
      routes,
      history,
      forwardTimeoutMs: flags['forward-timeout'] * 1000,
      onDelivery: (d) => {
        if (d.filtered) return
        if (lines) lines.push(d)
        else out.data(line(d))
        if (d.verdict.scheme && d.verdict.scheme !== scheme) {
          // which signature format the service uses, said once (and again if it changes)
          scheme = d.verdict.scheme
          out.info(`signatures match as ${scheme} (${describeScheme(parseSchemeId(scheme)!)})${pinned.scheme ? ' (pinned)' : `; pin it with webhook_signature=${scheme} in the profile`}`)
        }
        if (d.verdict.ok && !d.verdict.verified) out.warn(`event ${printableLine(String(d.event?.id))} was NOT verified (--no-verify)`)
      },
    }).catch((err: Error & {code?: string}) => {
      if (err.code === 'EADDRINUSE') throw InputError.one('--port', `${flags.port} is already in use on ${flags.host}`)
      throw err
    })
    // Ctrl-C is honoured from the first line people see on, also while the tunnel is still opening (a handler
    // installed after "Listening on" left a moment in which Ctrl-C killed the process without its summary).
    let stop!: () => void
    const stopped = new Promise<void>((resolve) => (stop = resolve))
    process.once('SIGINT', () => stop())
    process.once('SIGTERM', () => stop())
    // the reader of stdout went away (`… | head -3`): stop cleanly instead of dying on EPIPE
    process.stdout.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') stop()
    })
    out.info(`Listening on ${listener.url}${listener.path}`)

    const {chooseTunnel, openTunnel} = await import('../../webhooks/tunnels/registry.js')
    const {isLoopbackUrl, SandboxRegistration, sandboxWebhookControl} = await import('../../webhooks/sandbox-link.js')
    const sandbox = Boolean(settings.baseUrl && isLoopbackUrl(settings.baseUrl))
    const chosen = chooseTunnel(flags.tunnel as TunnelChoice, {sandbox, ngrokToken: Boolean(process.env.NGROK_AUTHTOKEN), domain: flags.domain})
    if (chosen.reason) out.info(`Tunnel: ${chosen.provider} (--tunnel auto: ${chosen.reason})`)
    if (chosen.warning) out.warn(chosen.warning)
    // The sandbox's webhook URL of this client: set once the URL is known, set again when it changes, removed on
    // exit while it is one this listener set (another listener on the same profile may have registered its own since).
    const client = settings.clientId
    const registration =
      flags.register && sandbox && client
        ? new SandboxRegistration(sandboxWebhookControl(settings.baseUrl!, client), (e) => {
            const what = `Sandbox: webhook URL of client ${client}`
            // the reason may quote whatever answered on the sandbox's port: trace makes it printable
            if (e.kind === 'failed') out.trace(`sandbox not updated: ${e.reason}`)
            else if (e.kind === 'set') out.info(`${what} set to ${e.url}`)
            else if (e.kind === 'changed') out.warn(out.color('bold', `${what} RE-REGISTERED to ${e.url} (was ${e.was})`, 'err'))
            else if (e.kind === 'removed') out.info(`${what} removed (was ${printable(e.was)})`)
            else if (e.url === null) out.info(`${what} already removed (by another listener or a command since)`)
            else out.info(`${what} left as ${printable(e.url)} (set since by another listener or a command)`)
          })
        : undefined
    let shownUrl: string | undefined
    const tunnelLog = (level: TunnelLogLevel, message: string) => {
      if (level === 'debug') {
        if (flags.debug) out.trace(message)
      } else if (level === 'warn') out.warn(message)
      else out.info(message)
    }
    const {watchHealth} = await import('../../webhooks/tunnels/health.js')
    const printSummary = (reconnects: number) => {
      lines?.flush()
      const stats = listener.stats
      if (out.json) out.info(JSON.stringify({summary: {...stats, tunnel_reconnects: reconnects}}))
      else {
        out.info('')
        out.info(formatSummary(stats, Boolean(flags['forward-to']) || routes.length > 0))
        if (reconnects > 0) out.info(`tunnel reconnects ${reconnects}`)
      }
    }
    const cancelOpening = new AbortController()
    let tunnel
    try {
      const opening = openTunnel(chosen.provider, {
        localPort: listener.port,
        localHost: flags.host === '0.0.0.0' || flags.host === '::' ? '127.0.0.1' : flags.host,
        host: flags['tunnel-host'],
        subdomain: flags.subdomain,
        domain: flags.domain,
        startTimeoutMs: flags['tunnel-timeout'] * 1000,
        log: tunnelLog,
        onUrlChange: (url) => {
          const now = `${url}${flags.path}`
          for (const line of urlChangedLines(shownUrl ?? '(none)', now, out.term.colorErr)) out.info(line)
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
        printSummary(0)
        return
      }
      tunnel = opened
    } catch (err) {
      await listener.close()
      throw err
    }
    const publicUrl = `${tunnel.url}${flags.path}`
    shownUrl = publicUrl
    if (chosen.provider === 'none') out.info(`No tunnel: reachable only from this machine at ${publicUrl}`)
    else out.info(`Public URL: ${out.color('bold', publicUrl, 'err')}   (${tunnel.provider}; paste it into the portal's webhook settings)`)
    await registration?.set(publicUrl)
    if (flags['forward-to']) out.info(`Forwarding accepted events to ${flags['forward-to']}`)
    for (const r of routes) out.info(`Forwarding ${r.pattern} to ${r.url}`)
    if (history?.enabled) out.info(`Keeping every delivery in ${history.dir} (pay webhook history)`)
    if (patterns.length > 0) out.info(`Showing and forwarding only: ${patterns.join(', ')}`)
    const health =
      chosen.provider !== 'none' && flags['health-interval'] > 0
        ? watchHealth({tunnel, path: flags.path, key: pingKey, intervalMs: flags['health-interval'] * 1000, log: tunnelLog})
        : undefined
    out.info(out.color('dim', 'Ready. Press Ctrl-C to stop.', 'err'))

    await stopped
    health?.stop()
    await registration?.clear()
    await tunnel.close()
    await listener.close()
    printSummary(tunnel.reconnects)
  }
}
