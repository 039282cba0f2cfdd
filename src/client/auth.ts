/**
 * Access tokens: OAuth 2.0 client credentials against POST /v1/oauth/token, cached per base URL, client id and
 * client secret (a hash of it) in the 0600 token cache, reused until 60 s before expiry. A rejected token is
 * replaced once, under a lock, so that processes refreshing at once ask for one token and never corrupt the cache.
 * Where the cache cannot be written, the token lives in this process only.
 */
import {REFRESH_MARGIN_MS, TokenCache, cacheKey, type CachedToken} from '../config/token-cache.js'
import {InputError} from '../base/errors.js'

interface Credentials {
  baseUrl: string
  clientId?: string
  clientSecret?: string
  /** SHA-256 of a client secret not loaded yet (kept in the OS keyring): enough for the token cache's key. */
  clientSecretSha256?: string
}

export interface TokenInfo extends CachedToken {
  /** True when it came from the cache, false when it was just issued. */
  cached: boolean
}

type FetchToken = () => Promise<{access_token: string; token_type: string; expires_in: number}>

export class TokenProvider {
  private current?: TokenInfo
  /** Every access token this process has held (the one in use, and any the service rejected): secrets to redact. */
  private readonly heldTokens = new Set<string>()

  /** Makes `token` the one in use. */
  private hold(token: TokenInfo): TokenInfo {
    this.heldTokens.add(token.access_token)
    this.current = token
    return token
  }

  constructor(
    private readonly creds: Credentials,
    private readonly cache: TokenCache | undefined,
    private readonly fetchToken: FetchToken,
    /** How long one token request may legitimately take, all retries included: how long others wait for our lock. */
    private readonly fetchBudgetMs = 60_000,
  ) {}

  private get key(): string {
    return cacheKey(this.creds.baseUrl, this.creds.clientId ?? '', this.creds.clientSecret, this.creds.clientSecretSha256)
  }

  assertCredentials(): void {
    const missing = []
    if (!this.creds.clientId) missing.push({flag: 'client id', rule: 'is not set (PAY_CLIENT_ID or a profile)'})
    if (!this.creds.clientSecret && !this.creds.clientSecretSha256) missing.push({flag: 'client secret', rule: 'is not set (PAY_CLIENT_SECRET or a profile)'})
    if (missing.length > 0) throw new InputError(missing, 'no credentials: run `pay login`, or set PAY_CLIENT_ID and PAY_CLIENT_SECRET')
  }

  /** A usable token: this process's, the cache's, or a fresh one. */
  async get(): Promise<TokenInfo> {
    const valid = this.held()
    if (valid) return valid
    const cached = this.cache?.get(this.key)
    if (cached) return this.hold({...cached, cached: true})
    return this.refresh()
  }

  /** The token in memory while it is still good (no await: a bulk run asks once per row), else undefined. */
  held(): TokenInfo | undefined {
    return this.current && this.current.expires_at - REFRESH_MARGIN_MS > Date.now() ? this.current : undefined
  }

  /** Replaces `rejected` (a token the service answered 401 to) with a fresh one. */
  async refresh(rejected?: string): Promise<TokenInfo> {
    this.assertCredentials()
    const issue = async (): Promise<TokenInfo> => {
      // Another process may have refreshed while we waited for the lock: use its token.
      const cached = this.cache?.get(this.key)
      if (cached && cached.access_token !== rejected) return {...cached, cached: true}
      return this.issue()
    }
    return this.hold(this.cache ? await this.cache.withLock(issue, this.fetchBudgetMs) : await issue())
  }

  /**
   * A token just issued by the service for these credentials, never one from the cache: the proof that the
   * credentials work now (`pay login`, `pay smoke`). It is then cached for later runs.
   */
  async fresh(): Promise<TokenInfo> {
    this.assertCredentials()
    return this.hold(await this.issue())
  }

  private async issue(): Promise<TokenInfo> {
    const res = await this.fetchToken()
    this.heldTokens.add(res.access_token)
    const token: CachedToken = {
      access_token: res.access_token,
      token_type: res.token_type,
      expires_at: Date.now() + res.expires_in * 1000,
    }
    this.cache?.set(this.key, token)
    return {...token, cached: false}
  }

  /** The access tokens this process has held, the one in use among them: values traces, errors and the journal hide. */
  known(): string[] {
    return [...this.heldTokens]
  }

  /** Forgets the cached token of these credentials. */
  forget(): void {
    this.current = undefined
    this.cache?.delete(this.key)
  }
}
