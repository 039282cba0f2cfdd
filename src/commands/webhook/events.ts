import {BaseCommand} from '../../cli/base-command.js'

export default class WebhookEvents extends BaseCommand {
  static override summary = 'List the webhook event types'
  static override description = `The event types of the service (interface version 1.0), the resource each carries in data, the operation that starts it and the state of the resource in the sample \`pay webhook trigger\` sends. Use the names with \`pay webhook trigger TYPE\` and as globs with \`pay webhook listen --events\`.`

  static override examples = [
    {description: 'All event types', command: '<%= config.bin %> webhook events'},
    {description: 'Only the names, for a script', command: "<%= config.bin %> webhook events --jq '.[].type'"},
  ]

  async run(): Promise<void> {
    await this.parse(WebhookEvents)
    const {runWebhookEvents} = await import('../../webhooks/samples.js')
    runWebhookEvents(await this.output())
  }
}
