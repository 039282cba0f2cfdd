import {Flags} from '@oclif/core'
import {ApiCommand} from '../cli/base-command.js'

export default class Smoke extends ApiCommand {
  static override summary = 'Prove this machine can do business with the service (CI smoke check)'
  static override description = `Runs, without prompting (but see --money with a live profile), and reports each step with its time and outcome: a fresh token (never the cache), the account context (and the sub-account ref when one is set), metadata, balance, and the read endpoint of each product; a product that answers 403 is reported "not enabled", not failed.
With --contract it checks the shapes instead: every read-only endpoint once, listing per endpoint the fields missing, extra, of other types or other shapes compared with what pay assumes where the interface is silent (docs/assumptions.md); exit 0 while every rule the interface states holds, 7 when one is broken.
With --money it also runs a small real flow: a collection waited to its end, a pay link, a lookup by reference (skipped when the collection did not succeed). A collection whose answer was lost is reported UNKNOWN with its Idempotency-Key and reference: check it (pay transactions verify REF) before running again, which makes a new collection. Against anything but the local sandbox (a loopback base URL) --money needs --yes; with a profile marked live the collection is confirmed as every live money path is (README: Live money): asked on a terminal, else refused without --yes, and --mobile is required.
A merchant with sub-accounts needs a sub-account ref: without one, the account context step says to set PAY_ACCOUNT_REF or --account-ref (exit 2) and the steps that need it are skipped.
On a terminal a checklist; off one, one tab-separated line per step (ok, FAIL, not-enabled, skipped); --json one object with every step; --junit FILE writes JUnit XML for CI. Exit 0 when healthy, else the exit code of the first failed step (3 for credentials).`

  static override flags = {
    junit: Flags.string({description: 'Also write the steps as JUnit XML to this file'}),
    money: Flags.boolean({description: 'Also run a small real flow: a collection (--wait), a pay link, a lookup by reference'}),
    yes: Flags.boolean({description: 'Allow --money against a service that is not the local sandbox, and with a live profile without a question'}),
    amount: Flags.string({description: 'Amount of the --money collection and pay link (decimal string)', default: '10.00'}),
    currency: Flags.string({description: 'Currency of the --money steps', default: 'KES'}),
    mobile: Flags.string({description: 'Wallet number charged by --money (default on the sandbox, unless the profile is live: a number that succeeds)'}),
    provider: Flags.string({description: 'Mobile money provider of --mobile', default: 'mpesa'}),
    'wait-timeout': Flags.integer({description: 'Seconds the --money collection may take to end', default: 120, min: 1, max: 3600}),
    contract: Flags.boolean({description: 'Instead: read every read-only endpoint once and report where the answers differ from what pay assumes (drift); exit 0 while every rule the interface states holds', exclusive: ['money', 'junit']}),
    param: Flags.string({description: 'With --contract: a real id or reference for the endpoints that need one (NAME=VALUE or ENDPOINT.NAME=VALUE, e.g. collections.get.id=CL_123); else a probe that answers 404', multiple: true, dependsOn: ['contract']}),
  }

  static override examples = [
    {description: 'In CI, credentials from the environment', command: 'PAY_BASE_URL=… PAY_CLIENT_ID=… PAY_CLIENT_SECRET=… <%= config.bin %> smoke --junit smoke.xml'},
    {description: 'Against the local sandbox, moving (sandbox) money too', command: '<%= config.bin %> smoke --profile sandbox --money'},
    {description: 'Only the verdict, for a script', command: '<%= config.bin %> smoke --json | jq .ok'},
    {description: 'First day against the real service: which assumptions differ (an endpoint given no real id through --param is probed and reported FAILED: on a fresh sandbox this exits 7)', command: '<%= config.bin %> smoke --contract --param merchant_reference=order-42'},
  ]

  async run(): Promise<void> {
    const {flags} = await this.parse(Smoke)
    const ctx = await this.api(flags)
    const {runSmokeCommand} = await import('../smoke/command.js')
    process.exitCode = await runSmokeCommand(ctx, flags, this.userAgent)
  }
}
