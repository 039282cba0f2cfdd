/**
 * Which tunnel `pay webhook listen` opens, and opening it. `--tunnel auto` (the default) picks:
 * - none when the profile is a local sandbox (it delivers on this machine; nothing needs to be public);
 * - ngrok when NGROK_AUTHTOKEN is set (with --domain, a reserved domain: the URL survives restarts);
 * - else localtunnel, with a warning: its public server is often down, and its URL changes when it reconnects.
 */
import {InputError} from '../../base/errors.js'
import {type Tunnel, type TunnelOptions, type TunnelProvider, type TunnelProviderName} from './tunnel.js'

export type TunnelChoice = 'auto' | TunnelProviderName

export interface ChosenTunnel {
  provider: TunnelProviderName
  /** Why (auto), for the start-up message. */
  reason?: string
  /** Said on stderr when the choice has a cost the user can avoid. */
  warning?: string
}

interface ChoiceContext {
  /** The profile's base URL is a local sandbox. */
  sandbox: boolean
  /** NGROK_AUTHTOKEN is set. */
  ngrokToken: boolean
  /** --domain was given. */
  domain?: string
}

const LOCALTUNNEL_ADVICE =
  'for a URL that holds, set NGROK_AUTHTOKEN (a free account at https://dashboard.ngrok.com) and reserve a domain for --domain; or pass --tunnel localtunnel to silence this warning'

export function chooseTunnel(requested: TunnelChoice, ctx: ChoiceContext): ChosenTunnel {
  if (ctx.domain !== undefined && requested !== 'ngrok' && !(requested === 'auto' && ctx.ngrokToken)) {
    throw InputError.one('--domain', 'needs ngrok: set NGROK_AUTHTOKEN (and --tunnel auto or ngrok)')
  }
  if (requested !== 'auto') return {provider: requested}
  if (ctx.sandbox) return {provider: 'none', reason: 'the profile is a local sandbox, which delivers on this machine'}
  if (ctx.ngrokToken) return {provider: 'ngrok', reason: ctx.domain ? `NGROK_AUTHTOKEN is set; reserved domain ${ctx.domain}` : 'NGROK_AUTHTOKEN is set'}
  return {
    provider: 'localtunnel',
    reason: 'NGROK_AUTHTOKEN is not set',
    warning: `using localtunnel: its public server is often down, and its URL changes whenever it reconnects (the portal's webhook URL must then be updated by hand). ${LOCALTUNNEL_ADVICE}`,
  }
}

async function loadProvider(name: TunnelProviderName): Promise<TunnelProvider> {
  switch (name) {
    case 'localtunnel':
      return (await import('./localtunnel.js')).localtunnelProvider
    case 'ngrok':
      return (await import('./ngrok.js')).ngrokProvider
    case 'none':
      return (await import('./none.js')).noneProvider
  }
}

export async function openTunnel(name: TunnelProviderName, options: TunnelOptions): Promise<Tunnel> {
  return (await loadProvider(name)).start(options)
}
