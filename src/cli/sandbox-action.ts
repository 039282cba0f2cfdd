/** Sandbox commands that take one id and make one control-API call: the class is built here, once. */
import {Args} from '@oclif/core'
import type {ControlEndpointId} from '../runtime.js'
import {SandboxCommand} from './base-command.js'

interface IdAction {
  description: string
  example: {description: string; command: string}
  /** the argument's name (also the control path parameter) and its help */
  arg: [name: string, description: string]
  op: ControlEndpointId
}

export function sandboxIdAction(spec: IdAction) {
  const [name, description] = spec.arg
  const Action = class extends SandboxCommand {
    static override description = spec.description
    static override examples = [spec.example]
    static override args = {[name]: Args.string({description, required: true})}

    async run(): Promise<void> {
      const {args, flags} = await this.parse(Action)
      const {runSandboxIdAction} = await import('../sandbox/control-commands.js')
      await runSandboxIdAction(this.controller(flags as {url?: string; debug?: boolean}), spec.op, {name, id: String(args[name])}, await this.output())
    }
  }
  return Action
}

const TRANSACTION = 'a processing transaction (collection CL_, checkout session CS_, payout PO_ or debit DB_)'

/** `pay sandbox succeed|fail ID`: force a processing transaction to its end. */
export function forceTransaction(outcome: 'succeed' | 'fail', example: IdAction['example']) {
  return sandboxIdAction({description: `Force ${TRANSACTION} to ${outcome} in the sandbox`, example, arg: ['id', 'Transaction id'], op: `transactions.${outcome}`})
}
