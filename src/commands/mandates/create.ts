import {Flags} from '@oclif/core'
import {ApiCommand} from '../../cli/base-command.js'
import {bodyFlags, idempotencyFlags, waitFlags} from '../../cli/flags.js'
import {moneyFlags, referenceFlag, walletFlags} from '../../cli/resource-flags.js'

export default class MandatesCreate extends ApiCommand {
  static override summary = 'Create a direct-debit mandate (step 1 of recurring debits)'
  static override description = `POST /v1/mandates (idempotent). The customer gets an approval prompt on their phone; the mandate is "processing" until they approve ("succeeded"), after which \`pay debits create\` can charge it. When the number already has an approved mandate, it is reused and answers succeeded at once.
A second create for a number whose first mandate is still awaiting approval answers 409 (exit 5): look the first one up with \`pay mandates get --reference\`.
--plan links the mandate to a subscription plan (then --customer-name and --customer-email are required). Without a plan no debit happens automatically.
Add --wait to poll GET /v1/mandates until it is approved (exit 0) or cancelled (exit 8), or --wait-timeout runs out (exit 9).`

  static override examples = [
    {description: 'Monthly mandate starting on the 1st, waiting for approval', command: '<%= config.bin %> mandates create --mobile 254712345678 --provider mpesa --currency KES --amount 1500.00 --frequency MONTHLY --starts-at 2026-12-01T09:00:00Z --reference gym-jane-2026 --wait --wait-timeout 600'},
    {description: 'Linked to a plan', command: '<%= config.bin %> mandates create --mobile 254712345678 --provider mpesa --currency KES --amount 400 --frequency WEEKLY --starts-at 2026-12-07T08:00:00+03:00 --reference veg-box-jane --plan PLN_ACMESILVER --customer-name "Jane Wanjiku" --customer-email jane@example.com'},
  ]

  static override flags = {
    ...walletFlags,
    ...moneyFlags,
    frequency: Flags.string({description: 'How often the mandate may be debited: DAILY, WEEKLY or MONTHLY', helpValue: 'DAILY|WEEKLY|MONTHLY'}),
    'starts-at': Flags.string({description: 'First debit date-time, ISO 8601 with offset, e.g. 2026-12-01T09:00:00Z', helpValue: 'DATETIME'}),
    ...referenceFlag('this mandate'),
    description: Flags.string({description: 'Free text shown with the mandate (at most 255 characters)'}),
    plan: Flags.string({description: 'Subscription plan id (PLN_…) to link; needs --customer-name and --customer-email', helpValue: 'PLAN_ID'}),
    'customer-name': Flags.string({description: "Customer's name (required with --plan)"}),
    'customer-email': Flags.string({description: "Customer's email (required with --plan)", helpValue: 'EMAIL'}),
    notes: Flags.string({description: 'Internal notes (at most 1000 characters)'}),
    ...waitFlags,
    ...idempotencyFlags,
    ...bodyFlags,
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(MandatesCreate)
    const rt = await this.runtime()
    const ctx = await this.api(flags)
    process.exitCode = await rt.runOperation(ctx, {
      id: 'mandates.create',
      fields: [
        {key: 'mobile', flag: '--mobile', value: flags.mobile, prompt: {message: 'Wallet number (10 to 15 digits)'}},
        {key: 'provider', flag: '--provider', value: flags.provider, prompt: {message: 'Mobile money provider', choices: 'providers'}},
        {key: 'currency', flag: '--currency', value: flags.currency, upper: true, prompt: {message: 'Currency (e.g. KES)'}},
        {key: 'amount', flag: '--amount', value: flags.amount, prompt: {message: 'Amount per debit (e.g. 1500.00)'}},
        {key: 'frequency', flag: '--frequency', value: flags.frequency, upper: true, prompt: {message: 'Frequency', choices: ['DAILY', 'WEEKLY', 'MONTHLY']}},
        {key: 'starts_at', flag: '--starts-at', value: flags['starts-at'], prompt: {message: 'Starts at (ISO 8601, e.g. 2026-12-01T09:00:00Z)'}},
        {key: 'merchant_reference', flag: '--reference', value: flags.reference, prompt: {message: 'Merchant reference'}},
        {key: 'description', flag: '--description', value: flags.description},
        {key: 'plan_id', flag: '--plan', value: flags.plan},
        {key: 'customer_name', flag: '--customer-name', value: flags['customer-name'], prompt: {message: "Customer's name"}},
        {key: 'customer_email', flag: '--customer-email', value: flags['customer-email'], prompt: {message: "Customer's email"}},
        {key: 'notes', flag: '--notes', value: flags.notes},
      ],
      extra: {data: flags.data, field: flags.field},
      idempotencyKey: flags['idempotency-key'],
      dryRun: flags['dry-run'],
      view: 'mandate-create',
      wait: flags.wait
        ? {timeoutSec: flags['wait-timeout'], poll: (res, input) => {
          const ref = String((res.body as {merchant_reference?: unknown}).merchant_reference ?? (input.body as {merchant_reference?: unknown}).merchant_reference)
          return {id: 'mandates.get', input: {query: {merchant_reference: ref}}, label: `mandate ${ref}`, view: 'mandate'}
        }}
        : undefined,
    })
  }
}
