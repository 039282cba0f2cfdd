import {Flags} from '@oclif/core'
import {SandboxCommand} from '../../cli/base-command.js'

export default class SandboxOpen extends SandboxCommand {
  static override description = `Open the running sandbox's dashboard (/_dashboard/) in the browser, and print its URL

Without a browser here (no display, $BROWSER unset) or with --no-browser, only the URL is printed.`
  static override examples = [
    {description: 'Open the dashboard of the sandbox of the "sandbox" profile', command: '<%= config.bin %> <%= command.id %>'},
    {description: 'Just print the URL', command: '<%= config.bin %> <%= command.id %> --no-browser'},
    {description: 'The sandbox at a given URL', command: '<%= config.bin %> <%= command.id %> --url http://127.0.0.1:4010'},
  ]
  static override flags = {
    browser: Flags.boolean({description: 'Start a browser on it ($BROWSER, else the system opener); --no-browser prints the URL only', default: true, allowNo: true}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(SandboxOpen)
    const [{runSandboxOpen}, {openBrowser}] = await Promise.all([import('../../sandbox/dashboard/open.js'), import('../../operation/browser.js')])
    await runSandboxOpen(this.controller(flags), {browser: flags.browser, open: (url) => openBrowser(url)}, await this.output())
  }
}
