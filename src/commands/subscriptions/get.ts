import {Flags} from '@oclif/core'
import {ApiCommand} from '../../cli/base-command.js'
import {waitFlags} from '../../cli/flags.js'

export default class SubscriptionsGet extends ApiCommand {
  static override summary = 'Show a subscription by its merchant reference'
  static override description = `GET /v1/subscriptions?merchant_reference=REF: state (pending_approval, active, cancelled, failed), plan, subscriber, mandate and dates.
With --wait, polls until it is active (exit 0) or failed/cancelled (exit 8), or --wait-timeout runs out (exit 9).`

  static override examples = [
    {description: 'Show a subscription', command: '<%= config.bin %> subscriptions get --reference sub-jane-gold'},
    {description: 'Wait until the subscriber approves', command: '<%= config.bin %> subscriptions get --reference sub-jane-gold --wait --wait-timeout 900'},
  ]

  static override flags = {
    reference: Flags.string({char: 'r', description: 'Merchant reference the subscription was created with', helpValue: 'REF'}),
    ...waitFlags,
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(SubscriptionsGet)
    const rt = await this.runtime()
    const ctx = await this.api(flags)
    process.exitCode = await rt.runOperation(ctx, {
      id: 'subscriptions.get',
      fields: [{key: 'merchant_reference', in: 'query', flag: '--reference', value: flags.reference, prompt: {message: 'Merchant reference of the subscription'}}],
      view: 'subscription',
      wait: flags.wait ? {timeoutSec: flags['wait-timeout'], poll: (_res, input) => ({id: 'subscriptions.get', input, label: `subscription ${input.query?.merchant_reference}`})} : undefined,
    })
  }
}
