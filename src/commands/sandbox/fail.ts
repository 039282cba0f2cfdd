import {Args} from '@oclif/core'
import {SandboxCommand} from '../../cli/base-command.js'

export default class SandboxFail extends SandboxCommand {
  static override description = 'Force a processing transaction (collection CL_, checkout session CS_, payout PO_ or debit DB_) to fail in the sandbox'
  static override examples = [{description: 'Fail a payout to test your failure handling', command: '<%= config.bin %> <%= command.id %> PO_LSDIRSVWOJXBMRAZLJWR'}]
  static override args = {id: Args.string({description: 'Transaction id', required: true})}

  async run(): Promise<void> {
    const {args, flags} = await this.parse(SandboxFail)
    const out = await this.control(flags, 'transactions.fail', {path: {id: args.id}})
    await this.print(out, `${args.id} ${out.status}`)
  }
}
