/** Endpoint id (src/api/endpoints.ts) -> handler, and the settlement tickers. */
import type {EndpointId} from '../../api/endpoints.js'
import type {Handler} from '../context.js'
import type {Core, Scheduling} from '../core.js'
import {CHECKOUT_TTL_MS, createCheckout, expireCheckout, getCheckout} from './checkout.js'
import {COLLECTION_EXPIRY, createCollection, expireCollection, getCollection, getCollectionByReference, settleCollection, waitingAccount} from './collections.js'
import {createCustomerVa, createMerchantVa, getCustomer, getCustomerVa, getMerchantVa, listCustomerCollections} from './customers.js'
import {approveDueMandate, cancelMandate, createDebit, createMandate, getDebitStatus, getMandate, settleDebit} from './mandates.js'
import {createPayout, getPayout, settlePayout} from './payouts.js'
import {getAccount, getBalance, listBanks, listProviders, verifyBankAccount, verifyMsisdn, verifyTransaction} from './reference.js'
import {createSubscription, getSubscription, listPlans} from './subscriptions.js'

export const handlers: Record<Exclude<EndpointId, 'auth.token'>, Handler> = {
  'collections.create': createCollection,
  'collections.getByReference': getCollectionByReference,
  'collections.get': getCollection,
  'checkout.create': createCheckout,
  'checkout.get': getCheckout,
  'transactions.verify': verifyTransaction,
  'payouts.create': createPayout,
  'payouts.get': getPayout,
  'verifications.msisdn': verifyMsisdn,
  'verifications.bankAccount': verifyBankAccount,
  'mandates.create': createMandate,
  'mandates.get': getMandate,
  'mandates.cancel': cancelMandate,
  'debits.create': createDebit,
  'debits.status': getDebitStatus,
  'plans.list': listPlans,
  'subscriptions.create': createSubscription,
  'subscriptions.get': getSubscription,
  'customers.get': getCustomer,
  'customers.createVirtualAccount': createCustomerVa,
  'customers.getVirtualAccount': getCustomerVa,
  'customers.collections': listCustomerCollections,
  'merchantVirtualAccount.create': createMerchantVa,
  'merchantVirtualAccount.get': getMerchantVa,
  'metadata.banks': listBanks,
  'metadata.providers': listProviders,
  'balance.get': getBalance,
  'account.get': getAccount,
}

/** Queues what a whole state waits for (a state loaded from --state, or a reset): one pass at start, not per request. */
function rescan(core: Core): void {
  const s = core.state
  for (const c of Object.values(s.collections)) {
    if (c.status === 'processing' && c.settle_at !== null) core.at(c.settle_at, 'collection', c.id)
    const va = waitingAccount(core, c)
    if (va?.expires_at) core.at(Date.parse(va.expires_at), COLLECTION_EXPIRY, c.id)
  }
  for (const p of Object.values(s.payouts)) if (p.status === 'processing' && p.settle_at !== null) core.at(p.settle_at, 'payout', p.id)
  for (const d of Object.values(s.debits)) if (d.status === 'processing' && d.settle_at !== null) core.at(d.settle_at, 'debit', d.id)
  for (const m of Object.values(s.mandates)) if (m.status === 'processing' && m.approve_at !== null) core.at(m.approve_at, 'mandate', m.id)
  for (const cs of Object.values(s.checkouts)) {
    if (cs.status === 'processing') core.at(Date.parse(cs.expires_at) || Date.parse(cs.created_at) + CHECKOUT_TTL_MS, 'checkout', cs.id)
  }
}

/** The timer queue's due handlers by entry kind (core.at(..., kind, id)). */
export const scheduling: Scheduling = {
  due: {collection: settleCollection, [COLLECTION_EXPIRY]: expireCollection, payout: settlePayout, debit: settleDebit, mandate: approveDueMandate, checkout: expireCheckout},
  rescan,
}
