/**
 * Scrubs secrets from anything that may be printed: headers, JSON bodies, URLs, free text.
 * Used by --debug traces, --dry-run output, the sandbox request log and error messages.
 */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-webhook-secret'])
const SECRET_KEY = /^(client_secret|access_token|refresh_token|webhook_secret|secret|password|token)$/i
export const REDACTED = '[REDACTED]'

export function redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue
    const text = Array.isArray(value) ? value.join(', ') : value
    if (SECRET_HEADERS.has(name.toLowerCase())) {
      out[name] = name.toLowerCase() === 'authorization' && /^bearer /i.test(text) ? `Bearer ${REDACTED}` : REDACTED
    } else out[name] = text
  }
  return out
}

/** Deep copy of a JSON value with secret-named keys replaced. */
export function redactJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactJson)
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, SECRET_KEY.test(k) && v !== null && v !== undefined ? REDACTED : redactJson(v)]))
  }
  return value
}

/** Redacts a raw body: as JSON when it parses, otherwise form-style `key=value` pairs and known values. */
export function redactBodyText(text: string, knownSecrets: (string | undefined)[] = []): string {
  let out = text
  try {
    out = JSON.stringify(redactJson(JSON.parse(text)))
  } catch {
    out = out.replace(/((?:client_secret|access_token|webhook_secret)=)[^&\s]+/gi, `$1${REDACTED}`)
  }
  return redactValues(out, knownSecrets)
}

/** Replaces every occurrence of each known secret value (at least 4 characters) in free text. */
export function redactValues(text: string, knownSecrets: (string | undefined)[]): string {
  let out = text
  for (const s of knownSecrets) if (s && s.length >= 4) out = out.split(s).join(REDACTED)
  return out
}
