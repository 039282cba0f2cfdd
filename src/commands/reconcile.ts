import {Args, Flags} from '@oclif/core'
import {ApiCommand} from '../cli/base-command.js'

export default class Reconcile extends ApiCommand {
  static override summary = 'Check a file of expected transactions against the service: matched, differs, missing, duplicated'
  static override description = `FILE is a CSV (header row) or NDJSON of expected transactions: reference (or merchant_reference), amount, currency, and optionally kind (collection, payout, checkout, mandate, debit, subscription; --kind for all rows), state (the expected state; default: the kind's success, succeeded or active) and, for a debit, mandate_id (reference and merchant_reference together, or state and expected_state, are refused). A bulk run's --results file, or reconcile's own (its expected columns), works as it is. - reads stdin.
Each row is looked up, read only, as bulk runs send (--concurrency, slowed down on 429), and classed: matched; amount_differs (amount or currency); state_differs (still processing, failed, or not the expected state); missing; duplicated (the reference, or the very transaction found, of an earlier row: counted once, there); lookup_failed. A row without a kind is looked up with the verify lookup (a collection, payout or checkout session).
Prints a summary by class with the money of each (expected, and what the service shows) per currency, and the mismatches; --results FILE writes every row (CSV when it ends in .csv, else NDJSON). A progress bar on a terminal.
Killed or interrupted, the same command resumes: rows already classed are not looked up again (--fresh starts over). Exit 0 when every row matched, 1 otherwise.`

  static override examples = [
    {description: "Yesterday's payouts", command: '<%= config.bin %> reconcile payouts-2026-11-25.csv --kind payout'},
    {description: 'Check what a bulk run created, every row to a spreadsheet', command: '<%= config.bin %> reconcile created.csv --kind collection --results check.csv'},
    {description: 'Script: only the mismatches', command: "<%= config.bin %> reconcile expected.ndjson --jq '.mismatches[] | [.row, .reference, .class] | @tsv'"},
  ]

  static override args = {
    file: Args.string({description: "CSV or NDJSON of expected transactions, or a bulk run's or reconcile's --results file (- for stdin)", required: true}),
  }

  static override flags = {
    kind: Flags.string({description: 'Kind of the rows that name none (default: the verify lookup, a collection, payout or checkout session)', options: ['collection', 'payout', 'checkout', 'mandate', 'debit', 'subscription']}),
    format: Flags.string({description: 'Format of FILE (default: from its extension; csv for stdin)', options: ['csv', 'ndjson']}),
    concurrency: Flags.integer({description: 'Lookups in flight at most (lowered automatically on 429)', default: 8, min: 1, max: 64}),
    results: Flags.string({description: "Write every row's class to FILE: CSV when it ends in .csv, else NDJSON", helpValue: 'FILE'}),
    fresh: Flags.boolean({description: 'Look every row up again, even after an interrupted run of the same file'}),
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Reconcile)
    const ctx = await this.api(flags)
    const {runReconcile} = await import('../reconcile/run.js')
    process.exitCode = await runReconcile(ctx, {file: args.file, format: flags.format, kind: flags.kind, concurrency: flags.concurrency, results: flags.results, fresh: flags.fresh, retries: flags.retries})
  }
}
