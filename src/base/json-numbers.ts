/**
 * JSON numbers that a JS number would change. JSON.parse reads every number as a double: an integer beyond 2^53
 * rounds (12345678901234567890 reads 12345678901234567000) and a spelling is lost (1.50 reads 1.5). The one scanner
 * of number tokens outside strings (numbersIn) serves the three readers that must not lose them: an answer's big
 * integers kept as strings of their digits (bigIntegersAsStrings, for parseJson), a request body sent with its
 * numbers as written (parseMarked / stringifyMarked, `pay api --data`), and the journal's "same JSON body" match,
 * which must not take two different numbers for one (markLossy).
 */

/** A JSON number at a position (sticky); groups 1 and 2: a fraction, an exponent. */
const JSON_NUMBER = /-?\d+(\.\d+)?([eE][+-]?\d+)?/y

/**
 * The text with each number token outside strings replaced by `replace(token, fraction, exponent)` (undefined: kept).
 * Strings are copied as they are, escapes included.
 */
function numbersIn(text: string, replace: (token: string, fraction: string | undefined, exponent: string | undefined) => string | undefined): string {
  let out = ''
  let from = 0
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++
      continue
    }
    if (c !== '-' && (c < '0' || c > '9')) continue
    JSON_NUMBER.lastIndex = i
    const [token, fraction, exponent] = JSON_NUMBER.exec(text) ?? ['']
    const replaced = token === '' ? undefined : replace(token, fraction, exponent)
    if (replaced !== undefined) {
      out += text.slice(from, i) + replaced
      from = i + token.length
    }
    i += Math.max(0, token.length - 1)
  }
  return out + text.slice(from)
}

/** Text that may hold an integer beyond Number.MAX_SAFE_INTEGER (16 digits) in a row: only then is it scanned. */
const MAYBE_BIG_INTEGER = /\d{16}/

/**
 * JSON text with each integer beyond 2^53 made a string of its digits as sent: an id (the interface's `merchant.id`,
 * an integer) must be shown as the service wrote it. A number with a fraction or an exponent stays a number.
 */
export function bigIntegersAsStrings(text: string): string {
  if (!MAYBE_BIG_INTEGER.test(text)) return text
  return numbersIn(text, (token, fraction, exponent) => (fraction === undefined && exponent === undefined && !Number.isSafeInteger(Number(token)) ? `"${token}"` : undefined))
}

/** Whether JSON.stringify of the token's double writes the token again (`12`, `1.5`; not `1.50`, `1e2`, 2^64). */
const survives = (token: string) => JSON.stringify(Number(token)) === token

/** Per process: a user's string cannot hold it by chance. */
const MARK = `\u0001pay-number-${Math.random().toString(36).slice(2)}:`
const MARKED = new RegExp(`"${JSON.stringify(MARK).slice(1, -1).replace(/\\/g, '\\\\')}(-?[0-9.eE+-]+)"`, 'g')

/**
 * JSON text parsed with each number a JS number would change (survives) as a marked string, for stringifyMarked to
 * write back as written; undefined when every number survives (JSON.parse's value is then the one to send).
 * Throws as JSON.parse does.
 */
export function parseMarked(text: string): unknown {
  let marked = false
  const out = numbersIn(text, (token) => {
    if (survives(token)) return undefined
    marked = true
    return JSON.stringify(MARK + token)
  })
  return marked ? JSON.parse(out) : undefined
}

/** JSON.stringify of a value parseMarked (or a merge of its values) made, each marked number written as it was given. */
export function stringifyMarked(value: unknown): string {
  return (JSON.stringify(value) ?? 'null').replace(MARKED, '$1')
}

/** Significant digits a double tells apart whatever they are (15): beyond them two numbers may read as one. */
const DISTINCT_DIGITS = 15

/**
 * JSON text with each number a double cannot tell apart from a neighbour (an integer beyond 2^53, more than 15
 * significant digits) made a string of its own spelling under a fixed tag: for a comparison of bodies (the
 * journal's canonical match) that JSON.parse would blur (12345678901234567890 and …891 read as one double).
 * Numbers a double keeps (`1.50` and `1.5`, one value) are left to JSON.parse, so they still compare equal.
 */
export function markLossy(text: string): string {
  return numbersIn(text, (token) => {
    const digits = token.replace(/[eE].*$/, '').replace(/[-.]/g, '').replace(/^0+/, '').replace(/0+$/, '')
    return digits.length > DISTINCT_DIGITS ? JSON.stringify(`\u0001pay-number:${token}`) : undefined
  })
}
