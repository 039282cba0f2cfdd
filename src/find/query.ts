/**
 * What `pay find QUERY` was given: a pay-page URL (…/pay/{id}), an id whose prefix the interface names (spec:
 * Identifier prefixes), or else a merchant reference. Pure: tested without a network.
 */
import {pathValueRule} from '../api/endpoints.js'
import {type Kind, kindOfId} from '../api/kinds.js'
import {InputError} from '../base/errors.js'

/** Prefixes of the ids the interface names that are not transactions: a customer, a plan, a merchant account. */
export const OTHER_PREFIXES = {customer: 'MC_', plan: 'PLN_', account: 'MAC_'} as const
type OtherKind = keyof typeof OTHER_PREFIXES

export type Query =
  | {type: 'reference'; text: string; reference: string}
  /** `kind` for a transaction's id, `other` for a customer, plan or account id. */
  | {type: 'id'; text: string; id: string; kind?: Kind; other?: OtherKind}
  | {type: 'url'; text: string; id: string; kind: Kind; host: string}

/** An id: a known prefix, then letters and digits (what the service and the sandbox issue). */
const ID_BODY = /^[A-Za-z0-9]+$/

export function parseQuery(text: string, asReference = false): Query {
  if (text.trim() === '') throw InputError.one('QUERY', 'must not be empty: give a merchant reference, an id (CL_…, PO_…, MD_…) or a pay-page URL')
  if (!asReference && /^https?:\/\//i.test(text)) return urlQuery(text)
  if (!asReference) {
    const other = (Object.entries(OTHER_PREFIXES) as [OtherKind, string][]).find(([, p]) => text.startsWith(p) && ID_BODY.test(text.slice(p.length)))
    if (other) return {type: 'id', text, id: text, other: other[0]}
    const kind = kindOfId(text)
    if (kind && ID_BODY.test(text.slice(kind.prefix!.length))) return {type: 'id', text, id: text, kind}
  }
  const rule = pathValueRule(text)
  if (rule) throw InputError.one('QUERY', `as a merchant reference ${rule}`)
  return {type: 'reference', text, reference: text}
}

/** A pay-page URL: http(s)://host/…/pay/{id}. */
function urlQuery(text: string): Query {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw InputError.one('QUERY', 'is not a valid URL')
  }
  const m = /\/pay\/([^/]+)\/?$/.exec(url.pathname)
  const id = m ? safeDecode(m[1]) : undefined
  const kind = id === undefined ? undefined : kindOfId(id)
  if (!id || kind?.name !== 'checkout_session') throw InputError.one('QUERY', 'is a URL but not a pay page (https://…/pay/CS_…); give the URL of the hosted pay page, an id or a merchant reference')
  return {type: 'url', text, id, kind, host: url.host}
}

function safeDecode(part: string): string | undefined {
  try {
    return decodeURIComponent(part)
  } catch {
    return undefined
  }
}
