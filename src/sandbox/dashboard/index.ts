/**
 * The sandbox dashboard, served at /_dashboard/ on the sandbox's own port (docs/sandbox.md, "Dashboard"). Loaded by
 * server.ts on the first dashboard request, never at start-up.
 *
 * Who may use it:
 * - only this machine: the peer must be a loopback address and the Host header a loopback name (a DNS name rebound
 *   to 127.0.0.1 by another site is refused), whatever interface the sandbox listens on;
 * - actions (POST) also need the same origin (Sec-Fetch-Site / Origin, src/sandbox/origin.ts) and the per-process
 *   token every form carries, so no other site can press a button through a visitor's browser;
 * - pages cannot be framed (X-Frame-Options, CSP frame-ancestors) and run only the dashboard's own script.
 */
import {randomBytes, timingSafeEqual} from 'node:crypto'
import type {IncomingMessage, ServerResponse} from 'node:http'
import type {SbRequest} from '../http.js'
import {crossSite, isLoopbackAddress, isLoopbackHostHeader} from '../origin.js'
import {DASHBOARD_PATH, type Runtime} from '../runtime.js'
import {runAction} from './actions.js'
import {SCRIPT, STYLE} from './assets.js'
import {LiveHub} from './live.js'
import {BASE, type Page, type View, beginPage, clockPage, eventPage, eventsPage, layout, objectPage, objectsPage, overviewPage, requestsPage, walletsPage} from './pages.js'

/** The token of this process's forms: a page of another origin cannot read it, so it cannot forge a form. */
const CSRF = randomBytes(24).toString('base64url')
const CSRF_BYTES = Buffer.from(CSRF)

/** The outcome of an action, shown once on the page it returns to (kept by key: no text travels in the URL). */
const notices = new Map<string, {text: string; ok: boolean}>()
const MAX_NOTICES = 100

const hubs = new WeakMap<Runtime, LiveHub>()

const SECURITY: Record<string, string> = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
  'content-security-policy': "default-src 'none'; style-src 'self'; script-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
}

function write(res: ServerResponse, method: string, status: number, type: string, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, {...SECURITY, 'content-type': type, 'content-length': String(Buffer.byteLength(body)), ...headers})
  res.end(method === 'HEAD' ? undefined : body)
}

const text = (res: ServerResponse, status: number, message: string) => write(res, 'GET', status, 'text/plain; charset=utf-8', `${message}\n`)

function redirect(res: ServerResponse, location: string): void {
  write(res, 'GET', 303, 'text/plain; charset=utf-8', `See ${location}\n`, {location})
}

/** Where an action returns: a dashboard page of this server, else the overview. */
function backTo(value: string | undefined, notice?: string): string {
  const path = value && /^\/_dashboard\/[^\s\\]*$/.test(value) && !value.startsWith('/_dashboard//') ? value : BASE
  const url = new URL(path, 'http://sandbox.invalid')
  url.searchParams.delete('notice')
  if (notice) url.searchParams.set('notice', notice)
  return url.pathname + url.search
}

function remember(notice: {text: string; ok: boolean}): string {
  const key = randomBytes(9).toString('base64url')
  notices.set(key, notice)
  if (notices.size > MAX_NOTICES) notices.delete(notices.keys().next().value!)
  return key
}

function tokenOk(given: string | undefined): boolean {
  const b = Buffer.from(given ?? '')
  return b.length === CSRF_BYTES.length && timingSafeEqual(b, CSRF_BYTES)
}

function decode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment)
  } catch {
    return undefined
  }
}

/** The page for a GET path (below /_dashboard/), or undefined. */
function pageFor(v: View, rest: string): Page | undefined {
  if (rest === '') return overviewPage(v)
  if (rest === 'objects') return objectsPage(v)
  if (rest === 'wallets') return walletsPage(v)
  if (rest === 'events') return eventsPage(v)
  if (rest === 'requests') return requestsPage(v)
  if (rest === 'clock') return clockPage(v)
  const m = /^(objects|events)\/([^/]+)$/.exec(rest)
  const id = m ? decode(m[2]) : undefined
  if (m && id !== undefined) return m[1] === 'objects' ? objectPage(v, id) : eventPage(v, id)
  return undefined
}

/** Answers one dashboard request (any method, below /_dashboard). */
export async function serveDashboard(rt: Runtime, sb: SbRequest, _req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (!isLoopbackAddress(sb.ip) || !isLoopbackHostHeader(sb.headers.host)) {
    text(res, 403, 'The sandbox dashboard answers only on this machine (a loopback address, by a loopback name such as 127.0.0.1 or localhost). From elsewhere, use an SSH tunnel.')
    return
  }
  if (sb.path === DASHBOARD_PATH) return redirect(res, BASE)
  const rest = sb.path.slice(BASE.length)

  if (sb.method === 'POST') {
    const refused = crossSite(sb.headers)
    if (refused) return text(res, 403, `Refused: ${refused}. Dashboard actions are taken from the dashboard's own pages.`)
    const m = /^actions\/([a-z-]+)$/.exec(rest)
    if (!m) return text(res, 404, 'No such action.')
    const form = Object.fromEntries(new URLSearchParams(sb.raw.toString('utf8')))
    if (!tokenOk(form._csrf)) return text(res, 403, 'Refused: the form’s token is missing or stale (the sandbox restarted?). Reload the page and try again.')
    const outcome = await runAction(rt, m[1], form, sb.ip)
    return redirect(res, backTo(form.return, remember({text: outcome.text, ok: outcome.ok})))
  }
  if (sb.method !== 'GET' && sb.method !== 'HEAD') return write(res, sb.method, 405, 'text/plain; charset=utf-8', 'Method not allowed\n', {allow: 'GET, HEAD, POST'})

  if (rest === 'style.css') return write(res, sb.method, 200, 'text/css; charset=utf-8', STYLE, {'cache-control': 'max-age=300'})
  if (rest === 'live.js') return write(res, sb.method, 200, 'text/javascript; charset=utf-8', SCRIPT, {'cache-control': 'max-age=300'})
  if (rest === 'live') {
    let hub = hubs.get(rt)
    if (!hub) hubs.set(rt, (hub = new LiveHub(rt)))
    hub.add(res, SECURITY)
    return
  }
  const here = sb.path + (Object.keys(sb.query).length ? `?${new URLSearchParams(sb.query).toString()}` : '')
  const noticeKey = sb.query.notice
  const view: View = {rt, query: sb.query, csrf: CSRF, here: backTo(here), notice: noticeKey ? notices.get(noticeKey) : undefined}
  beginPage()
  const page = pageFor(view, rest) ?? {nav: '', title: 'Not found', content: `<p>No such page. <a href="${BASE}">Overview</a></p>`, status: 404}
  write(res, sb.method, page.status ?? 200, 'text/html; charset=utf-8', layout(view, page))
}
