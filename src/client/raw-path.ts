/**
 * The guards on a `pay api` path, the one request whose path a user writes: the PATH rules on the path as given
 * (checkRawPath), and the last guard on the URL as built (checkSentUrl), so that the bearer token never leaves the
 * base URL's origin and, unless --allow-any-path, /v1/ under its path. src/client/api-client.ts's prepareRaw calls
 * both; the last guard is checked on its own too (test/client/raw-path.test.ts), as no PATH the rules let through
 * reaches it.
 */
import {InputError} from '../base/errors.js'

// eslint-disable-next-line no-control-regex
const ASCII_CONTROL = /[\x00-\x1f\x7f]/

/** Where `pay api` paths must stay, under the base URL, unless --allow-any-path. */
const API_ROOT = '/v1/'

/** `pay api`'s PATH rules (docs/assumptions.md: "pay api paths"); `pathname` is the path up to its `?` or `#`. */
export function checkRawPath(given: string, pathname: string, allowAnyPath: boolean): void {
  // the URL parser drops tabs and line breaks anywhere and control characters or spaces at the end of what it
  // parses (the pathname: the query is set apart), so `/v1/.\t./x` or `/v1/.. ?a=1` would pass the checks below
  // and be sent as /x or /: such a path is never what was meant
  if (ASCII_CONTROL.test(given) || /^\s/.test(given) || /\s$/.test(pathname)) {
    throw InputError.one('PATH', 'must not contain control characters (tab, line breaks, …) or begin or end with a space: %-encode them')
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(given) || given.startsWith('//') || given.includes('\\')) {
    throw InputError.one('PATH', 'must be a path on the base URL such as /v1/balance, not a URL: the token is never sent to another host')
  }
  if (allowAnyPath) return
  let decoded = pathname
  try {
    decoded = decodeURIComponent(pathname)
  } catch {
    throw InputError.one('PATH', 'has a malformed %-escape')
  }
  // a segment's `;params` stripped first: servers that read them resolve `..;` as `..`
  if (decoded.split('/').some((segment) => ['.', '..'].includes(segment.split(';')[0]))) {
    throw InputError.one('PATH', 'must not contain . or .. segments, with or without ;params (--allow-any-path to send it anyway)')
  }
  if (!pathname.startsWith(API_ROOT)) throw InputError.one('PATH', `must start with ${API_ROOT} (--allow-any-path to send another path with the token)`)
}

/**
 * The last guard on the URL `pay api` built: it stays on the base URL's origin and, whatever the URL parser made of
 * the path, unless `allowAnyPath` under the base URL's path + /v1/ (a base URL may have a path prefix).
 */
export function checkSentUrl(base: URL, sent: URL, allowAnyPath: boolean): void {
  if (sent.origin !== base.origin) throw InputError.one('PATH', `must stay on the base URL's origin ${base.origin}`)
  const prefix = `${base.pathname.replace(/\/+$/, '')}${API_ROOT}`
  if (!allowAnyPath && !sent.pathname.startsWith(prefix)) {
    throw InputError.one('PATH', `must stay under ${API_ROOT} once parsed (it would be sent as ${sent.pathname}; --allow-any-path to send it anyway)`)
  }
}
