import {Args} from '@oclif/core'
import {ApiCommand} from '../../cli/base-command.js'
import {waitFlags} from '../../cli/flags.js'

export default class PayoutsGet extends ApiCommand {
  static override summary = 'Show a payout by its merchant reference'
  static override description = `GET /v1/payouts/{merchant_reference}: state, amount, fee, amount debited and why it failed (status_detail).
With --wait, polls until it has succeeded (exit 0) or failed (exit 8), or --wait-timeout runs out (exit 9).`

  static override examples = [
    {description: 'Show a payout', command: '<%= config.bin %> payouts get supplier-0425'},
    {description: 'Wait for the outcome, as JSON', command: '<%= config.bin %> payouts get payroll-2026-04-jane --wait --json'},
  ]

  static override args = {
    reference: Args.string({description: 'Your merchant reference of the payout'}),
  }

  static override flags = {...waitFlags}

  async run(): Promise<void> {
    const {args, flags} = await this.parse(PayoutsGet)
    const rt = await this.runtime()
    const ctx = await this.api(flags)
    process.exitCode = await rt.runOperation(ctx, {
      id: 'payouts.get',
      fields: [{key: 'merchant_reference', in: 'path', flag: 'REFERENCE', value: args.reference, prompt: {message: 'Merchant reference of the payout'}}],
      view: 'payout',
      wait: flags.wait ? {timeoutSec: flags['wait-timeout'], poll: (_res, input) => ({id: 'payouts.get', input, label: `payout ${input.path?.merchant_reference}`})} : undefined,
    })
  }
}
