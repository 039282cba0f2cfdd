import {Args} from '@oclif/core'
import {SandboxCommand} from '../../cli/base-command.js'

export default class SandboxApprove extends SandboxCommand {
  static override description = 'Approve a mandate awaiting the customer in the sandbox (as if on their phone)'
  static override examples = [
    {description: 'Find the id of a mandate waiting for approval (a wallet number ending in 8), then approve it', command: '<%= config.bin %> mandates get --reference m-1 --jq .mandate_id | xargs <%= config.bin %> <%= command.id %>'},
  ]
  static override args = {mandate_id: Args.string({description: 'Mandate id (MD_…)', required: true})}

  async run(): Promise<void> {
    const {args, flags} = await this.parse(SandboxApprove)
    const out = await this.control(flags, 'mandates.approve', {path: {mandate_id: args.mandate_id}})
    await this.print(out, `${args.mandate_id} ${out.status}`)
  }
}
