import {Flags} from '@oclif/core'
import {ApiCommand} from '../../cli/base-command.js'
import {waitFlags} from '../../cli/flags.js'

export default class DebitsStatus extends ApiCommand {
  static override summary = 'Show the state of a mandate debit'
  static override description = `GET /v1/mandate_debits/status?mandate_id=…&merchant_reference=…
With --wait, polls until the debit has succeeded (exit 0) or failed (exit 8), or --wait-timeout runs out (exit 9).`

  static override examples = [
    {description: 'Show a debit', command: '<%= config.bin %> debits status --mandate MD_7H3K9P2W --reference gym-jane-2026-12'},
    {description: 'Wait for it, as JSON', command: '<%= config.bin %> debits status --mandate MD_7H3K9P2W --reference gym-jane-2026-12 --wait --json | jq -r .status'},
  ]

  static override flags = {
    mandate: Flags.string({char: 'm', description: 'Mandate id (MD_…) the debit was made on', helpValue: 'MANDATE_ID'}),
    reference: Flags.string({char: 'r', description: 'Merchant reference of the debit', helpValue: 'REF'}),
    ...waitFlags,
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(DebitsStatus)
    const rt = await this.runtime()
    const ctx = await this.api(flags)
    process.exitCode = await rt.runOperation(ctx, {
      id: 'debits.status',
      fields: [
        {key: 'mandate_id', in: 'query', flag: '--mandate', value: flags.mandate, prompt: {message: 'Mandate id (MD_…)'}},
        {key: 'merchant_reference', in: 'query', flag: '--reference', value: flags.reference, prompt: {message: 'Merchant reference of the debit'}},
      ],
      view: 'debit',
      wait: flags.wait ? {timeoutSec: flags['wait-timeout'], poll: (_res, input) => ({id: 'debits.status', input, label: `debit ${input.query?.merchant_reference}`})} : undefined,
    })
  }
}
