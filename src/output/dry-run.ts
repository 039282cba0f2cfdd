/** --dry-run: the request that would be sent, and a curl line that sends it. Nothing secret is printed. */
import type {PreparedRequest} from '../client/api-client.js'
import {redactBodyText, redactHeaders, redactUrl} from '../base/redact.js'
import type {Output} from './output.js'

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`
}

/** Where the token of the curl line comes from: the same profile, or the same PAY_* variables. */
interface TokenSource {
  profileName?: string
  /** True when the credentials came from a profile (not from flags or the environment). */
  fromProfile?: boolean
}

function tokenCommand(source: TokenSource = {}): string {
  return source.fromProfile && source.profileName ? `pay token --profile ${shellQuote(source.profileName)}` : 'pay token'
}

function curlLine(req: PreparedRequest, source: TokenSource = {}): string {
  const parts = ['curl', '-sS', '-X', req.method, shellQuote(redactUrl(req.url))]
  if (req.auth) parts.push('-H', `"Authorization: Bearer $(${tokenCommand(source)})"`)
  for (const [k, v] of Object.entries(redactHeaders(req.headers))) if (k !== 'user-agent') parts.push('-H', shellQuote(`${k}: ${v}`))
  if (req.body !== undefined) parts.push('--data-raw', shellQuote(redactBodyText(req.body)))
  return parts.join(' ')
}

export function renderDryRun(out: Output, req: PreparedRequest, source: TokenSource = {}): void {
  const headers = redactHeaders({...(req.auth ? {authorization: 'Bearer <token>'} : {}), ...req.headers})
  if (out.json) {
    out.data(JSON.stringify({dry_run: true, method: req.method, url: redactUrl(req.url), headers, body: req.body === undefined ? null : JSON.parse(redactBodyText(req.body))}))
    return
  }
  const lines = [`${req.method} ${redactUrl(req.url)}`]
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`)
  if (req.body !== undefined) lines.push('', redactBodyText(req.body))
  lines.push('', '# the same request with curl:', curlLine(req, source))
  out.data(lines.join('\n'))
  out.info(out.color('dim', 'dry run: nothing was sent', 'err'))
}
