/**
 * The tunnel interface: one small contract, one file per provider (localtunnel.ts, ngrok.ts, none.ts). The
 * providers import this file; registry.ts imports the providers (lazily, so that a provider's library is only
 * loaded when it is used). This file imports no provider, so there is no import circle.
 */
import {NetworkError} from '../../base/errors.js'

export type TunnelProviderName = 'localtunnel' | 'ngrok' | 'none'

export type TunnelLogLevel = 'debug' | 'info' | 'warn'

export interface TunnelOptions {
  /** The local server the tunnel forwards to. */
  localPort: number
  /** Address of the local server (default 127.0.0.1; never the name `localhost`, which may resolve to ::1). */
  localHost?: string
  /** Tunnel server: localtunnel host (default https://localtunnel.me). */
  host?: string
  /** Requested subdomain (localtunnel), when the server allows it. */
  subdomain?: string
  /** A reserved domain (ngrok): the public URL survives restarts and reconnects. */
  domain?: string
  /** Bound on the start (and on each reconnect attempt), in ms. */
  startTimeoutMs?: number
  /** Status messages: drops, reconnects, URL changes. */
  log?: (level: TunnelLogLevel, message: string) => void
  /** Called when the public URL changes after a reconnect (the first URL is `Tunnel.url`). */
  onUrlChange?: (url: string) => void
  /** Aborts a start still in progress (Ctrl-C while the tunnel opens). */
  signal?: AbortSignal
}

export interface Tunnel {
  readonly provider: TunnelProviderName
  /** The public base URL (no trailing slash). */
  readonly url: string
  /** How many times the tunnel was re-established after a drop. */
  readonly reconnects: number
  /**
   * Re-establishes the tunnel (the health check found it dead although the provider did not notice); calls
   * onUrlChange when the public URL is a new one. Resolves once reconnected (or closed).
   */
  reconnect(reason: string): Promise<void>
  close(): Promise<void>
}

export interface TunnelProvider {
  readonly name: TunnelProviderName
  start(options: TunnelOptions): Promise<Tunnel>
}

/** A tunnel could not be started or re-established: exit 7 (network failure). */
export class TunnelError extends NetworkError {
  constructor(message: string, hint?: string) {
    super(message, 1, hint)
    this.name = 'TunnelError'
  }
}

export const DEFAULT_START_TIMEOUT_MS = 15_000

/** Rejects with `onTimeout()` when `promise` has not settled within `ms`. */
export function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms)
    function done() {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    signal?.addEventListener('abort', done, {once: true})
  })
