/**
 * `pay find QUERY`: every object the service has for a merchant reference, an id or a pay-page URL, looked up
 * concurrently through the client core (the same request policy as every command), and one timeline: what the
 * service says now, every request this machine journaled for it (src/journal/view.ts, what `pay journal` reads), and
 * the webhook deliveries seen for it where a local history exists (src/find/deliveries.ts). Read only.
 *
 * A reference is looked up as every kind that carries one (src/api/kinds.ts); a debit needs its mandate id, taken
 * from the journal (the debits this machine created) or --mandate. An id is looked up by id where the interface has
 * such a lookup (CL_, CS_, MC_; PLN_ and MAC_ in their lists); for the kinds it only looks up by reference (PO_,
 * MD_, SUB_), the journal names the references to look up, and the answers holding that id are kept.
 */
import {matchEndpoint, type EndpointId} from '../api/endpoints.js'
import {KINDS, type Kind, idOf, kindOfEndpoint, kindOfId, kindOfObject, referenceLookup} from '../api/kinds.js'
import type {ApiContext} from '../operation/api-context.js'
import type {CallInput} from '../client/api-client.js'
import {type ApiError, PayError} from '../base/errors.js'
import {ExitCode} from '../base/exit-codes.js'
import {provesAbsent} from '../client/request-policy.js'
import {type JournalEntry, latestState} from '../journal/store.js'
import {journalEntries} from '../journal/view.js'
import {mayBeOneAccount} from '../journal/references.js'
import {printable} from '../output/printable.js'
import {type DeliverySource, webhookDeliveries} from './deliveries.js'
import {OTHER_PREFIXES, type Query, parseQuery} from './query.js'

interface FindOptions {
  query: string
  /** Take QUERY as a merchant reference even when it looks like an id or a URL. */
  reference?: boolean
  /** Mandate ids to look debits up under (besides those the journal names). */
  mandate?: string[]
  /** The environment of the journal's and the history's paths (an in-process run's). */
  env?: NodeJS.ProcessEnv
  /** The webhook history to read (default: this machine's). */
  deliveries?: DeliverySource
}

interface Match {
  /** "collection CL_…": what the timeline calls it. */
  label: string
  kind: string
  id: string | null
  state: string | null
  amount: string | null
  currency: string | null
  merchant_reference: string | null
  /** The request that found it; for one the journal knows, why it was not looked up now. */
  found_by: string
  /** The service's answer as received (the journal's latest body of it, for one the journal knows). */
  object: Record<string, unknown>
  /**
   * `service`: what the service answered now; `journal`: an object this machine's journal knows (an accepted
   * request's id) that no lookup can reach now (the lookup by reference answers another object with the reference),
   * shown with its state as last seen (`state_at`), never as absent.
   */
  source: 'service' | 'journal'
  /** When its state was seen: null for the service's answer (now). */
  state_at: string | null
}

interface Tried {
  lookup: string
  request: string | null
  result: string
}

interface TimelineItem {
  at: string
  source: 'service' | 'journal' | 'webhook'
  /** The label of the match it belongs to; null when no object at the service is known for it. */
  match: string | null
  event: string
  outcome: string | null
  status: number | null
  id: string | null
  idempotency_key: string | null
  detail: string | null
}

interface FindResult {
  query: string
  looked_up_as: 'merchant reference' | 'id' | 'pay-page URL'
  matches: Match[]
  timeline: TimelineItem[]
  tried: Tried[]
  webhooks: {history: boolean; note: string}
}

/** References of the journal looked up at most for one id (an id is one object: more would be a journal of noise). */
const MAX_REFERENCES = 5
/** A mandate id named in a journaled answer. */
const MANDATE_ID = /"mandate_id"\s*:\s*"(MD_[A-Za-z0-9_-]{1,64})"/g

/** What one run of `pay find` gathers, before it is printed. */
async function findAll(ctx: ApiContext, options: FindOptions): Promise<{result: FindResult; failures: unknown[]}> {
  const query = parseQuery(options.query, options.reference)
  const journaled = journalEntries(ctx.out, options.env)
  const entries = journaled.filter((e) => ofThisProfile(ctx, e))
  // said once: what the journal holds about the query for other clients or services, left out
  const others = entriesAbout(journaled, query.type === 'reference' ? query.reference : query.id).filter((e) => !ofThisProfile(ctx, e)).length
  if (others > 0) {
    ctx.out.info(
      printable(`${others} journal entr${others === 1 ? 'y' : 'ies'} for "${query.text}" belong${others === 1 ? 's' : ''} to another client id, sub-account or service than this profile's (${ctx.settings.clientId ?? 'no client id'} at ${ctx.client.shownBaseUrl()}) and ${others === 1 ? 'was' : 'were'} left out (\`pay journal\` lists every entry)`),
    )
  }
  const deliveries = options.deliveries ?? webhookDeliveries(options.env)
  const look = new Lookups(ctx)
  const matches: Match[] = []
  const add = (found: Match[]) => {
    for (const m of found) if (!matches.some((o) => o.kind === m.kind && o.id === m.id && o.merchant_reference === m.merchant_reference)) matches.push(m)
  }

  if (query.type === 'reference') {
    const about = entriesAbout(entries, query.reference)
    let mandates = mandatesOf(about, options.mandate)
    // a debit the journal holds without its mandate (a --from-file row records no URL): under the mandates this machine knows
    if (mandates.length === 0 && about.some((e) => kindOfEndpoint(e.op.endpoint)?.name === 'debit')) mandates = await look.knownMandates(entries)
    add(await look.byReference(query.reference, mandates))
    // a checkout session that shares its reference with a collection or payout hides behind the verify lookup: the
    // ids this machine was answered with are looked up by id too
    add(await look.journaledIds(about, matches))
    add(fromJournal(about, look.answered, matches))
  } else if (query.type === 'url') {
    if (query.host !== new URL(ctx.client.baseUrl()).host) ctx.out.warnQuoting(`the pay page is on ${query.host}; looked up at ${ctx.client.shownBaseUrl()} (the profile's service)`)
    add(await look.byId(query.kind, query.id))
  } else if (query.other) {
    add(await look.other(query.other, query.id))
  } else {
    const kind = query.kind!
    if (kind.byId) add(await look.byId(kind, query.id))
    // the references this machine used with this id, and for a kind whose create answer has no id (a mandate) those
    // of the newest of its kind this machine created; the answers naming the id are kept (the object, and those
    // that name it: a mandate's debits and subscription)
    const refs = referencesIn(entriesAbout(entries, query.id), query.id)
    if (!kind.idInCreateAnswer) refs.push(...referencesIn(entries.filter((e) => e.op.endpoint.endsWith('.create') && kindOfEndpoint(e.op.endpoint) === kind), query.id).filter((r) => !refs.includes(r)))
    if (!kind.byId && refs.length === 0) {
      look.tried.push({lookup: `${kind.label} by id`, request: null, result: `not asked: the interface looks a ${kind.label} up by merchant reference only, and no request journaled on this machine names ${query.id}${kind.idInCreateAnswer ? '' : ` or made a ${kind.label}`}`})
    }
    for (const ref of refs) add((await look.byReference(ref, mandatesOf(entriesAbout(entries, ref), options.mandate))).filter((m) => holds(m.object, query.id)))
    add(fromJournal(entriesAbout(entries, query.id).filter((e) => e.outcome?.id === query.id), look.answered, matches))
  }

  const timeline = timelineOf(query, matches, entries, deliveries)
  const result: FindResult = {
    query: query.text,
    looked_up_as: query.type === 'reference' ? 'merchant reference' : query.type === 'url' ? 'pay-page URL' : 'id',
    matches,
    timeline,
    tried: look.tried,
    webhooks: {history: deliveries.history, note: deliveries.note},
  }
  return {result, failures: look.failures}
}

/** `pay find`: prints the matches and the timeline; returns the exit code (0 found, 4 not found, else a failure's). */
export async function runFind(ctx: ApiContext, options: FindOptions): Promise<number> {
  const {out} = ctx
  const {result, failures} = await findAll(ctx, options)
  const {matches, timeline, tried} = result
  const failed = failures[0] as PayError | undefined
  if (matches.length === 0 && timeline.length === 0) {
    if (failed) throw failed
    const lines = tried.map((t) => `  ${t.lookup}${t.request ? ` (${t.request})` : ''}: ${t.result}`)
    throw new PayError(`nothing found for "${result.query}" (as ${article(result.looked_up_as)}); tried:\n${lines.join('\n')}`, ExitCode.NOT_FOUND, notFoundHint(result))
  }
  if (out.json) out.data(JSON.stringify(result))
  else printHuman(ctx, result)
  for (const m of matches) {
    if (m.source === 'journal') out.info(printable(`${m.label}: shown as this machine last saw it (${m.state ?? 'state not seen'}${m.state_at ? ` at ${m.state_at}` : ''}): ${m.found_by.slice(m.found_by.indexOf('not looked up now: ') + 'not looked up now: '.length)}`))
  }
  if (failed) {
    out.errorLine(`not every lookup answered, so this may not be everything: ${failed.message}`)
    return failed.exitCode ?? ExitCode.OTHER
  }
  if (matches.length === 0) {
    out.errorLine(`the service has no object for "${result.query}"; shown: what this machine ${timeline.some((t) => t.source === 'journal') ? 'journaled' : 'received'} for it`)
    return ExitCode.NOT_FOUND
  }
  return ExitCode.OK
}

/** "a merchant reference", "an id". */
function article(what: string): string {
  return `${/^[aeiou]/.test(what) ? 'an' : 'a'} ${what}`
}

function notFoundHint(result: FindResult): string {
  if (result.looked_up_as === 'merchant reference') return 'references are case-sensitive; objects of another merchant or sub-account answer 404 (check --profile and --account-ref)'
  return 'check the id, and the profile and --account-ref: objects of another merchant or sub-account answer 404; or find it by its merchant reference'
}

function printHuman(ctx: ApiContext, result: FindResult): void {
  const {out} = ctx
  const n = result.matches.length
  out.info(`${n} match${n === 1 ? '' : 'es'} for "${result.query}" (as ${article(result.looked_up_as)})`)
  for (const m of result.matches) {
    out.info(out.color('bold', m.label, 'err'))
    out.data(out.human({kind: m.kind, id: m.id, state: m.state, state_seen: m.source === 'service' ? 'now (the service)' : `${m.state_at ?? 'never'} (this machine's journal: not looked up now)`, amount: m.amount, currency: m.currency, merchant_reference: m.merchant_reference, found_by: m.found_by}))
  }
  out.info(out.color('bold', 'timeline', 'err'))
  out.data(out.list(result.timeline as unknown as Record<string, unknown>[], ['at', 'source', 'match', 'event', 'outcome', 'status', 'id', 'idempotency_key', 'detail']))
  if (!result.webhooks.history) out.info(out.color('dim', result.webhooks.note, 'err'))
}

/** The lookups of one run, with what was tried and what failed. */
class Lookups {
  readonly tried: Tried[] = []
  readonly failures: unknown[] = []
  /** Every object a lookup answered, kept as a match or not (an id query keeps only those naming the id). */
  readonly answered: Match[] = []

  constructor(private readonly ctx: ApiContext) {}

  /**
   * One GET: the answer, or undefined (the service's own 404 not_found: not found; 403: not enabled; anything else,
   * a gateway's 404 page too: a failure, kept).
   */
  private async get(lookup: string, endpoint: EndpointId, input: CallInput): Promise<{body: Record<string, unknown>; request: string} | undefined> {
    const req = this.ctx.client.prepare(endpoint, input)
    const url = new URL(req.url)
    const tried: Tried = {lookup, request: `GET ${url.pathname}${url.search}`, result: 'found'}
    this.tried.push(tried) // before the answer: the list is in the order asked, whatever answers first
    try {
      const res = await this.ctx.client.send<Record<string, unknown>>(req)
      return {body: res.body, request: tried.request!}
    } catch (err) {
      // by shape, not instanceof: the built CLI loads this module beside the runtime bundle's own copy of the classes
      const status = (err as {status?: unknown}).status
      if (provesAbsent(err)) tried.result = 'not found'
      else if (status === 403) tried.result = `not enabled for this merchant (403 ${(err as ApiError).error?.code ?? 'forbidden'})`
      else {
        tried.result = `failed: ${(err as Error).message}`
        this.failures.push(err)
      }
      return undefined
    }
  }

  /** Every kind that carries a merchant reference, concurrently; debits under each known mandate. */
  async byReference(reference: string, mandates: string[]): Promise<Match[]> {
    const asks: {kind: Kind; lookup: string; endpoint: EndpointId; input: CallInput}[] = []
    for (const kind of KINDS) {
      if (kind.name !== 'debit') {
        const what = kind.byReference === 'transactions.verify' ? `${kind.label} by reference (the verify lookup: a collection, payout or checkout session)` : `${kind.label} by reference`
        asks.push({kind, lookup: what, ...referenceLookup(kind, reference)})
      } else for (const mandate of mandates) asks.push({kind, lookup: `debit of mandate ${mandate} by reference`, ...referenceLookup(kind, reference, mandate)})
    }
    const asked = asks.map((a) => this.get(a.lookup, a.endpoint, a.input))
    if (mandates.length === 0) this.tried.push({lookup: 'debit by reference', request: null, result: 'not asked: a debit is looked up with its mandate id, and none is known (no debit of this reference in the journal; give --mandate MD_…)'})
    const answers = await Promise.all(asked)
    const found: Match[] = []
    answers.forEach((answer, i) => {
      if (!answer) return
      // the verify lookup names the kind it found in `object`
      const kind = asks[i].kind.byReference === 'transactions.verify' ? kindOfObject(answer.body.object) : asks[i].kind
      if (kind) found.push(matchOf(kind, answer.body, answer.request))
    })
    this.answered.push(...found)
    return found
  }

  /**
   * The mandate ids this machine knows, newest first: named in its journal (a debit's URL, an answer's mandate_id),
   * and those of the newest mandates it created (whose create answer has no id: looked up by their references).
   */
  async knownMandates(entries: JournalEntry[]): Promise<string[]> {
    const ids = new Set(mandatesOf(entries))
    for (const e of entries) for (const text of [e.outcome?.body, e.seen?.body]) for (const m of text?.matchAll(MANDATE_ID) ?? []) ids.add(m[1])
    const mandate = KINDS.find((k) => k.name === 'mandate')!
    const refs = referencesIn(entries.filter((e) => kindOfEndpoint(e.op.endpoint) === mandate && e.outcome?.request === 'accepted'), '')
    const answers = await Promise.all(refs.map((ref) => this.get(`mandate by reference ${ref} (for the mandate of a debit the journal holds without it)`, mandate.byReference, referenceLookup(mandate, ref).input)))
    for (const answer of answers) {
      const id = answer && idOf(mandate, answer.body)
      if (id) ids.add(id)
    }
    return [...ids].slice(0, MAX_REFERENCES * 2)
  }

  async byId(kind: Kind, id: string): Promise<Match[]> {
    const answer = kind.byId ? await this.get(`${kind.label} by id`, kind.byId, {path: {id}}) : undefined
    return answer ? [matchOf(kind, answer.body, answer.request)] : []
  }

  /** The ids journaled for a reference that no lookup by reference found (looked up by id where there is one). */
  async journaledIds(about: JournalEntry[], found: Match[]): Promise<Match[]> {
    const ids = new Set<string>()
    for (const e of about) {
      const id = e.outcome?.id
      if (id && kindOfId(id)?.byId && !found.some((m) => m.id === id)) ids.add(id)
    }
    return (await Promise.all([...ids].map((id) => this.byId(kindOfId(id)!, id)))).flat()
  }

  /** A customer, plan or merchant account id. */
  async other(other: keyof typeof OTHER_PREFIXES, id: string): Promise<Match[]> {
    const object = (body: Record<string, unknown>, request: string, extra: Pick<Match, 'amount' | 'currency'> = {amount: null, currency: null}): Match[] => [
      {label: `${other} ${id}`, kind: other, id, state: str(body, 'status'), merchant_reference: str(body, 'merchant_reference'), found_by: request, object: body, source: 'service', state_at: null, ...extra},
    ]
    if (other === 'customer') {
      const answer = await this.get('customer by id', 'customers.get', {path: {id}})
      return answer ? object(answer.body, answer.request) : []
    }
    if (other === 'plan') {
      const answer = await this.get('plan in the list of active plans', 'plans.list', {})
      const plan = (answer?.body.data as Record<string, unknown>[] | undefined)?.find((p) => p.plan_id === id)
      if (answer && !plan) this.tried.at(-1)!.result = `not among the ${(answer.body.data as unknown[]).length} active plans`
      return answer && plan ? object(plan, answer.request, {amount: str(plan, 'amount'), currency: str(plan, 'currency')}) : []
    }
    const answer = await this.get('merchant account (the account context)', 'account.get', {})
    const account = answer?.body.account as Record<string, unknown> | undefined
    if (answer && account?.id !== id) this.tried.at(-1)!.result = `not this profile's account (${String(account?.id)})`
    return answer && account?.id === id ? object(account, answer.request) : []
  }
}

function str(body: Record<string, unknown>, key: string): string | null {
  const v = body[key]
  return typeof v === 'string' ? v : null
}

function matchOf(kind: Kind, body: Record<string, unknown>, request: string): Match {
  const id = idOf(kind, body) ?? null
  const reference = str(body, 'merchant_reference')
  return {label: `${kind.label} ${id ?? reference ?? ''}`.trim(), kind: kind.name, id, state: str(body, 'status'), amount: str(body, 'amount'), currency: str(body, 'currency'), merchant_reference: reference, found_by: request, object: body, source: 'service', state_at: null}
}

/**
 * The objects the journal knows (an accepted request's id) that no lookup answered, because the lookup by reference
 * of their kind answered another object with the reference (a second one sent on purpose, --force-new; a payout,
 * mandate, debit or subscription has no lookup by id): shown as this machine last saw them, naming the object the
 * service answers instead. One the service said it has nothing for is not made up from the journal.
 */
function fromJournal(list: JournalEntry[], answered: Match[], matches: Match[]): Match[] {
  const out: Match[] = []
  for (const e of list) {
    const id = answeredId(e)
    const kind = kindOfEndpoint(e.op.endpoint)
    if (e.outcome?.request !== 'accepted' || !id || !kind || kind.byId || [...matches, ...out].some((m) => m.id === id)) continue
    const other = answered.find((m) => m.kind === kind.name && m.merchant_reference === (e.op.reference ?? null) && m.id !== id)
    if (!other) continue
    const seen = latestState(e)
    const body = objectOf(seen?.body ?? e.outcome.body)
    out.push({
      label: `${kind.label} ${id}`, kind: kind.name, id, state: seen?.state ?? null, amount: str(body, 'amount'), currency: str(body, 'currency'), merchant_reference: e.op.reference ?? null,
      found_by: `this machine's journal: accepted at ${e.outcome.at} (Idempotency-Key ${e.op.key}); not looked up now: the lookup by reference answers ${other.label}, another ${kind.label} with reference ${e.op.reference ?? ''}, and the interface has no lookup of a ${kind.label} by id`,
      object: body, source: 'journal', state_at: seen?.at ?? null,
    })
  }
  return out
}

/** The id a journaled request was answered with; none when the answer had none (a mandate's: its reference stands in). */
function answeredId(e: JournalEntry): string | undefined {
  const id = e.outcome?.id
  return id !== undefined && id !== e.op.reference ? id : undefined
}

/** A journaled body as an object ({} when there is none or it is no JSON object). */
function objectOf(text: string | undefined): Record<string, unknown> {
  try {
    const body = text === undefined ? undefined : (JSON.parse(text) as unknown)
    return body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}

/** Whether an answer names this id in one of its own fields (id, mandate_id, subscription_id, …). */
function holds(body: Record<string, unknown>, id: string): boolean {
  return Object.values(body).some((v) => v === id)
}

/**
 * Whether a journaled request is this profile's: sent to its service (the base URL as journaled) by its client id, with
 * an account ref that may be its own (mayBeOneAccount, src/journal/references.ts: equal, or either unset). A bulk row
 * of a run that did not record its client id is taken by its base URL alone.
 */
function ofThisProfile(ctx: ApiContext, e: JournalEntry): boolean {
  const {op} = e
  return op.base_url === ctx.client.shownBaseUrl() && (op.client_id === undefined || op.client_id === ctx.settings.clientId) && mayBeOneAccount(op.account_ref, ctx.settings.accountRef)
}

/** The journaled requests about a text: its reference, the id it was answered with, its URL, or its answer naming it. */
function entriesAbout(entries: JournalEntry[], text: string): JournalEntry[] {
  const inUrl = `/${encodeURIComponent(text)}`
  const quoted = JSON.stringify(text)
  return entries.filter((e) => e.op.reference === text || e.outcome?.id === text || e.op.url.includes(inUrl) || (e.outcome?.body?.includes(quoted) ?? false))
}

/** The distinct references of journaled requests (newest first), at most MAX_REFERENCES. */
function referencesIn(list: JournalEntry[], except: string): string[] {
  return [...new Set(list.map((e) => e.op.reference).filter((r): r is string => typeof r === 'string' && r !== except))].slice(0, MAX_REFERENCES)
}

/** Mandate ids to look a reference's debits up under: those of the debits journaled with it, and --mandate. */
function mandatesOf(about: JournalEntry[], given: string[] = []): string[] {
  const ids = new Set(given)
  for (const e of about) {
    if (e.op.endpoint !== 'debits.create') continue
    const mandate = matchEndpoint(e.op.method, pathnameOf(e.op.url))?.params.mandate_id
    if (mandate) ids.add(mandate)
  }
  return [...ids]
}

/** One timeline, oldest first: journaled requests, webhook deliveries, and what the service says now. */
function timelineOf(query: Query, matches: Match[], entries: JournalEntry[], deliveries: DeliverySource): TimelineItem[] {
  const items: TimelineItem[] = []
  const seen = new Set<JournalEntry>()
  const kindOf = (e: JournalEntry) => kindOfEndpoint(e.op.endpoint)?.name
  // by the id it was answered with; without one (refused, unknown), the only match of its reference and kind
  const labelOf = (e: JournalEntry) => {
    const id = answeredId(e)
    if (id) return matches.find((m) => m.id === id)?.label ?? null
    const same = matches.filter((m) => m.merchant_reference === e.op.reference && m.kind === kindOf(e))
    return same.length === 1 ? same[0].label : null
  }
  const journaled = (list: JournalEntry[]) => {
    for (const e of list) {
      if (seen.has(e)) continue
      seen.add(e)
      items.push({
        at: e.op.at, source: 'journal', match: labelOf(e), event: `${e.op.method} ${e.op.endpoint}`, outcome: e.outcome?.request ?? 'unknown', status: e.outcome?.status ?? null,
        id: e.outcome?.id ?? null, idempotency_key: e.op.key, detail: e.outcome?.error ? `${e.outcome.error.code}: ${e.outcome.error.message}` : null,
      })
    }
  }
  journaled(entriesAbout(entries, query.type === 'reference' ? query.reference : query.id))
  for (const m of matches) {
    if (m.id) journaled(entriesAbout(entries, m.id))
    if (m.merchant_reference) journaled(entries.filter((e) => e.op.reference === m.merchant_reference && kindOf(e) === m.kind))
  }
  const references = new Set(matches.map((m) => m.merchant_reference).filter((r): r is string => r !== null))
  if (query.type === 'reference') references.add(query.reference)
  for (const ref of references) {
    for (const d of [...deliveries.byReference(ref)].reverse()) { // the history lists the newest first
      const kind = kindOfObject(d.type?.split('.')[0])?.name
      const match = matches.find((m) => m.merchant_reference === ref && m.kind === kind)?.label ?? null
      items.push({at: d.at, source: 'webhook', match, event: d.type ?? 'webhook delivery', outcome: d.verdict, status: d.status, id: d.event_id, idempotency_key: null, detail: d.detail})
    }
  }
  const now = new Date().toISOString()
  for (const m of matches) {
    const detail = m.amount ? `${m.amount} ${m.currency ?? ''}`.trim() : null
    if (m.source === 'service') items.push({at: now, source: 'service', match: m.label, event: 'state now', outcome: m.state, status: null, id: m.id, idempotency_key: null, detail})
    else if (m.state !== null) items.push({at: m.state_at ?? now, source: 'journal', match: m.label, event: 'state last seen', outcome: m.state, status: null, id: m.id, idempotency_key: null, detail})
  }
  return items.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0))
}

/** The path of a journaled URL ('' when it cannot be parsed: a journal anything may have written). */
function pathnameOf(url: string): string {
  try {
    return new URL(url).pathname
  } catch {
    return ''
  }
}
