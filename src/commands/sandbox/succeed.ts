import {Args} from '@oclif/core'
import {SandboxCommand} from '../../cli/base-command.js'

export default class SandboxSucceed extends SandboxCommand {
  static override description = 'Force a processing transaction (collection CL_, checkout session CS_, payout PO_ or debit DB_) to succeed in the sandbox'
  static override examples = [
    {description: 'Complete a collection waiting on a number ending in 8', command: '<%= config.bin %> <%= command.id %> CL_8W7MS7ZAC2H8YDXQ62V7'},
  ]
  static override args = {id: Args.string({description: 'Transaction id', required: true})}

  async run(): Promise<void> {
    const {args, flags} = await this.parse(SandboxSucceed)
    const out = await this.control(flags, 'transactions.succeed', {path: {id: args.id}})
    await this.print(out, `${args.id} ${out.status}`)
  }
}
