import {Flags} from '@oclif/core'
import {ApiCommand} from '../../cli/base-command.js'

export default class VirtualAccountsGet extends ApiCommand {
  static override summary = "Show a customer's (--customer) or the merchant's (--merchant) static bank account"
  static override description = `--customer ID: GET /v1/customers/{id}/virtual-account. --merchant: GET /v1/virtual-accounts/merchant.
Shows the bank, account number and name to give to whoever pays in, its state and deposit limit.
On a terminal, when neither flag is given, you are asked which account.`

  static override examples = [
    {description: "Jane's account", command: '<%= config.bin %> virtual-accounts get --customer MC_ACME0001'},
    {description: "The merchant's account number", command: '<%= config.bin %> virtual-accounts get --merchant --json | jq -r .virtual_account.account_number'},
  ]

  static override flags = {
    customer: Flags.string({char: 'c', description: 'Customer id (MC_…)', helpValue: 'ID'}),
    merchant: Flags.boolean({description: "The merchant's own standing account"}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(VirtualAccountsGet)
    const rt = await this.runtime()
    const ctx = await this.api(flags)
    const {customer, problems} = await rt.chooseAccountOwner(ctx, flags)
    const forCustomer = customer !== undefined
    process.exitCode = await rt.runOperation(ctx, {
      id: forCustomer ? 'customers.getVirtualAccount' : 'merchantVirtualAccount.get',
      fields: forCustomer ? [{key: 'id', in: 'path', flag: '--customer', value: customer}] : [],
      problems,
      view: 'virtual-account',
    })
  }
}
