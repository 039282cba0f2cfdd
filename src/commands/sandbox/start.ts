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
    const rt = await this.runtime()
    const out = await this.output()
    const problems: {flag: string; rule: string}[] = []
    const fraction = (name: string, value: string) => {
      const n = Number(value)
      if (!Number.isFinite(n) || n < 0 || n > 1) problems.push({flag: `--${name}`, rule: 'must be a number from 0 to 1'})
      return n
    }
    const rates = {faultRate: fraction('fault-rate', flags['fault-rate']), dropAfterCommitRate: fraction('drop-after-commit-rate', flags['drop-after-commit-rate']), duplicateRate: fraction('duplicate-rate', flags['duplicate-rate'])}
    if (problems.length > 0) throw new rt.InputError(problems)
    if (!rt.isLoopbackHost(flags.host)) {
      out.warn(`--host ${flags.host} exposes the sandbox beyond this machine: its control API (/_sandbox/) has no authentication and shows the seeded secrets`)
    }
    const {startSandbox} = await import('../../sandbox/index.js')
    let sandbox: Awaited<ReturnType<typeof startSandbox>>
    try {
      sandbox = await startSandbox({
        port: flags.port,
        host: flags.host,
        seedFile: flags['seed-file'],
        logFile: flags.log,
        statePath: flags.state,
        tokenTtlSeconds: flags['token-ttl'],
        settleMs: flags['settle-ms'],
        ...rates,
        latencyMs: flags.latency,
        webhookRetryBaseMs: flags['webhook-retry-ms'],
        processGuard: true, // a bug outside a request is logged; the sandbox keeps serving
        dashboard: flags.dashboard,
        rateLimits: {
          writePerMinute: flags['rate-write-per-minute'],
          writePerHour: flags['rate-write-per-hour'],
          readPerMinute: flags['rate-read-per-minute'],
          metadataPerMinute: flags['rate-metadata-per-minute'],
          verificationPerMinute: flags['rate-verification-per-minute'],
          verificationPerHour: flags['rate-verification-per-hour'],
          tokenPerMinutePerIp: flags['rate-token-per-minute'],
          tokenPerMinutePerClient: flags['rate-token-client-per-minute'],
        },
      })
    } catch (err) {
      if ((err as Error).name === 'InputError') throw err // a --state file that is not one: exit 2, naming it (the sandbox's own copy of the class)
      const e = err as NodeJS.ErrnoException
      if (e.code === 'EADDRINUSE') throw new rt.PayError(`port ${flags.port} is already in use`, 1, 'pick another with --port (0 = any free port)')
      throw new rt.PayError(e.message, 1)
    }

    const primary = sandbox.seed.merchants[0]
    let profileSaved: string | undefined
    if (flags.profile) {
      try {
        const store = await rt.ProfileStore.open()
        // the sandbox's seed credentials are public (printed below): they stay in the file, not the OS keyring
        await store.saveWithSecrets(rt.SANDBOX_PROFILE, {base_url: sandbox.url, client_id: primary.client_id, client_secret: primary.client_secret, webhook_secret: primary.webhook_secret}, {file: true})
        profileSaved = store.path
      } catch (err) {
        out.warn(`could not save the "${rt.SANDBOX_PROFILE}" profile: ${(err as Error).message}`)
      }
    }

    if (flags.json) {
      out.data(JSON.stringify({url: sandbox.url, dashboard: sandbox.dashboardUrl, profile: profileSaved ? rt.SANDBOX_PROFILE : null, merchants: sandbox.seed.merchants}))
    } else {
      out.data(`Sandbox listening on ${sandbox.url}`)
      if (sandbox.dashboardUrl) out.data(`Dashboard at ${sandbox.dashboardUrl} (pay sandbox open)`)
      out.data('')
      for (const m of sandbox.seed.merchants) {
        const mode = [m.testing ? 'Testing mode' : 'live', m.sub_accounts_enabled ? `sub-accounts: ${m.account_refs.join(', ')}` : `account: ${m.account_refs[0]}`].join('; ')
        out.data(`  ${m.name} (merchant ${m.id}; ${mode})`)
        out.data(`    client_id       ${m.client_id}`)
        out.data(`    client_secret   ${m.client_secret}`)
        out.data(`    webhook_secret  ${m.webhook_secret}`)
      }
      out.data('')
      if (profileSaved) out.data(`Saved profile "sandbox" (${primary.name}) in ${profileSaved}; use --profile sandbox.`)
      out.data(`Control API: ${sandbox.url}/_sandbox/ (see docs/sandbox.md). Press Ctrl-C to stop.`)
    }

    await new Promise<void>((resolve) => {
      const stop = () => {
        process.off('SIGINT', stop)
        process.off('SIGTERM', stop)
        resolve()
      }
      process.on('SIGINT', stop)
      process.on('SIGTERM', stop)
    })
    await sandbox.close()
    if (!flags.json) out.data('Sandbox stopped.')
  }
}
