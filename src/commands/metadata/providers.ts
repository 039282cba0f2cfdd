import {ApiCommand} from '../../cli/base-command.js'

export default class MetadataProviders extends ApiCommand {
  static override summary = 'List mobile money provider codes'
  static override description = 'GET /v1/metadata/mobile_providers. The codes are what --provider takes.'
  static override aliases = ['metadata:mobile-providers']
  static override examples = [
    {description: 'Provider codes', command: '<%= config.bin %> metadata providers'},
    {description: 'As a plain list for a script', command: "<%= config.bin %> metadata providers --json | jq -r '.data[].provider'"},
  ]

  async run(): Promise<void> {
    const {flags} = await this.parse(MetadataProviders)
    const {client, out} = await this.api(flags)
    const res = await client.call('metadata.providers')
    out.body(res.text, res.body, {columns: ['provider']})
  }
}
