/**
 * The hosted pay page /pay/{id}: a real HTML form (amount, or an amount field in open mode; the rail when the
 * session has none; wallet number / card number; Pay). Paying moves the session to its outcome (last digit
 * rule of outcomes.ts), sends the events and redirects (303) to success_url or cancel_url.
 * Amounts entered in open mode obey the Testing-mode cap.
 */
import {isDecimalAmount} from '../api/money.js'
import {ApiError} from './errors.js'
import {esc} from './html.js'
import type {SbRequest, SbResponse} from './http.js'
import {outcomeOf} from './outcomes.js'
import {finishCheckout} from './resources/checkout.js'
import {issueVirtualAccount} from './resources/virtual-accounts.js'
import type {Runtime} from './runtime.js'
import type {CheckoutRec, MerchantRec} from './state.js'
import {checkTestingCap} from './wallets.js'
import {entry} from './state.js'


const RAIL_LABEL: Record<string, string> = {mobile_money: 'Mobile money', card: 'Card', bank_transfer: 'Bank transfer'}

const STYLE = `body{font-family:system-ui,sans-serif;max-width:28rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
h1{font-size:1.3rem}.amount{font-size:2rem;font-weight:600;margin:.5rem 0 1.5rem}label{display:block;margin:.8rem 0 .2rem}
input,select{width:100%;padding:.5rem;font-size:1rem;box-sizing:border-box}fieldset{border:1px solid #ddd;margin:1rem 0}
.rail label{display:inline;margin-right:1rem}.rail input{width:auto}button{margin-top:1.2rem;width:100%;padding:.7rem;font-size:1.1rem;background:#0a7;color:#fff;border:0;border-radius:4px}
.error{background:#fee;border:1px solid #c33;padding:.6rem;color:#900}.muted{color:#666;font-size:.9rem}
${railCss()}`

/**
 * Only the fields of the chosen rail are shown, without JavaScript: each rail's fieldset is hidden unless its
 * radio button is checked (CSS :has). A session locked to one rail renders that rail's fields only.
 */
function railCss(): string {
  const rules = Object.keys(RAIL_LABEL).map((r) => `form:has(#rail-${r}:checked) .rail-fields[data-rail=${r}]`)
  return `form.choose .rail-fields{display:none}${rules.join(',')}{display:block}`
}

function page(title: string, content: string, status = 200): SbResponse {
  const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(title)}</title><style>${STYLE}</style></head><body>${content}<p class="muted">Payments Service sandbox: no real money moves.</p></body></html>`
  return {status, headers: {'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store'}, body}
}

function redirect(location: string): SbResponse {
  return {status: 303, headers: {location, 'content-type': 'text/plain; charset=utf-8'}, body: `See ${location}`}
}

/** The shop URL with the session appended; undefined unless it is an http(s) URL (never javascript:, data:, ...). */
function withSession(url: string, session: CheckoutRec): string | undefined {
  try {
    const u = new URL(url)
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined
    u.searchParams.set('session_id', session.id)
    u.searchParams.set('status', session.status)
    return u.toString()
  } catch {
    return undefined
  }
}

/** Back to the shop: a 303 to an http(s) URL, else the status page (state from before URLs were checked). */
function backToShop(url: string, s: CheckoutRec): SbResponse {
  const target = withSession(url, s)
  return target ? redirect(target) : done(s)
}

function rails(merchant: MerchantRec): string[] {
  return ['mobile_money', ...(merchant.products.card_checkout ? ['card'] : []), ...(merchant.products.bank_transfer ? ['bank_transfer'] : [])]
}


function form(rt: Runtime, s: CheckoutRec, error?: string, values: Record<string, string> = {}): SbResponse {
  const merchant = rt.core.merchant(s.merchant_id)
  const amountBlock =
    s.amount_mode === 'open'
      ? `<label for="amount">Amount (${esc(s.currency)})</label><input id="amount" name="amount" inputmode="decimal" placeholder="100.00" required value="${esc(values.amount ?? '')}">`
      : `<div class="amount" id="amount-display">${esc(s.currency)} ${esc(s.amount ?? '')}</div>`
  const railBlock = s.payment_rail
    ? `<input type="hidden" name="rail" value="${esc(s.payment_rail)}"><p>Pay with: <strong>${esc(RAIL_LABEL[s.payment_rail] ?? s.payment_rail)}</strong></p>`
    : `<fieldset class="rail"><legend>Pay with</legend>${rails(merchant)
        .map((r, i) => `<label><input type="radio" name="rail" id="rail-${r}" value="${r}"${(values.rail ?? (i === 0 ? r : '')) === r ? ' checked' : ''}> ${RAIL_LABEL[r]}</label>`)
        .join(' ')}</fieldset>`
  const providers = rt.core.state.mobile_providers
    .map((p) => `<option value="${esc(p)}"${(values.provider ?? s.provider ?? '') === p ? ' selected' : ''}>${esc(p)}</option>`)
    .join('')
  const mm = !s.payment_rail || s.payment_rail === 'mobile_money'
  const card = (!s.payment_rail && merchant.products.card_checkout) || s.payment_rail === 'card'
  const choose = s.payment_rail ? '' : ' class="choose"'
  const content = `<h1>Pay ${esc(merchant.name)}</h1>
${s.description ? `<p>${esc(s.description)}</p>` : ''}<p class="muted">Reference ${esc(s.merchant_reference)}</p>
${error ? `<p class="error" role="alert">${esc(error)}</p>` : ''}
<form method="post" action="/pay/${esc(s.id)}"${choose}>
${amountBlock}
${railBlock}
${mm ? `<fieldset class="rail-fields" data-rail="mobile_money"><legend>Mobile money</legend><label for="mobile">Wallet number</label><input id="mobile" name="mobile" inputmode="numeric" placeholder="254712345678" value="${esc(values.mobile ?? s.mobile ?? '')}"><label for="provider">Provider</label><select id="provider" name="provider">${providers}</select></fieldset>` : ''}
${card ? `<fieldset class="rail-fields" data-rail="card"><legend>Card</legend><label for="card_number">Card number</label><input id="card_number" name="card_number" inputmode="numeric" placeholder="4242424242424242" value=""></fieldset>` : ''}
<button type="submit" id="pay">Pay</button>
</form>
<p><a id="cancel" href="/pay/${esc(s.id)}/cancel">Cancel and return to the shop</a></p>`
  return page(`Pay ${merchant.name}`, content, error ? 400 : 200)
}

function done(s: CheckoutRec): SbResponse {
  const text = s.status === 'succeeded' ? 'This payment is complete.' : s.status === 'failed' ? 'This payment failed or expired.' : 'This payment is being processed.'
  return page('Payment', `<h1 id="status" data-status="${s.status}">${esc(text)}</h1>`, s.status === 'failed' ? 410 : 200)
}

export function handlePayPage(rt: Runtime, req: SbRequest): SbResponse {
  const m = /^\/pay\/([^/]+)(\/cancel)?\/?$/.exec(req.path)
  const id = m ? safeDecode(m[1]) : undefined
  const s = id === undefined ? undefined : entry(rt.core.state.checkouts, id)
  if (!m || !s) return page('Not found', '<h1>Payment link not found</h1>', 404)
  rt.core.tick() // expiry
  if (m[2]) return backToShop(s.cancel_url, s)
  if (s.status !== 'processing') return done(s)
  if (s.va_number) return bankDetails(rt, s)
  if (req.method === 'GET' || req.method === 'HEAD') return form(rt, s)
  if (req.method !== 'POST') return page('Method not allowed', '<h1>Method not allowed</h1>', 405)
  const values = Object.fromEntries(new URLSearchParams(req.raw.toString('utf8')))
  return pay(rt, s, values)
}

function safeDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment)
  } catch {
    return undefined // malformed percent-encoding: no such link (404)
  }
}

function bankDetails(rt: Runtime, s: CheckoutRec): SbResponse {
  const va = rt.core.state.virtual_accounts[s.va_number!]
  return page(
    'Bank transfer',
    `<h1>Pay by bank transfer</h1><p>Transfer <strong>${esc(s.currency)} ${esc(s.amount ?? '')}</strong> to:</p>
<dl><dt>Bank</dt><dd id="bank_name">${esc(va.bank_name)}</dd><dt>Account number</dt><dd id="account_number">${esc(va.account_number)}</dd><dt>Account name</dt><dd>${esc(va.account_name)}</dd><dt>Valid until</dt><dd>${esc(va.expires_at ?? '')}</dd></dl>
<p class="muted">Sandbox: simulate the transfer with POST /_sandbox/virtual-accounts/${esc(va.account_number)}/transfers</p>`,
  )
}

function pay(rt: Runtime, s: CheckoutRec, values: Record<string, string>): SbResponse {
  const {core} = rt
  const merchant = core.merchant(s.merchant_id)
  const rail = s.payment_rail ?? values.rail ?? ''
  if (!rails(merchant).includes(rail)) return form(rt, s, 'Choose how to pay.', values)
  if (s.amount_mode === 'open') {
    const amount = (values.amount ?? '').trim()
    if (!isDecimalAmount(amount)) return form(rt, s, 'Enter an amount such as 100.00.', values)
    try {
      checkTestingCap(core, merchant, s.currency, amount)
    } catch (err) {
      return form(rt, s, err instanceof ApiError ? err.message.replace(/^amount: /, 'Amount ') : 'Amount refused.', values)
    }
    s.amount = amount
  }
  if (rail === 'bank_transfer') {
    const va = issueVirtualAccount(core, {merchant_id: s.merchant_id, account_id: s.account_id, client_id: s.client_id, name: merchant.name, type: 'DYNAMIC', owner: {kind: 'checkout', id: s.id}})
    s.va_number = va.account_number
    s.payment_rail = s.payment_rail ?? 'bank_transfer'
    core.changed()
    return bankDetails(rt, s)
  }
  let number: string
  if (rail === 'card') {
    number = (values.card_number ?? '').replace(/\s+/g, '')
    if (!/^[0-9]{12,19}$/.test(number)) return form(rt, s, 'Enter a card number of 12 to 19 digits.', values)
  } else {
    number = (values.mobile ?? '').trim()
    if (!/^[0-9]{10,15}$/.test(number)) return form(rt, s, 'Enter a wallet number of 10 to 15 digits.', values)
    s.mobile = number
    s.provider = values.provider || s.provider || core.state.mobile_providers[0]
  }
  const outcome = outcomeOf(number)
  if (outcome === 'hold') {
    core.changed()
    return page('Approve the payment', `<h1 id="status" data-status="processing">Approve the payment on your phone</h1><p>We will let the shop know when it completes.</p>`)
  }
  finishCheckout(core, s, outcome === 'fail' ? 'failed' : 'succeeded')
  return backToShop(s.status === 'succeeded' ? s.success_url : s.cancel_url, s)
}
