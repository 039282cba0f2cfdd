import {Args, Flags} from '@oclif/core'
import {ApiCommand} from '../../cli/base-command.js'
import {confirmFlags} from '../../cli/flags.js'

export default class FlowRun extends ApiCommand {
  static override summary = 'Run scripted flows of requests from JSON or YAML files, with expectations and a report'
  static override description = `Each step names an endpoint (call: collections.create) with its path, query and body, or a resource command (command: collections create) with inputs named like its flags; later steps use earlier answers (\${steps.charge.id}, any dot path) and the environment (\${env.ORDER_ID:-default}); \${run.id} is unique per run. A step can wait for a terminal state (wait: true) and expect a status, an exit code (or class: ok, auth, not_found…) or field values. A step can also control the sandbox (sandbox: approve|succeed|fail|advance, with a target): a run holding one is refused against anything but a pay sandbox. The whole format: docs/flows.md.
Every file is checked against the endpoint schemas before anything is sent: a problem exits 2 naming the file, step and field. Requests go through the same client as single commands (retries, idempotency keys). Output like \`pay smoke\`: a checklist on a terminal, one line per step off one, --json one object, --junit FILE JUnit XML. Exit 0 when every step passed, else the exit code of the first failed step. A request that may have moved money and lost its answer is reported UNKNOWN (not FAIL) with its Idempotency-Key and reference: check it (with the lookup it names: its kind's, e.g. pay mandates get --reference REF), then run again with --run-id and the run id it printed: a run without it makes new \${run.id} references, a new payment.
--sandbox starts an ephemeral sandbox on a free loopback port (merchant A's credentials), runs the flows against it and stops it. The flows/ folder of the package holds the main journeys.`

  static override examples = [
    {description: 'The shipped journeys against an ephemeral sandbox', command: '<%= config.bin %> flow run --sandbox flows/*.yaml'},
    {description: 'One flow against the real service, with a JUnit report', command: 'ORDER_ID=order-42 <%= config.bin %> flow run --profile live --junit flows.xml flows/collect-and-verify.yaml'},
    {description: 'After a step of unknown outcome: the same run again (same references), resuming it with its key', command: '<%= config.bin %> flow run --profile live --run-id 1a2b3c4d flows/collect-and-verify.yaml'},
  ]

  static override strict = false
  static override args = {file: Args.string({description: 'Flow files (JSON or YAML)', required: true})}

  static override flags = {
    sandbox: Flags.boolean({description: 'Run against an ephemeral sandbox on a free port (started and stopped by this command)'}),
    junit: Flags.string({description: 'Also write the steps as JUnit XML to this file'}),
    'run-id': Flags.string({description: 'The run id ${run.id} stands for (default: a new one): the one a run printed runs its flows again with the same references, so that the journal answers the requests that were accepted and resumes one of unknown outcome with its key'}),
    ...confirmFlags,
  }

  async run(): Promise<void> {
    const {argv, flags} = await this.parse(FlowRun)
    const rt = await this.runtime()
    const {runFlowCommand} = await import('../../flows/command.js')
    process.exitCode = await runFlowCommand(rt, argv as string[], flags, this.userAgent)
  }
}
