/**
 * OAuth 2.0 client credentials -> opaque 64-character bearer tokens (expires_in = --token-ttl, default 1200 s),
 * and bearer-token checks. Tokens expire on the sandbox clock.
 */
import type {Core} from './core.js'
import {ApiError} from './errors.js'
import {newAccessToken} from './ids.js'
import type {ClientRec, TokenRec} from './state.js'
import {entry} from './state.js'

export function issueToken(core: Core, body: {client_id: string; client_secret: string}): Record<string, unknown> {
  const client = entry(core.state.clients, body.client_id)
  if (!client || client.client_secret !== body.client_secret) {
    throw new ApiError(401, 'invalid_client', 'client authentication failed: unknown client_id or wrong client_secret', {doc: 'authentication'})
  }
  if (!client.enabled) throw new ApiError(403, 'forbidden', 'this API client is disabled in the portal', {doc: 'authentication'})
  const token = newAccessToken()
  const ttl = core.opts.tokenTtlSeconds
  core.state.tokens[token] = {client_id: client.client_id, merchant_id: client.merchant_id, expires_at: core.now() + ttl * 1000}
  pruneTokens(core)
  return {access_token: token, token_type: 'Bearer', expires_in: ttl}
}

let issued = 0
function pruneTokens(core: Core): void {
  if (++issued % 256 !== 0) return
  const now = core.now()
  for (const [t, rec] of Object.entries(core.state.tokens)) if (rec.expires_at <= now) delete core.state.tokens[t]
}

const invalidToken = (message: string) =>
  new ApiError(401, 'invalid_token', message, {doc: 'authentication', headers: {'www-authenticate': 'Bearer realm="sandbox"'}})

/** The API client of a bearer token, or 401. */
export function authenticate(core: Core, header: string | undefined): {token: TokenRec; client: ClientRec} {
  if (!header) throw invalidToken('missing Authorization: Bearer <ACCESS_TOKEN> header')
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header)
  if (!m) throw invalidToken('the Authorization header must be "Bearer <ACCESS_TOKEN>"')
  const token = entry(core.state.tokens, m[1])
  if (!token) throw invalidToken('invalid access token')
  if (token.expires_at <= core.now()) throw invalidToken('the access token has expired; request a new one')
  const client = entry(core.state.clients, token.client_id)
  if (!client || !client.enabled) throw invalidToken('the API client of this token is disabled')
  return {token, client}
}
