/**
 * The one bound on the shape of JSON that `pay` parses from outside: nesting depth (and, where asked, the number of
 * values), checked on the text before any parse or walk, so that no input can exhaust the stack or the heap of a
 * later JSON.stringify, render or recursive check. Used by the sandbox's request bodies, the webhook listener's
 * deliveries and flow files (docs/assumptions.md, "Limits on JSON").
 */

/** Nesting levels accepted by default: far above any body of the contract or any flow, far below the stack's limit. */
export const MAX_JSON_DEPTH = 32

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_BRACE = 0x7b
const OPEN_BRACKET = 0x5b
const CLOSE_BRACE = 0x7d
const CLOSE_BRACKET = 0x5d
const COMMA = 0x2c

interface JsonLimits {
  maxDepth?: number
  /** Array elements and object members at most (default: not counted). */
  maxValues?: number
}

/**
 * One pass over the text (no recursion): what is wrong with its shape ("nests deeper than 32 levels", "holds more
 * than N values"), or undefined. Brackets inside strings are not counted. Works on UTF-8 bytes or on a string
 * (YAML's flow collections nest with the same brackets).
 */
export function jsonShapeProblem(raw: Uint8Array | string, limits: JsonLimits = {}): string | undefined {
  const maxDepth = limits.maxDepth ?? MAX_JSON_DEPTH
  const maxValues = limits.maxValues ?? Number.POSITIVE_INFINITY
  const bytes = typeof raw === 'string'
  let depth = 0
  let values = 0
  let inString = false
  for (let i = 0; i < raw.length; i++) {
    const c = bytes ? (raw as string).charCodeAt(i) : (raw as Uint8Array)[i]
    if (inString) {
      if (c === BACKSLASH) i++
      else if (c === QUOTE) inString = false
      continue
    }
    if (c === QUOTE) inString = true
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > maxDepth) return `nests deeper than ${maxDepth} levels`
      values++
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--
    else if (c === COMMA) values++
    if (values > maxValues) return `holds more than ${maxValues} values`
  }
  return undefined
}

const OPENING = ['{', '[']

/** True when `text` holds at least `n` opening brackets ({ or [), inside strings or not: a cheap test before the scan. */
export function bracketsAtLeast(text: string, n: number): boolean {
  let count = 0
  for (const bracket of OPENING) {
    for (let i = text.indexOf(bracket); i !== -1; i = text.indexOf(bracket, i + 1)) if (++count >= n) return true
  }
  return false
}

/** jsonShapeProblem, run only when the text could be deeper than maxDepth (most texts hold few brackets). */
export function depthProblem(text: string, maxDepth = MAX_JSON_DEPTH): string | undefined {
  return bracketsAtLeast(text, maxDepth + 1) ? jsonShapeProblem(text, {maxDepth}) : undefined
}
