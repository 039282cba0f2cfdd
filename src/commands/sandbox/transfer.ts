import {Args, Flags} from '@oclif/core'
import {SandboxCommand} from '../../cli/base-command.js'

export default class SandboxTransfer extends SandboxCommand {
  static override description = 'Simulate a bank transfer into a virtual account (dynamic or static) of the sandbox'
  static override examples = [{description: 'Pay a bank-transfer collection', command: '<%= config.bin %> <%= command.id %> 9012345678 --amount 700.00'}]
  static override args = {account_number: Args.string({description: 'Virtual account number', required: true})}
  static override flags = {amount: Flags.string({description: 'Amount as a decimal string', required: true, helpValue: 'DECIMAL'})}

  async run(): Promise<void> {
    const {args, flags} = await this.parse(SandboxTransfer)
    const {runSandboxTransfer} = await import('../../sandbox/control-commands.js')
    await runSandboxTransfer(this.controller(flags), {accountNumber: args.account_number, amount: flags.amount}, await this.output())
  }
}
