import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {connectionFlags} from '../../cli/flags.js'

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
    // Ctrl-C is honoured from the first line people see on, also while the tunnel is still opening
    const [{runListen}, {untilSignal}] = await Promise.all([import('../../webhooks/listen.js'), import('../../base/signals.js')])
    process.exitCode = await runListen(flags, await this.output(), {until: untilSignal()})
  }
}
