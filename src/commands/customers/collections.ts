import {Args, Flags} from '@oclif/core'
import {ApiCommand} from '../../cli/base-command.js'

export default class CustomersCollections extends ApiCommand {
  static override summary = "List a customer's collections"
  static override description = `GET /v1/customers/{id}/collections, one page (--page, --per-page), or every page with --all.
--all follows the pages to the end and prints each page's rows as it arrives, so a long history never sits in memory; with --json it prints each page's body as the service sent it, one per line (JSON Lines).
Paging parameters beyond per_page are not in the spec: we send page (1-based) and per_page (docs/assumptions.md).`

  static override examples = [
    {description: 'The latest page', command: '<%= config.bin %> customers collections MC_ACME0001'},
    {description: 'Every collection, 100 per request, as CSV-ish text', command: '<%= config.bin %> customers collections MC_ACME0001 --all --per-page 100 | cut -f1-4'},
    {description: 'Every collection as JSON, one object per row', command: "<%= config.bin %> customers collections MC_ACME0001 --all --json | jq -c '.data[]'"},
  ]

  static override args = {
    id: Args.string({description: 'Customer id (MC_…)'}),
  }

  static override flags = {
    'per-page': Flags.string({description: 'Collections per request (1 to 100; service default 20)', helpValue: 'N'}),
    page: Flags.string({description: 'Page to show, 1-based (not with --all)', helpValue: 'N'}),
    all: Flags.boolean({description: 'Follow the pages to the end, streaming rows as they arrive'}),
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(CustomersCollections)
    const rt = await this.runtime()
    const ctx = await this.api(flags)
    const fields = [
      {key: 'id', in: 'path' as const, flag: 'ID', value: args.id, prompt: {message: 'Customer id (MC_…)'}},
      {key: 'per_page', in: 'query' as const, flag: '--per-page', value: flags['per-page'], prompt: false as const},
      {key: 'page', in: 'query' as const, flag: '--page', value: flags.page, prompt: false as const},
    ]
    const problems = flags.all && flags.page !== undefined ? [{flag: '--page', rule: 'cannot be combined with --all (which starts at page 1)'}] : []
    if (!flags.all) {
      process.exitCode = await rt.runOperation(ctx, {id: 'customers.collections', fields, problems, view: 'customer-collections'})
      return
    }
    const {input} = await rt.gatherInput(ctx, {id: 'customers.collections', fields, problems})
    const {client, out} = ctx
    const table = out.json ? undefined : new rt.StreamTable(out, rt.COLLECTION_COLUMNS)
    let total: unknown
    for (let page = 1; page <= 100_000; page++) {
      const res = await client.call<{data?: Record<string, unknown>[]; has_more?: boolean; total?: number}>('customers.collections', {
        path: input.path,
        query: {...input.query, page: String(page)},
      })
      const data = res.body?.data ?? []
      total = res.body?.total
      if (out.json) out.data(res.text.includes('\n') ? JSON.stringify(res.body) : res.text)
      else table!.push(data)
      if (!res.body?.has_more || data.length === 0) break
    }
    if (table) out.info(out.color('dim', `${table.rows} collection(s)${typeof total === 'number' ? ` of ${total}` : ''}`, 'err'))
  }
}
