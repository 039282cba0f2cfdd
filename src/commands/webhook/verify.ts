import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {connectionFlags} from '../../cli/flags.js'

export default class WebhookVerify extends BaseCommand {
  static override summary = 'Check the signature of a saved webhook delivery, offline'
  static override description = `Verifies a delivery exactly as \`pay webhook listen\` does: the Service-Signature header value against the raw body bytes (from --file, or stdin), with the webhook secret from --secret, PAY_WEBHOOK_SECRET or the profile. Prints the event when it is genuine (exit 0), or the exact reason it is not (exit 1): missing or malformed header, no matching signature, timestamp outside --tolerance, body not JSON. Nothing is sent anywhere.

The body must be the exact bytes received: a re-formatted JSON, or a newline added by echo, no longer matches (the command says so when a trailing newline is the only difference). A saved delivery soon falls outside the 300 s tolerance: use --ignore-timestamp to check only the signature.`

  static override examples = [
    {description: 'A delivery saved to a file, signature header copied from the log', command: "<%= config.bin %> webhook verify --secret whsec_... --signature 't=1767225600,v1=5f2b…' --file delivery.json --ignore-timestamp"},
    {description: 'Body on stdin, secret from the environment, result as JSON', command: "printf '%s' \"$BODY\" | PAY_WEBHOOK_SECRET=whsec_... <%= config.bin %> webhook verify --signature \"$SIG\" --json"},
  ]

  static override flags = {
    profile: connectionFlags.profile,
    secret: Flags.string({description: 'Webhook secret (env PAY_WEBHOOK_SECRET, or the profile); repeat to try several (rotation)', multiple: true}),
    signature: Flags.string({description: "The Service-Signature header value ('t=…,v1=…'; a leading 'Service-Signature:' is accepted)", required: true}),
    file: Flags.string({char: 'f', description: 'File holding the raw body (default: stdin)'}),
    tolerance: Flags.integer({description: 'Seconds the timestamp may differ from now, either way', default: 300, min: 0}),
    'ignore-timestamp': Flags.boolean({description: 'Check only the signature, not the age of the timestamp'}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(WebhookVerify)
    const out = await this.output()
    const rt = await this.runtime()
    const {InputError} = rt
    const {verifySignature, parseSignatureHeader} = await import('../../webhooks/signature.js')

    const settings = await rt.resolveSettings({profile: flags.profile})
    const secrets = await rt.webhookSecrets(flags.secret, settings)
    if (secrets.length === 0) throw InputError.one('--secret', 'is required (or set PAY_WEBHOOK_SECRET, or webhook_secret in the profile)')
    const header = flags.signature.replace(/^\s*service-signature\s*:\s*/i, '').trim()

    let body: Buffer
    if (flags.file) {
      const {readFile} = await import('node:fs/promises')
      try {
        body = await readFile(flags.file)
      } catch (err) {
        throw InputError.one('--file', `cannot be read: ${(err as Error).message}`)
      }
    } else {
      if (process.stdin.isTTY) throw InputError.one('--file', 'or a body on stdin is required', 'pipe the raw body in, or give --file body.json')
      const chunks: Buffer[] = []
      for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk))
      body = Buffer.concat(chunks)
    }

    const now = Math.floor(Date.now() / 1000)
    const parsed = parseSignatureHeader(header)
    const result = verifySignature(header, body, secrets, {
      toleranceSeconds: flags['ignore-timestamp'] ? Number.MAX_SAFE_INTEGER : flags.tolerance,
      now,
    })
    let failure: {reason: string; detail: string} | undefined
    let event: unknown
    if (!result.ok) {
      failure = {reason: result.reason, detail: result.detail}
      if (result.reason === 'no_matching_signature' && /\r?\n$/.test(body.toString('latin1'))) {
        const trimmed = body.subarray(0, body.length - (body.toString('latin1').endsWith('\r\n') ? 2 : 1))
        if (verifySignature(header, trimmed, secrets, {toleranceSeconds: Number.MAX_SAFE_INTEGER, now}).ok) {
          failure.detail += '; it WOULD match without the trailing newline of the body (added by echo or an editor?)'
        }
      }
    } else {
      try {
        event = JSON.parse(body.toString('utf8'))
      } catch {
        failure = {reason: 'invalid_json', detail: 'the signature matches but the body is not JSON'}
      }
    }

    if (failure) {
      if (out.json) out.data(JSON.stringify({valid: false, ...failure}))
      out.errorLine(`invalid: ${failure.reason}: ${failure.detail}`)
      process.exitCode = 1
      return
    }
    const age = parsed ? now - parsed.timestamp : 0
    if (out.json) out.data(JSON.stringify({valid: true, timestamp: parsed?.timestamp, event}))
    else {
      out.info(`${out.color('green', 'valid', 'err')}: signature matches; timestamp ${parsed?.timestamp} (${Math.abs(age)} s ${age >= 0 ? 'ago' : 'in the future'})`)
      out.data(JSON.stringify(event, null, 2))
    }
  }
}
