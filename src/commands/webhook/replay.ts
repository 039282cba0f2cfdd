import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {connectionFlags, historyFilterFlags} from '../../cli/flags.js'

export default class WebhookReplay extends BaseCommand {
  static override summary = 'Send kept webhook deliveries to your app again, signed afresh'
  static override description = `Posts the exact raw body of each chosen delivery (kept by \`pay webhook listen\`) to --to, signed with the profile's webhook secret and a current timestamp, so that your app's own verification passes, with the header Service-Delivery-Replay: true. Choose events by id (their newest accepted delivery), or with filters: --failed picks the events whose forwarding has not succeeded yet, one delivery each. Each replay is recorded in the history: a replay answered 2xx clears the event from --failed.

Rejected deliveries are replayed only with --include-rejected. Deliveries the listener accepted without verifying their signature (--no-verify) are skipped (the count is said): a replay is signed with your real secret, so your app would trust whoever sent them; --include-unverified replays them, with a warning. --original-headers sends the headers as they were received (with a fresh signature) instead of a fresh set. Exits 1 when any replay is not answered 2xx.`

  static override strict = false
  static override args = {ids: Args.string({description: 'Event ids (EVT_…) or delivery ids (dlv_…) to replay; or use filters'})}

  static override examples = [
    {description: 'Everything your app failed in the last hour, once it is fixed', command: '<%= config.bin %> webhook replay --failed --since 1h --to http://localhost:3000/webhooks'},
    {description: 'Two events', command: '<%= config.bin %> webhook replay EVT_8F2K1P0Q9R3S7T5U4V6W2X1Y EVT_3D9J2M5N8B1V4C7X0Z6L2K1H --to http://localhost:3000/webhooks'},
    {description: 'All payout events of an order, with the headers as received', command: "<%= config.bin %> webhook replay --type 'payout.*' --reference order-42 --original-headers --to http://localhost:4000/payouts"},
  ]

  static override flags = {
    profile: connectionFlags.profile,
    to: Flags.string({description: 'URL of your app to post to (http or https)', required: true}),
    failed: Flags.boolean({description: 'Only events whose forwarding has not succeeded (their latest forward or replay not answered 2xx)', default: false}),
    ...historyFilterFlags,
    'include-rejected': Flags.boolean({description: 'Also replay deliveries the listener rejected (bad signature, not JSON…)', default: false}),
    'include-unverified': Flags.boolean({description: 'Also replay deliveries accepted without a verified signature (listen --no-verify): they are signed with your real secret (warns)', default: false}),
    'original-headers': Flags.boolean({description: 'Send the headers as received (signature replaced by a fresh one) instead of a fresh set', default: false}),
    secret: Flags.string({description: 'Webhook secret to sign with (env PAY_WEBHOOK_SECRET, or the profile)', multiple: true}),
    limit: Flags.integer({description: 'Replay at most this many (newest first) when chosen by filters', min: 1}),
    concurrency: Flags.integer({description: 'Replays in flight at most', default: 4, min: 1, max: 32}),
    'timeout': Flags.integer({description: 'Seconds to wait for each answer of your app', default: 10, min: 1}),
  }

  async run(): Promise<void> {
    const {argv, flags} = await this.parse(WebhookReplay)
    const {runWebhookReplay} = await import('../../webhooks/history-commands.js')
    const options = {...flags, ids: argv as string[], includeRejected: flags['include-rejected'], includeUnverified: flags['include-unverified'], originalHeaders: flags['original-headers'], timeoutMs: flags.timeout * 1000, userAgent: this.userAgent}
    process.exitCode = (await runWebhookReplay(options, await this.output())).exitCode
  }
}
