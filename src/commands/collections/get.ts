import {Args, Flags} from '@oclif/core'
import {ApiCommand} from '../../cli/base-command.js'
import {waitFlags} from '../../cli/flags.js'

export default class CollectionsGet extends ApiCommand {
  static override summary = 'Show a collection by id or by merchant reference'
  static override description = `GET /v1/collections/{id}, or GET /v1/collections?merchant_reference=REF with --reference.
Shows the state, amount, rail, provider and wallet, and for a bank transfer the account the customer pays into.
With --wait, polls until the collection has succeeded (exit 0) or failed (exit 8), or --wait-timeout runs out (exit 9).`

  static override examples = [
    {description: 'By id', command: '<%= config.bin %> collections get CL_8K2M4Q7R1T'},
    {description: 'By your order reference, waiting for the outcome', command: '<%= config.bin %> collections get --reference order-42 --wait --wait-timeout 300'},
    {description: 'Script: just the state', command: '<%= config.bin %> collections get --reference order-42 --json | jq -r .status'},
  ]

  static override args = {
    id: Args.string({description: 'Collection id (CL_…); or use --reference'}),
  }

  static override flags = {
    reference: Flags.string({char: 'r', description: 'Look the collection up by your merchant reference instead of its id', helpValue: 'REF'}),
    ...waitFlags,
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(CollectionsGet)
    const rt = await this.runtime()
    const ctx = await this.api(flags)
    const byRef = flags.reference !== undefined && args.id === undefined
    const problems = args.id !== undefined && flags.reference !== undefined ? [{flag: 'ID', rule: 'cannot be combined with --reference (give one of them)'}] : []
    const fields = byRef
      ? [{key: 'merchant_reference', in: 'query' as const, flag: '--reference', value: flags.reference}]
      : [{key: 'id', in: 'path' as const, flag: args.id === undefined ? 'ID (or --reference)' : 'ID', value: args.id, prompt: {message: 'Collection id (CL_…)'}}]
    const id = byRef ? 'collections.getByReference' as const : 'collections.get' as const
    process.exitCode = await rt.runOperation(ctx, {
      id,
      fields,
      problems,
      view: 'collection',
      wait: flags.wait ? {timeoutSec: flags['wait-timeout'], poll: (res, input) => ({id, input, label: `collection ${String((res.body as {id?: unknown}).id ?? flags.reference)}`})} : undefined,
    })
  }
}

