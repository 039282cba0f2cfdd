/**
 * What the bulk engine needs to know about one operation: a small interface, so that any idempotent create can
 * run from a file. `specOperation` builds it from an operation spec (src/api/operations.ts) with the single
 * command's fields, flag names and rules (src/operation/operation-input.ts, src/operation/run-operation.ts).
 */
import type {EndpointId} from '../api/endpoints.js'
import type {OperationSpec} from '../api/operation-types.js'
import type {FieldProblem} from '../api/validate.js'
import type {CallInput} from '../client/api-client.js'
import {type MoneyCharge, chargeOf} from '../operation/confirm.js'
import {columnsOf, requestFromRecord} from '../operation/operation-input.js'

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
  /** What a row's request moves, for the money totals (src/operation/confirm.ts); `input` is read only when it decides. */
  charge(input: () => CallInput): MoneyCharge
}

/** The bulk operation of a spec; `data` and `field` (the parsed --data and -F) go into every body. */
export function specOperation(op: OperationSpec, extra: {data?: unknown; field?: Record<string, unknown>} = {}): BulkOperation {
  return {
    id: op.command,
    columns: columnsOf(op),
    charge: op.confirm?.when === undefined ? () => chargeOf(op) : (input) => chargeOf(op, input()),
    request(record, check = true) {
      const request = requestFromRecord(op, record, {data: extra.data, field: extra.field, label: (k) => `column "${k}"`, check})
      // NDJSON values that are not strings are turned into strings by valuesFromRecord: an amount must stay exact
      if (check) for (const k of Object.keys(record)) if (typeof record[k] === 'number') request.problems.push({flag: `column "${k}"`, rule: 'must be a string (quote numbers in NDJSON, so that amounts stay exact)'})
      return request
    },
  }
}
