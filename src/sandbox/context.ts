/** What a resource handler receives and returns. */
import type {Core} from './core.js'
import {notFound} from './errors.js'
import {type Kind, type Records, refKey} from './indexes.js'
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
  /** JSON.stringify(body) when the handler already holds it (an answer reused while nothing changed). */
  text?: string
}

export type Handler = (ctx: Ctx) => Result

/** A record visible to this merchant and sub-account, else 404 (never the data). */
export function own<T extends {merchant_id: number; account_id: string}>(ctx: Ctx, rec: T | undefined, what: string): T {
  if (!rec || rec.merchant_id !== ctx.merchant.id || rec.account_id !== ctx.account.id) throw notFound(what)
  return rec
}

/** The newest record of this tenant (merchant and sub-account) with a merchant reference (an index lookup). */
export function newestByRef<K extends Exclude<Kind, 'debits' | 'virtual_accounts'>>(ctx: Ctx, kind: K, ref: string | undefined): Records[K] | undefined {
  if (ref === undefined) return undefined
  const list = ctx.core.lookup(kind, refKey(kind, ctx.merchant.id, ctx.account.id, ref))
  return list[list.length - 1]
}
