/**
 * The rows of a bulk run as the checking pass derived them, ready to send: one NDJSON line per row in a 0600 file
 * next to the journal, read back in file order by the sending pass and removed at the end. So each row is parsed,
 * checked, built and keyed once (a second pass over the CSV cost as much again), and memory stays flat: nothing
 * holds more than a chunk of rows.
 */
import {closeSync, openSync, rmSync, writeSync} from 'node:fs'
import {join} from 'node:path'
import type {EndpointId} from '../api/endpoints.js'
import type {CallInput} from '../client/api-client.js'
import {SECRET_FILE_MODE} from '../config/paths.js'
import {ByteLines, lineBlocks} from '../journal/byte-lines.js'
import {SPOOL_PREFIXES} from '../journal/store.js'

/** What the sending pass needs of a row. */
export interface SpooledRow {
  /** 1-based data row, and the file line where it ends (for messages). */
  row: number
  line: number
  endpoint: EndpointId
  /** Path and query (the base URL's origin, and any password in it, stay in memory: see splitUrl). */
  target: string
  /** The exact body bytes the row's key was derived from. */
  body?: string
  /** The SHA-256 (hex) of `body`, as the checking pass derived the key from it (an `unknown` index line carries it). */
  bodySha256?: string
  /** Its derived Idempotency-Key. */
  key: string
  path?: CallInput['path']
  query?: CallInput['query']
  reference: string | null
  amount: string | null
  currency: string | null
}

const FLUSH_CHARS = 1 << 16
/** Spooled rows handed out at a time. */
const CHUNK_ROWS = 32
let made = 0

export class RowSpool {
  readonly path: string
  private fd: number | undefined
  /** Lines not yet written, as bytes outside V8's heap (src/journal/byte-lines.ts). */
  private readonly buffer = new ByteLines(FLUSH_CHARS * 2)
  count = 0

  constructor(dir: string) {
    this.path = join(dir, `${SPOOL_PREFIXES.rows}${process.pid}-${Date.now()}-${++made}.ndjson`)
    this.fd = openSync(this.path, 'wx', SECRET_FILE_MODE) // a new file: never through a link someone left in a shared temp directory
  }

  /**
   * One line per row: the row without its body as JSON, then a tab and the body's bytes as they are (a JSON body
   * has no raw line break, and JSON text outside strings has no raw tab): the body is neither escaped into a JSON
   * string here nor unescaped when read back. A body with a line break, or no body, stays in the JSON.
   */
  add(row: SpooledRow): void {
    const body = row.body
    if (body === undefined || body.includes('\n')) this.buffer.push(`${JSON.stringify(row)}\n`)
    else {
      row.body = undefined // left out of the JSON (no copy of the row), and put back
      this.buffer.push(`${JSON.stringify(row)}\t${body}\n`)
      row.body = body
    }
    this.count++
    if (this.buffer.length >= FLUSH_CHARS) this.flush()
  }

  /** Everything written: call before reading. */
  close(): void {
    this.flush()
    if (this.fd !== undefined) closeSync(this.fd)
    this.fd = undefined
  }

  /** The rows in the order they were added. */
  async *rows(): AsyncGenerator<SpooledRow> {
    for await (const chunk of this.chunks()) yield* chunk
  }

  /**
   * The rows in the order they were added, CHUNK_ROWS at a time: rows waiting to be sent die young instead of
   * reaching V8's old space while the rows before them are sent.
   */
  async *chunks(): AsyncGenerator<SpooledRow[]> {
    let out: SpooledRow[] = []
    for await (const {block} of lineBlocks(this.path, FLUSH_CHARS)) {
      for (let from = 0; from < block.length; ) {
        const nl = block.indexOf(10, from)
        const stop = nl < 0 ? block.length : nl
        if (stop > from) out.push(parseLine(block.toString('utf8', from, stop)))
        from = stop + 1
        if (out.length === CHUNK_ROWS) {
          yield out
          out = []
        }
      }
    }
    if (out.length > 0) yield out
  }

  dispose(): void {
    if (this.fd !== undefined) closeSync(this.fd)
    this.fd = undefined
    rmSync(this.path, {force: true})
  }

  private flush(): void {
    if (this.buffer.length === 0 || this.fd === undefined) return
    const bytes = this.buffer.held()
    for (let at = 0; at < bytes.length; ) at += writeSync(this.fd, bytes, at)
    this.buffer.clear()
  }
}

/** A line of the spool (see RowSpool.add). */
function parseLine(line: string): SpooledRow {
  const tab = line.indexOf('\t')
  if (tab < 0) return JSON.parse(line) as SpooledRow
  const row = JSON.parse(line.slice(0, tab)) as SpooledRow
  row.body = line.slice(tab + 1)
  return row
}
