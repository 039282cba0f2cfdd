import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {connectionFlags} from '../../cli/flags.js'
import {EVENT_TYPES} from '../../webhooks/event-types.js'

export default class WebhookTrigger extends BaseCommand {
  static override summary = 'Send a signed sample event to a webhook receiver'
  static override description = `Posts a realistic sample of the event TYPE (see \`pay webhook events\`) to --to, signed like the service signs (Service-Signature over the exact body; see docs/assumptions.md) and with the delivery headers the sandbox sends (Service-Event-Id, Service-Event-Type, Service-Delivery-Attempt: 1) with the secret from --secret, PAY_WEBHOOK_SECRET or the profile. Prints the receiver's status and body. For testing your own endpoint, or \`pay webhook listen\`.

-F overrides fields of the resource in data: key=value sends a string, key:=json a JSON value, dots nest. --id reuses an event id (to test duplicate handling); --timestamp signs with another time (to test the tolerance check).

Exit 0 when the receiver answers 2xx, 1 for any other status, 7 when it cannot be reached.`

  static override examples = [
    {description: 'A succeeded collection to a local listener', command: '<%= config.bin %> webhook trigger collection.succeeded --to http://127.0.0.1:4242/webhooks --secret whsec_...'},
    {description: 'A failed payout with your own reference and amount', command: '<%= config.bin %> webhook trigger payout.failed --to https://shop.example.com/hooks -F merchant_reference=po-991 -F amount=75.00'},
    {description: 'A fixed event id: send it twice to test duplicate handling', command: '<%= config.bin %> webhook trigger mandate.succeeded --to http://127.0.0.1:4242/webhooks --id EVT_ABCDEFGHIJKLMNOPQRSTUVWX'},
    {description: 'Signed 10 minutes ago: a receiver must reject it', command: '<%= config.bin %> webhook trigger mandate.succeeded --to http://127.0.0.1:4242/webhooks --timestamp $(( $(date +%s) - 600 ))'},
  ]

  static override args = {
    // the choices: shell completion offers them (pay completion), and oclif refuses another word (exit 2)
    type: Args.string({description: 'Event type, e.g. collection.succeeded (list: pay webhook events)', required: true, options: [...EVENT_TYPES]}),
  }

  static override flags = {
    profile: connectionFlags.profile,
    to: Flags.string({description: 'Receiver URL', required: true}),
    secret: Flags.string({description: 'Webhook secret to sign with (env PAY_WEBHOOK_SECRET, or the profile); repeat to sign with several (rotation)', multiple: true}),
    field: Flags.string({char: 'F', description: 'Override a field of data: key=value (string), key:=json; dots nest. Repeatable', multiple: true}),
    id: Flags.string({description: 'Event id to use (EVT_ + 24 upper-case letters or digits; default: a new one)'}),
    timestamp: Flags.integer({description: 'Unix seconds to sign with (default: now)'}),
    timeout: Flags.integer({description: 'Seconds to wait for the receiver', default: 10, min: 1}),
    'dry-run': Flags.boolean({description: 'Print the request (headers and body) and send nothing'}),
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(WebhookTrigger)
    const out = await this.output()
    const rt = await this.runtime()
    const {InputError, NetworkError} = rt
    const {isEventType, sampleEvent} = await import('../../webhooks/samples.js')
    const {EVENT_ID_PATTERN} = await import('../../webhooks/events.js')
    const {deliveryHeaders} = await import('../../webhooks/delivery-headers.js')

    const problems: {flag: string; rule: string}[] = []
    if (!isEventType(args.type)) problems.push({flag: 'TYPE', rule: `"${args.type}" is not an event type of the spec (list: pay webhook events)`})
    let target: URL | undefined
    try {
      target = new URL(flags.to)
      if (!['http:', 'https:'].includes(target.protocol)) problems.push({flag: '--to', rule: 'must be an http:// or https:// URL'})
    } catch {
      problems.push({flag: '--to', rule: 'must be an http:// or https:// URL'})
    }
    if (flags.id !== undefined && !EVENT_ID_PATTERN.test(flags.id)) problems.push({flag: '--id', rule: 'must be EVT_ followed by 24 upper-case letters or digits'})
    const settings = await rt.resolveSettings({profile: flags.profile})
    const secrets = await rt.webhookSecrets(flags.secret, settings)
    if (secrets.some((s) => s.trim() === '')) problems.push({flag: '--secret', rule: 'must not be empty'})
    if (secrets.length === 0) problems.push({flag: '--secret', rule: 'is required to sign (or set PAY_WEBHOOK_SECRET, or webhook_secret in the profile)'})
    const overrides = rt.parseFieldFlags(flags.field)
    if (problems.length > 0) throw new InputError(problems)

    const event = sampleEvent(args.type as Parameters<typeof sampleEvent>[0], overrides)
    if (flags.id) event.id = flags.id
    const body = JSON.stringify(event)
    const headers = deliveryHeaders(event, body, secrets, {userAgent: `pay/${this.config.version} (webhook trigger)`, timestamp: flags.timestamp})

    if (flags['dry-run']) {
      if (out.json) out.data(JSON.stringify({dry_run: true, method: 'POST', url: target!.href, headers, body: event}))
      else out.data([`POST ${target!.href}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), '', body].join('\n'))
      return
    }

    out.info(out.color('dim', `POST ${target!.href}  ${event.type}  ${event.id}`, 'err'))
    let status: number
    let text: string
    let contentType: string | null
    try {
      const res = await fetch(target!, {method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(flags.timeout * 1000)})
      status = res.status
      contentType = res.headers.get('content-type')
      text = await res.text()
    } catch (err) {
      const e = err as {name?: string; cause?: {code?: string; message?: string}; message: string}
      const why = e.name === 'TimeoutError' ? `no answer within ${flags.timeout} s` : (e.cause?.code ?? e.cause?.message ?? e.message)
      throw new NetworkError(`${target!.href} could not be reached: ${why}`, 1, 'check that the receiver is running and the URL is right')
    }
    if (out.json) {
      let parsed: unknown = text
      if (contentType?.includes('json')) {
        try {
          parsed = JSON.parse(text)
        } catch {
          parsed = text
        }
      }
      out.data(JSON.stringify({event, status, body: parsed}))
    } else {
      // the receiver's answer is network text: printable on a terminal, as it is when piped
      const {forStdout} = await import('../../output/printable.js')
      const ok = status >= 200 && status < 300
      out.data(`${out.color(ok ? 'green' : 'red', `HTTP ${status}`)}${text ? `\n${forStdout(out.term.stdoutIsTTY).text(text)}` : ''}`)
    }
    if (status < 200 || status >= 300) process.exitCode = 1
  }
}
