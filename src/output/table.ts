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
 * --raw-csv is given (docs/assumptions.md, "CSV and TSV cells").
 */
export function neutralized(cell: string): string {
  return FORMULA_START.test(cell) ? `'${cell}` : cell
}
const FORMULA_START = /^[=+\-@\t\r]/

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

export function listTable(columns: string[], rows: string[][], tty: boolean, header = true): string {
  if (!tty) return [...(header ? [columns] : []), ...rows].map(tsvRow).join('\n')
  const table = new Table({head: header ? columns : [], style: {head: [], border: []}, chars: COMPACT})
  for (const r of rows) table.push(r)
  return table.toString()
}
