import {BaseCommand} from '../../cli/base-command.js'

export default class ProfilesList extends BaseCommand {
  static override summary = 'List profiles; the active one is marked'
  static override examples = [
    {description: 'All profiles', command: '<%= config.bin %> profiles list'},
    {description: 'Names only', command: "<%= config.bin %> profiles list --jq '.[].name'"},
  ]

  async run(): Promise<void> {
    await this.parse(ProfilesList)
    const out = await this.output()
    const rt = await this.runtime()
    const stored = rt.readProfiles()
    const rows = stored ? rt.listProfiles(stored).map(({name, profile, active}) => ({name, active, ...rt.redactProfile(profile)})) : []
    if (out.json) {
      out.data(JSON.stringify(rows))
      return
    }
    if (rows.length === 0) {
      out.info('No profiles yet: run `pay login`, or `pay sandbox start` for a local one.')
      return
    }
    out.data(out.list(rows.map((r) => ({...r, active: r.active ? '*' : ''})), ['active', 'name', 'base_url', 'client_id', 'account_ref', 'client_secret', 'webhook_secret']))
  }
}
