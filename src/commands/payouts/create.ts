import {Flags} from '@oclif/core'
import {ApiCommand} from '../../cli/base-command.js'
import {bodyFlags, idempotencyFlags, waitFlags} from '../../cli/flags.js'
import {descriptionFlag, moneyFlags, referenceFlag, walletFlags} from '../../cli/resource-flags.js'

export default class PayoutsCreate extends ApiCommand {
  static override summary = 'Send money from the payout wallet to a mobile money wallet or a bank account'
  static override description = `POST /v1/payouts (idempotent). The payout is drawn from the payout wallet (see \`pay balance\`); the answer shows the fee and the amount debited.
The spec does not show the payout request fields: the destination flags below are our choice (docs/assumptions.md). Mobile money (default rail) needs --mobile and --provider; --rail bank_transfer needs --bank-code and --account-number (--account-name optional). Anything else the service wants can be sent with --data or -F.
Check the name behind a destination first with \`pay verifications msisdn\` or \`pay verifications bank-account\`.
Add --wait to poll until the payout has succeeded (exit 0) or failed (exit 8), or --wait-timeout runs out (exit 9).`

  static override examples = [
    {description: 'Pay a supplier on M-Pesa and wait', command: '<%= config.bin %> payouts create --amount 1200.00 --currency KES --reference supplier-0425 --mobile 254712345678 --provider mpesa --wait'},
    {description: 'Pay into a bank account', command: '<%= config.bin %> payouts create --amount 50000 --currency KES --reference payroll-2026-04-jane --rail bank_transfer --bank-code 68 --account-number 0123456789 --account-name "Jane Wanjiku"'},
    {description: 'With an extra field the service accepts', command: '<%= config.bin %> payouts create --amount 300 --currency KES --reference refund-981 --mobile 254712345678 --provider mpesa -F narration="Refund order 981"'},
  ]

  static override flags = {
    ...moneyFlags,
    ...referenceFlag('this payout'),
    rail: Flags.string({description: 'Destination rail: mobile_money (default) or bank_transfer', helpValue: 'mobile_money|bank_transfer'}),
    ...walletFlags,
    'bank-code': Flags.string({description: 'Destination bank code, at most 32 characters (see `pay metadata banks`); bank_transfer', helpValue: 'CODE'}),
    'account-number': Flags.string({description: 'Destination bank account number, at most 64 characters; bank_transfer', helpValue: 'NUMBER'}),
    'account-name': Flags.string({description: 'Name on the destination bank account; bank_transfer'}),
    ...descriptionFlag,
    ...waitFlags,
    ...idempotencyFlags,
    ...bodyFlags,
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(PayoutsCreate)
    const rt = await this.runtime()
    const ctx = await this.api(flags)
    process.exitCode = await rt.runOperation(ctx, {
      id: 'payouts.create',
      fields: [
        {key: 'amount', flag: '--amount', value: flags.amount, prompt: {message: 'Amount (e.g. 1200.00)'}},
        {key: 'currency', flag: '--currency', value: flags.currency, upper: true, prompt: {message: 'Currency (e.g. KES)'}},
        {key: 'merchant_reference', flag: '--reference', value: flags.reference, prompt: {message: 'Merchant reference'}},
        {key: 'payment_rail', flag: '--rail', value: flags.rail},
        {key: 'mobile', flag: '--mobile', value: flags.mobile, prompt: {message: 'Destination wallet number (10 to 15 digits)'}},
        {key: 'provider', flag: '--provider', value: flags.provider, prompt: {message: 'Mobile money provider', choices: 'providers'}},
        {key: 'bank_code', flag: '--bank-code', value: flags['bank-code'], prompt: {message: 'Destination bank', choices: 'banks'}},
        {key: 'account_number', flag: '--account-number', value: flags['account-number'], prompt: {message: 'Destination account number'}},
        {key: 'account_name', flag: '--account-name', value: flags['account-name']},
        {key: 'description', flag: '--description', value: flags.description},
      ],
      extra: {data: flags.data, field: flags.field},
      idempotencyKey: flags['idempotency-key'],
      dryRun: flags['dry-run'],
      view: 'payout',
      wait: flags.wait
        ? {timeoutSec: flags['wait-timeout'], poll: (res, input) => {
          const ref = String((res.body as {merchant_reference?: unknown}).merchant_reference ?? (input.body as {merchant_reference?: unknown}).merchant_reference)
          return {id: 'payouts.get', input: {path: {merchant_reference: ref}}, label: `payout ${ref}`}
        }}
        : undefined,
    })
  }
}
