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
    paginate: Flags.boolean({description: "GET only: follow the service's pages (page=1, 2, … while has_more) and print every item as it arrives: one JSON object per line (or rows with -o csv/tsv; --jq runs on each page)"}),
    slurp: Flags.boolean({description: 'With --paginate: one JSON array of every item (written as it arrives, never held in memory)', dependsOn: ['paginate']}),
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Api)
    const rt = await this.runtime()
    const {InputError} = await import('../base/errors.js')
    const headers: Record<string, string> = {}
    for (const h of flags.header ?? []) {
      const i = h.indexOf(':')
      if (i <= 0) throw InputError.one('-H', `"${h}" must be 'Name: value'`)
      const name = h.slice(0, i).trim().toLowerCase()
      if (name === 'authorization') throw InputError.one('-H', 'must not set Authorization: the token comes from the profile')
      headers[name] = h.slice(i + 1).trim()
    }
    if (flags.paginate && args.method.toUpperCase() !== 'GET') throw InputError.one('--paginate', 'works only with GET')
    if (flags.slurp && (flags.jq !== undefined || !['table', 'json', 'ndjson'].includes(flags.output ?? 'json') || flags.fields !== undefined)) throw InputError.one('--slurp', 'cannot be combined with --jq, --fields or -o csv|tsv|yaml (it prints one JSON array)')
    const data = await rt.readDataFlag(flags.data)
    const body = rt.mergeBody(undefined, data, rt.parseFieldFlags(flags.field))
    const {client, out, settings} = await this.api(flags)
    const req = client.prepareRaw(args.method.toUpperCase(), args.path, {body, headers, idempotencyKey: flags['idempotency-key']}, {allowAnyPath: flags['allow-any-path']})
    if (flags['dry-run']) {
      rt.renderDryRun(out, req, {profileName: settings.profileName, fromProfile: settings.sources.clientId === 'profile'})
      return
    }
    // a money-moving endpoint with a live profile: the rule of src/operation/confirm.ts, as for its resource command
    const {liveMoneyGate, moneyOperation, confirmationLines} = await import('../operation/confirm.js')
    const money = moneyOperation(req.endpoint?.id)
    if (money) await liveMoneyGate({client, out, settings}, Boolean(flags.yes), () => confirmationLines(money, {body}, settings.profileName))
    if (flags.paginate) {
      await paginate(client, out, args.path, {headers, slurp: Boolean(flags.slurp), allowAnyPath: flags['allow-any-path'], shown: rt.forStdout(out.term.stdoutIsTTY), splitPath: rt.splitPath})
      return
    }
    // -i: the status line and headers of any answer, an error's too (on stderr, made printable)
    const include = (status: number, headers: Record<string, string> = {}) => {
      if (!flags.include) return
      out.info(`HTTP ${status}`)
      for (const [k, v] of Object.entries(headers)) out.info(rt.printable(`${k}: ${v}`))
    }
    const res = await client.send(req).catch((err: {status?: unknown; responseHeaders?: Record<string, string>}) => {
      if (typeof err.status === 'number') include(err.status, err.responseHeaders)
      throw err
    })
    include(res.status, res.headers)
    const shown = rt.forStdout(out.term.stdoutIsTTY)
    if (res.body === undefined) out.data(shown.text(res.text))
    else out.data(shown.json(out.json ? res.text : JSON.stringify(res.body, null, 2)))
  }
}

type Runtime = typeof import('../runtime.js')
type Client = InstanceType<Runtime['ApiClient']>
type Out = InstanceType<Runtime['Output']>
type Shown = ReturnType<Runtime['forStdout']>

/**
 * --paginate: GET page 1, 2, … of the path (its other query parameters kept, a #fragment dropped) while the answer says has_more,
 * writing each page's items as they arrive; an answer that is not a list is printed once. Memory holds one page.
 */
async function paginate(client: Client, out: Out, path: string, options: {headers: Record<string, string>; slurp: boolean; allowAnyPath?: boolean; shown: Shown; splitPath: Runtime['splitPath']}): Promise<void> {
  const {headers, slurp, allowAnyPath, shown} = options
  // cut where the request itself is cut (at `?` or `#`; a fragment is never sent), else a `#` before the query
  // would hide the page parameter and the first page would come back forever
  const [base, query] = options.splitPath(path)
  const params = new URLSearchParams(query)
  // without --jq, --fields or another format, items are written as they are (one per line, or one array)
  const plain = !out.options.jq && !out.options.fields && ['table', 'json', 'ndjson'].includes(out.format)
  let written = 0
  if (slurp) out.chunk('[')
  for (let page = Number(params.get('page') ?? '1'); page < 1_000_000; page++) {
    params.set('page', String(page))
    const res = await client.send(client.prepareRaw('GET', `${base}?${params.toString()}`, {headers}, {allowAnyPath}))
    const body = res.body as {data?: unknown[]; has_more?: boolean} | undefined
    const items = body && Array.isArray(body.data) ? body.data : undefined
    if (!items) {
      // not a list: the answer itself, once
      if (slurp) out.chunk(`${shown.json(JSON.stringify(res.body ?? null))}]\n`)
      else if (plain) out.data(shown.json(JSON.stringify(res.body ?? null)))
      else out.data(res.body === undefined ? shown.text(res.text) : shown.json(res.text))
      return
    }
    if (slurp) for (const item of items) out.chunk(`${written++ === 0 ? '\n' : ',\n'}${shown.json(JSON.stringify(item))}`)
    else if (plain) for (const item of items) out.data(shown.json(JSON.stringify(item)))
    else out.data(shown.json(JSON.stringify(body)))
    if (!body!.has_more || items.length === 0) break
  }
  if (slurp) out.chunk(written === 0 ? ']\n' : '\n]\n')
}
