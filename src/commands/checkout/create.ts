import {Flags} from '@oclif/core'
import {ApiCommand} from '../../cli/base-command.js'
import {bodyFlags, idempotencyFlags, waitFlags} from '../../cli/flags.js'
import {descriptionFlag, moneyFlags, referenceFlag, walletFlags} from '../../cli/resource-flags.js'

export default class CheckoutCreate extends ApiCommand {
  static override summary = 'Create a hosted checkout session (a browser pay link)'
  static override description = `POST /v1/checkout/sessions (idempotent). Prints the pay link (url) and its expiry; --open also opens it in the browser where one is available.
--amount-mode fixed (default) needs --amount; open lets the customer type the amount on the page (not allowed in Testing mode) and must not have --amount.
--rail locks the session to one rail (mobile_money needs --mobile; card and bank_transfer only when enabled for the merchant); without it the customer picks on the page.
Add --wait to poll until the session has succeeded (exit 0) or failed (exit 8), or --wait-timeout runs out (exit 9).`

  static override examples = [
    {description: 'A fixed-amount pay link, opened in the browser', command: '<%= config.bin %> checkout create --amount 2500.00 --currency KES --reference order-77 --success-url https://shop.example/paid --cancel-url https://shop.example/cart --open'},
    {description: 'The customer enters the amount (live mode only)', command: '<%= config.bin %> checkout create --amount-mode open --currency KES --reference donation-5 --success-url https://shop.example/thanks --cancel-url https://shop.example'},
    {description: 'Locked to an M-Pesa wallet, waiting until paid', command: '<%= config.bin %> checkout create --amount 150 --currency KES --reference order-78 --rail mobile_money --mobile 254712345678 --provider mpesa --success-url https://shop.example/ok --cancel-url https://shop.example/no --wait'},
    {description: 'Script: just the link', command: '<%= config.bin %> checkout create --amount 10 --currency KES --reference order-79 --success-url https://shop.example/ok --cancel-url https://shop.example/no --json | jq -r .url'},
  ]

  static override flags = {
    'amount-mode': Flags.string({description: 'fixed (default; needs --amount) or open (the customer enters the amount; omit --amount)', helpValue: 'fixed|open'}),
    ...moneyFlags,
    ...referenceFlag('this checkout (order id)'),
    rail: Flags.string({description: 'Lock the session to one rail: mobile_money, card or bank_transfer (default: the customer chooses)', helpValue: 'mobile_money|card|bank_transfer'}),
    ...walletFlags,
    'success-url': Flags.string({description: 'Where the customer is sent after paying (absolute URL)', helpValue: 'URL'}),
    'cancel-url': Flags.string({description: 'Where the customer is sent on cancelling (absolute URL)', helpValue: 'URL'}),
    ...descriptionFlag,
    open: Flags.boolean({description: 'Open the pay link in the browser (when one is available); the link is printed either way'}),
    ...waitFlags,
    ...idempotencyFlags,
    ...bodyFlags,
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(CheckoutCreate)
    const rt = await this.runtime()
    const ctx = await this.api(flags)
    process.exitCode = await rt.runOperation(ctx, {
      id: 'checkout.create',
      fields: [
        {key: 'amount_mode', flag: '--amount-mode', value: flags['amount-mode']},
        {key: 'amount', flag: '--amount', value: flags.amount, prompt: {message: 'Amount (e.g. 2500.00)'}},
        {key: 'currency', flag: '--currency', value: flags.currency, upper: true, prompt: {message: 'Currency (e.g. KES)'}},
        {key: 'merchant_reference', flag: '--reference', value: flags.reference, prompt: {message: 'Merchant reference (your order id)'}},
        {key: 'payment_rail', flag: '--rail', value: flags.rail},
        {key: 'mobile', flag: '--mobile', value: flags.mobile, prompt: {message: 'Wallet number (10 to 15 digits)'}},
        {key: 'provider', flag: '--provider', value: flags.provider},
        {key: 'success_url', flag: '--success-url', value: flags['success-url'], prompt: {message: 'Success URL (after paying)'}},
        {key: 'cancel_url', flag: '--cancel-url', value: flags['cancel-url'], prompt: {message: 'Cancel URL'}},
        {key: 'description', flag: '--description', value: flags.description},
      ],
      extra: {data: flags.data, field: flags.field},
      idempotencyKey: flags['idempotency-key'],
      dryRun: flags['dry-run'],
      view: 'checkout',
      after: async (res) => {
        const url = (res.body as {url?: unknown}).url
        if (!flags.open || typeof url !== 'string') return
        const opened = await rt.openBrowser(url)
        ctx.out.info(opened ? `Opened ${url} in the browser` : `No browser available here; open ${url} yourself`)
      },
      wait: flags.wait
        ? {timeoutSec: flags['wait-timeout'], poll: (res) => {
          const id = String((res.body as {id?: unknown}).id)
          return {id: 'checkout.get', input: {path: {id}}, label: `checkout session ${id}`}
        }}
        : undefined,
    })
  }
}
