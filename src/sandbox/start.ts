/**
 * `pay sandbox start`'s run function: the flags checked → the sandbox started (its bugs reported through the
 * Output) → the "sandbox" profile saved → the URL and seeded credentials printed → serving until `until` settles
 * (Ctrl-C / SIGTERM for the command) → closed.
 */
import {PayError, InputError} from '../base/errors.js'
import {SANDBOX_PROFILE} from '../config/profile-schema.js'
import {isLoopbackHost} from '../client/loopback.js'
import {configDir} from '../config/paths.js'
import {ProfileStore} from '../config/profiles.js'
import type {Output} from '../output/output.js'
import type {Sandbox, SandboxOptions} from './index.js'

interface SandboxStartOptions {
  port: number
  host: string
  profile: boolean
  'seed-file'?: string
  log?: string
  state?: string
  'token-ttl': number
  'settle-ms': number
  'fault-rate': string
  latency: number
  'drop-after-commit-rate': string
  'duplicate-rate': string
  'webhook-retry-ms': number
  'rate-write-per-minute'?: number
  'rate-write-per-hour'?: number
  'rate-read-per-minute'?: number
  'rate-metadata-per-minute'?: number
  'rate-verification-per-minute'?: number
  'rate-verification-per-hour'?: number
  'rate-token-per-minute'?: number
  'rate-token-client-per-minute'?: number
  /** --no-dashboard: false */
  dashboard?: boolean
  json: boolean
}

interface SandboxStartRun {
  /** Serving stops when it settles. */
  until: Promise<void>
  /** Where the profile is saved (default: the process's environment). */
  env?: NodeJS.ProcessEnv
  /** Called once the sandbox serves (tests: its URL and seed). */
  started?: (sandbox: Sandbox) => void
  /** Set for the command: a bug outside any request is reported and the sandbox keeps serving. */
  processGuard?: boolean
}

/** Runs `pay sandbox start`; returns the exit code once stopped (failures to start throw, for the caller to render). */
export async function runSandboxStart(flags: SandboxStartOptions, out: Output, run: SandboxStartRun): Promise<number> {
  const options = sandboxOptions(flags, out)
  if (!isLoopbackHost(flags.host)) {
    out.warn(`--host ${flags.host} exposes the sandbox beyond this machine: its control API (/_sandbox/) has no authentication and shows the seeded secrets`)
  }
  const sandbox = await start({...options, processGuard: run.processGuard ?? true}, flags.port)
  run.started?.(sandbox)
  const profileSaved = flags.profile ? await saveProfile(sandbox, out, run.env ?? process.env) : undefined
  printStarted(sandbox, profileSaved, flags.json, out)
  await run.until
  await sandbox.close()
  if (!flags.json) out.data('Sandbox stopped.')
  return 0
}

/** The sandbox's options from the flags; a fraction out of 0..1 exits 2 naming its flag. */
function sandboxOptions(flags: SandboxStartOptions, out: Output): SandboxOptions {
  const problems: {flag: string; rule: string}[] = []
  const fraction = (name: string, value: string) => {
    const n = Number(value)
    if (!Number.isFinite(n) || n < 0 || n > 1) problems.push({flag: `--${name}`, rule: 'must be a number from 0 to 1'})
    return n
  }
  const rates = {faultRate: fraction('fault-rate', flags['fault-rate']), dropAfterCommitRate: fraction('drop-after-commit-rate', flags['drop-after-commit-rate']), duplicateRate: fraction('duplicate-rate', flags['duplicate-rate'])}
  if (problems.length > 0) throw new InputError(problems)
  return {
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
    onBug: (text) => out.notice(text),
    dashboard: flags.dashboard ?? true,
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
  }
}

async function start(options: SandboxOptions, port: number): Promise<Sandbox> {
  const {startSandbox} = await import('./index.js')
  try {
    return await startSandbox(options)
  } catch (err) {
    if ((err as Error).name === 'InputError') throw err // a --state file that is not one: exit 2, naming it (the sandbox's own copy of the class)
    const e = err as NodeJS.ErrnoException
    if (e.code === 'EADDRINUSE') throw new PayError(`port ${port} is already in use`, 1, 'pick another with --port (0 = any free port)')
    throw new PayError(e.message, 1)
  }
}

/** Saves the "sandbox" profile with the first merchant's credentials: where, or undefined (with a warning) if it could not. */
async function saveProfile(sandbox: Sandbox, out: Output, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const primary = sandbox.seed.merchants[0]
  try {
    const store = await ProfileStore.open(configDir(env))
    // the sandbox's seed credentials are public (printed below): they stay in the file, not the OS keyring
    await store.saveWithSecrets(SANDBOX_PROFILE, {base_url: sandbox.url, client_id: primary.client_id, client_secret: primary.client_secret, webhook_secret: primary.webhook_secret}, {file: true}, env)
    return store.path
  } catch (err) {
    out.warn(`could not save the "${SANDBOX_PROFILE}" profile: ${(err as Error).message}`)
    return undefined
  }
}

function printStarted(sandbox: Sandbox, profileSaved: string | undefined, json: boolean, out: Output): void {
  if (json) {
    out.data(JSON.stringify({url: sandbox.url, dashboard: sandbox.dashboardUrl, profile: profileSaved ? SANDBOX_PROFILE : null, merchants: sandbox.seed.merchants}))
    return
  }
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
  if (profileSaved) out.data(`Saved profile "sandbox" (${sandbox.seed.merchants[0].name}) in ${profileSaved}; use --profile sandbox.`)
  out.data(`Control API: ${sandbox.url}/_sandbox/ (see docs/sandbox.md). Press Ctrl-C to stop.`)
}
