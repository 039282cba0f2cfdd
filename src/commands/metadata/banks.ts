import {ApiCommand} from '../../cli/base-command.js'

export default class MetadataBanks extends ApiCommand {
  static override summary = 'List banks and their codes'
  static override description = 'GET /v1/metadata/banks. Bank codes are used by `pay verifications bank-account --bank-code` and bank payouts.'
  static override examples = [
    {description: 'Table of banks', command: '<%= config.bin %> metadata banks'},
    {description: 'Find a bank code', command: "<%= config.bin %> metadata banks --json | jq -r '.data[] | select(.bank_name|test(\"Equity\")) | .bank_code'"},
  ]

  async run(): Promise<void> {
    const {flags} = await this.parse(MetadataBanks)
    const {client, out} = await this.api(flags)
    const res = await client.call('metadata.banks')
    out.body(res.text, res.body, {columns: ['bank_code', 'bank_name']})
  }
}
