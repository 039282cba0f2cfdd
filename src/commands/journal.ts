import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../cli/base-command.js'
import type {JournalQuery} from '../journal/view.js'

export default class Journal extends BaseCommand {
  static override args = {key: Args.string({description: 'Show one request: its Idempotency-Key or merchant reference (the newest with it)'})}
  static override flags = {
    limit: Flags.integer({description: 'List at most this many (newest first)', default: 20, min: 1}),
    // checked by the run function: the old names succeeded and failed are refused there, naming --state
    outcome: Flags.string({description: 'List only requests with this outcome, what the request came to: accepted, refused or unknown (not what became of the money: see --state)', helpValue: 'accepted|refused|unknown'}),
    state: Flags.string({description: "List only requests whose resource's latest known state is this (processing, succeeded, failed, …): what became of the money, as last seen", helpValue: 'STATE'}),
  }

  static override summary = 'The operation journal: recent idempotent requests (bulk rows too) and their outcome, or one of them'
  static override description = `Every idempotent request (creates, payouts, cancels) is journaled on this machine before it is sent, with its Idempotency-Key, and its outcome when known: accepted (with the id), refused, or unknown (the answer was lost, the process was interrupted or killed). Apart from that, the resource's latest known state (processing, succeeded, failed, …) and when it was seen. --outcome lists by the first fact, --state by the second.
One line per request (its Idempotency-Key): sent again (a resumed key, a bulk row reported by a later run) it stays one line, at the time it was first sent, with its newest state.
A plain re-run of a command whose outcome is unknown reuses its key; a re-run of one that was accepted prints the earlier answer, looks the resource up when its state had not ended, and sends nothing (--force-new sends it again).
Rows of --from-file runs are listed too (with their run and line), and a run that was cut (killed, interrupted) is listed as unknown until a run of the same file ends.
Each request says where it came from: origin cli (the command line) or mcp (a tool call of \`pay mcp\`).
With KEY: what was sent, the outcome and the command that resumes it; under --json with the earlier answer as \`response\`.
The journal lives in the state dir ($PAY_CONFIG_DIR/state/journal when PAY_CONFIG_DIR is set, else $XDG_STATE_HOME/pay/journal, by default ~/.local/state/pay/journal) and keeps 7 days (PAY_JOURNAL_RETENTION_DAYS).`

  static override examples = [
    {description: 'What happened lately', command: '<%= config.bin %> journal'},
    {description: 'Requests whose outcome is unknown, for a script', command: '<%= config.bin %> journal --outcome unknown --json'},
    {description: 'Payments that ended failed (accepted, then failed), as last seen', command: '<%= config.bin %> journal --state failed'},
    {description: 'One request, by merchant reference', command: '<%= config.bin %> journal order-42'},
  ]

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Journal)
    const {runJournal} = await import('../journal/view.js')
    runJournal({key: args.key, limit: flags.limit, outcome: flags.outcome, state: flags.state} satisfies JournalQuery, await this.output())
  }
}
