/**
 * Tables: boxed (cli-table3) on a terminal, tab-separated text when piped (easy to cut/awk).
 * Values are already strings; state words are coloured by the caller.
 */
import Table from 'cli-table3'

/** No rule between rows: one line per row reads faster. */
const COMPACT = {mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': ''}

export function keyValueTable(rows: [string, string][], tty: boolean): string {
  if (!tty) return rows.map(([k, v]) => `${k}\t${v}`).join('\n')
  const table = new Table({style: {head: [], border: []}, wordWrap: true, chars: COMPACT})
  for (const [k, v] of rows) table.push({[k]: v})
  return table.toString()
}

export function listTable(columns: string[], rows: string[][], tty: boolean): string {
  if (!tty) return [columns.join('\t'), ...rows.map((r) => r.join('\t'))].join('\n')
  const table = new Table({head: columns, style: {head: [], border: []}, chars: COMPACT})
  for (const r of rows) table.push(r)
  return table.toString()
}
