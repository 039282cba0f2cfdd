import {Args} from '@oclif/core'
import {ApiCommand} from '../../cli/base-command.js'

export default class CustomersGet extends ApiCommand {
  static override summary = 'Show a customer'
  static override description = 'GET /v1/customers/{id}: name, email, mobile, your reference and when the customer was created.'

  static override examples = [
    {description: 'Show a customer', command: '<%= config.bin %> customers get MC_ACME0001'},
    {description: 'Script: the email', command: '<%= config.bin %> customers get MC_ACME0001 --json | jq -r .email'},
  ]

  static override args = {
    id: Args.string({description: 'Customer id (MC_…)'}),
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(CustomersGet)
    const rt = await this.runtime()
    const ctx = await this.api(flags)
    process.exitCode = await rt.runOperation(ctx, {
      id: 'customers.get',
      fields: [{key: 'id', in: 'path', flag: 'ID', value: args.id, prompt: {message: 'Customer id (MC_…)'}}],
      view: 'customer',
    })
  }
}
