/** `--tunnel none`: no tunnel; the listener is reachable only at its local address. */
import type {Tunnel, TunnelOptions, TunnelProvider} from './tunnel.js'

export const noneProvider: TunnelProvider = {
  name: 'none',
  async start(options: TunnelOptions): Promise<Tunnel> {
    const host = options.localHost ?? '127.0.0.1'
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${options.localPort}`
    return {provider: 'none', url, reconnects: 0, reconnect: async () => {}, close: async () => {}}
  },
}
