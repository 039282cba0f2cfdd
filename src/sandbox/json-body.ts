/**
 * Request bodies: size and shape limits checked before any parse or walk, so no body can exhaust the stack
 * or the heap. Limits (docs/sandbox.md, "Limits"):
 * - MAX_BODY_BYTES: a larger body is answered 413 before it is read to the end (server.ts);
 * - MAX_JSON_DEPTH nesting levels and MAX_JSON_VALUES values (array elements and object members):
 *   a body beyond either is answered 400 invalid_parameter (param "body") without being parsed.
 */
import {invalidParameter} from './errors.js'

export const MAX_BODY_BYTES = 1024 * 1024
export const MAX_JSON_DEPTH = 32
export const MAX_JSON_VALUES = 10_000

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_BRACE = 0x7b
const OPEN_BRACKET = 0x5b
const CLOSE_BRACE = 0x7d
const CLOSE_BRACKET = 0x5d
const COMMA = 0x2c

/** One pass over the bytes (no recursion): the nesting depth and the number of values, outside strings. */
export function checkJsonShape(raw: Uint8Array): void {
  let depth = 0
  let values = 0
  let inString = false
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]
    if (inString) {
      if (c === BACKSLASH) i++
      else if (c === QUOTE) inString = false
      continue
    }
    if (c === QUOTE) inString = true
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > MAX_JSON_DEPTH) throw invalidParameter('body', `nests deeper than ${MAX_JSON_DEPTH} levels`)
      values++
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--
    else if (c === COMMA) values++
    if (values > MAX_JSON_VALUES) throw invalidParameter('body', `holds more than ${MAX_JSON_VALUES} values`)
  }
}

const OPENING = ['{', '[']

/** True when `text` holds at least `n` opening brackets ({ or [), inside strings or not. */
function bracketsAtLeast(text: string, n: number): boolean {
  let count = 0
  for (const bracket of OPENING) {
    for (let i = text.indexOf(bracket); i !== -1; i = text.indexOf(bracket, i + 1)) if (++count >= n) return true
  }
  return false
}

/**
 * The parsed JSON body, or 400 invalid_parameter (too deep, too wide, or not JSON). Empty -> undefined.
 * The byte scan runs only when it could fail: a body with at most MAX_JSON_DEPTH opening brackets cannot nest
 * deeper, and one of at most MAX_JSON_VALUES bytes cannot hold more values (each value costs a byte).
 */
export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0) return undefined
  const text = raw.toString('utf8')
  if (raw.length > MAX_JSON_VALUES || bracketsAtLeast(text, MAX_JSON_DEPTH + 1)) checkJsonShape(raw)
  try {
    return JSON.parse(text)
  } catch {
    throw invalidParameter('body', 'is not valid JSON')
  }
}

/** decodeURIComponent that answers 400 invalid_parameter instead of throwing URIError on bad percent-encoding. */
export function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    throw invalidParameter('path', 'holds malformed percent-encoding')
  }
}
