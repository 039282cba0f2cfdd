import {Flags} from '@oclif/core'
import {ApiCommand} from '../../cli/base-command.js'
import {idempotencyFlags} from '../../cli/flags.js'

export default class VirtualAccountsCreate extends ApiCommand {
  static override summary = "Issue a static bank account for a customer (--customer) or the merchant (--merchant)"
  static override description = `--customer ID: POST /v1/customers/{id}/virtual-account, a dedicated standing bank account for one customer (capped at 1000 active accounts per merchant).
--merchant: POST /v1/virtual-accounts/merchant, the merchant's standing account.
Both need the Static VA product, send the body [] and are idempotent: repeat calls return the existing ACTIVE account.
On a terminal, when neither flag is given, you are asked which account.`

  static override examples = [
    {description: "Give Jane her own account to pay into", command: '<%= config.bin %> virtual-accounts create --customer MC_ACME0001'},
    {description: "The merchant's standing account, as JSON", command: '<%= config.bin %> virtual-accounts create --merchant --json | jq -r .virtual_account.account_number'},
  ]

  static override flags = {
    customer: Flags.string({char: 'c', description: 'Customer id (MC_…) to issue the account for', helpValue: 'ID'}),
    merchant: Flags.boolean({description: "Issue (or return) the merchant's own standing account"}),
    ...idempotencyFlags,
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(VirtualAccountsCreate)
    const rt = await this.runtime()
    const ctx = await this.api(flags)
    const {customer, problems} = await rt.chooseAccountOwner(ctx, flags)
    const forCustomer = customer !== undefined
    process.exitCode = await rt.runOperation(ctx, {
      id: forCustomer ? 'customers.createVirtualAccount' : 'merchantVirtualAccount.create',
      fields: forCustomer ? [{key: 'id', in: 'path', flag: '--customer', value: customer}] : [],
      problems,
      fixedBody: [],
      idempotencyKey: flags['idempotency-key'],
      dryRun: flags['dry-run'],
      view: 'virtual-account',
    })
  }
}
