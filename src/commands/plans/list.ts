import {ApiCommand} from '../../cli/base-command.js'

export default class PlansList extends ApiCommand {
  static override summary = 'List the active subscription plans'
  static override description = `GET /v1/subscription_plans. Needs the subscriptions product: without it the service answers 403 forbidden (exit 3).
Plan ids (PLN_…) are used by \`pay subscriptions create --plan\` and \`pay mandates create --plan\`.`

  static override examples = [
    {description: 'Table of plans', command: '<%= config.bin %> plans list'},
    {description: 'Script: plan ids only', command: "<%= config.bin %> plans list --json | jq -r '.data[].plan_id'"},
  ]

  async run(): Promise<void> {
    const {flags} = await this.parse(PlansList)
    const rt = await this.runtime()
    const ctx = await this.api(flags)
    process.exitCode = await rt.runOperation(ctx, {id: 'plans.list', fields: [], view: 'plans'})
  }
}
