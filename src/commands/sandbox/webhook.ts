import {Flags} from '@oclif/core'
import {SandboxCommand} from '../../cli/base-command.js'

export default class SandboxWebhook extends SandboxCommand {
  static override description = "Set (or clear) where an API client's webhook events go in the sandbox (the portal's webhook setting)"
  static override examples = [
    {description: 'Send merchant A events to a local listener', command: '<%= config.bin %> <%= command.id %> --client sb_acme_client --target http://127.0.0.1:8787/webhooks'},
    {description: 'Stop sending', command: '<%= config.bin %> <%= command.id %> --client sb_acme_client --clear'},
  ]
  static override flags = {
    client: Flags.string({description: 'API client id', default: 'sb_acme_client'}),
    target: Flags.string({description: 'Webhook URL (http or https)', exclusive: ['clear']}),
    clear: Flags.boolean({description: 'Remove the webhook URL', default: false}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(SandboxWebhook)
    const {runSandboxWebhook} = await import('../../sandbox/control-commands.js')
    await runSandboxWebhook(this.controller(flags), flags, await this.output())
  }
}
