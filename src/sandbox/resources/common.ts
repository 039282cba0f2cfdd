/** Checks shared by several resources: reference data and product switches. */
import type {Ctx} from '../context.js'
import type {Core} from '../core.js'
import {forbidden, invalidParameter} from '../errors.js'
import type {MerchantRec} from '../state.js'
import type {Products} from '../seed.js'

export function requireProvider(core: Core, provider: string | null | undefined, param = 'provider'): void {
  if (provider === undefined || provider === null) return
  if (!core.state.mobile_providers.includes(provider)) {
    throw invalidParameter(param, `unknown mobile provider "${provider}" (one of ${core.state.mobile_providers.join(', ')})`)
  }
}

export function bankOf(core: Core, code: string) {
  return core.state.banks.find((b) => b.bank_code === code)
}

export function requireBank(core: Core, code: string, param = 'bank_code') {
  const bank = bankOf(core, code)
  if (!bank) throw invalidParameter(param, `unknown bank code "${code}" (see GET /v1/metadata/banks)`)
  return bank
}

const PRODUCT_NAMES: Record<keyof Products, string> = {
  subscriptions: 'Subscriptions',
  static_va: 'Static VA (static bank accounts)',
  bank_transfer: 'Bank transfer rail',
  card_checkout: 'Card checkout',
  sub_accounts: 'Sub-accounts',
}

export function requireProduct(merchant: MerchantRec, product: keyof Products): void {
  if (!merchant.products[product]) throw forbidden(`${PRODUCT_NAMES[product]} is not enabled for this merchant`)
}

/** A settle-at deadline `ms` from now: queues record `id` of `kind` for it and returns the clock time. */
export function settleAfter(core: Core, kind: string, id: string, ms = core.opts.settleMs): number {
  const at = core.now() + ms
  core.at(at, kind, id)
  return at
}

/** Moves a processing transaction to its final state; false when it had already left `processing`. */
export function closeTransaction<S extends string>(rec: {status: S; status_detail: string | null; settle_at: number | null}, status: S, detail: string | null): boolean {
  if (rec.status !== 'processing') return false
  rec.status = status
  rec.status_detail = detail
  rec.settle_at = null
  return true
}

/** Copies the optional fields a record holds (left out of the view when absent, as the service does). */
export function copyPresent<R extends object>(view: Record<string, unknown>, rec: R, keys: readonly (keyof R & string)[]): Record<string, unknown> {
  for (const k of keys) if (rec[k] !== undefined) view[k] = rec[k]
  return view
}

/** What a new collection or payout record starts with: its owner, the request's common fields, `processing`. */
export function newTransaction(core: Core, ctx: Ctx, merchantId: number, body: any, rail: 'mobile_money' | 'bank_transfer') {
  const mobile = rail === 'mobile_money'
  return {
    merchant_id: merchantId,
    account_id: ctx.account.id,
    client_id: ctx.client.client_id,
    status: 'processing' as const,
    currency: body.currency as string,
    merchant_reference: body.merchant_reference as string,
    payment_rail: rail,
    mobile: mobile ? (body.mobile as string) : undefined,
    provider: mobile ? (body.provider as string) : undefined,
    account_name: body.account_name as string | undefined,
    description: body.description as string | undefined,
    status_detail: null,
    created_at: core.iso(),
  }
}
