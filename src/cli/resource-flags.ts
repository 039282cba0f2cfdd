/**
 * Flag definitions shared by the resource commands (issue 4). Light: only @oclif/core is imported, so that
 * `--help` stays fast. Values are validated later, all at once, against the endpoint table's schemas
 * (src/cli/command-inputs.ts), not here: oclif's `options` would stop at the first bad value.
 */
import {Flags} from '@oclif/core'

export const moneyFlags = {
  amount: Flags.string({description: 'Amount as a decimal string, e.g. 1500.00 (at most 2 decimals; never rounded)', helpValue: 'DECIMAL'}),
  currency: Flags.string({description: '3-letter currency code, e.g. KES (upper-cased for you)', helpValue: 'CODE'}),
}

export const referenceFlag = (what: string) => ({
  reference: Flags.string({char: 'r', description: `Your merchant reference for ${what} (sent as merchant_reference, at most 255 characters)`, helpValue: 'REF'}),
})

export const walletFlags = {
  mobile: Flags.string({description: 'Mobile money wallet number, 10 to 15 digits, no +', helpValue: 'DIGITS'}),
  provider: Flags.string({description: 'Mobile money provider code (see `pay metadata providers`)', helpValue: 'CODE'}),
}

export const descriptionFlag = {
  description: Flags.string({description: 'Free text shown with the transaction (at most 255 characters)'}),
}
