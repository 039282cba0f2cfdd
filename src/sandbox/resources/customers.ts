/**
 * Customers, their static bank accounts (one ACTIVE per customer, cap 1000 per merchant) and their
 * collections (paged: `page` 1-based, `per_page` default 20, max 100; newest first), plus the merchant's
 * standing static account. Static accounts need the Static VA product (403 otherwise).
 */
import {DEFAULT_PER_PAGE} from '../../api/schemas.js'
import type {Ctx, Handler} from '../context.js'
import {own} from '../context.js'
import {notFound, validationError} from '../errors.js'
import {customerKey, customerVaCountKey, customerVaKey, merchantVaKey} from '../indexes.js'
import type {CustomerRec, VirtualAccountRec} from '../state.js'
import {collectionView} from './collections.js'
import {requireProduct} from './common.js'
import {STATIC_VA_CAP, issueVirtualAccount, vaView} from './virtual-accounts.js'
import {entry} from '../state.js'

function customerOf(ctx: Ctx): CustomerRec {
  return own(ctx, entry(ctx.core.state.customers, ctx.params.id), `customer ${ctx.params.id}`)
}

export function customerView(c: CustomerRec) {
  return {id: c.id, object: 'customer', merchant_reference: c.merchant_reference, name: c.name, email: c.email, mobile: c.mobile, created_at: c.created_at.replace(/Z$/, '+00:00')}
}

export const getCustomer: Handler = (ctx) => ({status: 200, body: customerView(customerOf(ctx))})

/** The ACTIVE static account listed under an index key (customerVaKey / merchantVaKey). */
function findVa(ctx: Ctx, key: string): VirtualAccountRec | undefined {
  return ctx.core.lookup('virtual_accounts', key).find((va) => va.status === 'ACTIVE')
}

const customerWrapper = (c: CustomerRec, va: VirtualAccountRec) => ({object: 'virtual_account', customer_id: c.id, virtual_account: vaView(va)})
const merchantWrapper = (va: VirtualAccountRec) => ({object: 'virtual_account', owner: 'merchant', virtual_account: vaView(va)})

export const createCustomerVa: Handler = (ctx) => {
  const c = customerOf(ctx)
  requireProduct(ctx.merchant, 'static_va')
  const existing = findVa(ctx, customerVaKey(ctx.merchant.id, c.id))
  if (existing) return {status: 200, body: customerWrapper(c, existing)}
  const active = ctx.core.index.ids(customerVaCountKey(ctx.merchant.id)).length
  if (active >= STATIC_VA_CAP) throw validationError('id', `this merchant already has ${STATIC_VA_CAP} active customer static bank accounts (the cap)`)
  const va = issueVirtualAccount(ctx.core, {merchant_id: ctx.merchant.id, account_id: ctx.account.id, client_id: ctx.client.client_id, name: c.name, type: 'STATIC', owner: {kind: 'customer', customer_id: c.id}})
  return {status: 200, body: customerWrapper(c, va)}
}

export const getCustomerVa: Handler = (ctx) => {
  const c = customerOf(ctx)
  const va = findVa(ctx, customerVaKey(ctx.merchant.id, c.id))
  if (!va) throw notFound(`static bank account of customer ${c.id}`)
  return {status: 200, body: customerWrapper(c, va)}
}

export const createMerchantVa: Handler = (ctx) => {
  requireProduct(ctx.merchant, 'static_va')
  const existing = findVa(ctx, merchantVaKey(ctx.merchant.id, ctx.account.id))
  if (existing) return {status: 200, body: merchantWrapper(existing)}
  const va = issueVirtualAccount(ctx.core, {merchant_id: ctx.merchant.id, account_id: ctx.account.id, client_id: ctx.client.client_id, name: ctx.merchant.name, type: 'STATIC', owner: {kind: 'merchant'}})
  return {status: 200, body: merchantWrapper(va)}
}

export const getMerchantVa: Handler = (ctx) => {
  const va = findVa(ctx, merchantVaKey(ctx.merchant.id, ctx.account.id))
  if (!va) throw notFound('merchant static bank account')
  return {status: 200, body: merchantWrapper(va)}
}

export const listCustomerCollections: Handler = (ctx) => {
  const c = customerOf(ctx)
  const perPage = ctx.query.per_page ? Number(ctx.query.per_page) : DEFAULT_PER_PAGE
  const page = ctx.query.page ? Number(ctx.query.page) : 1
  const all = ctx.core
    .lookup('collections', customerKey(c.id))
    .filter((col) => col.merchant_id === ctx.merchant.id)
    .sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : a.id < b.id ? 1 : -1))
  const start = (page - 1) * perPage
  const data = all.slice(start, start + perPage).map((col) => collectionView(ctx.core, col))
  return {status: 200, body: {object: 'list', customer_id: c.id, data, has_more: start + perPage < all.length, total: all.length, page, per_page: perPage}}
}
