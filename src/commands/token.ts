import {ApiCommand} from '../cli/base-command.js'

export default class Token extends ApiCommand {
  static override summary = 'Print an access token for use with curl'
  static override description = `Prints a bearer token for the active credentials: the cached one while it has more than 60 s to live, otherwise a fresh one from POST /v1/oauth/token. Treat the output as a secret.
With --json it prints {access_token, token_type, expires_at, cached}: pay's own object, not the service's body (a cached token has none), the one exception to the --json rule.`
  static override examples = [
    {description: 'Call the service with curl (the service wants a JSON Content-Type on every authenticated request)', command: '$ curl -H "Authorization: Bearer $(<%= config.bin %> token)" -H "Content-Type: application/json" "$PAY_BASE_URL/v1/balance"'},
    {description: 'Token and expiry as JSON', command: '<%= config.bin %> token --json'},
  ]

  async run(): Promise<void> {
    const {flags} = await this.parse(Token)
    const {runToken} = await import('../profiles/manage.js')
    await runToken(await this.api(flags))
  }
}
