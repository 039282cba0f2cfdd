/**
 * `pay virtual-accounts create|get`: whose static account — a customer's (`--customer ID`) or the merchant's
 * (`--merchant`). On a terminal a missing choice is asked for; otherwise it is reported with the other problems.
 */
import type {FieldProblem} from '../api/validate.js'
import type {ApiContext} from '../runtime.js'
import {ask} from './prompts.js'

export interface AccountOwner {
  /** The customer id when the account is a customer's; undefined for the merchant's account. */
  customer?: string
  problems: FieldProblem[]
}

export async function chooseAccountOwner(ctx: ApiContext, flags: {customer?: string; merchant?: boolean}): Promise<AccountOwner> {
  let {customer, merchant} = flags
  if (!merchant && customer === undefined && ctx.out.term.interactive) {
    const who = await ask({message: 'Whose account', choices: ['customer', 'merchant']}, ctx, () => true)
    if (who === 'merchant') merchant = true
    else customer = await ask({message: 'Customer id (MC_…)'}, ctx, (v) => (v === '' ? 'is required' : true))
  }
  const problems: FieldProblem[] = []
  if (merchant && customer !== undefined) problems.push({flag: '--customer', rule: 'cannot be combined with --merchant (give one of them)'})
  if (!merchant && customer === undefined) problems.push({flag: '--customer or --merchant', rule: 'is required'})
  return {customer: merchant ? undefined : customer, problems}
}
