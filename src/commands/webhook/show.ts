import {Args} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'

export default class WebhookShow extends BaseCommand {
  static override summary = 'One kept webhook event in full: raw body, headers, verdict and every forward attempt'
  static override description = 'Every delivery of the event kept by `pay webhook listen` (newest first), or one delivery by its id (dlv_…, from `pay webhook history --json`): the body as received, pretty-printed, its headers (secret-named ones redacted), the verdict and its reason, the signature format it was verified in (`scheme` under --json, as `pay webhook verify` names it: the one a replay signs in; null when not verified), and each forward and replay attempt with URL, status and duration.'
  static override args = {id: Args.string({description: 'Event id (EVT_…) or delivery id (dlv_…)', required: true})}
  static override examples = [
    {description: 'An event', command: '<%= config.bin %> webhook show EVT_8F2K1P0Q9R3S7T5U4V6W2X1Y'},
    {description: 'Its raw body only', command: "<%= config.bin %> webhook show EVT_8F2K1P0Q9R3S7T5U4V6W2X1Y --json --jq '.deliveries[0].body'"},
  ]

  async run(): Promise<void> {
    const {args} = await this.parse(WebhookShow)
    const {runWebhookShow} = await import('../../webhooks/history-commands.js')
    runWebhookShow({id: args.id}, await this.output())
  }
}
