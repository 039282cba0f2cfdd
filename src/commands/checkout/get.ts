import {Args} from '@oclif/core'
import {ApiCommand} from '../../cli/base-command.js'
import {waitFlags} from '../../cli/flags.js'

export default class CheckoutGet extends ApiCommand {
  static override summary = 'Show a checkout session'
  static override description = `GET /v1/checkout/sessions/{id}: the session's state, pay link and expiry.
With --wait, polls until it has succeeded (exit 0) or failed (exit 8), or --wait-timeout runs out (exit 9).`

  static override examples = [
    {description: 'Show a session', command: '<%= config.bin %> checkout get CS_4T9W2B6N8M'},
    {description: 'Wait up to 10 minutes for the customer to pay', command: '<%= config.bin %> checkout get CS_4T9W2B6N8M --wait --wait-timeout 600'},
  ]

  static override args = {
    id: Args.string({description: 'Checkout session id (CS_…)'}),
  }

  static override flags = {...waitFlags}

  async run(): Promise<void> {
    const {args, flags} = await this.parse(CheckoutGet)
    const rt = await this.runtime()
    const ctx = await this.api(flags)
    process.exitCode = await rt.runOperation(ctx, {
      id: 'checkout.get',
      fields: [{key: 'id', in: 'path', flag: 'ID', value: args.id, prompt: {message: 'Checkout session id (CS_…)'}}],
      view: 'checkout',
      wait: flags.wait ? {timeoutSec: flags['wait-timeout'], poll: (res, input) => ({id: 'checkout.get', input, label: `checkout session ${input.path?.id}`})} : undefined,
    })
  }
}
