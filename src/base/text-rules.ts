/**
 * Characters that make text unsafe to store and show again: C0 controls (tab and line breaks included), DEL and
 * C1; the invisible direction marks, overrides and isolates (U+200E/F, U+202A-E, U+2066-9) and line/paragraph
 * separators, which make text read otherwise than it is; U+FFFD, what invalid UTF-8 (in argv or a file) decodes
 * to; and lone surrogates (a JSON "\ud800"). Request fields the service stores refuse them (src/api/schemas.ts);
 * src/output/printable.ts escapes the same format characters, and all controls but tab and newline, on output.
 */
export const FORMAT_CHARACTERS = '\\u200E\\u200F\\u2028\\u2029\\u202A-\\u202E\\u2066-\\u2069'

export const UNSAFE_TEXT = new RegExp(`[\\u0000-\\u001F\\u007F-\\u009F${FORMAT_CHARACTERS}\\uFFFD]|[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]`)

export const UNSAFE_TEXT_RULE = 'must not contain control characters (tab, line breaks, ESC…), direction marks or overrides, or invalid UTF-8'

/**
 * "." and "..": URI-encoding leaves them as they are, and a URL reads them as steps in the path
 * (`/v1/mandates/../cancel` is `/v1/cancel`), so a value that is one cannot go into a path. Path parameters
 * (src/api/endpoints.ts: pathValueRule, fillPath) and merchant references (src/api/schemas.ts: `reference`, since
 * the verify and payout lookups put a reference in the path) ask this.
 */
export const isDotSegment = (value: string): boolean => value === '.' || value === '..'

export const DOT_SEGMENT_RULE = 'must not be "." or ".." (a URL reads it as a step in the path)'
