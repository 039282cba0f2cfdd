/** A profile as it may be printed: secrets replaced by whether they are set. */
import type {Profile} from './profile-schema.js'
import {SECRET_FIELDS} from './profile-schema.js'
import {redactUrl} from '../client/redact.js'

export function redactProfile(profile: Profile): Record<string, string | boolean | null> {
  const view: Record<string, string | boolean | null> = {}
  for (const key of ['base_url', 'client_id', 'client_secret', 'account_ref', 'webhook_secret'] as const) {
    const value = profile[key]
    view[key] = (SECRET_FIELDS as readonly string[]).includes(key) ? (value ? '[REDACTED] (set)' : null) : key === 'base_url' && value ? redactUrl(value) : (value ?? null)
  }
  if (profile.webhook_signature) view.webhook_signature = profile.webhook_signature
  view.live = profile.live === true
  if (profile.mcp_allow_money === true) view.mcp_allow_money = true
  return view
}
