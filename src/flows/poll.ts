/**
 * What `wait` polls for each endpoint a flow step may wait on: the get endpoint reporting the state of what the
 * step created (the same choices as the resource commands' --wait; docs/assumptions.md "What --wait polls"), or,
 * for a get endpoint, the step's own request again.
 */
import {type EndpointId, endpoints} from '../api/endpoints.js'
import type {CallInput} from '../client/api-client.js'

type PollOf = (body: unknown, input: CallInput) => {id: EndpointId; input: CallInput; label: string}

const field = (body: unknown, input: CallInput, key: string): string =>
  String((body as Record<string, unknown> | undefined)?.[key] ?? (input.body as Record<string, unknown> | undefined)?.[key])

const CREATES: Partial<Record<EndpointId, PollOf>> = {
  'collections.create': (b, i) => ({id: 'collections.get', input: {path: {id: field(b, i, 'id')}}, label: `collection ${field(b, i, 'id')}`}),
  'checkout.create': (b, i) => ({id: 'checkout.get', input: {path: {id: field(b, i, 'id')}}, label: `checkout session ${field(b, i, 'id')}`}),
  'payouts.create': (b, i) => ({id: 'payouts.get', input: {path: {merchant_reference: field(b, i, 'merchant_reference')}}, label: `payout ${field(b, i, 'merchant_reference')}`}),
  'mandates.create': (b, i) => ({id: 'mandates.get', input: {query: {merchant_reference: field(b, i, 'merchant_reference')}}, label: `mandate ${field(b, i, 'merchant_reference')}`}),
  'debits.create': (_b, i) => ({id: 'debits.status', input: {query: {mandate_id: i.path?.mandate_id, merchant_reference: field(undefined, i, 'merchant_reference')}}, label: `debit ${field(undefined, i, 'merchant_reference')}`}),
  'subscriptions.create': (b, i) => ({id: 'subscriptions.get', input: {query: {merchant_reference: field(b, i, 'merchant_reference')}}, label: `subscription ${field(b, i, 'merchant_reference')}`}),
}

/** The poll of a step's endpoint, or undefined when the endpoint has nothing to wait for. */
export function pollFor(id: EndpointId): PollOf | undefined {
  const create = CREATES[id]
  if (create) return create
  const endpoint = endpoints[id]
  if (endpoint.method === 'GET') return (_b, input) => ({id, input, label: id})
  return undefined
}
