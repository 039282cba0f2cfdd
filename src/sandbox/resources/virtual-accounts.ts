/** Bank virtual accounts: dynamic (one per bank-transfer collection or checkout), static per customer, and the merchant's. */
import type {Core} from '../core.js'
import {randomDigits} from '../ids.js'
import type {VirtualAccountRec} from '../state.js'
import {entry} from '../state.js'

export const STATIC_VA_CAP = 1000
const DYNAMIC_TTL_MS = 24 * 3600 * 1000

export function issueVirtualAccount(
  core: Core,
  args: {merchant_id: number; account_id: string; client_id: string | null; name: string; type: 'STATIC' | 'DYNAMIC'; owner: VirtualAccountRec['owner']},
): VirtualAccountRec {
  const bank = core.state.banks[0]
  let number = '90' + randomDigits(8)
  while (entry(core.state.virtual_accounts, number)) number = '90' + randomDigits(8)
  const va: VirtualAccountRec = {
    merchant_id: args.merchant_id,
    account_id: args.account_id,
    client_id: args.client_id,
    account_number: number,
    account_name: args.name,
    account_type: args.type,
    bank_code: bank.bank_code,
    bank_name: bank.bank_name,
    status: 'ACTIVE',
    expires_at: args.type === 'DYNAMIC' ? core.iso(core.now() + DYNAMIC_TTL_MS) : null,
    single_deposit_limit: null,
    owner: args.owner,
  }
  core.insert('virtual_accounts', va)
  return va
}

export function vaView(va: VirtualAccountRec) {
  return {
    account_number: va.account_number,
    account_name: va.account_name,
    account_type: va.account_type,
    bank_code: va.bank_code,
    bank_name: va.bank_name,
    status: va.status,
    expires_at: va.expires_at,
    single_deposit_limit: va.single_deposit_limit,
  }
}
