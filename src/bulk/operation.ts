/**
 * What the bulk engine needs to know about one operation: a small interface, so that any idempotent create can
 * run from a file. `specOperation` builds it from an operation spec (src/api/operations.ts) with the single
 * command's fields, flag names and rules (src/cli/operation-input.ts, src/cli/run-operation.ts).
 */
import type {EndpointId} from '../api/endpoints.js'
import type {OperationSpec} from '../api/operation-types.js'
import type {FieldProblem} from '../api/validate.js'
import type {CallInput} from '../client/api-client.js'
import {columnProblems, columnsOf, valuesFromRecord} from '../cli/operation-input.js'
import {draftOf, gatherSpecOf, selectEndpoint} from '../cli/run-operation.js'

/** A row of the input file after defaults: column (flag name, field name or argument name) -> value. */
export type BulkRecord = Record<string, unknown>

export interface BulkRequest {
  endpoint: EndpointId
  input: CallInput
  /** Every problem of the record, named after its flag (unknown columns included); [] when it can be sent. */
  problems: FieldProblem[]
}

export interface BulkOperation {
  /** The operation's name for the run's identity (`collections:create`). */
  id: string
  /** The columns a row may have (flag names), for messages. */
  columns: string[]
  /** The request of a record (deterministic: the same record gives the same body bytes); `check` false skips the rules (already passed). */
  request(record: BulkRecord, check?: boolean): BulkRequest
}

/** The bulk operation of a spec; `data` and `field` (the parsed --data and -F) go into every body. */
export function specOperation(op: OperationSpec, extra: {data?: unknown; field?: Record<string, unknown>} = {}): BulkOperation {
  return {
    id: op.command,
    columns: columnsOf(op),
    request(record, check = true) {
      const columns = valuesFromRecord(op, record)
      const {values} = columns
      const choice = selectEndpoint(op, values)
      const draft = draftOf(gatherSpecOf(op, choice, values), extra.data, extra.field ?? {})
      const input = draft.build()
      if (!check) return {endpoint: choice.id, input, problems: []}
      const fromColumns = columns.unknown.length + columns.repeated.length > 0 ? columnProblems(op, columns, (k) => `column "${k}"`) : []
      const problems = fromColumns.length > 0 ? [...fromColumns, ...draft.check(input).problems] : draft.check(input).problems
      // NDJSON values that are not strings are turned into strings by valuesFromRecord: an amount must stay exact
      for (const k of Object.keys(record)) if (typeof record[k] === 'number') problems.push({flag: `column "${k}"`, rule: 'must be a string (quote numbers in NDJSON, so that amounts stay exact)'})
      return {endpoint: choice.id, input, problems}
    },
  }
}
