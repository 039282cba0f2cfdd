/**
 * How users name an operation's inputs: `--reference` for the field merchant_reference, `MANDATE_ID` for a path
 * argument. Light (no imports at run time): read by the commands, the rule texts, validation messages and the
 * bulk engine's column names.
 */
import type {FieldSpec, OperationSpec} from './operation-types.js'

/** The flag name without dashes (`reference`), or undefined for an argument. */
export function flagName(field: FieldSpec): string | undefined {
  return field.arg === undefined ? (field.flag ?? field.key.replace(/_/g, '-')) : undefined
}

/** What a message calls the input: `--reference`, or `MANDATE_ID` for an argument. */
export function inputLabel(field: FieldSpec): string {
  return field.arg === undefined ? `--${flagName(field)}` : field.arg.toUpperCase()
}

/** Field key → label, for turning schema messages into flag names. */
export function flagNamesOf(op: Pick<OperationSpec, 'fields'>): Record<string, string> {
  return Object.fromEntries(op.fields.map((f) => [f.key, inputLabel(f)]))
}
