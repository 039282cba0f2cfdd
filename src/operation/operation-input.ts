/**
 * An operation's input from a flat record instead of a command line: a CSV row of `--from-file` (columns are
 * flag names; the spec's field names and argument names are accepted too) or a flow file's step. The same
 * fields, rules and flag names as the command: a problem reads `--mobile must be 10 to 15 digits`.
 * Pure: no prompt, no file, no request.
 */
import type {EndpointId} from '../api/endpoints.js'
import {columnKey, columnsByInput, flagName, repeatedColumnRule} from '../api/operation-names.js'
import type {OperationSpec} from '../api/operation-types.js'
import type {FieldProblem} from '../api/validate.js'
import type {CallInput} from '../client/api-client.js'
import {InputError} from '../base/errors.js'
import {draftOf, gatherSpecOf, selectEndpoint, type Given} from './run-operation.js'

const namesCache = new WeakMap<OperationSpec, Map<string, string>>()

/** The names a record may use for each input (by columnKey: any case): flag name, field name, argument name. Built once per operation. */
function namesOf(op: OperationSpec): Map<string, string> {
  const cached = namesCache.get(op)
  if (cached) return cached
  const names = new Map<string, string>()
  namesCache.set(op, names)
  for (const f of op.fields) {
    const canonical = flagName(f) ?? f.arg!
    for (const n of [canonical, f.key, f.arg, `--${canonical}`]) if (n) names.set(columnKey(n), canonical)
  }
  for (const a of op.alternatives ?? []) names.set(columnKey(a.flag), a.flag)
  return names
}

/** The columns a record of this operation may have, by their flag (or argument) names, in the spec's order. */
export function columnsOf(op: OperationSpec): string[] {
  return [...op.fields.map((f) => flagName(f) ?? f.arg!), ...(op.alternatives ?? []).filter((a) => a.help).map((a) => a.flag)]
}

/** A cell as a command's flag value: a boolean as it is, anything else as a string; an empty cell is not given. */
const flagValue = (raw: unknown): string | boolean | undefined => (raw === undefined || raw === null || raw === '' ? undefined : raw === true || raw === false ? raw : String(raw))

/** The values of a record keyed as the command's flags are; empty cells count as not given. */
export function valuesFromRecord(op: OperationSpec, record: Record<string, unknown>): {values: Given; unknown: string[]; repeated: [string, string][]} {
  return columnsByInput(namesOf(op), record, flagValue)
}

/** The problems of a record's columns (from valuesFromRecord), each named by `label`. */
function columnProblems(op: OperationSpec, columns: {unknown: string[]; repeated: [string, string][]}, label = (k: string) => k): FieldProblem[] {
  return [
    ...columns.unknown.map((k) => ({flag: label(k), rule: `is not an input of \`pay ${op.command.replace(/:/g, ' ')}\``})),
    ...columns.repeated.map(([k, other]) => ({flag: label(k), rule: repeatedColumnRule(label(other))})),
  ]
}

/** Every problem of a record, under flag names (unknown columns included); [] when it can be sent. */
export function validateRecord(op: OperationSpec, record: Record<string, unknown>): FieldProblem[] {
  return requestFromRecord(op, record).problems
}

interface RecordOptions {
  /** The parsed --data and -F, into the body (a bulk run's flags). */
  data?: unknown
  field?: Record<string, unknown>
  /** How a column is named in a problem (a bulk file: `column "x"`). */
  label?: (key: string) => string
  /** false: the rules are not checked (the record already passed them): problems is []. */
  check?: boolean
}

/** The request a record makes, and its problems (the record's columns first, then the command's rules). */
export function requestFromRecord(op: OperationSpec, record: Record<string, unknown>, options: RecordOptions = {}): {endpoint: EndpointId; input: CallInput; problems: FieldProblem[]} {
  const columns = valuesFromRecord(op, record)
  const choice = selectEndpoint(op, columns.values)
  const draft = draftOf(gatherSpecOf(op, choice, columns.values), options.data, options.field ?? {})
  const input = draft.build()
  if (options.check === false) return {endpoint: choice.id, input, problems: []}
  const problems = draft.check(input).problems // a new list on every call
  if (columns.unknown.length > 0 || columns.repeated.length > 0) problems.unshift(...columnProblems(op, columns, options.label))
  return {endpoint: choice.id, input, problems}
}

/** The request of a record, or an InputError (exit 2) listing every problem. */
export function inputFromRecord(op: OperationSpec, record: Record<string, unknown>): {endpoint: EndpointId; input: CallInput} {
  const {endpoint, input, problems} = requestFromRecord(op, record)
  if (problems.length > 0) throw new InputError(problems)
  return {endpoint, input}
}
