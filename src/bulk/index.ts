/**
 * `--from-file` on the idempotent create commands: runOperation (src/cli/run-operation.ts) hands the operation
 * spec and the given values here when --from-file is given.
 */
import type {OperationSpec} from '../api/operation-types.js'
import type {ApiContext} from '../cli/api-context.js'
import {parseFieldFlags, readDataFlag} from '../cli/body-input.js'
import {columnsOf} from '../cli/operation-input.js'
import {pollOf, type Given} from '../cli/run-operation.js'
import {type BulkFlags, runBulk} from './engine.js'
import {confirmBulkRun} from '../cli/confirm.js'
import {specOperation} from './operation.js'

export {runBulk, rowKey, type BulkFlags} from './engine.js'

export async function runBulkOperation(ctx: ApiContext, op: OperationSpec, values: Given): Promise<number> {
  const data = await readDataFlag(values.data as string | undefined)
  const field = parseFieldFlags(values.field as string[] | undefined)
  // the inputs given as flags are the defaults of every row
  const inputs = new Set(columnsOf(op))
  const defaults: Record<string, string | undefined> = {}
  for (const [k, v] of Object.entries(values)) if (inputs.has(k) && typeof v === 'string') defaults[k] = v
  const wait = op.wait && values.wait ? {timeoutSec: Number(values['wait-timeout'] ?? 120), poll: (endpoint: Parameters<typeof pollOf>[1], res: Parameters<typeof pollOf>[2], input: Parameters<typeof pollOf>[3]) => pollOf(op, endpoint, res, input)} : undefined
  const confirm = (plan: Parameters<typeof confirmBulkRun>[2]) => confirmBulkRun(ctx, op, plan, values.yes === true)
  const states = op.wait ? {succeeded: op.wait.succeeded, failed: op.wait.failed} : undefined
  return runBulk(ctx, {op: specOperation(op, {data, field}), defaults, shared: {data, field}, flags: values as BulkFlags, wait, states, confirm})
}
