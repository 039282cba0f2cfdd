import {ApiCommand} from '../cli/base-command.js'

export default class Account extends ApiCommand {
  static override summary = 'Show the authenticated merchant and sub-account'
  static override description = `GET /v1/account: the merchant the credentials belong to and the sub-account resolved from X-Service-Account-Ref (--account-ref, PAY_ACCOUNT_REF or the profile). A quick proof that credentials and connectivity work.`

  static override examples = [
    {description: 'Who am I?', command: '<%= config.bin %> account'},
    {description: 'Check a sub-account ref in CI', command: '<%= config.bin %> account --account-ref ACC_SHOP_2 --json'},
  ]

  async run(): Promise<void> {
    const {flags} = await this.parse(Account)
    const {client, out} = await this.api(flags)
    const res = await client.call('account.get')
    out.body(res.text, res.body)
  }
}
