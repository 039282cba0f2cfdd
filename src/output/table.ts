/**
 * Tables: boxed (cli-table3) on a terminal, tab-separated text when piped (easy to cut/awk; one record per line).
 * Values are already strings; state words are coloured by the caller.
 */
import Table from 'cli-table3'

/** No rule between rows: one line per row reads faster. */
const COMPACT = {mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': ''}

/** Piped output is one record per line: a backslash, tab or line break inside a value is written escaped. */
function tsv(value: string): string {
  return value.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'))
}

/**
 * A cell of a CSV or TSV file made safe to open in a spreadsheet (OWASP "CSV injection"): one that begins with
 * `=`, `+`, `-`, `@`, a tab or a carriage return is prefixed with `'`, so it shows as text and never runs as a
 * formula. Every CSV and TSV writer of pay (`-o csv`, `-o tsv`, `--results FILE.csv`) applies it unless
 * --raw-csv is given (docs/assumptions.md, "CSV and TSV cells"). A cell that already begins with `'`s before such a
 * character gets one more, so that unneutralized gives back every cell exactly (a reference may itself start with `'`).
 */
export function neutralized(cell: string): string {
  return NEUTRALIZE.test(cell) ? `'${cell}` : cell
}

/**
 * A cell of a CSV pay wrote (a --results file read back) as it was before neutralized: one `'` taken off a cell that
 * begins with `'`s before `=`, `+`, `-`, `@`, a tab or a carriage return, which only neutralized writes; any other
 * cell as it is.
 */
export function unneutralized(cell: string): string {
  return NEUTRALIZED.test(cell) ? cell.slice(1) : cell
}

/** What a formula begins with (OWASP), after any number of `'` (neutralized) or at least one (unneutralized). */
const FORMULA = '[=+\\-@\\t\\r]'
const NEUTRALIZE = new RegExp(`^'*${FORMULA}`)
const NEUTRALIZED = new RegExp(`^'+${FORMULA}`)

/** One tab-separated line (piped output). */
export function tsvRow(cells: string[]): string {
  return cells.map(tsv).join('\t')
}

export function keyValueTable(rows: [string, string][], tty: boolean): string {
  if (!tty) return rows.map(tsvRow).join('\n')
  const table = new Table({style: {head: [], border: []}, wordWrap: true, chars: COMPACT})
  for (const [k, v] of rows) table.push({[k]: v})
  return table.toString()
}

/** Characters a cell shows (colour codes take none). */
function shownLength(text: string): number {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, '').length
}

/** The narrowest a column is cut to: two characters and the ellipsis. */
const MIN_CUT = 3

/** The widths with the columns `cut` capped at the widest cap that fits `available` (never below MIN_CUT). */
function capped(natural: number[], available: number, cut: (i: number) => boolean): number[] {
  const widths = (cap: number) => natural.map((w, i) => (cut(i) ? Math.min(w, Math.max(cap, Math.min(w, MIN_CUT))) : w))
  const total = (cap: number) => widths(cap).reduce((a, b) => a + b, 0)
  let low = 0
  let high = Math.max(...natural)
  while (low < high) {
    const mid = Math.ceil((low + high) / 2)
    if (total(mid) <= available) low = mid
    else high = mid - 1
  }
  return widths(low)
}

/**
 * Column widths that fit `available` characters: the widest columns are cut first, all to one cap, so that narrow
 * ones (states, amounts) stay whole; the columns marked `keep` (ids) only when cutting every other one to MIN_CUT
 * is not enough. A column is never cut below MIN_CUT (nor below its own width).
 */
export function fitWidths(natural: number[], available: number, keep: boolean[] = []): number[] {
  if (natural.reduce((a, b) => a + b, 0) <= available) return natural
  const others = capped(natural, available, (i) => !keep[i])
  return others.reduce((a, b) => a + b, 0) <= available ? others : capped(natural, available, () => true)
}

/** The columns a cut table keeps whole as long as it can: ids (`id`, `mandate_id`, …), what people copy. */
export function keptWhole(columns: string[]): boolean[] {
  return columns.map((c) => /(^|_)id$/i.test(c))
}

/** A cell cut to `width` characters with an ellipsis (plain text). */
export function cut(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`
}

/**
 * A list: tab-separated lines when piped (every value whole), else a table. With `width` (a terminal's columns,
 * unless -o wide) the table fits it: the widest columns are cut, with an ellipsis.
 */
export function listTable(columns: string[], rows: string[][], tty: boolean, header = true, width?: number): string {
  if (!tty) return [...(header ? [columns] : []), ...rows].map(tsvRow).join('\n')
  const options: ConstructorParameters<typeof Table>[0] = {head: header ? columns : [], style: {head: [], border: []}, chars: COMPACT}
  if (width !== undefined) {
    // each column: its text, a space either side and one border; and the last border
    const natural = columns.map((c, i) => Math.max(header ? c.length : 0, ...rows.map((r) => Math.max(...(r[i] ?? '').split('\n').map(shownLength)))))
    const fitted = fitWidths(natural, width - 1 - columns.length * 3, keptWhole(columns))
    if (fitted.some((w, i) => w < natural[i])) options.colWidths = fitted.map((w) => w + 2)
  }
  const table = new Table(options)
  for (const r of rows) table.push(r)
  return table.toString()
}
