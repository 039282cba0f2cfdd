/**
 * The rows of a bulk run as the checking pass derived them, ready to send: one NDJSON line per row in a 0600 file
 * next to the journal, read back in file order by the sending pass and removed at the end. So each row is parsed,
 * checked, built and keyed once (a second pass over the CSV cost as much again), and memory stays flat: nothing
 * holds more than a chunk of rows.
 */
import {closeSync, createReadStream, openSync, rmSync, writeSync} from 'node:fs'
import {join} from 'node:path'
import type {EndpointId} from '../api/endpoints.js'
import type {CallInput} from '../client/api-client.js'
import {SECRET_FILE_MODE} from '../config/paths.js'
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
  /** Its derived Idempotency-Key. */
  key: string
  path?: CallInput['path']
  query?: CallInput['query']
  reference: string | null
  amount: string | null
  currency: string | null
}

const FLUSH_CHARS = 1 << 16
let made = 0

export class RowSpool {
  readonly path: string
  private fd: number | undefined
  private buffer = ''
  count = 0

  constructor(dir: string) {
    this.path = join(dir, `${SPOOL_PREFIXES.rows}${process.pid}-${Date.now()}-${++made}.ndjson`)
    this.fd = openSync(this.path, 'wx', SECRET_FILE_MODE) // a new file: never through a link someone left in a shared temp directory
  }

  add(row: SpooledRow): void {
    this.buffer += `${JSON.stringify(row)}\n`
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
    let rest = ''
    for await (const chunk of createReadStream(this.path, {encoding: 'utf8', highWaterMark: FLUSH_CHARS})) {
      const lines = (rest + (chunk as string)).split('\n')
      rest = lines.pop() ?? ''
      for (const line of lines) yield JSON.parse(line) as SpooledRow
    }
    if (rest !== '') yield JSON.parse(rest) as SpooledRow
  }

  dispose(): void {
    if (this.fd !== undefined) closeSync(this.fd)
    this.fd = undefined
    rmSync(this.path, {force: true})
  }

  private flush(): void {
    if (this.buffer === '' || this.fd === undefined) return
    const bytes = Buffer.from(this.buffer, 'utf8')
    for (let at = 0; at < bytes.length; ) at += writeSync(this.fd, bytes, at)
    this.buffer = ''
  }
}
