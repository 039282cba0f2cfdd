/**
 * `--from-file` on the idempotent create commands: runOperation (src/operation/run-operation.ts) hands the operation
 * spec and the given values here when --from-file is given.
 */
import {realpathSync, statSync} from 'node:fs'
import {basename, dirname, join, resolve} from 'node:path'
import {flagName} from '../api/operation-names.js'
import type {OperationSpec} from '../api/operation-types.js'
import {InputError} from '../base/errors.js'
import type {ApiContext} from '../operation/api-context.js'
import {parseFieldFlags, readDataFlag} from '../operation/body-input.js'
import {columnsOf} from '../operation/operation-input.js'
import {pollOf, type Given} from '../operation/run-operation.js'
import {DEFAULT_WAIT_TIMEOUT_SEC, waitTimeoutProblem} from '../operation/wait.js'
import {type BulkFlags, runBulk} from './engine.js'
import {confirmBulkRun} from '../operation/confirm.js'
import {specOperation} from './operation.js'

export {runBulk, rowKey, type BulkFlags} from './engine.js'

export async function runBulkOperation(ctx: ApiContext, op: OperationSpec, values: Given): Promise<number> {
  const data = await readDataFlag(values.data as string | undefined)
  const field = parseFieldFlags(values.field as string[] | undefined)
  checkBulkFlags(op, values, data, field)
  // the inputs given as flags are the defaults of every row
  const inputs = new Set(columnsOf(op))
  const defaults: Record<string, string | undefined> = {}
  for (const [k, v] of Object.entries(values)) if (inputs.has(k) && typeof v === 'string') defaults[k] = v
  // the request that reports a row's state: --wait polls it; a resumed row whose answer has not ended is looked up once
  const lookUp = op.wait ? (endpoint: Parameters<typeof pollOf>[1], res: Parameters<typeof pollOf>[2], input: Parameters<typeof pollOf>[3]) => pollOf(op, endpoint, res, input) : undefined
  const wait = lookUp && values.wait ? {timeoutSec: Number(values['wait-timeout'] ?? DEFAULT_WAIT_TIMEOUT_SEC), poll: lookUp} : undefined
  const confirm = (plan: Parameters<typeof confirmBulkRun>[2]) => confirmBulkRun(ctx, op, plan, values.yes === true)
  const states = op.wait ? {succeeded: op.wait.succeeded, failed: op.wait.failed} : undefined
  return runBulk(ctx, {op: specOperation(op, {data, field}), defaults, shared: {data, field}, flags: values as BulkFlags, wait, lookUp, states, confirm})
}

/**
 * What a bulk run refuses before reading a row (exit 2, nothing sent):
 * - -F or --data setting a field that every row may set (`-F amount=999.00` would replace each row's own amount,
 *   as -F beats flags on a single command): a default belongs in the field's flag (`--amount`), which a row's own
 *   value beats. -F/--data stay for fields no row column sets (nested metadata, say).
 * - --results naming the input file itself (after symbolic links, or the same file by another name): the input
 *   would be overwritten before it was read.
 */
function checkBulkFlags(op: OperationSpec, values: Given, data: unknown, field: Record<string, unknown>): void {
  const problems: {flag: string; rule: string}[] = []
  const rowFields = new Map(op.fields.filter((f) => f.arg === undefined).map((f) => [f.key, flagName(f)!]))
  const given: [string, unknown][] = [['-F', field], ['--data', data]]
  for (const [flag, set] of given) {
    if (!set || typeof set !== 'object' || Array.isArray(set)) continue
    for (const key of Object.keys(set)) {
      const name = rowFields.get(key)
      if (name !== undefined) problems.push({flag, rule: `sets ${key}, which every row of --from-file may set: give a default with --${name} instead (a row's own value beats it)`})
    }
  }
  const input = values['from-file']
  const results = values.results
  if (typeof input === 'string' && input !== '-' && typeof results === 'string' && sameFile(input, results)) {
    problems.push({flag: '--results', rule: `is the --from-file input itself (${input}): it would be overwritten before it is read; write the results to another file`})
  }
  const waitTimeout = op.wait ? waitTimeoutProblem(values) : undefined
  if (waitTimeout) problems.push(waitTimeout)
  if (problems.length > 0) throw new InputError(problems)
}

/** Both paths name one file: the same path after symbolic links, or the same device and inode (a hard link). */
function sameFile(a: string, b: string): boolean {
  const real = (p: string) => {
    try {
      return realpathSync(p)
    } catch {
      // not there yet: its folder resolved, then its name
      try {
        return join(realpathSync(dirname(resolve(p))), basename(p))
      } catch {
        return resolve(p)
      }
    }
  }
  if (real(a) === real(b)) return true
  try {
    const [x, y] = [statSync(a), statSync(b)]
    return x.dev === y.dev && x.ino === y.ino
  } catch {
    return false
  }
}
