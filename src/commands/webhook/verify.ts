import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {connectionFlags} from '../../cli/flags.js'

export default class WebhookVerify extends BaseCommand {
  static override summary = 'Check the signature of a saved webhook delivery, offline'
  static override description = `Verifies a delivery exactly as \`pay webhook listen\` does: the Service-Signature header value against the raw body bytes (from --file, or stdin), with the webhook secret from --secret, PAY_WEBHOOK_SECRET or the profile. Prints the event when it is genuine (exit 0) and which signature format matched, or the exact reason it is not (exit 1): missing header, unrecognised header format (its shape shown masked), no matching signature, timestamp outside --tolerance, body not JSON. Nothing is sent anywhere.\n\nThe service's signature format is not published, so every plausible one is tried, each a full HMAC comparison: t=…,v1=… (as pay signs), a bare hex or base64 digest with the timestamp in Service-Timestamp (--timestamp), SHA-256 or SHA-512 by length. Once the service's format is known, pin it with webhook_signature in the profile (or PAY_WEBHOOK_SIGNATURE).

The body must be the exact bytes received: a re-formatted JSON, or a newline added by echo, no longer matches (the command says so when a trailing newline is the only difference). A saved delivery soon falls outside the 300 s tolerance: use --ignore-timestamp to check only the signature.`

  static override examples = [
    {description: 'Which signature formats were tried, and which matched', command: "<%= config.bin %> webhook verify --secret whsec_... --signature \"$SIG\" --file delivery.json --ignore-timestamp --explain"},
    {description: 'A delivery saved to a file, signature header copied from the log', command: "<%= config.bin %> webhook verify --secret whsec_... --signature 't=1767225600,v1=5f2b…' --file delivery.json --ignore-timestamp"},
    {description: 'Body on stdin, secret from the environment, result as JSON', command: "printf '%s' \"$BODY\" | PAY_WEBHOOK_SECRET=whsec_... <%= config.bin %> webhook verify --signature \"$SIG\" --json"},
  ]

  static override flags = {
    profile: connectionFlags.profile,
    secret: Flags.string({description: 'Webhook secret (env PAY_WEBHOOK_SECRET, or the profile); repeat to try several (rotation)', multiple: true}),
    signature: Flags.string({description: "The Service-Signature header value ('t=…,v1=…', a bare hex or base64 digest, …; a leading 'Service-Signature:' is accepted)", required: true}),
    timestamp: Flags.string({description: 'The Service-Timestamp header value, when the service sends the timestamp apart from the signature'}),
    file: Flags.string({char: 'f', description: 'File holding the raw body (default: stdin)'}),
    tolerance: Flags.integer({description: 'Seconds the timestamp may differ from now, either way', default: 300, min: 0}),
    'ignore-timestamp': Flags.boolean({description: 'Check only the signature, not the age of the timestamp'}),
    explain: Flags.boolean({description: 'List every signature candidate tried and whether it matched (or, for a header pay cannot read, the formats it recognises)'}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(WebhookVerify)
    const {runWebhookVerify} = await import('../../webhooks/verify-delivery.js')
    process.exitCode = await runWebhookVerify(flags, await this.output())
  }
}
