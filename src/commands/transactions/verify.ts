import {Args} from '@oclif/core'
import {ApiCommand} from '../../cli/base-command.js'

export default class TransactionsVerify extends ApiCommand {
  static override summary = 'Find a collection, payout or checkout by your merchant reference'
  static override description = `GET /v1/transactions/verify/{merchant_reference}: the one place to answer "what happened to order X?".
Shows what kind of transaction it is (collection, payout or checkout session), its state, the amounts (with fee and amount debited for payouts), the rail, the references and, for a collection by bank transfer, the bank account the customer pays into.`

  static override examples = [
    {description: 'What happened to order 42?', command: '<%= config.bin %> transactions verify order-42'},
    {description: 'Script: kind and state', command: "<%= config.bin %> transactions verify payout-2026-03-31 --json | jq -r '.object + \" \" + .status'"},
  ]

  static override args = {
    reference: Args.string({description: 'Your merchant reference (merchant_reference) of the transaction'}),
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(TransactionsVerify)
    const rt = await this.runtime()
    const ctx = await this.api(flags)
    process.exitCode = await rt.runOperation(ctx, {
      id: 'transactions.verify',
      fields: [{key: 'merchant_reference', in: 'path', flag: 'REFERENCE', value: args.reference, prompt: {message: 'Merchant reference'}}],
      view: 'transaction',
    })
  }
}
