/**
 * Structured output: every JSON document a command prints (the service's body, a list page, a command's own
 * JSON answer) goes through one pipeline: --jq (real jq, in-process), then --fields (dot paths), then the
 * format (json, ndjson, csv, tsv, yaml). Lists stream: csv/tsv write their header once and each page's rows as
 * they come; ndjson writes one item per line. The libraries (jq-web, csv-stringify, yaml) are imported only when
 * the chosen flags need them (loadLibraries), so nothing of this costs a command that prints a table.
 */
import {getPath} from './format.js'
import type {OutputOptions} from './options.js'
import {forStdout, printable, printableDeep} from './printable.js'
// tsv: the same escaping as piped tables (a tab or line break inside a value written as \t, \n)
import {neutralized, tsvRow} from './table.js'

type Obj = Record<string, unknown>

interface JqEngine {
  /** jq's own output text for one input document (throws with jq's message on an error). */
  raw(input: string, filter: string, flags?: string[]): string
}

export interface Libraries {
  jq?: JqEngine
  csv?: (rows: string[][]) => string
  yaml?: (value: unknown) => string
}

/** A --jq program that does not compile (exit 2, before any request). */
export class JqCompileError extends Error {
  constructor(readonly detail: string) {
    super(detail)
    this.name = 'JqCompileError'
  }
}

/** jq's message without the wrapper's "Non-zero exit code" line and the echoed program. */
function jqMessage(err: unknown): string {
  const e = err as {stderr?: string; message?: string}
  const text = (e.stderr ?? e.message ?? String(err)).replace(/^undefined/, '')
  const lines = text.split('\n').filter((l) => l.startsWith('jq: error'))
  return (lines.length > 0 ? lines.join('; ') : text.split('\n')[0]).replace(/^jq: error:?\s*(\(at inputString:\d+\):\s*)?/, '').trim()
}

/**
 * Loads what the options need. jq-web (jq 1.7 compiled to WebAssembly) is instantiated once, in a worker thread
 * under a time and a memory bound (src/output/jq-bounded.ts: --jq-timeout, --jq-memory), and the program is
 * compiled against an empty input (jq compiles it, then has nothing to evaluate), so a syntax error is found before
 * any request is sent.
 */
export async function loadLibraries(options: OutputOptions): Promise<Libraries> {
  const libs: Libraries = {}
  if (options.jq !== undefined) {
    const {boundedJq} = await import('./jq-bounded.js')
    const engine = await boundedJq({timeoutSeconds: options.jqTimeoutSeconds, memoryMb: options.jqMemoryMb})
    try {
      // no input: jq compiles the program and evaluates nothing
      engine.raw('', options.jq)
    } catch (err) {
      throw new JqCompileError(jqMessage(err))
    }
    libs.jq = engine
  }
  if (options.format === 'csv') {
    const {stringify} = await import('csv-stringify/sync')
    libs.csv = (rows) => stringify(rows, {record_delimiter: 'windows'})
  }
  if (options.format === 'yaml') {
    const YAML = await import('yaml')
    libs.yaml = (value) => YAML.stringify(value)
  }
  return libs
}

/** Does this format/option set need loadLibraries before writing? */
export function needsLibraries(options: OutputOptions): boolean {
  return options.jq !== undefined || options.format === 'csv' || options.format === 'yaml'
}

function isList(v: unknown): v is Obj & {data: unknown[]} {
  return Boolean(v && typeof v === 'object' && !Array.isArray(v) && Array.isArray((v as Obj).data) && ((v as Obj).object === 'list' || 'has_more' in (v as Obj)))
}

/** The rows of a document: a list's items, an array's elements, or the document itself. */
function itemsOf(v: unknown): unknown[] {
  if (Array.isArray(v)) return v
  if (isList(v)) return v.data
  return [v]
}

function setPath(target: Obj, path: string, value: unknown): void {
  const parts = path.split('.')
  let cur = target
  for (const part of parts.slice(0, -1)) {
    if (!cur[part] || typeof cur[part] !== 'object') cur[part] = {}
    cur = cur[part] as Obj
  }
  cur[parts.at(-1)!] = value
}

/** Only the given dot paths of an object, nested as in the source (a missing field is null). */
function pickFields(item: unknown, fields: string[]): unknown {
  if (!item || typeof item !== 'object' || Array.isArray(item)) return item
  const out: Obj = {}
  for (const f of fields) {
    const v = getPath(item, f)
    setPath(out, f, v === undefined ? null : v)
  }
  return out
}

/** --fields applied to a document: each item of a list or array, or the object itself. */
function projectFields(v: unknown, fields: string[]): unknown {
  if (Array.isArray(v)) return v.map((i) => pickFields(i, fields))
  if (isList(v)) return {...v, data: v.data.map((i) => pickFields(i, fields))}
  return pickFields(v, fields)
}

/** The columns of a row: the dot paths of its scalar leaves (nested objects flattened), in order. */
function leafPaths(item: unknown, prefix = ''): string[] {
  if (!item || typeof item !== 'object' || Array.isArray(item)) return prefix ? [prefix] : ['value']
  const paths: string[] = []
  for (const [k, v] of Object.entries(item)) {
    const name = prefix ? `${prefix}.${k}` : k
    if (v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0) paths.push(...leafPaths(v, name))
    else paths.push(name)
  }
  return paths
}

function cell(item: unknown, column: string): string {
  const v = item && typeof item === 'object' && !Array.isArray(item) ? getPath(item, column) : column === 'value' ? item : undefined
  if (v === undefined || v === null) return ''
  if (typeof v === 'object') return JSON.stringify(v)
  return String(v)
}

/** Writes documents in one structured format; keeps the state a stream needs (header written, columns). */
/** JSON documents go to stdout exactly as given: plain --json, without --jq or --fields. */
export function writtenAsIs(options: OutputOptions): boolean {
  return options.format === 'json' && !options.jq && !options.fields
}

export class StructuredWriter {
  private columns?: string[]
  private docs = 0

  constructor(
    private readonly options: OutputOptions,
    private readonly libs: Libraries,
    private readonly write: (text: string) => void,
    /** stdout is a terminal: control characters from the network are shown escaped. */
    private readonly tty = false,
  ) {}

  /** JSON text as written: on a terminal made printable (the same JSON value), else as it is (forStdout). */
  private json(text: string): void {
    this.write(forStdout(this.tty).json(text))
  }

  /** One JSON document as text (exactly as received) or as a value already parsed. */
  document(text: string, parsed?: unknown): void {
    const {jq} = this.options
    if (writtenAsIs(this.options)) {
      this.json(text === '' ? 'null' : text)
      return
    }
    let value: unknown
    if (parsed !== undefined) value = parsed
    else {
      try {
        value = text === '' ? null : JSON.parse(text)
      } catch {
        // not JSON (a command's plain text): written as it is
        this.write(text)
        return
      }
    }
    if (jq) {
      const input = parsed === undefined && text !== '' ? text : JSON.stringify(value)
      let result: string
      try {
        result = this.libs.jq!.raw(input, jq, this.options.jqRaw ? ['-r', '-c'] : ['-c']) ?? ''
      } catch (err) {
        // a bound passed: the bounded engine's own error (exit 2, naming the flag that raises it)
        if (typeof (err as {exitCode?: unknown}).exitCode === 'number') throw err
        throw new Error(`--jq: ${jqMessage(err)}`)
      }
      if (this.options.jqRaw) {
        if (result !== '') this.write(this.tty ? printable(result) : result)
        return
      }
      for (const line of result.split('\n')) {
        if (line.trim() === '') continue
        const v: unknown = JSON.parse(line)
        // one rule for a string that --jq picks: raw, as a bare --jq prints it (gh's --json --jq does the same)
        if (typeof v === 'string' && this.options.format === 'json') this.write(this.tty ? printable(v) : v)
        else this.value(v)
      }
      return
    }
    this.value(value)
  }

  /** A value after --jq: --fields, then the format. */
  value(raw: unknown): void {
    const v = this.options.fields ? projectFields(raw, this.options.fields) : raw
    switch (this.options.format) {
      case 'ndjson':
        for (const item of itemsOf(v)) this.json(JSON.stringify(item))
        return
      case 'csv':
      case 'tsv':
        this.rows(itemsOf(v))
        return
      case 'yaml':
        this.write(`${this.docs++ > 0 ? '---\n' : ''}${this.libs.yaml!(this.tty ? printableDeep(v) : v)}`)
        return
      default:
        this.json(JSON.stringify(v))
    }
  }

  private rows(items: unknown[]): void {
    if (items.length === 0 && this.columns) return
    if (!this.columns) {
      this.columns = this.options.fields ?? (items.length > 0 ? leafPaths(items[0]) : [])
      if (this.columns.length === 0) return
      if (!this.options.noHeader) this.line([this.columns])
    }
    const cols = this.columns
    if (items.length > 0) this.line(items.map((i) => cols.map((c) => cell(i, c))))
  }

  private line(rows: string[][]): void {
    const cells = this.options.rawCsv ? rows : rows.map((r) => r.map(neutralized))
    const safe = this.tty ? cells.map((r) => r.map((c) => printable(c))) : cells
    if (this.options.format === 'csv') this.write(this.libs.csv!(safe))
    else this.write(safe.map(tsvRow).join('\n'))
  }
}
