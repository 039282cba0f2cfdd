import {Flags} from '@oclif/core'
import {ApiCommand} from '../../cli/base-command.js'
import {bodyFlags} from '../../cli/flags.js'

export default class VerificationsBankAccount extends ApiCommand {
  static override summary = 'Check the name on a bank account'
  static override description = `POST /v1/verifications/bank_accounts. Answers verified with the account holder's first and last name, or invalid.
Bank codes come from \`pay metadata banks\`; on a terminal the bank is offered as a list when --bank-code is missing.`

  static override examples = [
    {description: 'Check an Equity Bank account', command: '<%= config.bin %> verifications bank-account --bank-code 68 --account-number 0123456789'},
    {description: 'Script: the holder name', command: "<%= config.bin %> verifications bank-account --bank-code 01 --account-number 1100223344 --json | jq -r '.profile.first_name + \" \" + .profile.last_name'"},
  ]

  static override flags = {
    'bank-code': Flags.string({description: 'Bank code, at most 32 characters (see `pay metadata banks`)', helpValue: 'CODE'}),
    'account-number': Flags.string({description: 'Account number, at most 64 characters', helpValue: 'NUMBER'}),
    ...bodyFlags,
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(VerificationsBankAccount)
    const rt = await this.runtime()
    const ctx = await this.api(flags)
    process.exitCode = await rt.runOperation(ctx, {
      id: 'verifications.bankAccount',
      fields: [
        {key: 'bank_code', flag: '--bank-code', value: flags['bank-code'], prompt: {message: 'Bank', choices: 'banks'}},
        {key: 'account_number', flag: '--account-number', value: flags['account-number'], prompt: {message: 'Account number'}},
      ],
      extra: {data: flags.data, field: flags.field},
      view: 'verification',
    })
  }
}
