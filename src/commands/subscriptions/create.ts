import {Flags} from '@oclif/core'
import {ApiCommand} from '../../cli/base-command.js'
import {bodyFlags, idempotencyFlags, waitFlags} from '../../cli/flags.js'
import {referenceFlag, walletFlags} from '../../cli/resource-flags.js'

export default class SubscriptionsCreate extends ApiCommand {
  static override summary = 'Enrol a subscriber on a plan (starts mandate enrolment)'
  static override description = `POST /v1/subscriptions (idempotent). The subscription starts "pending_approval" while the customer approves the mandate on their phone; the plan amount is charged once on approval (at once when the number already has an approved mandate). Later cycles are not automatic: charge them with \`pay debits create\`.
Needs the subscriptions product (else 403, exit 3); an unknown or inactive plan answers 422 validation_error.
On a terminal, a missing --plan is offered as a list from \`pay plans list\`.
Add --wait to poll until the subscription is active (exit 0) or failed/cancelled (exit 8), or --wait-timeout runs out (exit 9).`

  static override examples = [
    {description: 'Enrol Jane on the Gold plan and wait for approval', command: '<%= config.bin %> subscriptions create --plan PLN_ACMEGOLD --reference sub-jane-gold --customer-name "Jane Wanjiku" --customer-email jane@example.com --mobile 254712345678 --provider mpesa --wait'},
    {description: 'Interactive: pick the plan and provider from lists', command: '<%= config.bin %> subscriptions create --reference sub-otieno --customer-name "Otieno Odhiambo" --customer-email otieno@example.com --mobile 254733111222'},
  ]

  static override flags = {
    plan: Flags.string({description: 'Plan id (PLN_…), see `pay plans list`', helpValue: 'PLAN_ID'}),
    ...referenceFlag('this subscription'),
    'customer-name': Flags.string({description: "Subscriber's name"}),
    'customer-email': Flags.string({description: "Subscriber's email", helpValue: 'EMAIL'}),
    ...walletFlags,
    notes: Flags.string({description: 'Internal notes (at most 1000 characters)'}),
    ...waitFlags,
    ...idempotencyFlags,
    ...bodyFlags,
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(SubscriptionsCreate)
    const rt = await this.runtime()
    const ctx = await this.api(flags)
    process.exitCode = await rt.runOperation(ctx, {
      id: 'subscriptions.create',
      fields: [
        {key: 'plan_id', flag: '--plan', value: flags.plan, prompt: {message: 'Plan', choices: 'plans'}},
        {key: 'merchant_reference', flag: '--reference', value: flags.reference, prompt: {message: 'Merchant reference'}},
        {key: 'customer_name', flag: '--customer-name', value: flags['customer-name'], prompt: {message: "Subscriber's name"}},
        {key: 'customer_email', flag: '--customer-email', value: flags['customer-email'], prompt: {message: "Subscriber's email"}},
        {key: 'mobile', flag: '--mobile', value: flags.mobile, prompt: {message: 'Wallet number (10 to 15 digits)'}},
        {key: 'provider', flag: '--provider', value: flags.provider, prompt: {message: 'Mobile money provider', choices: 'providers'}},
        {key: 'notes', flag: '--notes', value: flags.notes},
      ],
      extra: {data: flags.data, field: flags.field},
      idempotencyKey: flags['idempotency-key'],
      dryRun: flags['dry-run'],
      view: 'subscription',
      wait: flags.wait
        ? {timeoutSec: flags['wait-timeout'], poll: (res, input) => {
          const ref = String((res.body as {merchant_reference?: unknown}).merchant_reference ?? (input.body as {merchant_reference?: unknown}).merchant_reference)
          return {id: 'subscriptions.get', input: {query: {merchant_reference: ref}}, label: `subscription ${ref}`}
        }}
        : undefined,
    })
  }
}
