import {Args, Flags} from '@oclif/core'
import {ApiCommand} from '../cli/base-command.js'
import {bodyFlags, idempotencyFlags} from '../cli/flags.js'

export default class Api extends ApiCommand {
  static override summary = 'Send a raw request through the same auth, headers and retries as every command'
  static override description = `Like curl, but with the profile's token, the sub-account header where it applies, an Idempotency-Key on the endpoints that need one, retries and redacted --debug traces. Paths the endpoint table does not know work too.
The response body is printed (pretty on a terminal, exactly as received with --json). Failures exit with the documented codes.
PATH must start with /v1/ and have no . or .. segments unless --allow-any-path; it is never a URL, so the token only goes to the base URL's origin.
A path the endpoint table knows must answer its documented JSON (else exit 7); any other path may answer anything, but a body labelled JSON must parse.`

  static override examples = [
    {description: 'A GET with a query', command: '<%= config.bin %> api GET "/v1/collections?merchant_reference=order-42"'},
    {description: 'A POST with fields (key=value is a string, key:=json a JSON value)', command: '<%= config.bin %> api POST /v1/collections -F amount=250.00 -F currency=KES -F merchant_reference=order-43 -F mobile=254700000001 -F provider=mpesa'},
    {description: 'A body from a file, with a chosen idempotency key', command: '<%= config.bin %> api POST /v1/payouts --data @payout.json --idempotency-key 5f1c2d3e-0000-4000-8000-000000000001'},
  ]

  static override args = {
    method: Args.string({description: 'HTTP method', required: true, options: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'get', 'post', 'put', 'patch', 'delete']}),
    path: Args.string({description: 'Path relative to the base URL, e.g. /v1/balance (a query string is allowed)', required: true}),
  }

  static override flags = {
    ...bodyFlags,
    ...idempotencyFlags,
    header: Flags.string({char: 'H', description: "Extra request header 'Name: value' (repeatable)", multiple: true}),
    include: Flags.boolean({char: 'i', description: 'Print the response status and headers on stderr'}),
    'allow-any-path': Flags.boolean({description: 'Send a path outside /v1/ or with . or .. segments (still only to the base URL\'s origin)'}),
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Api)
    const rt = await this.runtime()
    const {InputError} = await import('../client/errors.js')
    const headers: Record<string, string> = {}
    for (const h of flags.header ?? []) {
      const i = h.indexOf(':')
      if (i <= 0) throw InputError.one('-H', `"${h}" must be 'Name: value'`)
      const name = h.slice(0, i).trim().toLowerCase()
      if (name === 'authorization') throw InputError.one('-H', 'must not set Authorization: the token comes from the profile')
      headers[name] = h.slice(i + 1).trim()
    }
    const data = await rt.readDataFlag(flags.data)
    const body = rt.mergeBody(undefined, data, rt.parseFieldFlags(flags.field))
    const {client, out, settings} = await this.api(flags)
    const req = client.prepareRaw(args.method.toUpperCase(), args.path, {body, headers, idempotencyKey: flags['idempotency-key']}, {allowAnyPath: flags['allow-any-path']})
    if (flags['dry-run']) {
      rt.renderDryRun(out, req, {profileName: settings.profileName, fromProfile: settings.sources.clientId === 'profile'})
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
    if (out.json || res.body === undefined) out.data(res.text)
    else out.data(JSON.stringify(res.body, null, 2))
  }
}
