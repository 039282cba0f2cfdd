import {BaseCommand} from '../../cli/base-command.js'

export default class ProfilesList extends BaseCommand {
  static override summary = 'List profiles; the active one is marked'
  static override examples = [
    {description: 'All profiles', command: '<%= config.bin %> profiles list'},
    {description: 'Names only', command: "<%= config.bin %> profiles list --jq '.[].name'"},
  ]

  async run(): Promise<void> {
    await this.parse(ProfilesList)
    const {runProfilesList} = await import('../../profiles/manage.js')
    runProfilesList(await this.output())
  }
}
