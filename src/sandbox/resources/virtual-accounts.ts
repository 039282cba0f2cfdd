/** Bank virtual accounts: dynamic (one per bank-transfer collection or checkout), static per customer, and the merchant's. */
import {compareDecimal, fromMinor, toMinor} from '../../api/money.js'
import type {Core} from '../core.js'
import {ApiError} from '../errors.js'
import {randomDigits} from '../ids.js'
import type {VirtualAccountRec} from '../state.js'
import {entry} from '../state.js'

export const STATIC_VA_CAP = 1000
/** How long a dynamic account takes its transfer (its `expires_at`): docs/sandbox.md, "valid 24 h". */
const DYNAMIC_TTL_MS = 24 * 3600 * 1000

export function issueVirtualAccount(
  core: Core,
  /** `from`: when a dynamic account's 24 h start (its owner's created_at; default now). */
  args: {merchant_id: number; account_id: string; client_id: string | null; name: string; type: 'STATIC' | 'DYNAMIC'; owner: VirtualAccountRec['owner']; from?: number},
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
    expires_at: args.type === 'DYNAMIC' ? core.iso((args.from ?? core.now()) + DYNAMIC_TTL_MS) : null,
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

/** What a transfer into a dynamic account did: the money kept (credited) and the money sent back (returned). */
export interface DynamicTransfer {
  paid: boolean
  credited: string
  returned: string
}

/** Whether a dynamic account's `expires_at` has come (at clock time `now`); a static account never expires. */
export function vaExpired(va: Pick<VirtualAccountRec, 'expires_at'>, now: number): boolean {
  return va.expires_at !== null && Date.parse(va.expires_at) <= now
}

/**
 * The one rule of a dynamic account (bank-transfer collection or checkout), docs/sandbox.md: it takes one
 * transfer while its transaction is processing and before its `expires_at`. The amount due or more pays it: the
 * amount due is credited, what is beyond it is returned to the sender. Less fails it, and the whole transfer is
 * returned. A transfer once the transaction is no longer processing, or once the account has expired, is refused
 * (409, returned; nothing changes). So every credit is money kept.
 */
export function dynamicTransfer(status: string, what: string, due: string, received: string, va: Pick<VirtualAccountRec, 'account_number' | 'expires_at'>, now: number): DynamicTransfer {
  if (status !== 'processing') {
    throw new ApiError(409, 'invalid_state', `${what} is ${status}: its dynamic account takes no further transfer (the bank returns it to the sender)`)
  }
  if (vaExpired(va, now)) {
    throw new ApiError(409, 'invalid_state', `the dynamic account ${va.account_number} of ${what} expired at ${va.expires_at}: it takes no transfer (the bank returns it to the sender)`)
  }
  const paid = compareDecimal(received, due) >= 0
  return {paid, credited: paid ? due : '0.00', returned: fromMinor(toMinor(received) - (paid ? toMinor(due) : 0n))}
}
