import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {historyFilterFlags} from '../../cli/flags.js'

export default class WebhookHistory extends BaseCommand {
  static override summary = 'The webhook deliveries `pay webhook listen` kept on this machine, newest first'
  static override description = `Every delivery that reached \`pay webhook listen\` (accepted, duplicate or rejected) is kept in the state dir ($XDG_STATE_HOME/pay/webhooks, or $PAY_CONFIG_DIR/state/webhooks) with its raw body, headers, verdict and every forward attempt, for 7 days and up to 256 MiB by default (see \`pay webhook listen --history-max-age/--history-max-size\`). See one with \`pay webhook show EVT_…\`, send again with \`pay webhook replay\`.`

  static override examples = [
    {description: 'The latest deliveries', command: '<%= config.bin %> webhook history'},
    {description: 'Payout events of the last hour whose forwarding failed', command: "<%= config.bin %> webhook history --type 'payout.*' --since 1h --forward failed"},
    {description: 'What arrived for one order, as JSON', command: '<%= config.bin %> webhook history --reference order-42 --json'},
    {description: 'Rejected deliveries as CSV', command: '<%= config.bin %> webhook history --verdict rejected -o csv'},
  ]

  static override flags = {
    ...historyFilterFlags,
    limit: Flags.integer({description: 'List at most this many', default: 50, min: 1}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(WebhookHistory)
    const {runWebhookHistory} = await import('../../webhooks/history-commands.js')
    runWebhookHistory(flags, await this.output())
  }
}
