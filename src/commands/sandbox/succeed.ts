import {Args} from '@oclif/core'
import {SandboxControlCommand} from '../../sandbox/control-command.js'

export default class SandboxSucceed extends SandboxControlCommand {
  static override description = 'Force a processing transaction (collection CL_, checkout session CS_, payout PO_ or debit DB_) to succeed in the sandbox'
  static override examples = [
    {description: 'Complete a collection waiting on a number ending in 8', command: '<%= config.bin %> <%= command.id %> CL_8W7MS7ZAC2H8YDXQ62V7'},
  ]
  static override args = {id: Args.string({description: 'Transaction id', required: true})}

  async run(): Promise<void> {
    const {args, flags} = await this.parse(SandboxSucceed)
    const out = await this.control(await this.sandboxUrl(flags.url), 'POST', `/_sandbox/transactions/${encodeURIComponent(args.id)}/succeed`)
    this.print(flags.json, out, `${args.id} ${out.status}`)
  }
}
