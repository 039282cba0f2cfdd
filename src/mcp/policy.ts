/**
 * The safety rules of `pay mcp`, decided once from the settings and its two flags: whether the service is live,
 * whether the money tools are listed (and why not), and the instructions that tell an agent so. src/mcp/server.ts
 * applies them at start and again on each money call.
 */
import * as rt from '../runtime.js'

/** What the server decided at start: which tools it lists and why. */
export interface McpPolicy {
  live: boolean
  moneyListed: boolean
  /** Why money tools are not listed, for the instructions and a refused call. */
  why?: string
}

/** A live service: a profile marked live, or any service not on this machine (docs/assumptions.md). */
function isLive(settings: rt.Settings): boolean {
  if (settings.live) return true
  if (!settings.baseUrl) return false
  try {
    return !rt.isLoopbackHost(new URL(settings.baseUrl).hostname)
  } catch {
    return true
  }
}

/** Which tools pay mcp lists: read-only unless money is allowed, and never money on a live service without --allow-live-money. */
export function policyOf(settings: rt.Settings, options: {allowMoney: boolean; allowLiveMoney: boolean}): McpPolicy {
  const live = isLive(settings)
  const allowMoney = options.allowMoney || settings.mcpAllowMoney === true
  if (!allowMoney) return {live, moneyListed: false, why: 'pay mcp was started read-only: start it with --allow-money (or set mcp_allow_money on the profile) to list the money tools'}
  if (live && !options.allowLiveMoney) return {live, moneyListed: false, why: `the service is live (${settings.sources.baseUrl === 'profile' && settings.live ? `profile "${settings.profileName}" is marked live` : 'not the local sandbox'}): money tools need --allow-live-money as well as --allow-money`}
  return {live, moneyListed: true}
}

/** The server's instructions text: what it is, and both safety rules. */
export function instructionsOf(policy: McpPolicy, settings: rt.Settings): string {
  return [
    `pay: the merchant account of the Payments Service (profile "${settings.profileName}"${settings.baseUrl ? `, ${rt.shownBaseUrl(settings)}` : ''}${policy.live ? ', LIVE' : ''}).`,
    'Safety rules:',
    '- Read-only by default. Tools that create or move money (collections, payouts, checkout, mandates, debits, subscriptions, virtual accounts) are listed only when `pay mcp` is started with --allow-money (or the profile sets mcp_allow_money).',
    '- Never for a live service (a profile marked live, or any service not on this machine) unless --allow-live-money is given as well.',
    policy.moneyListed ? `- Money tools are listed now${policy.live ? ' (LIVE: real money moves)' : ''}.` : `- Money tools are not listed now: ${policy.why}.`,
    '- Exactly once: a money tool called again with the same arguments sends nothing when the first call succeeded (the earlier answer is returned and says so), and reuses the same Idempotency-Key when the outcome was unknown. To repeat a payment on purpose, use a new merchant reference. dry_run: true shows the request and sends nothing.',
    '- An error whose outcome is unknown carries the idempotency key: call the same tool with the same arguments again, or look it up with transactions_verify.',
    '- Amounts are decimal strings ("1500.00"), never numbers.',
    'Every money call is journaled on this machine with origin mcp (the journal tool, or `pay journal`). Resources: the interface summary (pay://interface) and the assumptions pay makes where the interface is silent (pay://docs/assumptions.md).',
  ].join('\n')
}
