/**
 * `--tunnel ngrok`: the optional dependency `@ngrok/ngrok`, authenticated with NGROK_AUTHTOKEN; `--domain` asks
 * for a reserved domain, whose URL survives restarts. The ngrok session reconnects by itself after a drop (its
 * status changes are reported on the log); when the health check finds the tunnel dead anyway, reconnect()
 * opens a new ngrok listener.
 */
import {InputError} from '../../base/errors.js'
import {type Tunnel, type TunnelOptions, type TunnelProvider, DEFAULT_START_TIMEOUT_MS, TunnelError, sleep, withTimeout} from './tunnel.js'

interface NgrokListener {
  url(): string | null
  close(): Promise<void>
}
interface NgrokModule {
  forward(config: Record<string, unknown>): Promise<NgrokListener>
}

export const ngrokProvider: TunnelProvider = {
  name: 'ngrok',
  async start(options: TunnelOptions): Promise<Tunnel> {
    if (!process.env.NGROK_AUTHTOKEN) {
      throw InputError.one('NGROK_AUTHTOKEN', 'must be set for --tunnel ngrok', 'get an authtoken at https://dashboard.ngrok.com, or use --tunnel localtunnel / --tunnel none')
    }
    let ngrok: NgrokModule
    try {
      const mod = (await import('@ngrok/ngrok' as string)) as NgrokModule & {default?: NgrokModule}
      ngrok = typeof mod.forward === 'function' ? mod : (mod.default as NgrokModule)
    } catch (err) {
      throw new TunnelError(`@ngrok/ngrok is not installed or cannot load on this platform: ${(err as Error).message}`, 'install it (npm install @ngrok/ngrok) or use --tunnel localtunnel')
    }
    const log = options.log ?? (() => {})
    let reconnects = 0
    let lost = false
    const timeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS
    const forward = () =>
      withTimeout(
        ngrok.forward({
          addr: `${options.localHost ?? '127.0.0.1'}:${options.localPort}`,
          authtoken_from_env: true,
          ...(options.domain ? {domain: options.domain} : {}),
          onStatusChange: (status: string) => {
            if (status === 'closed') {
              lost = true
              log('warn', 'tunnel lost: the ngrok session closed; ngrok is reconnecting…')
            } else if (status === 'connected' && lost) {
              lost = false
              reconnects++
              log('info', 'tunnel reconnected (ngrok)')
            }
          },
        }),
        timeoutMs,
        () => new TunnelError(`ngrok did not open a tunnel within ${Math.round(timeoutMs / 1000)} s`, 'check the network and NGROK_AUTHTOKEN, or raise --tunnel-timeout'),
      )
        .catch((err: Error) => {
          if (err instanceof TunnelError) throw err
          throw new TunnelError(`ngrok could not open a tunnel: ${err.message}`, options.domain ? `check NGROK_AUTHTOKEN, the network, and that ${options.domain} is reserved on this ngrok account` : 'check NGROK_AUTHTOKEN and the network')
        })
        .then((listener) => {
          const url = listener.url()
          if (!url) throw new TunnelError('ngrok opened a tunnel without a public URL')
          return {listener, url: url.replace(/\/+$/, '')}
        })
    let current = await forward()
    let closed = false
    let reconnecting: Promise<void> | undefined
    const tunnel: Tunnel = {
      provider: 'ngrok',
      get url() {
        return current.url
      },
      get reconnects() {
        return reconnects
      },
      // The health check found the tunnel dead: a new ngrok listener (same URL with --domain), retried with backoff.
      reconnect(reason: string) {
        reconnecting ??= (async () => {
          log('warn', `tunnel lost: ${reason}; reconnecting (ngrok)…`)
          await current.listener.close().catch(() => {})
          for (let delay = 1000; !closed; delay = Math.min(delay * 2, 15_000)) {
            try {
              const next = await forward()
              const was = current.url
              current = next
              reconnects++
              if (next.url !== was) options.onUrlChange?.(next.url)
              else log('info', `tunnel reconnected: ${next.url}`)
              return
            } catch (err) {
              log('warn', `tunnel reconnect failed: ${(err as Error).message}; next in ${delay / 1000} s`)
              await sleep(delay)
            }
          }
        })().finally(() => (reconnecting = undefined))
        return reconnecting
      },
      close: async () => {
        closed = true
        await current.listener.close().catch(() => {})
      },
    }
    return tunnel
  },
}
