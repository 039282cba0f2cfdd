/** Endpoint id (src/api/endpoints.ts) -> handler, and the settlement tickers. */
import type {EndpointId} from '../../api/endpoints.js'
import type {Handler} from '../context.js'
import type {Ticker} from '../core.js'
import {createCheckout, expireCheckouts, getCheckout} from './checkout.js'
import {createCollection, getCollection, getCollectionByReference, settleCollections} from './collections.js'
import {createCustomerVa, createMerchantVa, getCustomer, getCustomerVa, getMerchantVa, listCustomerCollections} from './customers.js'
import {cancelMandate, createDebit, createMandate, getDebitStatus, getMandate, settleMandates} from './mandates.js'
import {createPayout, getPayout, settlePayouts} from './payouts.js'
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

export const tickers: Ticker[] = [settleCollections, settlePayouts, settleMandates, expireCheckouts]
