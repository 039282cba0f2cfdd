/**
 * Request bodies: size and shape limits checked before any parse or walk, so no body can exhaust the stack
 * or the heap. Limits (docs/sandbox.md, "Limits"):
 * - MAX_BODY_BYTES: a larger body is answered 413 before it is read to the end (server.ts);
 * - MAX_JSON_DEPTH nesting levels and MAX_JSON_VALUES values (array elements and object members):
 *   a body beyond either is answered 400 invalid_parameter (param "body") without being parsed.
 */
import {bracketsAtLeast, jsonShapeProblem, MAX_JSON_DEPTH} from '../output/json-shape.js'
import {invalidParameter} from './errors.js'

export const MAX_BODY_BYTES = 1024 * 1024
/** Values (array elements and object members) in one body, at most (docs/sandbox.md, Limits). */
const MAX_JSON_VALUES = 10_000

/** One pass over the bytes (no recursion): the nesting depth and the number of values, outside strings. */
function checkJsonShape(raw: Uint8Array): void {
  const problem = jsonShapeProblem(raw, {maxDepth: MAX_JSON_DEPTH, maxValues: MAX_JSON_VALUES})
  if (problem) throw invalidParameter('body', problem)
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
