import {Args, Flags} from '@oclif/core'
import {ApiCommand} from '../cli/base-command.js'

export default class Find extends ApiCommand {
  static override summary = 'One timeline for a merchant reference, an id or a pay-page URL: the service, the journal, webhooks'
  static override description = `QUERY is a merchant reference, an id (CL_, CS_, PO_, MD_, SUB_, MC_, PLN_, MAC_: the prefix picks the lookup) or a pay-page URL (https://…/pay/CS_…).
A reference is looked up as every kind that can carry one, at once: collection, payout, checkout session (the verify lookup), mandate, subscription, and debit (under the mandate ids the journal knows, or --mandate). Payouts, mandates and subscriptions have no lookup by id in the interface: for their ids, the requests journaled on this machine name the references to look up.
The timeline shows what the service says now (kind, state, amount, currency, id), every request pay journaled for it with this profile's base URL and client id (when, operation, Idempotency-Key, outcome; those of other clients or services are counted on stderr, not shown), and the webhook deliveries \`pay webhook listen\` recorded for it in the local history. Several matches are all shown, each labelled.
Read only. Exit 0 when found, 4 when nothing is (the message names every lookup tried).`

  static override examples = [
    {description: 'What happened to an order', command: '<%= config.bin %> find order-42'},
    {description: 'An id pasted from a ticket', command: '<%= config.bin %> find CL_8K2M4Q7R1T'},
    {description: 'A pay link', command: '<%= config.bin %> find https://pay.example.com/pay/CS_4T9W2B6N8M'},
    {description: 'A debit, under its mandate', command: '<%= config.bin %> find gym-jane-2026-12 --mandate MD_7H3K9P2W'},
    {description: 'Script: the state of each match', command: `<%= config.bin %> find order-42 --jq '.matches[] | [.kind, .state] | @tsv'`},
  ]

  static override args = {
    query: Args.string({description: 'Merchant reference, id or pay-page URL', required: true}),
  }

  static override flags = {
    reference: Flags.boolean({description: 'Take QUERY as a merchant reference even when it looks like an id or a URL'}),
    mandate: Flags.string({description: 'Also look debits up under this mandate id (repeatable)', helpValue: 'MD_…', multiple: true}),
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Find)
    const ctx = await this.api(flags)
    const {runFind} = await import('../find/find.js')
    process.exitCode = await runFind(ctx, {query: args.query, reference: flags.reference, mandate: flags.mandate})
  }
}
