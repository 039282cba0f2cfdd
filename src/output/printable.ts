/**
 * Text from the service or from an unverified webhook may hold terminal control sequences (ESC, OSC, BEL…).
 * Everything from the network passes here before a terminal: tables, views, error messages, --debug traces.
 * Human output shows them escaped (`\u001b`) so that nobody can rewrite a terminal through a field value;
 * JSON on a terminal (`--json`, ndjson, --jq's output, `pay api`'s body) goes through printableJson: the same JSON value;
 * piped, JSON is never touched.
 */
import {FORMAT_CHARACTERS} from '../base/text-rules.js'

// C0 (but tab and newline), DEL, C1, and the invisible format characters of src/base/text-rules.ts
const CONTROL = new RegExp(`[\\u0000-\\u0008\\u000B-\\u001F\\u007F-\\u009F${FORMAT_CHARACTERS}]`, 'g')
/** The same class, to test: most text has nothing to escape, and a test costs a third of a replace. */
const ANY_CONTROL = new RegExp(CONTROL.source)

// and, for text shown inside one line of a log (one line per record), tab and newline too
const LINE_CONTROL = new RegExp(`[\\u0000-\\u001F\\u007F-\\u009F${FORMAT_CHARACTERS}]`, 'g')
const ANY_LINE_CONTROL = new RegExp(LINE_CONTROL.source)
const escaped = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`

export function printable(text: string): string {
  return ANY_CONTROL.test(text) ? text.replace(CONTROL, escaped) : text
}

/**
 * A text body for a terminal: printable(), with each CRLF line end written as a newline (the terminal breaks the
 * line either way; escaped, every line of a CRLF body ended in `\u000d`). A lone CR stays escaped: it would
 * return the cursor and let the next characters overwrite the line.
 */
function printableText(text: string): string {
  return printable(text.includes('\r\n') ? text.replaceAll('\r\n', '\n') : text)
}

/** printable(), and a line break or tab escaped as well: the text cannot start a line of its own. */
export function printableLine(text: string): string {
  return ANY_LINE_CONTROL.test(text) ? text.replace(LINE_CONTROL, escaped) : text
}

/**
 * JSON text for a terminal: the same JSON value, printable. What printable() escapes can stand raw in valid JSON
 * only inside a string (DEL, C1, direction marks), where its `\uXXXX` escape is valid; a raw carriage return
 * only as whitespace between tokens, so it is dropped. Tab and newline, JSON's own whitespace, stay.
 */
function printableJson(text: string): string {
  return printable(text.includes('\r') ? text.replaceAll('\r', '') : text)
}

/** Text and JSON as they are: what is written to stdout when it is piped. */
const asIs = (text: string) => text
const ON_TERMINAL = {text: printableText, json: printableJson}
const PIPED = {text: asIs, json: asIs}

/**
 * How text from the network is shown as data on stdout: on a terminal made printable (a text body keeps its line
 * breaks, CRLF shown as one, and tabs; JSON gets \uXXXX escapes, so it stays the same JSON; under structured output
 * the writer does that again, a no-op on this text); piped, written as it is, byte for byte.
 */
export function forStdout(stdoutIsTTY: boolean): {text: (text: string) => string; json: (text: string) => string} {
  return stdoutIsTTY ? ON_TERMINAL : PIPED
}

/** A deep copy of a JSON value with every string made printable. */
export function printableDeep<T>(value: T): T {
  if (typeof value === 'string') return printable(value) as T
  if (Array.isArray(value)) return value.map((v) => printableDeep(v)) as T
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [printable(k), printableDeep(v)])) as T
  return value
}
