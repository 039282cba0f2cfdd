import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'

export default class SandboxStart extends BaseCommand {
  static override description = `Start a local, stateful emulator of the Payments Service.

Serves every /v1 endpoint of the service plus the hosted pay page /pay/{id}, with seeded merchants,
credentials and wallets, deterministic outcomes, signed webhooks and optional fault injection.
Prints the base URL and the seeded credentials, saves them as the profile "sandbox" (unless --no-profile),
and runs until interrupted (Ctrl-C / SIGTERM). The control API under /_sandbox/ and the deterministic rules
are described in docs/sandbox.md. A dashboard of its state, events and requests is served at /_dashboard/
(on this machine only; \`pay sandbox open\`).`

  static override examples = [
    {description: 'Start on the default port and save the "sandbox" profile', command: '<%= config.bin %> <%= command.id %>'},
    {description: 'Use it from another terminal', command: '<%= config.bin %> balance --profile sandbox'},
    {
      description: 'Fast settlement, a request log and persisted state, for a test run',
      command: '<%= config.bin %> <%= command.id %> --port 0 --settle-ms 100 --log requests.jsonl --state sandbox-state.json --no-profile --json',
    },
    {description: 'Without the dashboard (/_dashboard/)', command: '<%= config.bin %> <%= command.id %> --no-dashboard'},
    {description: 'Inject faults: 10% random 503s and 300 ms latency', command: '<%= config.bin %> <%= command.id %> --fault-rate 0.1 --latency 300'},
  ]

  static override flags = {
    port: Flags.integer({description: 'Port to listen on (0 picks a free one)', default: 4010, min: 0, max: 65535}),
    host: Flags.string({description: 'Interface to bind', default: '127.0.0.1'}),
    profile: Flags.boolean({description: 'Save or update the profile "sandbox" with the seeded credentials of the first merchant', default: true, allowNo: true}),
    'seed-file': Flags.string({description: 'JSON seed replacing the default merchants, clients, wallets and reference data'}),
    log: Flags.string({description: 'Append one JSON line per request to this file (secrets redacted)'}),
    state: Flags.string({description: 'Load state from this file at start and save it on every change'}),
    'token-ttl': Flags.integer({description: 'Access-token lifetime in seconds', default: 1200, min: 1}),
    'settle-ms': Flags.integer({description: 'Delay before a processing transaction settles', default: 1500, min: 0}),
    'fault-rate': Flags.string({description: 'Fraction (0..1) of /v1 requests answered 503 without effect', default: '0'}),
    latency: Flags.integer({description: 'Extra delay in ms before each /v1 request', default: 0, min: 0}),
    'drop-after-commit-rate': Flags.string({description: 'Fraction (0..1) of successful POSTs committed and then dropped without an answer', default: '0'}),
    'duplicate-rate': Flags.string({description: 'Fraction (0..1) of webhook events delivered twice', default: '0'}),
    'webhook-retry-ms': Flags.integer({description: 'First webhook retry delay in ms (doubles per attempt)', default: 1000, min: 1}),
    'rate-write-per-minute': Flags.integer({description: 'Write requests per merchant per minute', min: 0}),
    'rate-write-per-hour': Flags.integer({description: 'Write requests per merchant per hour', min: 0}),
    'rate-read-per-minute': Flags.integer({description: 'Read requests per merchant per minute', min: 0}),
    'rate-metadata-per-minute': Flags.integer({description: 'Metadata requests per merchant per minute', min: 0}),
    'rate-verification-per-minute': Flags.integer({description: 'Verification requests per merchant per minute', min: 0}),
    'rate-verification-per-hour': Flags.integer({description: 'Verification requests per merchant per hour', min: 0}),
    'rate-token-per-minute': Flags.integer({description: 'Token requests per IP per minute', min: 0}),
    'rate-token-client-per-minute': Flags.integer({description: 'Token requests per client_id per minute', min: 0}),
    dashboard: Flags.boolean({description: 'Serve the dashboard at /_dashboard/ (loopback only; --no-dashboard turns it off)', default: true, allowNo: true}),
    json: Flags.boolean({description: 'Print one JSON object (url and credentials) instead of text', default: false}),
  }

  public async run(): Promise<void> {
    const {flags} = await this.parse(SandboxStart)
    const [{runSandboxStart}, {untilSignal}] = await Promise.all([import('../../sandbox/start.js'), import('../../base/signals.js')])
    process.exitCode = await runSandboxStart(flags, await this.output(), {until: untilSignal()})
  }
}
