/** Metadata, balance, account context, verifications and the unified verify snapshot. */
import type {Handler, Result} from '../context.js'
import {newestByRef} from '../context.js'
import {ApiError, notFound} from '../errors.js'
import {nameFor} from '../outcomes.js'
import {balanceEntry, requireCurrency} from '../wallets.js'
import {bankOf} from './common.js'
import {checkoutView} from './checkout.js'
import {collectionView} from './collections.js'
import {payoutView} from './payouts.js'
import {entry} from '../state.js'

export const listBanks: Handler = (ctx) => ({
  status: 200,
  body: {object: 'list', data: ctx.core.state.banks.map((b) => ({object: 'bank', bank_name: b.bank_name, bank_code: b.bank_code}))},
})

export const listProviders: Handler = (ctx) => ({
  status: 200,
  body: {object: 'list', data: ctx.core.state.mobile_providers.map((p) => ({object: 'mobile_provider', provider: p}))},
})

/** The last balance answer of each merchant (all wallets), reused with its JSON text while its entries stay the same. */
const lastBalance = new WeakMap<object, {data: unknown[]; result: Result}>()

export const getBalance: Handler = (ctx) => {
  const {core, merchant} = ctx
  if (ctx.query.currency) return {status: 200, body: {object: 'balance', data: [balanceEntry(core, requireCurrency(core, merchant, ctx.query.currency))]}}
  const data = Object.values(entry(core.state.wallets, merchant.id) ?? {}).map((w) => balanceEntry(core, w))
  const last = lastBalance.get(merchant)
  if (last && last.data.length === data.length && last.data.every((e, i) => e === data[i])) return last.result
  const body = {object: 'balance', data}
  const result: Result = {status: 200, body, text: JSON.stringify(body)}
  lastBalance.set(merchant, {data, result})
  return result
}

export const getAccount: Handler = (ctx) => ({
  status: 200,
  body: {
    object: 'account_context',
    merchant: {id: ctx.merchant.id, name: ctx.merchant.name, sub_accounts_enabled: ctx.merchant.products.sub_accounts},
    account: {id: ctx.account.id, object: 'merchant_account', account_ref: ctx.account.account_ref, name: ctx.account.name, status: 'active'},
  },
})

const gatewayError = () => new ApiError(502, 'gateway_error', 'the upstream identity-check provider failed; retry later', {doc: 'verifications'})

export const verifyMsisdn: Handler = (ctx) => {
  const mobile: string = ctx.body.mobile
  if (mobile.endsWith('5')) throw gatewayError()
  if (mobile.endsWith('9')) return {status: 200, body: {object: 'verification', status: 'invalid', profile: null}}
  return {status: 200, body: {object: 'verification', status: 'verified', profile: nameFor(mobile)}}
}

export const verifyBankAccount: Handler = (ctx) => {
  const {bank_code, account_number} = ctx.body as {bank_code: string; account_number: string}
  if (account_number.endsWith('5')) throw gatewayError()
  if (!bankOf(ctx.core, bank_code) || account_number.endsWith('9')) return {status: 200, body: {object: 'verification', status: 'invalid', profile: null}}
  return {status: 200, body: {object: 'verification', status: 'verified', profile: nameFor(bank_code + account_number)}}
}

export const verifyTransaction: Handler = (ctx) => {
  const ref = ctx.params.merchant_reference
  const candidates = [
    {rec: newestByRef(ctx, 'collections', ref), view: (r: any) => collectionView(ctx.core, r)},
    {rec: newestByRef(ctx, 'payouts', ref), view: (r: any) => payoutView(r)},
    {rec: newestByRef(ctx, 'checkouts', ref), view: (r: any) => checkoutView(ctx.core, r)},
  ].filter((c) => c.rec !== undefined)
  if (candidates.length === 0) throw notFound(`transaction with merchant_reference ${ref}`)
  candidates.sort((a, b) => (a.rec!.created_at < b.rec!.created_at ? 1 : -1))
  return {status: 200, body: candidates[0].view(candidates[0].rec)}
}
