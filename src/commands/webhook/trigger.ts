import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {connectionFlags} from '../../cli/flags.js'
import {EVENT_TYPES} from '../../webhooks/event-types.js'

export default class WebhookTrigger extends BaseCommand {
  static override summary = 'Send a signed sample event to a webhook receiver'
  static override description = `Posts a realistic sample of the event TYPE (see \`pay webhook events\`) to --to, signed like the service signs (Service-Signature over the exact body, in the format webhook_signature / PAY_WEBHOOK_SIGNATURE pins, else pay's default t=…,v1=<hex>; see docs/assumptions.md) and with the delivery headers the sandbox sends (Service-Event-Id, Service-Event-Type, Service-Delivery-Attempt: 1) with the secret from --secret, PAY_WEBHOOK_SECRET or the profile. Prints the receiver's status and body. For testing your own endpoint, or \`pay webhook listen\`.

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
    const {runWebhookTrigger} = await import('../../webhooks/trigger.js')
    process.exitCode = await runWebhookTrigger({...flags, type: args.type}, await this.output(), {userAgent: `pay/${this.config.version} (webhook trigger)`})
  }
}
