import {Args, Flags} from '@oclif/core'
import {ApiCommand} from '../../cli/base-command.js'
import {bodyFlags, idempotencyFlags} from '../../cli/flags.js'

export default class MandatesCancel extends ApiCommand {
  static override summary = 'Cancel a mandate'
  static override description = `POST /v1/mandates/{mandate_id}/cancel (idempotent). The answer may still read "processing" while the cancellation is applied; the mandate then ends "cancelled".
Every mandate of the merchant that shares the same upstream mandate is cancelled, and a new mandate for the number needs the customer's approval again.`

  static override examples = [
    {description: 'Cancel at the customer\'s request', command: '<%= config.bin %> mandates cancel MD_7H3K9P2W --mobile 254712345678 --reason "Customer asked to stop"'},
    {description: 'Preview the request', command: '<%= config.bin %> mandates cancel MD_7H3K9P2W --mobile 254712345678 --reason "Duplicate mandate" --dry-run'},
  ]

  static override args = {
    mandate_id: Args.string({description: 'Mandate id (MD_…)'}),
  }

  static override flags = {
    mobile: Flags.string({description: 'Wallet number of the mandate, 10 to 15 digits', helpValue: 'DIGITS'}),
    reason: Flags.string({description: 'Why the mandate is cancelled (kept with the cancellation)'}),
    ...idempotencyFlags,
    ...bodyFlags,
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(MandatesCancel)
    const rt = await this.runtime()
    const ctx = await this.api(flags)
    process.exitCode = await rt.runOperation(ctx, {
      id: 'mandates.cancel',
      fields: [
        {key: 'mandate_id', in: 'path', flag: 'MANDATE_ID', value: args.mandate_id, prompt: {message: 'Mandate id (MD_…)'}},
        {key: 'mobile', flag: '--mobile', value: flags.mobile, prompt: {message: 'Wallet number of the mandate'}},
        {key: 'reason', flag: '--reason', value: flags.reason, prompt: {message: 'Reason for cancelling'}},
      ],
      extra: {data: flags.data, field: flags.field},
      idempotencyKey: flags['idempotency-key'],
      dryRun: flags['dry-run'],
      view: 'mandate-cancellation',
    })
  }
}
