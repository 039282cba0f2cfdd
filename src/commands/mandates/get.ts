import {Flags} from '@oclif/core'
import {ApiCommand} from '../../cli/base-command.js'
import {waitFlags} from '../../cli/flags.js'

export default class MandatesGet extends ApiCommand {
  static override summary = 'Show a mandate by its merchant reference'
  static override description = `GET /v1/mandates?merchant_reference=REF: the mandate as the service keeps it (processing until the customer approves, then succeeded; cancelled after \`pay mandates cancel\`).
With --wait, polls until it is approved (exit 0) or cancelled (exit 8), or --wait-timeout runs out (exit 9).`

  static override examples = [
    {description: 'Show a mandate', command: '<%= config.bin %> mandates get --reference gym-jane-2026'},
    {description: 'Wait for the customer to approve, then debit', command: '<%= config.bin %> mandates get --reference gym-jane-2026 --wait && <%= config.bin %> debits create MD_7H3K9P2W --amount 1500 --currency KES --reference gym-jane-2026-12 --provider mpesa'},
  ]

  static override flags = {
    reference: Flags.string({char: 'r', description: 'Merchant reference the mandate was created with', helpValue: 'REF'}),
    ...waitFlags,
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(MandatesGet)
    const rt = await this.runtime()
    const ctx = await this.api(flags)
    process.exitCode = await rt.runOperation(ctx, {
      id: 'mandates.get',
      fields: [{key: 'merchant_reference', in: 'query', flag: '--reference', value: flags.reference, prompt: {message: 'Merchant reference of the mandate'}}],
      view: 'mandate',
      wait: flags.wait ? {timeoutSec: flags['wait-timeout'], poll: (_res, input) => ({id: 'mandates.get', input, label: `mandate ${input.query?.merchant_reference}`})} : undefined,
    })
  }
}
