import {Flags} from '@oclif/core'
import {ApiCommand} from '../cli/base-command.js'

export default class Balance extends ApiCommand {
  static override summary = 'Show wallet balances'
  static override description = `Shows, per currency, the collection wallet (available after the T+1 hold), the total of succeeded credits (collection_wallet_actual), the part still held (collection_wallet_held) and the payout wallet that payouts draw from.
GET /v1/balance. The sub-account header is never sent for this endpoint.`

  static override examples = [
    {description: 'All wallets', command: '<%= config.bin %> balance'},
    {description: 'One currency, as JSON for a script', command: '<%= config.bin %> balance --currency KES --json | jq -r .data[0].payout_wallet'},
  ]

  static override flags = {
    currency: Flags.string({description: 'Only this currency (3 letters, e.g. KES)'}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(Balance)
    const rt = await this.runtime()
    const currency = flags.currency?.toUpperCase()
    const query = {currency}
    const problems = rt.problemsOf(rt.endpoints['balance.get'].query, query)
    if (problems.length > 0) throw new (await import('../client/errors.js')).InputError(problems)
    const {client, out} = await this.api(flags)
    const res = await client.call('balance.get', {query})
    out.body(res.text, res.body, {columns: ['currency', 'collection_wallet', 'collection_wallet_held', 'collection_wallet_actual', 'payout_wallet']})
  }
}
