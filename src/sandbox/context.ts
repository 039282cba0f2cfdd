/** What a resource handler receives and returns. */
import type {Core} from './core.js'
import {notFound} from './errors.js'
import type {ClientRec, MerchantRec} from './state.js'

export interface Ctx {
  core: Core
  merchant: MerchantRec
  account: MerchantRec['accounts'][number]
  client: ClientRec
  params: Record<string, string>
  query: Record<string, string>
  body: any
}

export interface Result {
  status: number
  body: unknown
}

export type Handler = (ctx: Ctx) => Result

/** A record visible to this merchant and sub-account, else 404 (never the data). */
export function own<T extends {merchant_id: number; account_id: string}>(ctx: Ctx, rec: T | undefined, what: string): T {
  if (!rec || rec.merchant_id !== ctx.merchant.id || rec.account_id !== ctx.account.id) throw notFound(what)
  return rec
}

/** The newest record of this tenant matching a predicate. */
export function newestOwned<T extends {merchant_id: number; account_id: string; created_at: string}>(
  ctx: Ctx,
  records: Record<string, T>,
  match: (r: T) => boolean,
): T | undefined {
  let best: T | undefined
  for (const r of Object.values(records)) {
    if (r.merchant_id !== ctx.merchant.id || r.account_id !== ctx.account.id || !match(r)) continue
    if (!best || r.created_at >= best.created_at) best = r
  }
  return best
}
