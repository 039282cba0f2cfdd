/**
 * The one redactor: scrubs secrets from anything that may be printed or stored: headers, URLs (userinfo and
 * query strings), JSON values, raw bodies (parsed or not), free text. Used by --debug traces, --dry-run output,
 * error messages and the sandbox request log (--log, GET /_sandbox/requests). Names are matched case-insensitively.
 * Walks are iterative (no recursion), so a hostile, deeply nested value cannot overflow the stack.
 */
import {parseMarked, stringifyMarked} from './json-numbers.js'

export const REDACTED = '[REDACTED]'

/** Headers whose whole value is a secret. `authorization`-style headers keep their scheme ("Bearer [REDACTED]"). */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'api-key', 'x-auth-token', 'x-webhook-secret'])
const SCHEME_HEADERS = new Set(['authorization', 'proxy-authorization'])

/** The words a secret's name ends with (matched case-insensitively, `-` and `_` alike). */
const SECRET_WORDS = ['secret', 'password', 'passwd', 'pwd', 'token', 'api_key', 'api-key', 'apikey', 'authorization', 'cookie', 'card_number', 'card-number', 'cardnumber', 'pan', 'cvv', 'cvc', 'pin']
/** Field, query-parameter and header names that hold secrets: a secret word, alone or after `_` or `-`. */
const SECRET_NAME = new RegExp(`^(?:.*[_-])?(?:${SECRET_WORDS.join('|')})$`, 'i')
/**
 * camelCase and PascalCase names are split into words first, so `clientSecret` matches as `client_secret` does. A
 * name that ends with no secret word is not one: answered without the regex, whose first use (compiling it without
 * case) costs a command more than everything else here.
 */
export const isSecretName = (name: string): boolean => endsWithSecretWord(name) && SECRET_NAME.test(name.length > 256 ? name : name.replace(/([a-z0-9])([A-Z])/g, '$1_$2'))
const endsWithSecretWord = (name: string): boolean => {
  const lower = name.toLowerCase()
  return SECRET_WORDS.some((word) => lower.endsWith(word))
}

/** Headers with the secret-named ones replaced (redactHeader), and every known secret value in the others (redactValues). */
export function redactHeaders(headers: Record<string, string | string[] | number | undefined>, knownSecrets: (string | undefined)[] = []): Record<string, string> {
  const out: Record<string, string> = {}
  for (const name of Object.keys(headers)) {
    const value = headers[name]
    if (value === undefined) continue
    out[name] = shownHeaderValue(name, Array.isArray(value) ? value.join(', ') : String(value), knownSecrets)
  }
  return out
}

/** A header's value as shown: secret-named ones replaced (redactHeader), known secret values in the rest (redactValues). */
function shownHeaderValue(name: string, value: string, knownSecrets: (string | undefined)[]): string {
  return redactValues(redactHeader(name, value), knownSecrets)
}

/** redactHeaders of an answer's headers, or the same object when that hides nothing (the usual answer: no copy a request). */
function headersShown(headers: Record<string, string>, knownSecrets: (string | undefined)[]): Record<string, string> {
  for (const name in headers) {
    const value = headers[name]
    if (typeof value !== 'string' || shownHeaderValue(name, value, knownSecrets) !== value) return redactHeaders(headers, knownSecrets)
  }
  return headers
}

/** Whether a header's value is a secret (by its name). */
export function isSecretHeader(name: string): boolean {
  let secret = SECRET_HEADER_NAMES.get(name)
  if (secret === undefined) {
    const lower = name.toLowerCase()
    secret = SECRET_HEADERS.has(lower) || isSecretName(lower)
    if (SECRET_HEADER_NAMES.size >= 256) SECRET_HEADER_NAMES.clear()
    SECRET_HEADER_NAMES.set(name, secret)
  }
  return secret
}

/** isSecretHeader's answers by name: every answer of a bulk run has the same few headers (a regex each, 10,000 times). */
const SECRET_HEADER_NAMES = new Map<string, boolean>()

/** One header's value, redacted when the header holds a secret. */
export function redactHeader(name: string, text: string): string {
  if (!isSecretHeader(name)) return text
  const scheme = SCHEME_HEADERS.has(name.toLowerCase()) ? /^([A-Za-z][\w-]*)\s+\S/.exec(text) : null
  return scheme ? `${scheme[1]} ${REDACTED}` : REDACTED
}

/** A query object with the values of secret-named parameters replaced. */
export function redactQuery(query: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(query)) out[k] = isSecretName(k) ? REDACTED : v
  return out
}

/** A URL (absolute, or a path with a query) with userinfo and secret-named query values replaced. */
export function redactUrl(url: string): string {
  // userinfo runs to the LAST @ of the authority, as URL parsers read it (a password may hold an @); none without an @
  let out = url.includes('@') ? url.replace(/^([a-z][a-z0-9+.-]{0,31}:\/\/)[^/?#\\]{0,512}@/i, `$1${REDACTED}@`) : url
  const q = out.indexOf('?')
  if (q !== -1) out = out.slice(0, q + 1) + redactPairs(out.slice(q + 1))
  return out
}

/** `a=1&client_secret=x` -> `a=1&client_secret=[REDACTED]` (names decoded leniently to be matched). */
function redactPairs(text: string): string {
  return text.replace(PAIR, (all, lead: string, name: string) => (isSecretName(safeDecode(name)) ? `${lead}${name}=${REDACTED}` : all))
}

/**
 * `name=value` where the name starts the text or follows `&`, `?`, `;` or white space. Names and values are
 * bounded in length, so no input makes these patterns backtrack more than linearly.
 */
const PAIR = /(^|[&?;\s])([^&=?#;\s"{},:[\]]{1,128})=([^&#;\s"]{0,4096})/g

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '))
  } catch {
    return s
  }
}

/** A URL inside a string value (`{"url":"http://u:pw@host/?token=x"}`): its scheme to the next white space or quote. */
const URL_IN_TEXT = /(?<![a-z0-9+.-])[a-z][a-z0-9+.-]{0,31}:\/\/[^\s"'<>]+/gi

/** A string value of a JSON body with each URL in it redacted (redactUrl: userinfo, secret-named query values). */
function redactUrlsIn(text: string): string {
  return text.includes('://') ? text.replace(URL_IN_TEXT, (url) => redactUrl(url)) : text
}

/**
 * Deep copy of a JSON value with the values of secret-named keys replaced, and the URLs inside string values
 * redacted as redactUrl does (iterative).
 */
export function redactJson(value: unknown): unknown {
  return copyJson(value, redactUrlsIn, isSecretName)
}

/**
 * Deep copy of a JSON value with `text` applied to every string (keys too, when `secretKey` is not given) and the
 * values of the keys `secretKey` names replaced. Iterative: a hostile, deeply nested value cannot overflow the stack.
 */
function copyJson(value: unknown, text: (s: string) => string, secretKey?: (key: string) => boolean): unknown {
  if (typeof value === 'string') return text(value)
  if (value === null || typeof value !== 'object') return value
  const root: unknown[] = [undefined]
  const stack: [source: unknown, target: Record<string, unknown> | unknown[], key: string | number][] = [[value, root, 0]]
  while (stack.length > 0) {
    const [src, target, key] = stack.pop()!
    if (src === null || typeof src !== 'object') {
      ;(target as Record<string, unknown>)[key] = typeof src === 'string' ? text(src) : src
      continue
    }
    if (Array.isArray(src)) {
      const copy: unknown[] = new Array(src.length)
      ;(target as Record<string, unknown>)[key] = copy
      for (let i = 0; i < src.length; i++) stack.push([src[i], copy, i])
      continue
    }
    const copy: Record<string, unknown> = {}
    ;(target as Record<string, unknown>)[key] = copy
    for (const [name, v] of Object.entries(src)) {
      const k = secretKey ? name : text(name)
      // every key is set now, in order (the stack fills the values later, last first)
      if (secretKey?.(k) && v !== null && v !== undefined) copy[k] = REDACTED
      else {
        copy[k] = undefined
        stack.push([v, copy, k])
      }
    }
  }
  return root[0]
}

/**
 * Redacts by pattern, for text that is not valid JSON (malformed, truncated, form-encoded, free text):
 * `"secret_name": "value"` pairs, `secret_name=value` pairs, `Bearer <token>` and URL userinfo.
 */
function redactText(text: string): string {
  // `Bearer <token>` first: a pair's value ends at white space, so `token=Bearer <token>` would otherwise lose only the word
  return text
    .replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{4,}/gi, `$1 ${REDACTED}`)
    .replace(/("([^"\\]{1,128})"\s*:\s*)("(?:[^"\\]|\\.)*"?|[^,}\]\s]+)/g, (all, head: string, name: string) => (isSecretName(name) ? `${head}"${REDACTED}"` : all))
    .replace(PAIR, (all, lead: string, name: string) => (isSecretName(safeDecode(name)) ? `${lead}${name}=${REDACTED}` : all))
    .replace(/(?<![a-z0-9+.-])([a-z][a-z0-9+.-]{0,31}:\/\/)[^/?#@\s]{0,512}@/gi, `$1${REDACTED}@`)
}

/** Redacts a raw body: as JSON when it parses (its numbers as written: parseMarked), else by pattern; then every known secret value. */
export function redactBodyText(text: string, knownSecrets: (string | undefined)[] = []): string {
  let out: string
  try {
    out = stringifyMarked(redactJson(parseMarked(text) ?? JSON.parse(text)))
  } catch {
    out = redactText(text)
  }
  return redactValues(out, knownSecrets)
}

/** What JSON, percent-encoding (both kinds) and XML escaping all leave as it is. */
const UNCHANGED_BY_ENCODING = /^[\w.-]*$/

/**
 * The forms a secret value takes in what pay prints, writes or sends: as it is; inside a JSON string (escaped; with
 * every non-ASCII character as `\uXXXX`, as some servers write it; escaped twice, a JSON text inside a JSON string); percent-encoded (a path segment, and a
 * query or form value with `+` for a space, as URLSearchParams writes it; in capitals and small letters); and
 * XML/HTML-escaped (a JUnit file, an HTML page). Longest first, so that no form leaves part of a longer one behind.
 */
function secretForms(value: string): string[] {
  if (UNCHANGED_BY_ENCODING.test(value)) return [value] // letters, digits, `_`, `.`, `-`: every form is the value itself
  const json = JSON.stringify(value).slice(1, -1)
  const percent = encodeURIComponent(value)
  const form = new URLSearchParams([['', value]]).toString().slice(1)
  const xml = value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
  const forms = new Set([
    value,
    json,
    JSON.stringify(json).slice(1, -1),
    json.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
    percent,
    percent.replace(/%20/g, '+'),
    form,
    ...[percent, form].map((p) => p.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase())),
    xml.replace(/'/g, '&apos;'),
    xml.replace(/'/g, '&#39;'),
    xml.replace(/'/g, '&#x27;'),
  ])
  return [...forms].sort((a, b) => b.length - a.length)
}

/**
 * Replaces every occurrence of each known secret value (at least 4 characters) in free text, in each of the forms it
 * takes once encoded (secretForms): a value escaped in JSON, a URL or XML is the same secret.
 */
export function redactValues(text: string, knownSecrets: (string | undefined)[]): string {
  let out = text
  for (const s of knownSecrets) {
    // every form of a secret is at least as long as the secret: a shorter text (most header values) holds none
    if (!s || s.length < 4 || s.length > out.length) continue
    for (const form of formsOf(s)) if (out.includes(form)) out = out.split(form).join(REDACTED)
  }
  return out
}

/** secretForms of the last few secrets: every answer a client reads is redacted with the same ones. */
const FORMS = new Map<string, string[]>()
function formsOf(secret: string): string[] {
  let forms = FORMS.get(secret)
  if (!forms) {
    if (FORMS.size >= 64) FORMS.clear()
    FORMS.set(secret, (forms = secretForms(secret)))
  }
  return forms
}

/**
 * An answer of the service as pay prints it (`--json` verbatim, `-o yaml|csv`, `--jq`, tables, `pay api -i`): the
 * secret-named headers replaced, and every known secret value (redactValues) in the other headers, the text and, for
 * a JSON body, every string of its parsed value: a value the text spells with escapes (`\u0074ok…`) shows only once
 * parsed, and jq, yaml and tables print the parsed value. A body quoting no secret keeps its text byte for byte; one
 * that does is the redacted text where that parses to the redacted value, else that value as JSON.
 */
export function redactAnswer(answer: {text: string; body: unknown; headers: Record<string, string>}, knownSecrets: (string | undefined)[]): {text: string; body: unknown; headers: Record<string, string>} {
  const headers = headersShown(answer.headers, knownSecrets)
  const text = redactValues(answer.text, knownSecrets)
  if (answer.body === undefined) return {headers, text, body: undefined}
  // without an escape in the text, the parsed strings are pieces of it: then the text alone says whether one quotes a secret
  if (text === answer.text && !text.includes('\\')) return {headers, text, body: answer.body}
  let quoted = false
  const body = copyJson(answer.body, (s) => {
    const shown = redactValues(s, knownSecrets)
    if (shown !== s) quoted = true
    return shown
  })
  if (!quoted) {
    if (text === answer.text) return {headers, text, body: answer.body}
    // a secret outside every string (all digits, as a number): what is shown is the redacted text, as text
    return {headers, text, body: text}
  }
  const asText = JSON.stringify(body)
  return {headers, body, text: sameJson(text, asText) ? text : asText}
}

function sameJson(text: string, json: string): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === json
  } catch {
    return false
  }
}

/** The flags whose value is a request header (`pay api -H 'Name: value'`). */
const HEADER_FLAGS = new Set(['-H', '--header'])
const DATA_FLAGS = new Set(['--data'])
const FIELD_FLAGS = new Set(['-F', '--field'])

/**
 * A command line as pay prints or stores it (the resume command of an unknown outcome): the value of a secret-named
 * flag, of a secret-named header (`-H 'X-Api-Key: …'`, `--header=Cookie: …`, `-HCookie: …`), a password or
 * secret-named query value in `--base-url`, and every known secret value (redactValues) anywhere else replaced by
 * [REDACTED]. `left` names, once each, what was taken out (`-H X-Api-Key`, `--provider`), for a person to put back.
 */
export function redactArgv(argv: readonly string[], knownSecrets: readonly (string | undefined)[] = []): {args: string[]; left: string[]} {
  const args: string[] = []
  const left = new Set<string>()
  const known = (word: string, name: string) => {
    const out = redactValues(word, [...knownSecrets])
    if (out !== word) left.add(name)
    return out
  }
  const header = (text: string) => {
    const colon = text.indexOf(':')
    const name = colon === -1 ? '' : text.slice(0, colon).trim()
    if (name && isSecretHeader(name)) {
      left.add(`-H ${name}`)
      return `${text.slice(0, colon)}: ${REDACTED}`
    }
    return known(text, name ? `-H ${name}` : '-H')
  }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const eq = a.indexOf('=')
    const flag = a.startsWith('--') && eq > 0 ? a.slice(0, eq) : a
    const inline = a.startsWith('--') && eq > 0 ? a.slice(eq + 1) : undefined
    const next = inline === undefined && a.startsWith('-') && i + 1 < argv.length ? argv[i + 1] : undefined
    let value: ((v: string) => string) | undefined
    if (HEADER_FLAGS.has(flag)) value = header
    // a JSON body given inline: its secret-named fields, as a log shows the body (redactBodyText; @file and - stay)
    else if (DATA_FLAGS.has(flag)) value = (v) => {
      const parsed = /^\s*[[{]/.test(v) ? jsonOrUndefined(v) : undefined
      const redacted = parsed === undefined ? undefined : stringifyMarked(redactJson(parsed))
      if (redacted === undefined || redacted === stringifyMarked(parsed)) return known(v, flag) // as typed when nothing is secret
      left.add(flag)
      return redactValues(redacted, [...knownSecrets])
    }
    // -F name=value (name:=json): a secret-named field's value
    else if (FIELD_FLAGS.has(flag)) value = (v) => {
      const m = /^([^=:]+)(:?=)/.exec(v)
      const last = m?.[1].split('.').pop() ?? ''
      if (m && isSecretName(last)) {
        left.add(`${flag} ${m[1]}`)
        return `${m[1]}${m[2]}${m[2] === ':=' ? JSON.stringify(REDACTED) : REDACTED}`
      }
      return known(v, flag)
    }
    else if (flag === '--base-url') value = (v) => {
      const shown = known(redactUrl(v), flag)
      if (shown !== v) left.add(flag)
      return shown
    }
    // a flag whose name says its value is a secret (`--client-secret`, `--secret`, `--token`): the one naming rule
    else if (flag.startsWith('--') && isSecretName(flag.slice(2))) {
      value = () => {
        left.add(flag)
        return REDACTED
      }
    }
    else if (/^-H./.test(a)) {
      args.push(`-H${header(a.slice(2))}`) // oclif's -Hvalue
      continue
    }
    if (value && inline !== undefined) args.push(`${flag}=${value(inline)}`)
    else if (value && next !== undefined) {
      args.push(a, value(next))
      i++
    } else args.push(known(a, a.startsWith('-') ? flag : (argv[i - 1]?.startsWith('-') ? argv[i - 1].split('=')[0] : 'an argument')))
  }
  return {args, left: [...left]}
}

/** A JSON text's value, its numbers as written (parseMarked); undefined when it is no JSON. */
function jsonOrUndefined(text: string): unknown {
  try {
    return parseMarked(text) ?? JSON.parse(text)
  } catch {
    return undefined
  }
}
