/**
 * The output module every command renders through. stdout carries data only; people's messages, warnings,
 * progress and logs go to stderr. With --json, stdout is exactly the service's body (or the error envelope).
 */
import {paint, type ColorName} from './colors.js'
import {flatten, listColumns, listRows} from './format.js'
import {printableDeep} from './printable.js'
import {keyValueTable, listTable} from './table.js'
import type {Terminal} from './terminal.js'

export interface RenderOptions {
  /** Columns of a list, in order (dotted paths allowed). */
  columns?: string[]
  /** A title line printed to stderr above human output. */
  title?: string
}

export class Output {
  constructor(
    readonly term: Terminal,
    readonly json: boolean,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    private readonly stderr: NodeJS.WritableStream = process.stderr,
  ) {}

  /** Raw data to stdout, newline-terminated. */
  data(text: string): void {
    this.stdout.write(text.endsWith('\n') ? text : `${text}\n`)
  }

  /** A message for people, on stderr. */
  info(text: string): void {
    this.stderr.write(`${text}\n`)
  }

  warn(text: string): void {
    this.stderr.write(`${paint(this.term.colorErr, 'yellow', 'warning:')} ${text}\n`)
  }

  errorLine(text: string): void {
    this.stderr.write(`${paint(this.term.colorErr, 'red', 'error:')} ${text}\n`)
  }

  color(color: ColorName, text: string, stream: 'out' | 'err' = 'out'): string {
    return paint(stream === 'out' ? this.term.color : this.term.colorErr, color, text)
  }

  /**
   * Renders a response: under --json the exact body text; otherwise a key/value table for an object, or a
   * table of its `data` array for a list.
   */
  body(text: string, body: unknown, options: RenderOptions = {}): void {
    if (this.json) {
      this.data(text === '' ? 'null' : text)
      return
    }
    if (options.title) this.info(options.title)
    this.data(this.human(body, options))
  }

  human(raw: unknown, options: RenderOptions = {}): string {
    const body = printableDeep(raw)
    if (Array.isArray(body)) return this.table(body as Record<string, unknown>[], options.columns)
    if (body && typeof body === 'object') {
      const obj = body as Record<string, unknown>
      if (Array.isArray(obj.data) && (obj.object === 'list' || options.columns)) {
        const footer = typeof obj.total === 'number' ? `\n${obj.data.length} of ${obj.total}${obj.has_more ? ' (more: --all or --page)' : ''}` : ''
        return this.table(obj.data as Record<string, unknown>[], options.columns) + footer
      }
      return keyValueTable(flatten(obj, this.term.color), this.term.stdoutIsTTY)
    }
    return body === undefined ? '' : String(body)
  }

  list(raw: Record<string, unknown>[], columns?: string[]): string {
    return this.table(printableDeep(raw), columns)
  }

  /** A table of items already made printable. */
  private table(items: Record<string, unknown>[], columns?: string[]): string {
    if (items.length === 0) return this.term.stdoutIsTTY ? '(none)' : ''
    const cols = listColumns(items, columns)
    return listTable(cols, listRows(items, cols, this.term.color), this.term.stdoutIsTTY)
  }
}
