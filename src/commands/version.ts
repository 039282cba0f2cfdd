import {Command} from '@oclif/core'

/** `pay version`: what `pay --version` (and `pay -v`) prints, the user agent: name/version platform node. */
export default class Version extends Command {
  static override summary = 'Show the version of pay (the same as `pay --version` or `pay -v`)'
  static override description = 'Prints pay-cli/VERSION PLATFORM-ARCH node-VERSION, the User-Agent pay sends (without its extras).'
  static override examples = [{description: 'The version', command: '<%= config.bin %> version'}]

  async run(): Promise<void> {
    await this.parse(Version)
    this.log(this.config.userAgent)
  }
}
