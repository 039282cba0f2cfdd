import {Flags} from '@oclif/core'
import {ApiCommand} from '../../cli/base-command.js'
import {bodyFlags, idempotencyFlags, waitFlags} from '../../cli/flags.js'
import {descriptionFlag, moneyFlags, referenceFlag, walletFlags} from '../../cli/resource-flags.js'

export default class CollectionsCreate extends ApiCommand {
  static override summary = 'Collect money: charge a mobile money wallet or issue a bank account for one order'
  static override description = `POST /v1/collections (idempotent).
On the mobile money rail (the default) the customer gets a prompt on their phone for --amount; --mobile and --provider are required.
On the bank transfer rail (--rail bank_transfer) the service issues a temporary (dynamic) bank account for this one order: the answer shows the bank, the account number and its expiry to give to the customer.
The collection starts "processing"; add --wait to poll until it succeeds (exit 0) or fails (exit 8), or --wait-timeout runs out (exit 9).
On a terminal, missing values are asked for (the provider from the service's list); in scripts or with CI set, every missing flag is listed at once (exit 2).`

  static override examples = [
    {description: 'Charge an M-Pesa wallet and wait for the result', command: '<%= config.bin %> collections create --amount 1500.00 --currency KES --reference order-42 --mobile 254712345678 --provider mpesa --wait'},
    {description: 'Issue a bank account for a bank transfer', command: '<%= config.bin %> collections create --amount 25000 --currency KES --reference inv-2026-118 --rail bank_transfer --account-name "Acme Stores - INV 118"'},
    {description: 'Preview the request without sending it', command: '<%= config.bin %> collections create --amount 10 --currency kes --reference test-1 --mobile 254712345678 --provider mpesa --dry-run'},
    {description: 'Script: only the collection id', command: '<%= config.bin %> collections create --amount 99.50 --currency KES --reference order-43 --mobile 254712345678 --provider mpesa --json | jq -r .id'},
  ]

  static override flags = {
    ...moneyFlags,
    ...referenceFlag('this collection (order id)'),
    rail: Flags.string({description: 'Payment rail: mobile_money (default) or bank_transfer', helpValue: 'mobile_money|bank_transfer'}),
    ...walletFlags,
    'account-name': Flags.string({description: 'Display name of the issued bank account (bank_transfer only)'}),
    ...descriptionFlag,
    ...waitFlags,
    ...idempotencyFlags,
    ...bodyFlags,
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(CollectionsCreate)
    const rt = await this.runtime()
    const ctx = await this.api(flags)
    process.exitCode = await rt.runOperation(ctx, {
      id: 'collections.create',
      fields: [
        {key: 'amount', flag: '--amount', value: flags.amount, prompt: {message: 'Amount (e.g. 1500.00)'}},
        {key: 'currency', flag: '--currency', value: flags.currency, upper: true, prompt: {message: 'Currency (e.g. KES)'}},
        {key: 'merchant_reference', flag: '--reference', value: flags.reference, prompt: {message: 'Merchant reference (your order id)'}},
        {key: 'payment_rail', flag: '--rail', value: flags.rail},
        {key: 'mobile', flag: '--mobile', value: flags.mobile, prompt: {message: 'Wallet number (10 to 15 digits)'}},
        {key: 'provider', flag: '--provider', value: flags.provider, prompt: {message: 'Mobile money provider', choices: 'providers'}},
        {key: 'account_name', flag: '--account-name', value: flags['account-name']},
        {key: 'description', flag: '--description', value: flags.description},
      ],
      extra: {data: flags.data, field: flags.field},
      idempotencyKey: flags['idempotency-key'],
      dryRun: flags['dry-run'],
      view: 'collection',
      wait: flags.wait
        ? {timeoutSec: flags['wait-timeout'], poll: (res) => {
          const id = String((res.body as {id?: unknown}).id)
          return {id: 'collections.get', input: {path: {id}}, label: `collection ${id}`}
        }}
        : undefined,
    })
  }
}
