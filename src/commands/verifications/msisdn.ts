import {Flags} from '@oclif/core'
import {ApiCommand} from '../../cli/base-command.js'
import {bodyFlags} from '../../cli/flags.js'

export default class VerificationsMsisdn extends ApiCommand {
  static override summary = 'Check the name registered to a mobile money number'
  static override description = `POST /v1/verifications/msisdn. Answers verified with the first and last name on the wallet, or invalid.
Use it before a payout to make sure the money goes to the right person. An upstream identity-check failure answers 502 gateway_error (exit 7): try again later.`

  static override examples = [
    {description: 'Check a wallet', command: '<%= config.bin %> verifications msisdn --mobile 254712345678'},
    {description: 'With the provider, as JSON', command: '<%= config.bin %> verifications msisdn --mobile 254712345678 --provider mpesa --json | jq -r .status'},
  ]

  static override flags = {
    mobile: Flags.string({description: 'Wallet number to check, 10 to 15 digits, no +', helpValue: 'DIGITS'}),
    provider: Flags.string({description: 'Mobile money provider code, at most 64 characters (optional)', helpValue: 'CODE'}),
    ...bodyFlags,
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(VerificationsMsisdn)
    const rt = await this.runtime()
    const ctx = await this.api(flags)
    process.exitCode = await rt.runOperation(ctx, {
      id: 'verifications.msisdn',
      fields: [
        {key: 'mobile', flag: '--mobile', value: flags.mobile, prompt: {message: 'Wallet number to check (10 to 15 digits)'}},
        {key: 'provider', flag: '--provider', value: flags.provider},
      ],
      extra: {data: flags.data, field: flags.field},
      view: 'verification',
    })
  }
}
