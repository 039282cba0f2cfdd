/** Options of a sandbox instance (programmatic API and `pay sandbox start` flags). */
import type {SeedData} from './seed.js'

/** Requests allowed per window; 0 or a missing value disables that cap. */
export interface RateLimits {
  writePerMinute: number
  writePerHour: number
  readPerMinute: number
  metadataPerMinute: number
  verificationPerMinute: number
  verificationPerHour: number
  tokenPerMinutePerIp: number
  tokenPerMinutePerClient: number
}

/** Generous by default (a benchmark or a busy test suite should not trip them); tighten with options or flags. */
export const DEFAULT_RATE_LIMITS: RateLimits = {
  writePerMinute: 6000,
  writePerHour: 100_000,
  readPerMinute: 60_000,
  metadataPerMinute: 600_000,
  verificationPerMinute: 600,
  verificationPerHour: 10_000,
  tokenPerMinutePerIp: 6000,
  tokenPerMinutePerClient: 3000,
}

export interface SandboxOptions {
  /** 0 picks a free port. Default 0 for the programmatic API (the CLI defaults to 4010). */
  port?: number
  host?: string
  /** Token lifetime in seconds (default 1200). */
  tokenTtlSeconds?: number
  /** Delay before a processing transaction settles by its deterministic rule (default 1500 ms). */
  settleMs?: number
  /** Replaces the default seed. */
  seed?: SeedData
  /** JSON file holding a SeedData (used when `seed` is not given). */
  seedFile?: string
  /** Appends one JSON line per request. */
  logFile?: string
  /** Loads state from this file at start when it exists and saves it after every change and at close. */
  statePath?: string
  /** Probability (0..1) that a /v1 request answers 503 without doing anything. */
  faultRate?: number
  /** Extra delay in ms before each /v1 request is handled. */
  latencyMs?: number
  /** Probability (0..1) that a successful POST is committed and then the socket destroyed without an answer. */
  dropAfterCommitRate?: number
  /** Probability (0..1) that a delivered webhook is delivered a second time. */
  duplicateRate?: number
  /** First webhook retry delay in ms; doubles per attempt (default 1000). */
  webhookRetryBaseMs?: number
  /** Deliveries per event before giving up (default 8). */
  webhookMaxAttempts?: number
  rateLimits?: Partial<RateLimits>
  /** No console output at all (the programmatic API never prints; the flag is for symmetry). */
  quiet?: boolean
  /**
   * Log and survive an exception that escapes every handler (process-wide uncaughtException and
   * unhandledRejection listeners, removed at close). `pay sandbox start` sets it; a host program decides itself.
   */
  processGuard?: boolean
  /** Serve the dashboard at /_dashboard/ (default true; loopback peers only). */
  dashboard?: boolean
  /** Where a sandbox bug is reported (one line, or a stack); default: stderr through an Output. */
  onBug?: (text: string) => void
  /** Called with each request log entry (after it is written). */
  onRequest?: (entry: Record<string, unknown>) => void
}

export interface ResolvedOptions {
  port: number
  host: string
  tokenTtlSeconds: number
  settleMs: number
  logFile?: string
  statePath?: string
  faultRate: number
  latencyMs: number
  dropAfterCommitRate: number
  duplicateRate: number
  webhookRetryBaseMs: number
  webhookMaxAttempts: number
  rateLimits: RateLimits
}

export function resolveOptions(o: SandboxOptions): ResolvedOptions {
  const rate = (v: number | undefined, name: string) => {
    const r = v ?? 0
    if (!(r >= 0 && r <= 1)) throw new Error(`${name} must be between 0 and 1`)
    return r
  }
  return {
    port: o.port ?? 0,
    host: o.host ?? '127.0.0.1',
    tokenTtlSeconds: o.tokenTtlSeconds ?? 1200,
    settleMs: o.settleMs ?? 1500,
    logFile: o.logFile,
    statePath: o.statePath,
    faultRate: rate(o.faultRate, 'faultRate'),
    latencyMs: o.latencyMs ?? 0,
    dropAfterCommitRate: rate(o.dropAfterCommitRate, 'dropAfterCommitRate'),
    duplicateRate: rate(o.duplicateRate, 'duplicateRate'),
    webhookRetryBaseMs: o.webhookRetryBaseMs ?? 1000,
    webhookMaxAttempts: o.webhookMaxAttempts ?? 8,
    rateLimits: {...DEFAULT_RATE_LIMITS, ...stripUndefined(o.rateLimits ?? {})},
  }
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>
}
