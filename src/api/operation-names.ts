/**
 * How users name an operation's inputs: `--reference` for the field merchant_reference, `MANDATE_ID` for a path
 * argument. Light (no imports at run time): read by the commands, the rule texts, validation messages and the
 * bulk engine's column names.
 */
import type {FieldSpec, OperationSpec} from './operation-types.js'

const names = new WeakMap<FieldSpec, string>()
const labels = new WeakMap<FieldSpec, string>()

/** The flag name without dashes (`reference`), or undefined for an argument. */
export function flagName(field: FieldSpec): string | undefined {
  if (field.arg !== undefined) return undefined
  let name = names.get(field)
  if (name === undefined) {
    name = field.flag ?? field.key.replaceAll('_', '-')
    names.set(field, name)
  }
  return name
}

/** What a message calls the input: `--reference`, or `MANDATE_ID` for an argument (kept per field: a bulk run asks for every row). */
export function inputLabel(field: FieldSpec): string {
  let label = labels.get(field)
  if (label === undefined) {
    label = field.arg === undefined ? `--${flagName(field)}` : field.arg.toUpperCase()
    labels.set(field, label)
  }
  return label
}

/** Field key → label, for turning schema messages into flag names. */
export function flagNamesOf(op: Pick<OperationSpec, 'fields'>): Record<string, string> {
  return Object.fromEntries(op.fields.map((f) => [f.key, inputLabel(f)]))
}

/** What a lookup by merchant reference is called both ways: the argument REFERENCE and the flag --reference (-r). */
export const LOOKUP_REFERENCE = {name: 'reference', char: 'r', helpValue: 'REF'} as const

/**
 * The field of a lookup by merchant reference (a merchant_reference in the path or query of the operation's own
 * endpoint), when it is the operation's only positional input: then it is taken either way, as the argument
 * REFERENCE or as --reference, whichever the spec declared (`payouts get REF`, `mandates get --reference REF`). One
 * rule for every command, derived here from the spec: an operation with another argument (`collections get ID`)
 * keeps that one as its positional.
 */
export function referenceLookup(op: Pick<OperationSpec, 'fields'>): FieldSpec | undefined {
  const field = op.fields.find((f) => f.key === 'merchant_reference' && (f.in === 'path' || f.in === 'query') && f.for === undefined)
  if (!field || op.fields.some((f) => f !== field && f.arg !== undefined)) return undefined
  return (field.arg ?? flagName(field)) === LOOKUP_REFERENCE.name ? field : undefined
}

/** The rule of two columns of one record that give one input (reference and merchant_reference). */
export function repeatedColumnRule(other: string): string {
  return `gives the same input as ${other}: keep one of them`
}

/**
 * The name a file's column (a CSV header cell, an NDJSON key, a flow step's key) is matched by: trimmed and
 * lower-cased, so that `Amount ` and `REFERENCE`, as a spreadsheet's header may spell them, name amount and
 * reference. The maps given to columnsByInput are keyed by it.
 */
export function columnKey(column: string): string {
  return column.trim().toLowerCase()
}

/** A record's columns by the input each names (see columnsByInput). */
interface ColumnsByInput<V> {
  /** Input → value (empty cells left out). */
  values: Record<string, V>
  /** Columns that name no input. */
  unknown: string[]
  /** [column, the earlier column naming the same input]: refused by repeatedColumnRule. */
  repeated: [string, string][]
}

/**
 * A record's values keyed by the input each column names (`names`: columnKey of a column name → input name; a bulk file's flag,
 * field and argument names, or reconcile's columns). Two columns naming one input are both kept out of `values` after
 * the first, and listed in `repeated`: which of them would count is no rule a file shows, so both bulk runs and
 * `pay reconcile` refuse the file (exit 2, nothing sent). `value` turns a cell into the value kept (undefined: empty).
 */
export function columnsByInput<V>(names: ReadonlyMap<string, string>, record: Record<string, unknown>, value: (raw: unknown) => V | undefined): ColumnsByInput<V> {
  const values: Record<string, V> = {}
  const unknown: string[] = []
  const repeated: [string, string][] = []
  let from: Map<string, string> | undefined
  for (const key of Object.keys(record)) {
    const name = names.get(columnKey(key))
    if (!name) {
      unknown.push(key)
      continue
    }
    const other = (from ??= new Map()).get(name)
    if (other !== undefined) {
      repeated.push([key, other])
      continue
    }
    from.set(name, key)
    const v = value(record[key])
    if (v !== undefined) values[name] = v
  }
  return {values, unknown, repeated}
}
