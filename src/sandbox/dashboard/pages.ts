/**
 * The dashboard's pages: server-rendered HTML from the sandbox's own state, read where it lives (no copy, no
 * second model). Every value written into a page is escaped (esc): ids, references, descriptions, URLs, headers and
 * bodies all come from requests. No page shows a secret: API clients are shown by id and webhook URL (userinfo
 * removed), the request log as the one redactor left it (src/base/redact.ts), and neither the clients' secrets nor
 * the tokens table is ever read here.
 */
import {redactUrl} from '../../base/redact.js'
import type {Core} from '../core.js'
import type {Kind as IndexKind} from '../indexes.js'
import {esc} from '../html.js'
import {checkoutView} from '../resources/checkout.js'
import {collectionView} from '../resources/collections.js'
import {customerView} from '../resources/customers.js'
import {debitView, mandateView} from '../resources/mandates.js'
import {payoutView} from '../resources/payouts.js'
import {subscriptionView} from '../resources/subscription-records.js'
import {vaView} from '../resources/virtual-accounts.js'
import {DASHBOARD_PATH, type Runtime} from '../runtime.js'
import type {LogEntry} from '../request-log.js'
import {type EventRec, type State, entry} from '../state.js'
import {HOLD_MS, balanceEntry} from '../wallets.js'

export const BASE = `${DASHBOARD_PATH}/`
/** Rows per page of a list. */
const PAGE_SIZE = 50

/** What a page handler gets: the runtime, the query, the CSRF token for its forms, the URL to come back to. */
export interface View {
  rt: Runtime
  query: Record<string, string>
  csrf: string
  /** This page's path and query (where an action's form returns). */
  here: string
  notice?: {text: string; ok: boolean}
}

export interface Page {
  /** Which navigation entry is current. */
  nav: string
  title: string
  content: string
  status?: number
}

const NAV: [key: string, path: string, label: string][] = [
  ['overview', '', 'Overview'],
  ['objects', 'objects', 'Objects'],
  ['wallets', 'wallets', 'Wallets'],
  ['events', 'events', 'Events'],
  ['requests', 'requests', 'Requests'],
  ['clock', 'clock', 'Clock'],
]

/** A dashboard URL: the path's segments and the query's values are encoded. */
export function href(path: string, query: Record<string, string | number | undefined> = {}): string {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') q.set(k, String(v))
  const qs = q.toString()
  return `${BASE}${path}${qs ? `?${qs}` : ''}`
}

const link = (path: string, text: string, query?: Record<string, string | number | undefined>) => `<a href="${esc(href(path, query))}">${esc(text)}</a>`
const objectLink = (id: string) => link(`objects/${encodeURIComponent(id)}`, id)
const eventLink = (id: string) => link(`events/${encodeURIComponent(id)}`, id)
const state = (s: string) => `<span class="state state-${esc(s.replace(/[^A-Za-z_]/g, ''))}">${esc(s)}</span>`
const money = (currency: string, amount: string | null | undefined) => (amount === null || amount === undefined ? '—' : `${esc(currency)} ${esc(amount)}`)
const code = (s: string) => `<code>${esc(s)}</code>`
const json = (v: unknown) => `<pre>${esc(JSON.stringify(v, null, 2) ?? '')}</pre>`

/** A table with a caption and column headers; `num` columns are right-aligned. Cells are HTML already escaped. */
function table(caption: string, columns: string[], rows: string[][], empty = 'Nothing yet.', num: number[] = []): string {
  if (rows.length === 0) return `<p class="muted">${esc(empty)}</p>`
  const th = columns.map((c, i) => `<th scope="col"${num.includes(i) ? ' class="num"' : ''}>${esc(c)}</th>`).join('')
  const body = rows.map((r) => `<tr>${r.map((c, i) => `<td${num.includes(i) ? ' class="num"' : ''}>${c}</td>`).join('')}</tr>`).join('\n')
  return `<table><caption>${esc(caption)}</caption><thead><tr>${th}</tr></thead><tbody>\n${body}\n</tbody></table>`
}

/** A form POSTing to one action; `fields` is HTML (labelled inputs), hidden values are escaped here. */
function actionForm(v: View, action: string, hidden: Record<string, string>, button: string, fields = '', cls = 'inline', buttonClass = '', what = ''): string {
  const inputs = Object.entries({...hidden, _csrf: v.csrf, return: v.here})
    .map(([k, val]) => `<input type="hidden" name="${esc(k)}" value="${esc(val)}">`)
    .join('')
  // in a list, each button names its object for a screen reader ("Succeed CL_…"), not only "Succeed"
  const label = what ? ` aria-label="${esc(`${button} ${what}`)}"` : ''
  return `<form class="${cls}" method="post" action="${esc(href(`actions/${action}`))}">${inputs}${fields}<button type="submit"${buttonClass ? ` class="${buttonClass}"` : ''}${label}>${esc(button)}</button></form>`
}

let fieldSeq = 0
/** Starts a page: field ids count from 1 again, so the same state renders the same HTML (live.js compares). */
export function beginPage(): void {
  fieldSeq = 0
}
/** A labelled input (the id is unique within a page render). */
function input(label: string, name: string, attrs: Record<string, string> = {}): string {
  const id = `f${++fieldSeq}-${name}`
  const extra = Object.entries(attrs)
    .map(([k, val]) => ` ${k}="${esc(val)}"`)
    .join('')
  return `<label for="${id}">${esc(label)}<input id="${id}" name="${esc(name)}"${extra}></label>`
}

function select(label: string, name: string, options: [value: string, text: string][], selected: string | undefined): string {
  const id = `f${++fieldSeq}-${name}`
  const opts = options.map(([value, text]) => `<option value="${esc(value)}"${value === (selected ?? '') ? ' selected' : ''}>${esc(text)}</option>`).join('')
  return `<label for="${id}">${esc(label)}<select id="${id}" name="${esc(name)}">${opts}</select></label>`
}

/** A GET form of filters for a list page (works without JavaScript; the URL keeps them). */
function filters(path: string, fields: string, label = 'Filter'): string {
  return `<form class="filters" method="get" action="${esc(href(path))}" role="search" aria-label="${esc(label)}">${fields}<button type="submit">${esc(label)}</button> ${link(path, 'Clear')}</form>`
}

/** Newer/older links of a list (page 1 is the newest). */
function pager(path: string, query: Record<string, string>, page: number, more: boolean): string {
  const parts = []
  if (page > 1) parts.push(link(path, 'Newer', {...query, page: page - 1}))
  if (more) parts.push(link(path, 'Older', {...query, page: page + 1}))
  return parts.length ? `<nav class="pager" aria-label="Pages">${parts.join('')}<span class="muted">page ${page}</span></nav>` : ''
}

const pageOf = (query: Record<string, string>) => Math.max(1, Math.min(1_000_000, Number.parseInt(query.page ?? '1', 10) || 1))

/** A list read by position (an array, or a table's records through the index's ids). */
interface Listing<T> {
  length: number
  at(i: number): T | undefined
}
const listing = <T>(list: ArrayLike<T>): Listing<T> => ({length: list.length, at: (i) => list[i]})

/** Up to PAGE_SIZE items of `list` (oldest first) that match, newest first, for page `page`; and whether there are more. */
function newest<T>(list: Listing<T>, page: number, match: (x: T) => boolean): {items: T[]; more: boolean} {
  const skip = (page - 1) * PAGE_SIZE
  const items: T[] = []
  let seen = 0
  for (let i = list.length - 1; i >= 0; i--) {
    const x = list.at(i)
    if (x === undefined || !match(x)) continue
    if (seen++ < skip) continue
    if (items.length === PAGE_SIZE) return {items, more: true}
    items.push(x)
  }
  return {items, more: false}
}

/** The whole document around a page's content. */
export function layout(v: View, page: Page): string {
  const nav = NAV.map(([key, path, label]) => `<li><a href="${esc(href(path))}"${key === page.nav ? ' aria-current="page"' : ''}>${esc(label)}</a></li>`).join('')
  const notice = v.notice ? `<p class="notice${v.notice.ok ? '' : ' error'}" role="${v.notice.ok ? 'status' : 'alert'}">${esc(v.notice.text)}</p>` : ''
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(page.title)} · pay sandbox</title><link rel="stylesheet" href="${BASE}style.css"><script src="${BASE}live.js" defer></script></head>
<body data-live="${BASE}live"><a class="skip" href="#main">Skip to content</a>
<header><span class="brand">pay sandbox</span><nav aria-label="Dashboard"><ul>${nav}</ul></nav>
<span class="clock" data-live="clock">Sandbox clock ${esc(v.rt.core.iso())}</span><span id="live" aria-live="off"></span></header>
<main id="main" tabindex="-1"><h1>${esc(page.title)}</h1>${notice}
${page.content}
</main></body></html>`
}

// ---------------------------------------------------------------------------------------------------- objects

type Row = {id: string; status: string; amount: string; reference: string; merchant_id: number; account_id: string; created_at: string}

interface KindPage {
  label: string
  /** Its table in the state. */
  table: keyof State
  row: (rec: any) => Row
  view: (core: Core, rec: any) => Record<string, unknown>
  states: string[]
}

const tx = (r: {id: string; status: string; currency: string; amount: string | null; merchant_reference: string; merchant_id: number; account_id: string; created_at: string}): Row => ({
  id: r.id,
  status: r.status,
  amount: money(r.currency, r.amount),
  reference: r.merchant_reference,
  merchant_id: r.merchant_id,
  account_id: r.account_id,
  created_at: r.created_at,
})
const TX_STATES = ['processing', 'succeeded', 'failed']

/** The kinds of object, in the order of the tabs. */
const KIND_PAGES: Record<string, KindPage> = {
  collections: {label: 'Collections', table: 'collections', row: tx, view: collectionView, states: TX_STATES},
  checkouts: {label: 'Checkout sessions', table: 'checkouts', row: tx, view: checkoutView, states: TX_STATES},
  payouts: {label: 'Payouts', table: 'payouts', row: tx, view: (_c, r) => payoutView(r), states: TX_STATES},
  mandates: {label: 'Mandates', table: 'mandates', row: tx, view: (_c, r) => mandateView(r), states: ['processing', 'succeeded', 'cancelled']},
  debits: {label: 'Debits', table: 'debits', row: tx, view: (_c, r) => debitView(r), states: TX_STATES},
  subscriptions: {
    label: 'Subscriptions',
    table: 'subscriptions',
    row: (r) => ({id: r.subscription_id, status: r.status, amount: esc(r.plan_name), reference: r.merchant_reference, merchant_id: r.merchant_id, account_id: r.account_id, created_at: r.created_at}),
    view: (_c, r) => subscriptionView(r),
    states: ['pending_approval', 'active', 'cancelled', 'failed'],
  },
  customers: {
    label: 'Customers',
    table: 'customers',
    row: (r) => ({id: r.id, status: '', amount: esc(r.name), reference: r.merchant_reference, merchant_id: r.merchant_id, account_id: r.account_id, created_at: r.created_at}),
    view: (_c, r) => customerView(r),
    states: [],
  },
  virtual_accounts: {
    label: 'Virtual accounts',
    table: 'virtual_accounts',
    row: (r) => ({
      id: r.account_number,
      status: r.status,
      amount: r.single_deposit_limit ? `limit ${esc(r.single_deposit_limit)}` : '—',
      reference: `${r.account_type} · ${r.owner.kind}${r.owner.id ? ` ${r.owner.id}` : r.owner.customer_id ? ` ${r.owner.customer_id}` : ''}`,
      merchant_id: r.merchant_id,
      account_id: r.account_id,
      created_at: r.expires_at ? `expires ${r.expires_at}` : '',
    }),
    view: (_c, r) => ({...vaView(r), owner: r.owner}),
    states: [],
  },
}

/**
 * The records of a kind, oldest first, read by position through the index's ids: no enumeration of a table per
 * render (reading the keys of a table of 100,000 records costs tens of milliseconds). Customers (seeded only, a
 * handful) are read from their table.
 */
function recordsOf(core: Core, kind: KindPage): Listing<any> {
  const table = core.state[kind.table] as Record<string, unknown>
  if (kind.table === 'customers') return listing(Object.values(table))
  const ids = core.index.all(kind.table as IndexKind)
  return {length: ids.length, at: (i) => table[ids[i]]}
}

function merchantName(core: Core, merchantId: number, accountId: string): string {
  const m = entry(core.state.merchants, merchantId)
  if (!m) return String(merchantId)
  const account = m.accounts.length > 1 ? m.accounts.find((a) => a.id === accountId)?.account_ref : undefined
  return account ? `${m.name} (${account})` : m.name
}

/** The buttons that move an object: succeed or fail a processing transaction, approve a mandate, a transfer in. */
function objectActions(v: View, kindKey: string, rec: any): string {
  const out: string[] = []
  if (['collections', 'checkouts', 'payouts', 'debits'].includes(kindKey) && rec.status === 'processing') {
    out.push(actionForm(v, 'succeed', {id: rec.id}, 'Succeed', '', 'inline', '', rec.id), actionForm(v, 'fail', {id: rec.id}, 'Fail', '', 'inline', 'secondary', rec.id))
  }
  if (kindKey === 'mandates' && rec.status === 'processing') out.push(actionForm(v, 'approve', {mandate_id: rec.id}, 'Approve', '', 'inline', '', rec.id))
  const va: string | undefined = kindKey === 'virtual_accounts' ? rec.account_number : rec.status === 'processing' ? rec.va_number : undefined
  if (va) out.push(actionForm(v, 'transfer', {account_number: va}, 'Transfer in', input(`Amount into ${va}`, 'amount', {inputmode: 'decimal', placeholder: '100.00', required: '', size: '9'}), 'inline', '', va))
  return out.join('')
}

export function objectsPage(v: View): Page {
  const kindKey = Object.hasOwn(KIND_PAGES, v.query.kind ?? '') ? v.query.kind! : 'collections'
  const kind = KIND_PAGES[kindKey]
  const {core} = v.rt
  const wanted = v.query.state ?? ''
  const q = (v.query.q ?? '').trim()
  const page = pageOf(v.query)
  const all = recordsOf(core, kind)
  const {items, more} = newest(all, page, (rec) => {
    const row = kind.row(rec)
    return (!wanted || row.status === wanted) && (!q || row.id.includes(q) || row.reference.includes(q))
  })
  const tabs = Object.entries(KIND_PAGES)
    .map(([key, k]) => `<li><a href="${esc(href('objects', {kind: key}))}"${key === kindKey ? ' aria-current="page"' : ''}>${esc(k.label)}</a> <span class="muted">${recordsOf(core, k).length}</span></li>`)
    .join('')
  const form = filters(
    'objects',
    `<input type="hidden" name="kind" value="${esc(kindKey)}">` +
      (kind.states.length ? select('State', 'state', [['', 'any'], ...kind.states.map((s): [string, string] => [s, s])], wanted) : '') +
      input('Id or reference contains', 'q', {value: q, type: 'search'}),
  )
  const rows = items.map((rec) => {
    const r = kind.row(rec)
    return [objectLink(r.id), r.status ? state(r.status) : '', r.amount, esc(r.reference), esc(merchantName(core, r.merchant_id, r.account_id)), esc(r.created_at), objectActions(v, kindKey, rec)]
  })
  const amountColumn = kindKey === 'subscriptions' ? 'Plan' : kindKey === 'customers' ? 'Name' : kindKey === 'virtual_accounts' ? 'Deposit limit' : 'Amount'
  const referenceColumn = kindKey === 'virtual_accounts' ? 'Type and owner' : 'Reference'
  const content = `<nav aria-label="Kinds of object"><ul class="plain" style="display:flex;flex-wrap:wrap;gap:.2rem 1.2rem;list-style:none;padding:0">${tabs}</ul></nav>
<h2>${esc(kind.label)}</h2>${form}
<div data-live="objects">${table(`${kind.label}, newest first (${all.length} in all)`, ['Id', 'State', amountColumn, referenceColumn, 'Merchant', 'Created', 'Actions'], rows, q || wanted ? 'None match.' : 'None yet.')}
${pager('objects', {kind: kindKey, state: wanted, q}, page, more)}</div>`
  return {nav: 'objects', title: 'Objects', content}
}

/** The object with this id, of whichever kind holds it. */
function findObject(core: Core, id: string): {kindKey: string; kind: KindPage; rec: any} | undefined {
  for (const [kindKey, kind] of Object.entries(KIND_PAGES)) {
    const rec = entry(core.state[kind.table] as Record<string, unknown>, id)
    if (rec) return {kindKey, kind, rec}
  }
  return undefined
}

/** Events about one object, oldest first (from the event list: what the sandbox emitted for it). */
function eventsAbout(core: Core, id: string): EventRec[] {
  return core.state.events.filter((e) => subject(e) === id)
}

/** The resource an event is about (events loaded from a --state file carry no subject: read from the payload). */
function subject(e: EventRec): string | undefined {
  if (e.subject !== undefined) return e.subject
  try {
    const payload = JSON.parse(e.body) as {type: string; data: Record<string, unknown>}
    const d = payload.data ?? {}
    const id = d.id ?? (e.type.startsWith('subscription.') ? d.subscription_id : e.type.startsWith('mandate.') ? d.mandate_id : undefined)
    e.subject = typeof id === 'string' ? id : ''
  } catch {
    e.subject = ''
  }
  return e.subject
}

export function objectPage(v: View, id: string): Page {
  const {core} = v.rt
  const found = findObject(core, id)
  if (!found) return {nav: 'objects', title: 'Not found', content: `<p>No object ${code(id)} in the sandbox (a reset clears everything).</p><p>${link('objects', 'All objects')}</p>`, status: 404}
  const {kindKey, kind, rec} = found
  const row = kind.row(rec)
  const view = kind.view(core, rec)
  const events = eventsAbout(core, row.id)
  // the history: created, then every change the sandbox emitted an event for, then where it is now
  const history: string[][] = [[esc(row.created_at), 'created', '', '']]
  for (const e of events) history.push([esc(e.created_at), esc(e.type), eventLink(e.id), state(e.state)])
  const last = events.length ? events[events.length - 1].type.split('.').pop() : undefined
  if (row.status && last !== row.status) history.push(['now', state(row.status), '', ''])
  const fields = Object.entries(view)
    .map(([k, val]) => `<dt>${esc(k)}</dt><dd>${val !== null && typeof val === 'object' ? json(val) : esc(String(val))}</dd>`)
    .join('')
  const settles = rec.status === 'processing' && typeof rec.settle_at === 'number' ? `<p>Settles by its rule at ${esc(core.iso(rec.settle_at))} (sandbox clock).</p>` : ''
  const approves = kindKey === 'mandates' && rec.status === 'processing' ? `<p>${rec.approve_at === null ? 'Waits for the customer’s approval (the Approve button).' : `Approved by its rule at ${esc(core.iso(rec.approve_at))}.`}</p>` : ''
  const actions = objectActions(v, kindKey, rec)
  const content = `<p>${link('objects', kind.label, {kind: kindKey})} · ${esc(merchantName(core, row.merchant_id, row.account_id))}${rec.client_id ? ` · created by API client ${code(rec.client_id)}` : rec.client_id === null ? ' · created in the portal (no events)' : ''}</p>
<div data-live="object">${row.status ? `<p>State: ${state(row.status)}</p>` : ''}${settles}${approves}${actions ? `<h2>Actions</h2><div>${actions}</div>` : ''}
<h2>History of states</h2>${table('Changes of state, oldest first', ['At (sandbox clock)', 'Change', 'Event', 'Delivery'], history)}
<h2>As the API shows it</h2><dl>${fields}</dl></div>`
  return {nav: 'objects', title: `${kind.label.replace(/s$/, '')} ${row.id}`, content}
}

// ---------------------------------------------------------------------------------------------------- overview

export function overviewPage(v: View): Page {
  const {core, faults, webhooks} = v.rt
  const s = core.state
  const merchants = Object.values(s.merchants)
    .map((m) => {
      const products = Object.entries(m.products)
        .map(([p, on]) => `<li>${esc(p.replace(/_/g, ' '))}: ${on ? 'on' : '<span class="muted">off</span>'}</li>`)
        .join('')
      const clients = Object.values(s.clients)
        .filter((c) => c.merchant_id === m.id)
        .map((c) => [code(c.client_id), c.enabled ? 'enabled' : 'disabled', c.webhook_url ? esc(redactUrl(c.webhook_url)) : '<span class="muted">none</span>'])
      return `<section class="card" aria-labelledby="m-${m.id}"><h3 id="m-${m.id}">${esc(m.name)}</h3>
<dl><dt>Merchant id</dt><dd>${m.id}</dd><dt>Key</dt><dd>${esc(m.key)}</dd><dt>Mode</dt><dd>${m.testing ? 'Testing mode' : 'live'}</dd><dt>Accounts</dt><dd>${m.accounts.map((a) => esc(a.account_ref)).join(', ')}</dd></dl>
<h4>Products</h4><ul class="plain">${products}</ul>
${table('API clients (secrets are never shown)', ['Client id', 'State', 'Webhook URL'], clients, 'No API client.')}</section>`
    })
    .join('\n')
  const counts = Object.entries(KIND_PAGES).map(([key, k]) => {
    const recs = recordsOf(core, k)
    let processing = 0
    for (let i = 0; i < recs.length; i++) {
      const status = (recs.at(i) as {status?: string} | undefined)?.status
      if (status === 'processing' || status === 'pending_approval') processing++
    }
    return [link('objects', k.label, {kind: key}), String(recs.length), processing ? link('objects', String(processing), {kind: key, state: k.states[0]}) : '0']
  })
  const f = faults.view()
  const faultFields =
    input('Fault rate (0–1, answered 503)', 'fault_rate', {value: String(f.fault_rate), inputmode: 'decimal'}) +
    input('Latency (ms)', 'latency_ms', {value: String(f.latency_ms), inputmode: 'numeric'}) +
    input('Drop after commit rate (0–1)', 'drop_after_commit_rate', {value: String(f.drop_after_commit_rate), inputmode: 'decimal'}) +
    input('Drop the next N POSTs after commit', 'drop_next', {value: String(f.drop_next), inputmode: 'numeric'}) +
    input('Webhook duplicate rate (0–1)', 'duplicate_rate', {value: String(webhooks.duplicateRate), inputmode: 'decimal'})
  const content = `<h2>Merchants and products</h2><div class="cards" data-live="merchants">${merchants}</div>
<h2>Objects</h2><div data-live="counts">${table('Objects held by kind', ['Kind', 'Held', 'Processing'], counts, '', [1, 2])}</div>
<h2>Faults</h2>${actionForm(v, 'faults', {}, 'Set faults', faultFields, 'stack')}
<h2>Reset</h2><p>Back to the seed: every object, token, event and the clock.</p>${actionForm(v, 'reset', {}, 'Reset the sandbox', '', 'inline', 'danger')}`
  return {nav: 'overview', title: 'Sandbox dashboard', content}
}

// ---------------------------------------------------------------------------------------------------- wallets

/** Held credits listed per wallet (the oldest, next to be released, first). */
const HELD_SHOWN = 20

export function walletsPage(v: View): Page {
  const {core} = v.rt
  const sections = Object.values(core.state.merchants).map((m) => {
    const wallets = Object.values(entry(core.state.wallets, m.id) ?? {})
    const rows = wallets.map((w) => {
      const b = balanceEntry(core, w) // what GET /v1/balance answers (it releases what is due first)
      const next = w.credits[0]
      return [esc(w.currency), esc(b.collection_wallet), esc(b.collection_wallet_held), esc(b.collection_wallet_actual), esc(b.payout_wallet), next ? esc(core.iso(next.at + HOLD_MS)) : '—']
    })
    const held = wallets
      .filter((w) => w.credits.length > 0)
      .map((w) => {
        const list = w.credits.slice(0, HELD_SHOWN).map((c) => [esc(w.currency), esc(c.amount), esc(core.iso(c.at)), esc(core.iso(c.at + HOLD_MS))])
        const rest = w.credits.length > HELD_SHOWN ? `<p class="muted">and ${w.credits.length - HELD_SHOWN} more held credits.</p>` : ''
        return table(`${m.name}: held credits in ${w.currency}, next released first`, ['Currency', 'Amount', 'Credited at', 'Released at'], list, '', [1]) + rest
      })
      .join('')
    return `<section aria-labelledby="w-${m.id}"><h2 id="w-${m.id}">${esc(m.name)}</h2>
${table(`${m.name}: wallets`, ['Currency', 'Available', 'Held', 'Collection wallet in all', 'Payout wallet', 'Next release'], rows, 'No wallet.', [1, 2, 3, 4])}${held}</section>`
  })
  const content = `<p>A collection is held for ${HOLD_MS / 3_600_000} h of sandbox clock (T+1) after it succeeds, then counts as available. Move the clock on the ${link('clock', 'Clock')} page.</p>
<div data-live="wallets">${sections.join('\n')}</div>`
  return {nav: 'wallets', title: 'Wallets', content}
}

// ---------------------------------------------------------------------------------------------------- events

const EVENT_STATES = ['pending', 'delivered', 'failed', 'no_endpoint']

const deliveryKind = (d: EventRec['deliveries'][number]) => (d.resend ? 'resend' : d.duplicate ? 'duplicate' : 'scheduled')

export function eventsPage(v: View): Page {
  const {core} = v.rt
  const type = v.query.type ?? ''
  const wanted = v.query.state ?? ''
  const client = v.query.client ?? ''
  const page = pageOf(v.query)
  const events = core.state.events
  const {items, more} = newest(listing(events), page, (e) => (!type || e.type === type) && (!wanted || e.state === wanted) && (!client || e.client_id === client))
  const rows = items.map((e) => {
    const lastTry = e.deliveries[e.deliveries.length - 1]
    return [esc(e.created_at), eventLink(e.id), esc(e.type), code(e.client_id), state(e.state), String(e.deliveries.length), lastTry ? esc(lastTry.status === null ? `unreachable: ${lastTry.error ?? ''}` : String(lastTry.status)) : '—']
  })
  const types = [...new Set(events.map((e) => e.type))].sort()
  const form = filters(
    'events',
    select('Type', 'type', [['', 'any'], ...types.map((t): [string, string] => [t, t])], type) +
      select('State', 'state', [['', 'any'], ...EVENT_STATES.map((s): [string, string] => [s, s])], wanted) +
      select('API client', 'client', [['', 'any'], ...Object.keys(core.state.clients).map((c): [string, string] => [c, c])], client),
  )
  const content = `<p>Each event goes to the webhook URL of the API client that created the resource, signed, retried until answered 2xx (8 attempts).</p>${form}
<div data-live="events">${table(`Events, newest first (${events.length} kept)`, ['Created', 'Event', 'Type', 'API client', 'State', 'Attempts', 'Last answer'], rows, type || wanted || client ? 'None match.' : 'No event yet.', [5])}
${pager('events', {type, state: wanted, client}, page, more)}</div>`
  return {nav: 'events', title: 'Events', content}
}

export function eventPage(v: View, id: string): Page {
  const e = v.rt.core.state.events.find((x) => x.id === id)
  if (!e) return {nav: 'events', title: 'Not found', content: `<p>No event ${code(id)} (the sandbox keeps the last 10,000).</p><p>${link('events', 'All events')}</p>`, status: 404}
  const attempts = e.deliveries.map((d) => [String(d.attempt), esc(d.at), esc(redactUrl(d.url)), d.status === null ? 'none' : esc(String(d.status)), esc(d.error ?? ''), deliveryKind(d)])
  let payload: unknown = e.body
  try {
    payload = JSON.parse(e.body)
  } catch {
    // shown as the text it is
  }
  const about = subject(e)
  const content = `<p>${link('events', 'All events')}</p>
<div data-live="event"><dl><dt>Type</dt><dd>${esc(e.type)}</dd><dt>Created</dt><dd>${esc(e.created_at)}</dd><dt>API client</dt><dd>${code(e.client_id)}</dd><dt>State</dt><dd>${state(e.state)}</dd>${about ? `<dt>About</dt><dd>${objectLink(about)}</dd>` : ''}</dl>
<h2>Delivery attempts</h2>${table('Every delivery attempt, oldest first', ['Attempt', 'At', 'URL', 'Status', 'Error', 'Kind'], attempts, 'No attempt yet (no webhook URL, or not yet due).')}
${actionForm(v, 'resend', {event_id: e.id}, 'Resend now')}</div>
<h2>Signed payload</h2><p class="muted">The exact body delivered; each attempt signs it (Service-Signature) with the API client's webhook secret, which is not shown.</p>${json(payload)}`
  return {nav: 'events', title: `Event ${e.id}`, content}
}

// ---------------------------------------------------------------------------------------------------- requests

const headerOf = (e: LogEntry, name: string) => (e.headers as Record<string, string | undefined>)[name] ?? ''

export function requestsPage(v: View): Page {
  const log = v.rt.log.entries
  const f = {method: (v.query.method ?? '').toUpperCase(), path: v.query.path ?? '', status: v.query.status ?? '', request_id: (v.query.request_id ?? '').trim(), key: (v.query.key ?? '').trim()}
  const page = pageOf(v.query)
  const {items, more} = newest(listing(log), page, (e) => {
    if (f.method && e.method !== f.method) return false
    if (f.path && !e.path.includes(f.path)) return false
    if (f.status && !String(e.status).startsWith(f.status)) return false
    if (f.request_id && e.request_id !== f.request_id) return false
    if (f.key && headerOf(e, 'idempotency-key') !== f.key) return false
    return true
  })
  const rows = items.map((e) => {
    const query = Object.keys(e.query).length ? `?${new URLSearchParams(e.query as Record<string, string>).toString()}` : ''
    const details = `<details><summary>Headers and body</summary><h3>Headers</h3>${json(e.headers)}<h3>Body</h3>${e.body === undefined ? '<p class="muted">none</p>' : json(e.body)}</details>`
    return [esc(e.time), esc(e.method), `${code(e.path + query)}${details}`, e.dropped ? 'dropped' : esc(String(e.status)), e.request_id ? code(e.request_id) : '—', headerOf(e, 'idempotency-key') ? code(headerOf(e, 'idempotency-key')) : '—', esc(String(e.duration_ms))]
  })
  const form = filters(
    'requests',
    select('Method', 'method', [['', 'any'], ['GET', 'GET'], ['POST', 'POST'], ['PUT', 'PUT']], f.method) +
      input('Path contains', 'path', {value: f.path, type: 'search'}) +
      input('Status (or its start: 4)', 'status', {value: f.status, inputmode: 'numeric', size: '5'}) +
      input('Request id', 'request_id', {value: f.request_id, type: 'search'}) +
      input('Idempotency key', 'key', {value: f.key, type: 'search'}),
  )
  const content = `<p>Every /v1 and /pay request, secrets redacted (the same entries as <code>--log</code> and <code>GET /_sandbox/requests</code>). Answers are not logged.</p>${form}
<div data-live="requests">${table(`Requests, newest first (${log.length} kept)`, ['Time', 'Method', 'Path', 'Status', 'Request id', 'Idempotency key', 'ms'], rows, Object.values(f).some(Boolean) ? 'None match.' : 'No request yet.', [6])}
${pager('requests', f, page, more)}</div>`
  return {nav: 'requests', title: 'Requests', content}
}

// ---------------------------------------------------------------------------------------------------- clock

export function clockPage(v: View): Page {
  const {core} = v.rt
  const next = core.queue.peek()
  const content = `<div data-live="clock-page"><dl><dt>Sandbox clock</dt><dd>${esc(core.iso())}</dd><dt>Ahead of real time by</dt><dd>${core.clock.offsetMs / 1000} s</dd>
<dt>Next scheduled change</dt><dd>${next === undefined ? 'none' : esc(core.iso(next))} <span class="muted">(${core.queue.size} waiting: settlements, approvals, expiries)</span></dd></dl></div>
<h2>Advance the clock</h2><p>Releases held collections (T+1), expires tokens and pay links, settles what becomes due.</p>
${actionForm(v, 'advance', {}, 'Advance', input('By (seconds, or 90m, 2h, 1d)', 'duration', {required: '', placeholder: '1d', size: '8'}), 'stack')}`
  return {nav: 'clock', title: 'Clock', content}
}
