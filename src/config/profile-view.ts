/** A profile as it may be printed: secrets replaced by whether they are set. */
import type {Profile} from './profile-schema.js'
import {redactUrl} from '../base/redact.js'

/** A secret as it may be shown: never its value, only whether it is set and where it lives. */
export function secretView(where: 'keyring' | 'file' | 'env' | 'flag' | undefined): string | null {
  if (where === undefined) return null
  return where === 'keyring' ? '[REDACTED] (in the OS keyring)' : '[REDACTED] (set)'
}

export function redactProfile(profile: Profile): Record<string, string | boolean | null> {
  const view: Record<string, string | boolean | null> = {}
  for (const key of ['base_url', 'client_id', 'client_secret', 'account_ref', 'webhook_secret'] as const) {
    const value = profile[key]
    if (key === 'client_secret' || key === 'webhook_secret') view[key] = secretView(profile.keyring?.fields.includes(key) ? 'keyring' : value ? 'file' : undefined)
    else view[key] = key === 'base_url' && value ? redactUrl(value) : (value ?? null)
  }
  if (profile.webhook_signature) view.webhook_signature = profile.webhook_signature
  view.live = profile.live === true
  if (profile.mcp_allow_money === true) view.mcp_allow_money = true
  return view
}
