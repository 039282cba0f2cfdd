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
