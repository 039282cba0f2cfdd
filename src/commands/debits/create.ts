import {Args, Flags} from '@oclif/core'
import {ApiCommand} from '../../cli/base-command.js'
import {bodyFlags, idempotencyFlags, waitFlags} from '../../cli/flags.js'
import {moneyFlags} from '../../cli/resource-flags.js'

export default class DebitsCreate extends ApiCommand {
  static override summary = 'Debit an approved mandate'
  static override description = `POST /v1/mandates/{mandate_id}/debits (idempotent). The mandate must be approved (\`pay mandates get --reference REF\` shows succeeded). API-enrolled subscriptions are not charged automatically after the first cycle: run this on your own schedule.
Add --wait to poll GET /v1/mandate_debits/status until the debit has succeeded (exit 0) or failed (exit 8), or --wait-timeout runs out (exit 9).`

  static override examples = [
    {description: 'Charge this month\'s instalment and wait', command: '<%= config.bin %> debits create MD_7H3K9P2W --amount 1500.00 --currency KES --reference gym-jane-2026-12 --provider mpesa --wait'},
    {description: 'From a scheduler, with a stable idempotency key', command: '<%= config.bin %> debits create MD_7H3K9P2W --amount 400 --currency KES --reference veg-box-jane-w49 --provider mpesa --idempotency-key veg-box-jane-w49 --json'},
  ]

  static override args = {
    mandate_id: Args.string({description: 'Mandate id (MD_…)'}),
  }

  static override flags = {
    ...moneyFlags,
    reference: Flags.string({char: 'r', description: 'Your merchant reference for this debit (at most 255 characters)', helpValue: 'REF'}),
    provider: Flags.string({description: 'Mobile money provider code of the mandate, at most 64 characters', helpValue: 'CODE'}),
    ...waitFlags,
    ...idempotencyFlags,
    ...bodyFlags,
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(DebitsCreate)
    const rt = await this.runtime()
    const ctx = await this.api(flags)
    process.exitCode = await rt.runOperation(ctx, {
      id: 'debits.create',
      fields: [
        {key: 'mandate_id', in: 'path', flag: 'MANDATE_ID', value: args.mandate_id, prompt: {message: 'Mandate id (MD_…)'}},
        {key: 'amount', flag: '--amount', value: flags.amount, prompt: {message: 'Amount (e.g. 1500.00)'}},
        {key: 'currency', flag: '--currency', value: flags.currency, upper: true, prompt: {message: 'Currency (e.g. KES)'}},
        {key: 'merchant_reference', flag: '--reference', value: flags.reference, prompt: {message: 'Merchant reference for this debit'}},
        {key: 'provider', flag: '--provider', value: flags.provider, prompt: {message: 'Mobile money provider', choices: 'providers'}},
      ],
      extra: {data: flags.data, field: flags.field},
      idempotencyKey: flags['idempotency-key'],
      dryRun: flags['dry-run'],
      view: 'debit',
      wait: flags.wait
        ? {timeoutSec: flags['wait-timeout'], poll: (_res, input) => {
          const ref = String((input.body as {merchant_reference?: unknown}).merchant_reference)
          return {id: 'debits.status', input: {query: {mandate_id: input.path?.mandate_id, merchant_reference: ref}}, label: `debit ${ref}`}
        }}
        : undefined,
    })
  }
}
