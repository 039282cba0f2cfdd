/**
 * The input of a bulk run, streamed: CSV with a header row (csv-parse's streaming API) or NDJSON (one JSON object
 * per line), chosen by the file's extension or --format. `-` reads stdin, which is first copied to a 0600 file in
 * the journal's directory so that it can be hashed and read more than once. Nothing holds more than one row.
 */
import {type Hash, createHash} from 'node:crypto'
import {createReadStream, createWriteStream, rmSync} from 'node:fs'
import {open} from 'node:fs/promises'
import {join} from 'node:path'
import {createInterface} from 'node:readline'
import {finished, pipeline} from 'node:stream/promises'
import {InputError} from '../base/errors.js'
import {SECRET_FILE_MODE} from '../config/paths.js'
import {SPOOL_PREFIXES} from '../journal/store.js'
import {depthProblem} from '../output/json-shape.js'

type InputFormat = 'csv' | 'ndjson'

export interface InputRow {
  /** 1-based number of the data row (header excluded). */
  row: number
  /** Line of the file where the row ends (for messages). */
  line: number
  /** Column -> value as read (CSV: strings; NDJSON: any JSON value). */
  values: Record<string, unknown>
}

export interface BulkInput {
  /** The file that is read (the spool file for stdin). */
  path: string
  /** What the user named (`-` for stdin). */
  name: string
  format: InputFormat
  sha256: string
  /** CSV: the line of the header, once read (a column's problem is the header's). */
  headerLine?: number
  /** CSV: the header's column names, once read. */
  columns?: readonly string[]
  /** Removes the spool file of stdin. */
  dispose(): void
}

function formatOf(name: string, format: string | undefined): InputFormat {
  if (format === 'csv' || format === 'ndjson') return format
  if (format !== undefined) throw InputError.one('--format', 'must be csv or ndjson')
  if (/\.csv$/i.test(name)) return 'csv'
  if (/\.(ndjson|jsonl)$/i.test(name)) return 'ndjson'
  throw InputError.one('--format', `is required: cannot tell the format of "${name}" from its extension (.csv, .ndjson or .jsonl)`)
}

/** Opens the input: hashes the file (copying stdin to `spoolDir` first). */
export async function openInput(name: string, format: string | undefined, spoolDir: string, stdin: NodeJS.ReadableStream = process.stdin, onSpool?: (path: string) => void): Promise<BulkInput> {
  const fmt = name === '-' && format === undefined ? 'csv' : formatOf(name, format)
  const hash = createHash('sha256')
  if (name === '-') {
    const path = join(spoolDir, `${SPOOL_PREFIXES.stdin}${process.pid}-${Date.now()}.${fmt}`)
    onSpool?.(path) // known before stdin ends: a Ctrl-C while it is read removes it
    await pipeline(stdin, async function* (source) {
      for await (const chunk of source) {
        hash.update(chunk as Buffer)
        yield chunk
      }
    }, createWriteStream(path, {mode: SECRET_FILE_MODE, flags: 'wx'}))
    return {path, name, format: fmt, sha256: hash.digest('hex'), dispose: () => rmSync(path, {force: true})}
  }
  try {
    await hashFile(name, hash)
  } catch (err) {
    throw InputError.one('--from-file', `cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message} (${name})`)
  }
  return {path: name, name, format: fmt, sha256: hash.digest('hex'), dispose: () => undefined}
}

/**
 * A file's bytes through one buffer read into again and again, each read valid until the next: a stream's fresh
 * buffer per read piles up outside V8's heap (hashing allocates too little for the collector to run, and leaves
 * malloc's heap that large for the run), or lives long enough to reach V8's old space.
 */
async function* reads(path: string, bytes: number): AsyncGenerator<Buffer> {
  const file = await open(path, 'r')
  try {
    const chunk = Buffer.allocUnsafeSlow(bytes)
    for (;;) {
      const {bytesRead} = await file.read(chunk, 0, chunk.length, null)
      if (bytesRead === 0) return
      yield chunk.subarray(0, bytesRead)
    }
  } finally {
    await file.close()
  }
}

async function hashFile(path: string, hash: Hash): Promise<void> {
  for await (const bytes of reads(path, 64 * 1024)) hash.update(bytes)
}

/** Problems of the file itself (not of a row's values): a broken CSV line, a line that is not a JSON object. */
export class RowSyntaxError extends Error {
  constructor(
    readonly line: number,
    message: string,
    /** What the line holds, for the message: `(row)`, or `(header)` for the CSV's first line. */
    readonly what = '(row)',
  ) {
    super(message)
  }
}

/**
 * The rows of the input, in file order, a chunk at a time: the rows of one read of the file (CSV: one 16 KiB
 * chunk), so that the checking pass loops over them without an await per row. A syntax error is yielded as a
 * RowSyntaxError, then reading goes on.
 */
export async function* readRowChunks(input: BulkInput): AsyncGenerator<(InputRow | RowSyntaxError)[]> {
  if (input.format === 'csv') {
    yield* csvRowChunks(input)
    return
  }
  const lines = createInterface({input: createReadStream(input.path), crlfDelay: Infinity})
  let line = 0
  let row = 0
  for await (const text of lines) {
    line++
    if (text.trim() === '') continue
    const deep = depthProblem(text)
    if (deep) {
      yield [new RowSyntaxError(line, deep)]
      continue
    }
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      yield [new RowSyntaxError(line, 'is not valid JSON')]
      continue
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) {
      yield [new RowSyntaxError(line, 'must be a JSON object')]
      continue
    }
    // JSON.parse keeps the last of two equal keys: which one counts is no rule a file shows (as a CSV column twice)
    const twice = repeatedKey(text, value)
    if (twice !== undefined) {
      yield [new RowSyntaxError(line, `has the key ${JSON.stringify(twice)} twice: keep one`)]
      continue
    }
    row++
    const values: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) if (v !== null && v !== '') values[k] = v
    yield [{row, line, values}]
  }
}

/**
 * A key that an object of the line holds twice (at any depth), or undefined. Only scanned when the line could hold
 * one: when it has more `":` pairs than the parsed value has keys (nested ones included).
 */
function repeatedKey(text: string, value: object): string | undefined {
  if (countPairs(text) <= countKeys(value)) return undefined
  const stack: Set<string>[] = []
  let i = 0
  const n = text.length
  while (i < n) {
    const c = text[i]
    if (c === '{') {
      stack.push(new Set())
      i++
    } else if (c === '}') {
      stack.pop()
      i++
    } else if (c === '"') {
      let j = i + 1
      while (j < n && text[j] !== '"') j += text[j] === '\\' ? 2 : 1
      const raw = text.slice(i, j + 1)
      i = j + 1
      while (i < n && (text[i] === ' ' || text[i] === '\t')) i++
      if (text[i] === ':' && stack.length > 0) {
        const key = JSON.parse(raw) as string
        const keys = stack[stack.length - 1]
        if (keys.has(key)) return key
        keys.add(key)
      }
    } else i++
  }
  return undefined
}

/** Upper bound of the keys in a line: the `"` followed (after blanks) by `:`. */
function countPairs(text: string): number {
  let count = 0
  for (let i = text.indexOf(':'); i !== -1; i = text.indexOf(':', i + 1)) count++
  return count
}

function countKeys(value: unknown): number {
  if (!value || typeof value !== 'object') return 0
  let count = 0
  for (const v of Object.values(value)) count += countKeys(v)
  return count + (Array.isArray(value) ? 0 : Object.keys(value).length)
}

/** How much of a CSV file one read takes (into one buffer, read into again). */
const CSV_READ_BYTES = 16 * 1024

/**
 * How much of it is parsed at a time: the rows of one piece are all alive while the checking pass works through them.
 * Small enough that they die within a young collection or two: rows kept longer are moved to V8's old space, where
 * garbage waits for a full collection.
 */
const CSV_PARSE_BYTES = 2 * 1024

/**
 * csv-parse's stream, its records taken as it emits them, into `records` and `lines`, each with the line where it ends:
 * the parser's public `info.lines` as the record is emitted. The stream flows (a 'data' listener), so each record is
 * emitted as it is parsed, from within the write of its chunk: never buffered, so its line is still current (a test in
 * test/bulk/input.test.ts holds these lines to those of csv-parse's own `info` option). That option's per-record
 * object, or the `on_record` hook's (made even when unread), cost about as much as parsing a record.
 */
async function recordParser(delimiter: string, records: string[][], lines: number[]): Promise<import('csv-parse').Parser> {
  const {parse} = await import('csv-parse')
  const parser = parse({...CSV_OPTIONS, delimiter})
  parser.on('data', (record: string[]) => {
    records.push(record)
    lines.push(parser.info.lines)
  })
  return parser
}

/**
 * How pay reads a CSV. Each of CRLF, LF and CR ends a record (csv-parse would take the first one it meets for the
 * whole file): a file whose lines were saved by two editors is read as it shows, with the right line numbers, not as
 * one record (CRLF header, LF rows) or with every line counted twice (LF header, CRLF rows). Inside quotes they stay.
 */
export const CSV_OPTIONS = {bom: true, skip_empty_lines: true, trim: true, relax_column_count: false, skip_records_with_error: false, record_delimiter: ['\r\n', '\n', '\r']}

/**
 * The delimiters a CSV file may separate its columns with: `,`, and what spreadsheets save as "CSV" too: `;` (Excel
 * where the decimal separator is a comma) and tab.
 */
const DELIMITERS = [',', ';', '\t'] as const
const delimiterName = (d: string) => (d === '\t' ? 'tab' : `"${d}"`)

/**
 * The delimiter of a CSV file by its header line: the one of DELIMITERS the line holds outside quotes (`,` when it
 * holds none: one column). A header holding two is refused: which one separates the values is no rule the file shows.
 */
function delimiterOf(header: string): {delimiter: string} | {problem: string} {
  let quoted = false
  const used = new Set<string>()
  for (const c of header) {
    if (c === '"') quoted = !quoted
    else if (!quoted && (DELIMITERS as readonly string[]).includes(c)) used.add(c)
  }
  if (used.size <= 1) return {delimiter: [...used][0] ?? ','}
  const names = DELIMITERS.filter((d) => used.has(d)).map(delimiterName)
  return {problem: `separates its columns with both ${names.slice(0, -1).join(', ')} and ${names.at(-1)}: pay cannot tell which one the file uses; save it as CSV separated by one of , ; or tab (a spreadsheet's "CSV (comma delimited)")`}
}

/** The header line of a CSV file (its first line that is not blank, a BOM left out) and its line number, from its first CSV_READ_BYTES. */
async function headerLineOf(path: string): Promise<{text: string; line: number}> {
  const file = await open(path, 'r')
  try {
    const {buffer, bytesRead} = await file.read(Buffer.alloc(CSV_READ_BYTES), 0, CSV_READ_BYTES, 0)
    const lines = buffer.toString('utf8', 0, bytesRead).replace(/^\uFEFF/, '').split(/\r\n|\n|\r/)
    const i = Math.max(0, lines.findIndex((l) => l.trim() !== ''))
    return {text: lines[i] ?? '', line: i + 1}
  } finally {
    await file.close()
  }
}

/**
 * CSV through csv-parse's stream (its delimiter read from the header line: delimiterOf), written a file chunk at a time and the records of each chunk taken at once.
 * Records as arrays, the first one the header (trimmed like every field): csv-parse's objects (columns) cost a
 * defineProperty per field, and the values object is built here anyway. A record whose length is not the header's
 * is an error of csv-parse's all the same. An error (its line) ends the reading.
 */
async function* csvRowChunks(input: BulkInput): AsyncGenerator<(InputRow | RowSyntaxError)[]> {
  const {path} = input
  const headerLine = await headerLineOf(path)
  const delimiter = delimiterOf(headerLine.text)
  if ('problem' in delimiter) {
    yield [new RowSyntaxError(headerLine.line, delimiter.problem, '(header)')]
    return
  }
  const records: string[][] = []
  const lines: number[] = []
  let row = 0
  let header: string[] | undefined
  let headerError: RowSyntaxError | undefined
  const rowOf = (fields: string[], line: number): InputRow | undefined => {
    if (header === undefined) {
      header = fields
      input.headerLine = line
      input.columns = fields
      const twice = fields.find((name, i) => fields.indexOf(name) !== i)
      // which of two values would count is no rule a spreadsheet shows: the file is refused (exit 2, nothing sent)
      if (twice !== undefined) headerError = new RowSyntaxError(line, `has the column ${JSON.stringify(twice)} twice: keep one`, '(header)')
      return undefined
    }
    row++
    const values: Record<string, unknown> = {}
    for (let i = 0; i < fields.length; i++) {
      const name = header[i]
      if (fields[i] === '') continue
      if (name === '__proto__') Object.defineProperty(values, name, {value: fields[i], enumerable: true, writable: true, configurable: true}) // a column like any other (reported as not an input), not the object's prototype
      else values[name] = fields[i]
    }
    return {row, line, values}
  }
  /** The rows of the records parsed so far (then forgotten); undefined when the header was refused. */
  const taken = (): (InputRow | RowSyntaxError)[] | undefined => {
    const rows: (InputRow | RowSyntaxError)[] = []
    for (let i = 0; i < records.length; i++) {
      const r = rowOf(records[i], lines[i])
      if (headerError) return undefined
      if (r) rows.push(r)
    }
    records.length = lines.length = 0
    return rows
  }
  const failed = (err: unknown): RowSyntaxError => {
    const e = err as {lines?: number; message: string}
    return new RowSyntaxError(e.lines ?? 0, `is not valid CSV: ${e.message}`)
  }
  if (await isPlainCsv(path, delimiter.delimiter)) {
    // (every record already known regular: no error of csv-parse's to give)
    for await (const _ of plainRecords(path, delimiter.delimiter, records, lines)) {
      const rows = taken()
      if (!rows) {
        yield [headerError!]
        return
      }
      if (rows.length > 0) yield rows
    }
    return
  }
  const parser = await recordParser(delimiter.delimiter, records, lines)
  parser.on('error', () => undefined) // read from parser.errored (set as soon as a write fails), or thrown by finished() below
  for await (const data of pieces(path)) {
    parser.write(data)
    const rows = taken()
    if (!rows) {
      yield [headerError!]
      return
    }
    if (parser.errored) rows.push(failed(parser.errored))
    if (rows.length > 0) yield rows
    if (parser.errored) return
  }
  // the last record (no line break after it) and an error found only at the end (a quote never closed)
  let error: unknown
  parser.end()
  try {
    await finished(parser)
  } catch (err) {
    error = err
  }
  const rows = taken()
  if (!rows) {
    yield [headerError!]
    return
  }
  if (error !== undefined) rows.push(failed(error))
  if (rows.length > 0) yield rows
}

/** A file, CSV_PARSE_BYTES at a time, each piece a copy of its own (a parser may keep what it is given). */
async function* pieces(path: string): AsyncGenerator<Buffer> {
  for await (const bytes of reads(path, CSV_READ_BYTES)) {
    for (let at = 0; at < bytes.length; at += CSV_PARSE_BYTES) yield Buffer.from(bytes.subarray(at, Math.min(at + CSV_PARSE_BYTES, bytes.length)))
  }
}

/**
 * Whether a CSV file is plain: ASCII without a quote, a CR or another control character (a tab only as its delimiter),
 * a BOM at most, and every line that is not empty with as many delimiters as the first (two columns at least). csv-parse
 * reads such a file as its lines split at the delimiter, each field trimmed of spaces (the only blanks it can hold) and
 * empty lines skipped: plainRecords does that without csv-parse's state machine, byte by byte in JavaScript (the dearest
 * part of a bulk run's checking pass). Any other file is csv-parse's, and so is every message about a broken one. A
 * test holds both readers to the same records and lines (test/bulk/input.test.ts).
 */
async function isPlainCsv(path: string, delimiter: string): Promise<boolean> {
  const d = delimiter.charCodeAt(0)
  let expected = -1 // the delimiters of the first line that is not empty
  let count = 0
  let blank = true
  let at = 0
  /** At a line's end: whether it is empty, or has the delimiters of the first. */
  const regular = (): boolean => {
    if (blank) return true
    if (expected < 0) expected = count
    return count === expected
  }
  for await (const bytes of reads(path, CSV_READ_BYTES * 4)) {
    let i = at === 0 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0
    at += bytes.length
    for (; i < bytes.length; i++) {
      const b = bytes[i]
      if (b === 10) {
        if (!regular()) return false
        count = 0
        blank = true
      } else {
        blank = false
        if (b === d) count++
        else if (b < 0x20 || b > 0x7e || b === 0x22) return false
      }
    }
  }
  return regular() && expected >= 1
}

/** Records of a plain CSV file (isPlainCsv) handed out at a time. */
const PLAIN_RECORDS = 32

/** The records of a plain CSV file (isPlainCsv), each with its line, into `records` and `lines`, PLAIN_RECORDS at a time. */
async function* plainRecords(path: string, delimiter: string, records: string[][], lines: number[]): AsyncGenerator<void> {
  let line = 0
  let rest = ''
  let first = true
  const add = (text: string) => {
    const fields = text.split(delimiter)
    if (text.includes(' ')) for (let k = 0; k < fields.length; k++) fields[k] = fields[k].trim()
    records.push(fields)
    lines.push(line)
  }
  for await (const bytes of reads(path, CSV_READ_BYTES)) {
    let text = rest + bytes.toString('latin1') // ASCII: the same text as utf8
    if (first && text.startsWith('\xef\xbb\xbf')) text = text.slice(3)
    first = false
    const end = text.lastIndexOf('\n')
    for (let from = 0; from <= end; ) {
      const nl = text.indexOf('\n', from)
      line++
      if (nl > from) add(text.slice(from, nl))
      from = nl + 1
      if (records.length === PLAIN_RECORDS) yield
    }
    rest = text.slice(end + 1)
  }
  line++
  if (rest !== '') add(rest)
  if (records.length > 0) yield
}
