/**
 * The output module every command renders through. stdout carries data only; people's messages, warnings,
 * progress and logs go to stderr. With --json, stdout is exactly the service's body (or the error envelope); on a
 * terminal, the same JSON value made printable (src/output/structured.ts).
 */
import {paint, type ColorName} from './colors.js'
import {flatten, formatScalar, getPath, listColumns, listRows} from './format.js'
import type {Format, OutputOptions} from './options.js'
import {printable, printableDeep} from './printable.js'
import {loadLibraries, needsLibraries, StructuredWriter, writtenAsIs, type Libraries} from './structured.js'
import {keyValueTable, listTable} from './table.js'
import type {Terminal} from './terminal.js'

interface RenderOptions {
  /** Columns of a list, in order (dotted paths allowed). */
  columns?: string[]
  /** A title line printed to stderr above human output. */
  title?: string
}

export class Output {
  /** What the output flags asked for (src/output/options.ts). */
  options: OutputOptions
  private libs?: Libraries
  private writer?: StructuredWriter

  constructor(
    readonly term: Terminal,
    /** --json, or the whole set of output options. */
    mode: boolean | OutputOptions,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    private readonly stderr: NodeJS.WritableStream = process.stderr,
  ) {
    this.options = typeof mode === 'boolean' ? {format: mode ? 'json' : 'table'} : mode
  }

  /**
   * Structured output (json, ndjson, csv, tsv, yaml, or --jq): commands print JSON documents with data(), and
   * this Output turns them into the chosen format. False: tables and lines for people.
   */
  get json(): boolean {
    return this.options.format !== 'table'
  }

  /** data() writes its text as it is (human output, or plain --json): lines may be written in batches with chunk(). */
  get linesAsIs(): boolean {
    return !this.json || writtenAsIs(this.options)
  }

  get format(): Format {
    return this.options.format
  }

  /** The width a table on the terminal fits (its columns), or undefined: piped, or -o wide. */
  get tableWidth(): number | undefined {
    return this.term.stdoutIsTTY && !this.options.wide ? this.term.columns : undefined
  }

  /** --fields, for the human views (columns of a list, rows of an object). */
  get fields(): string[] | undefined {
    return this.options.fields
  }

  /** Loads the libraries the options need (jq, csv, yaml) and compiles --jq: call before any request. */
  async prepare(): Promise<void> {
    if (!this.libs && needsLibraries(this.options)) this.libs = await loadLibraries(this.options)
  }

  /**
   * From here on an error is being rendered: it is shown in full even under --quiet, and as the plain
   * {"error":…} envelope (no --jq, no --fields) on stdout under json/ndjson/yaml; csv, tsv and a bare --jq (whose
   * stdout a script reads as plain values) keep it on stderr.
   */
  forError(): void {
    const {format: was, jqRaw} = this.options
    const format: Format = was === 'csv' || was === 'tsv' || was === 'table' || jqRaw ? 'table' : 'json'
    this.options = {format, noHeader: this.options.noHeader}
    this.writer = undefined
  }

  /** Data to stdout, newline-terminated; under structured output, a JSON document run through the pipeline. */
  data(text: string): void {
    if (!this.json) return this.write(text)
    this.writer ??= new StructuredWriter(this.options, this.libs ?? {}, (t) => this.write(t), this.term.stdoutIsTTY)
    this.writer.document(text)
  }

  /** A value (not text) as one structured document; for table output, call human() instead. */
  value(value: unknown): void {
    if (!this.json) return this.write(this.human(value))
    this.writer ??= new StructuredWriter(this.options, this.libs ?? {}, (t) => this.write(t), this.term.stdoutIsTTY)
    this.writer.document('', value === undefined ? null : value)
  }

  /**
   * The stream people's messages go to (stderr), for what draws on it itself: a prompt, a progress bar. Everything
   * else writes through the methods here.
   */
  get errorStream(): NodeJS.WritableStream {
    return this.stderr
  }

  /** Calls `stop` once when the reader of stdout goes away (`… | head -3`: EPIPE), instead of dying on the error. */
  onStdoutClosed(stop: () => void): void {
    this.stdout.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') stop()
    })
  }

  /** Text to stdout exactly as given (a stream written in pieces: `pay api --paginate --slurp`). */
  chunk(text: string): void {
    this.stdout.write(text)
  }

  private write(text: string): void {
    this.stdout.write(text.endsWith('\n') ? text : `${text}\n`)
  }

  /** A message for people, on stderr (not under --quiet). */
  info(text: string): void {
    if (this.options.quiet) return
    this.stderr.write(`${text}\n`)
  }

  /**
   * A --debug trace or a client's notice, dim on stderr (not under --quiet). Its text quotes the network (bodies,
   * URLs), so it is made printable here, for every caller: the API client's and the sandbox control client's.
   */
  trace(text: string): void {
    this.info(this.color('dim', printable(text), 'err'))
  }

  /** A warning whose text quotes the network or a file anything may have written (a journal's keys): made printable. */
  warnQuoting(text: string): void {
    this.warn(printable(text))
  }

  /** A line people must see even under --quiet (what a confirmation question is about), on stderr. */
  notice(text: string): void {
    this.stderr.write(`${text}\n`)
  }

  warn(text: string): void {
    if (this.options.quiet) return
    this.stderr.write(`${paint(this.term.colorErr, 'yellow', 'warning:')} ${text}\n`)
  }

  /** The stream a live display (a progress bar on a terminal) redraws itself on: stderr, this Output's. */
  get liveStream(): NodeJS.WritableStream {
    return this.stderr
  }

  /**
   * An error for people, on stderr (even under --quiet). Its text quotes the network more often than not (a
   * service's message, a status_detail, a state), so it is made printable here, for every caller; printable() of
   * text already made printable is the same text.
   */
  errorLine(text: string): void {
    this.stderr.write(`${paint(this.term.colorErr, 'red', 'error:')} ${printable(text)}\n`)
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
    const columns = this.fields ?? options.columns
    if (Array.isArray(body)) return this.table(body as Record<string, unknown>[], columns)
    if (body && typeof body === 'object') {
      const obj = body as Record<string, unknown>
      if (Array.isArray(obj.data) && (obj.object === 'list' || options.columns)) {
        const footer = typeof obj.total === 'number' && !this.options.noHeader ? `\n${obj.data.length} of ${obj.total}${obj.has_more ? ' (more: --all or --page)' : ''}` : ''
        return this.table(obj.data as Record<string, unknown>[], columns) + footer
      }
      return keyValueTable(this.fields ? this.fieldRows(obj) : flatten(obj, this.term.color), this.term.stdoutIsTTY)
    }
    return body === undefined ? '' : String(body)
  }

  /**
   * The generic view of any JSON answer: key/value rows with nested keys joined by dots, then each list of objects
   * as a table under its dotted name (a list at the top: the table alone). For an answer whose shape pay does not
   * know; --fields picks rows as usual.
   */
  generic(raw: unknown): string {
    const body = printableDeep(raw)
    if (Array.isArray(body)) return this.table(body.filter(isObject))
    if (!isObject(body)) return body === undefined ? '' : String(body)
    if (this.fields) return keyValueTable(this.fieldRows(body), this.term.stdoutIsTTY)
    const parts = [keyValueTable(flatten(body, this.term.color), this.term.stdoutIsTTY)]
    const lists = (obj: Record<string, unknown>, prefix: string): void => {
      for (const [key, value] of Object.entries(obj)) {
        const name = prefix ? `${prefix}.${key}` : key
        if (Array.isArray(value) && value.some(isObject)) parts.push(`\n${name}:\n${this.table(value.filter(isObject))}`)
        else if (isObject(value)) lists(value, name)
      }
    }
    lists(body, '')
    return parts.join('\n')
  }

  /** The rows of an object under --fields: each dot path and its value. */
  fieldRows(obj: Record<string, unknown>): [string, string][] {
    return (this.fields ?? []).map((f) => [f, formatScalar(f, getPath(obj, f), this.term.color)])
  }

  list(raw: Record<string, unknown>[], columns?: string[]): string {
    return this.table(printableDeep(raw), columns)
  }

  /** A table of items already made printable. */
  private table(items: Record<string, unknown>[], columns?: string[]): string {
    if (items.length === 0) return this.term.stdoutIsTTY ? '(none)' : ''
    const cols = listColumns(items, columns)
    return listTable(cols, listRows(items, cols, this.term.color), this.term.stdoutIsTTY, !this.options.noHeader, this.tableWidth)
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
}
