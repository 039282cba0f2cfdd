/**
 * What `wait` polls for a flow step: the wait target of the resource command that calls the same endpoint
 * (src/api/operations.ts, the one source the commands' --wait uses too), with its terminal states.
 */
import {operationList} from '../api/operations.js'
import type {OperationSpec} from '../api/operation-types.js'

export {waitOperation} from '../operation/wait.js'

/** The resource command a step names (`collections create`, or `collections:create`), or undefined. */
export function commandOperation(command: string): OperationSpec | undefined {
  const id = command.trim().replace(/^pay\s+/, '').replace(/\s+/g, ':')
  return operationList.find((op) => op.command === id)
}
