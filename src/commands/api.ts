import {Args, Flags} from '@oclif/core'
import {ApiCommand} from '../cli/base-command.js'
import {bodyFlags, confirmFlags, idempotencyFlags} from '../cli/flags.js'

export default class Api extends ApiCommand {
  static override summary = 'Send a raw request through the same auth, headers and retries as every command'
  static override description = `Like curl, but with the profile's token, the sub-account header where it applies, an Idempotency-Key on the endpoints that need one, retries and redacted --debug traces. Paths the endpoint table does not know work too.
The response body is printed (JSON pretty, exactly as received with --json). On a terminal, --json too, what is not printable is shown escaped (control characters, direction marks: \\uXXXX, so JSON stays the same JSON); piped, nothing is escaped: a text body, and JSON with --json, are written byte for byte, like curl. Failures exit with the documented codes.
PATH must start with /v1/ and have no . or .. segments unless --allow-any-path; it is never a URL, so the token only goes to the base URL's origin. Control characters (tab, line breaks) are refused: %-encode them.
A path the endpoint table knows must answer its documented JSON (else exit 7); any other path may answer anything, but a body labelled JSON must parse.`

  static override examples = [
    {description: 'A GET with a query', command: '<%= config.bin %> api GET "/v1/collections?merchant_reference=order-42"'},
    {description: 'A POST with fields (key=value is a string, key:=json a JSON value)', command: '<%= config.bin %> api POST /v1/collections -F amount=250.00 -F currency=KES -F merchant_reference=order-43 -F mobile=254700000001 -F provider=mpesa'},
    {description: 'A body from a file, with a chosen idempotency key', command: '<%= config.bin %> api POST /v1/payouts --data @payout.json --idempotency-key 5f1c2d3e-0000-4000-8000-000000000001'},
    {description: 'Every collection of a customer across all pages, one per line (--slurp: one JSON array)', command: '<%= config.bin %> api GET "/v1/customers/MC_ACME0001/collections?per_page=100" --paginate'},
    {description: 'Just the ids of the failed ones', command: `<%= config.bin %> api GET /v1/customers/MC_ACME0001/collections --paginate --jq '.data[] | select(.status == "failed") | .id'`},
  ]

  static override args = {
    method: Args.string({description: 'HTTP method', required: true, options: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'get', 'post', 'put', 'patch', 'delete']}),
    path: Args.string({description: 'Path relative to the base URL, e.g. /v1/balance (a query string is allowed)', required: true}),
  }

  static override flags = {
    ...bodyFlags,
    ...idempotencyFlags,
    ...confirmFlags,
    header: Flags.string({char: 'H', description: "Extra request header 'Name: value' (repeatable)", multiple: true}),
    include: Flags.boolean({char: 'i', description: 'Print the response status and headers on stderr'}),
    'allow-any-path': Flags.boolean({description: 'Send a path outside /v1/ or with . or .. segments (still only to the base URL\'s origin)'}),
    paginate: Flags.boolean({description: "GET only: follow the service's pages (page=1, 2, … while has_more, up to total) and print every item as it arrives: one JSON object per line (or rows with -o csv/tsv; --jq runs on each page). A page repeating the one before, or a 1000th page, stops it: exit 1"}),
    slurp: Flags.boolean({description: 'With --paginate: one JSON array of every item (written as it arrives, never held in memory)', dependsOn: ['paginate']}),
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Api)
    const {runApi} = await import('../operation/raw-request.js')
    process.exitCode = await runApi({...flags, ...args}, () => this.api(flags))
  }
}
