/**
 * What `pay reconcile FILE` expects, row by row, and how a row is classed against what the service answers. The file
 * is read by the bulk runs' reader (src/bulk/input.ts: CSV with a header, or NDJSON): columns `reference` (or
 * `merchant_reference`), `amount`, `currency`, optionally `kind` (collection, payout, checkout, mandate, debit,
 * subscription), `state` (or `expected_state`) and, for a debit, `mandate_id`; two columns for one input are refused by
 * the bulk files' rule (columnsByInput). A bulk run's `--results` file is read as it is: its `state` is what the create
 * answered, not an expectation, and its `id` prefix names the kind; reconcile's own is read by its expected columns. A
 * `--results` CSV pay wrote is read back with its formula cells as they were (unneutralized, src/output/table.ts).
 */
import {pathValueRule} from '../api/endpoints.js'
import {KINDS, type Kind, kindNamed, kindOfId, stateClass} from '../api/kinds.js'
import {compareDecimal, isDecimalAmount} from '../api/money.js'
import {LOOKUP_REFERENCE, columnKey, columnsByInput, repeatedColumnRule} from '../api/operation-names.js'
import {otherResource} from '../api/resource.js'
import type {InputProblem} from '../base/errors.js'
import type {BulkInput, InputRow} from '../bulk/input.js'
import {RESULT_COLUMNS as BULK_RESULT_COLUMNS} from '../bulk/report.js'
import {unneutralized} from '../output/table.js'

export interface ExpectedRow {
  row: number
  line: number
  reference: string
  amount: string
  currency: string
  /** undefined: looked up with the verify lookup (a collection, payout or checkout session). */
  kind?: Kind
  /** The expected state; undefined: the kind's success (succeeded; active for a subscription). */
  state?: string
  mandateId?: string
  /** The row that first has this reference (and kind), when this one repeats it. */
  repeats?: number
  /** The id the row names (a bulk run's --results: the id its request was accepted as). */
  id?: string
}

export const CLASSES = ['matched', 'amount_differs', 'state_differs', 'missing', 'duplicated', 'lookup_failed'] as const
export type ReconcileClass = (typeof CLASSES)[number]

/** One row's result: what was expected, what the service says, and the class. */
export interface RowResult {
  row: number
  line: number
  reference: string
  kind: string | null
  class: ReconcileClass
  expected_amount: string
  expected_currency: string
  expected_state: string | null
  id: string | null
  amount: string | null
  currency: string | null
  state: string | null
  detail: string | null
}

export const RESULT_COLUMNS = ['row', 'line', 'reference', 'kind', 'class', 'expected_amount', 'expected_currency', 'expected_state', 'id', 'amount', 'currency', 'state', 'detail'] as const satisfies readonly (keyof RowResult)[]

/**
 * The columns reconcile reads (by columnKey: `Reference` and `Amount ` too), by the input each gives (other columns are ignored): `merchant_reference` gives the
 * reference and `expected_state` the state, so a file with both of a pair is refused by the bulk files' rule
 * (columnsByInput, src/api/operation-names.ts).
 */
const COLUMNS: ReadonlyMap<string, string> = new Map([
  [LOOKUP_REFERENCE.name, 'reference'],
  ['merchant_reference', 'reference'],
  ['amount', 'amount'],
  ['currency', 'currency'],
  ['kind', 'kind'],
  ['state', 'state'],
  ['expected_state', 'state'],
  ['mandate_id', 'mandate_id'],
  ['id', 'id'],
])

/** The columns of reconcile's own --results file (RESULT_COLUMNS) read as an expectation: its expected_* columns. */
const RESULT_FILE_COLUMNS: ReadonlyMap<string, string> = new Map([
  ['reference', 'reference'],
  ['kind', 'kind'],
  ['id', 'id'],
  ['expected_amount', 'amount'],
  ['expected_currency', 'currency'],
  ['expected_state', 'state'],
])

/** An empty cell (or JSON null) is not given; any other value is kept as it is (an NDJSON number is refused below). */
const given = (raw: unknown): unknown => (raw === undefined || raw === null || raw === '' ? undefined : raw)

/**
 * Which of pay's own --results files a row comes from: a bulk run's (src/bulk/report.ts) or reconcile's
 * (RESULT_COLUMNS), or neither. By the whole set of columns, so that a merchant's own file that merely has an
 * `idempotency_key` or a `class` column is read as written: a CSV's header is the writer's columns exactly; an
 * NDJSON row (which leaves out empty keys) has only the writer's keys, and the ones it always writes.
 */
function writtenBy(values: Record<string, unknown>, header?: readonly string[]): 'bulk' | 'reconcile' | undefined {
  const keys = header ?? Object.keys(values)
  const matches = (columns: readonly string[], always: readonly string[]) =>
    header ? keys.length === columns.length && columns.every((c) => keys.includes(c)) : keys.every((k) => columns.includes(k)) && always.every((k) => keys.includes(k))
  if (matches(BULK_RESULT_COLUMNS, ['row', 'line', 'outcome', 'idempotency_key'])) return 'bulk'
  if (matches(RESULT_COLUMNS, ['row', 'line', 'class'])) return 'reconcile'
  return undefined
}

/** A row of pay's own --results CSV with its cells as they were before the formula-cell neutralisation (`'-neg1` is `-neg1`). */
function unneutralizedRow(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).map(([k, x]) => [k, typeof x === 'string' ? unneutralized(x) : x]))
}

/** The file an expected row is read from, as the reader opened it (src/bulk/input.ts). */
type ExpectedFile = Pick<BulkInput, 'name' | 'format' | 'headerLine' | 'columns'>

/**
 * The expected row of an input row, or its problems (named after the file line and column; a problem of the columns
 * themselves at the CSV's header line).
 */
export function expectedOf(r: InputRow, defaultKind: Kind | undefined, file: ExpectedFile): {row?: ExpectedRow; problems: InputProblem[]} {
  const problems: InputProblem[] = []
  const bad = (column: string, rule: string, line = r.line) => problems.push({flag: `${file.name}:${line} column "${column}"`, rule, line})
  const by = writtenBy(r.values, file.columns)
  const record = by && file.format === 'csv' ? unneutralizedRow(r.values) : r.values
  const names = by === 'reconcile' ? RESULT_FILE_COLUMNS : COLUMNS
  const columns = columnsByInput(names, record, given)
  for (const [column, other] of columns.repeated) bad(column, repeatedColumnRule(`column "${other}"`), file.headerLine ?? r.line)
  const v = columns.values
  /** The file's column that gives this input (for messages). */
  const columnOf = (input: string) => Object.keys(record).find((k) => names.get(columnKey(k)) === input && given(record[k]) !== undefined) ?? input
  const text = (input: string): string | undefined => {
    const value = v[input]
    if (value === undefined) return undefined
    if (typeof value !== 'string') {
      bad(columnOf(input), 'must be a string (quote numbers in NDJSON, so that amounts stay exact)')
      return undefined
    }
    return value
  }
  /** A problem of this input's column was already told (a value that is not a string, a second column). */
  const told = (input: string) => problems.some((p) => p.flag.endsWith(`column "${columnOf(input)}"`))
  const bulk = by === 'bulk'
  const reference = text('reference')
  if (reference === undefined) {
    if (!told('reference')) bad('reference', 'is required (or merchant_reference)')
  } else if (pathValueRule(reference)) bad(columnOf('reference'), pathValueRule(reference)!)
  const amount = text('amount')
  if (amount === undefined) {
    if (!told('amount')) bad('amount', 'is required')
  } else if (!isDecimalAmount(amount)) bad(columnOf('amount'), 'must be a positive decimal string such as 1500.00 (at most 2 decimals)')
  const currency = text('currency')
  if (currency === undefined) {
    if (!told('currency')) bad('currency', 'is required')
  } else if (!/^[A-Za-z]{3}$/.test(currency)) bad(columnOf('currency'), 'must be a 3-letter code such as KES')
  let kind = defaultKind
  const kindText = text('kind')
  if (kindText !== undefined) {
    kind = kindNamed(kindText)
    if (!kind) bad('kind', 'must be one of collection, payout, checkout, mandate, debit, subscription')
  } else if (bulk && !kind) {
    const id = text('id')
    kind = id === undefined ? undefined : kindOfResultId(id, reference)
  }
  // a --results file's state is what the create answered (processing), not what the row expects
  const state = bulk ? undefined : text('state')
  if (state !== undefined && state.trim() === '') bad(columnOf('state'), 'must not be blank')
  const mandateId = text('mandate_id')
  if (kind?.name === 'debit' && mandateId === undefined) bad('mandate_id', 'is required for a debit (debits are looked up under their mandate)')
  if (problems.length > 0 || reference === undefined || amount === undefined || currency === undefined) return {problems}
  const id = text('id')
  return {row: {row: r.row, line: r.line, reference, amount, currency: currency.toUpperCase(), kind, state: state?.trim(), mandateId, ...(id === undefined ? {} : {id})}, problems}
}

/**
 * The kind a bulk run's --results row names by its id: the id's prefix, or, when the id is the row's own reference
 * (its create answer gave no id: src/bulk/send.ts rowIdOf), the one kind whose create answer carries none (a
 * mandate: spec, Mandate create response). Undefined when neither tells (an id without a known prefix, such as a
 * debit's: the spec shows none).
 */
function kindOfResultId(id: string, reference: string | undefined): Kind | undefined {
  const prefixed = kindOfId(id)
  if (prefixed || id !== reference) return prefixed
  const unnamed = KINDS.filter((k) => !k.idInCreateAnswer)
  return unnamed.length === 1 ? unnamed[0] : undefined
}

/**
 * The key two rows repeat each other by before any lookup: the same reference (and kind, when given) and the same id,
 * when they name one. Two rows with one reference and two ids are two objects (a reference sent again with
 * --force-new): each is looked up. Rows that turn out to find one object are made `duplicated` after the lookups
 * (markRepeatedObjects).
 */
export function duplicateKey(e: ExpectedRow): string {
  return `${e.kind?.name ?? ''}\n${e.reference}\n${e.id ?? ''}`
}

/**
 * Rows whose lookup found the very object an earlier row of the file found, made `duplicated` (counted once, on the
 * earlier row: neither matched twice nor its money in two totals). Two rows with another kind or none can still name
 * one object: `c1` as a collection and `c1` without a kind, which the verify lookup finds as that collection. `results`
 * in file order; each row's object by its kind and id (by its reference when the service shows no id).
 */
export function markRepeatedObjects(results: RowResult[]): void {
  const first = new Map<string, number>()
  for (const [i, r] of results.entries()) {
    if (r.kind === null || !FOUND.has(r.class)) continue
    const key = `${r.kind}\n${r.id ?? `reference ${r.reference}`}`
    const earlier = first.get(key)
    if (earlier === undefined) {
      first.set(key, r.row)
      continue
    }
    const what = `${kindNamed(r.kind)?.label ?? r.kind}${r.id === null ? '' : ` ${r.id}`}`
    results[i] = {...r, class: 'duplicated', amount: null, currency: null, state: null, detail: `the same ${what} as row ${earlier}: counted once, on that row`}
  }
}

/** The classes of a row whose lookup found its object. */
const FOUND: ReadonlySet<ReconcileClass> = new Set(['matched', 'amount_differs', 'state_differs'])

/** What a lookup of one row came to. */
export type Found = {body: Record<string, unknown>; kind: Kind} | {missing: string} | {failed: string}

/** The class of a row from what was found: missing, then money, then state, else matched. */
export function classify(e: ExpectedRow, found: Found): RowResult {
  const base: RowResult = {
    row: e.row, line: e.line, reference: e.reference, kind: e.kind?.name ?? null, class: 'matched', expected_amount: e.amount, expected_currency: e.currency,
    expected_state: e.state ?? null, id: null, amount: null, currency: null, state: null, detail: null,
  }
  if (e.repeats !== undefined) return {...base, class: 'duplicated', detail: `the same reference as row ${e.repeats}: counted once, on that row`}
  if ('missing' in found) return {...base, class: 'missing', detail: found.missing}
  if ('failed' in found) return {...base, class: 'lookup_failed', detail: found.failed}
  const {body, kind} = found
  // a reference may name two resources (one sent again with --force-new): the one found is not the row's
  const other = otherResource(e.id, body)
  if (other !== undefined) return {...base, kind: kind.name, class: 'lookup_failed', detail: `the lookup by reference answered ${other}, not ${e.id}: this row's resource was not seen (not a verdict)`}
  const str = (k: string) => (typeof body[k] === 'string' ? (body[k] as string) : null)
  const result: RowResult = {...base, kind: kind.name, id: str(kind.idField), amount: str('amount'), currency: str('currency'), state: str('status')}
  const differences: string[] = []
  if (result.currency !== null && result.currency.toUpperCase() !== e.currency) differences.push(`currency ${result.currency}, expected ${e.currency}`)
  if (result.amount !== null && !(isDecimalAmount(result.amount) && compareDecimal(result.amount, e.amount) === 0)) differences.push(`amount ${result.amount}, expected ${e.amount}`)
  if (differences.length > 0) return {...result, class: 'amount_differs', detail: differences.join('; ')}
  const state = result.state ?? undefined
  if (e.state !== undefined ? state?.toLowerCase() !== e.state.toLowerCase() : stateClass(kind, state) !== 'succeeded') {
    const ended = stateClass(kind, state)
    const why = e.state !== undefined ? `expected ${e.state}` : ended === 'failed' ? 'it failed' : 'still in progress'
    return {...result, class: 'state_differs', detail: `${state ?? 'no state'}: ${why}`}
  }
  const unchecked = result.amount === null ? 'the service shows no amount for it: only its state was compared' : null
  return {...result, detail: unchecked}
}
