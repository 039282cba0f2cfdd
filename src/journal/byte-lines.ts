/**
 * Lines kept as UTF-8 bytes outside V8's heap until a batch of them is written (a bulk run's journal records and
 * reference index lines, written at each flush): each line's string dies young instead of waiting, for the whole
 * flush interval, in a string that V8 copies at every scavenge and then moves to its old space; and the batch is
 * written as it is, with no string joined, flattened and encoded at write time.
 */
export class ByteLines {
  private bytes: Buffer
  private used = 0
  /** The buffer take() handed out last, and one handed back once written (held lines go there next). */
  private lent?: Buffer
  private spare?: Buffer

  constructor(private readonly initialBytes = 16 * 1024) {
    this.bytes = Buffer.allocUnsafe(initialBytes)
  }

  /** Bytes held. */
  get length(): number {
    return this.used
  }

  /** Appends `text` (the caller ends it with its line break). */
  push(text: string): void {
    const most = this.used + text.length * 3 // a UTF-16 code unit is at most 3 bytes of UTF-8
    if (most > this.bytes.length) this.grow(most)
    this.used += this.bytes.write(text, this.used)
  }

  /** Hands over the bytes held (valid until handed back: giveBack); empty again after. */
  take(): Buffer {
    const taken = this.bytes.subarray(0, this.used)
    if (this.used > 0) {
      this.lent = this.bytes
      this.bytes = this.spare ?? Buffer.allocUnsafe(this.initialBytes)
      this.spare = undefined
    }
    this.used = 0
    return taken
  }

  /**
   * What take() handed out, written: its memory holds the lines after next. A buffer that lives from one write to
   * the next reaches V8's old space, and a new one each time would wait there for a full collection.
   */
  giveBack(taken: Buffer): void {
    if (this.lent !== undefined && taken.buffer === this.lent.buffer && taken.byteOffset === this.lent.byteOffset) this.spare = this.lent
    this.lent = undefined
  }

  /** The bytes held, for a synchronous write before the next push; then clear() keeps the memory for the next lines. */
  held(): Buffer {
    return this.bytes.subarray(0, this.used)
  }

  clear(): void {
    this.used = 0
  }

  private grow(atLeast: number): void {
    const grown = Buffer.allocUnsafe(Math.max(atLeast, this.bytes.length * 2))
    this.bytes.copy(grown, 0, 0, this.used)
    this.bytes = grown
  }
}

/**
 * A file's whole lines, a block at a time, each with the file offset where it starts (the last block ends where the
 * file does, line break or not), read through one buffer: grown for a longer line, never made again per read (a new
 * buffer per read lives long enough to reach V8's old space while its lines are worked through). A block is valid
 * until the next one is asked for.
 */
export async function* lineBlocks(path: string, bytes = 64 * 1024): AsyncGenerator<{block: Buffer; offset: number}> {
  const file = await process.getBuiltinModule('node:fs/promises').open(path, 'r') // loaded by bulk runs only
  try {
    let buf = Buffer.allocUnsafeSlow(bytes)
    let held = 0 // bytes of an unfinished line, at buf's start
    let offset = 0 // the file offset of buf[0]
    for (;;) {
      if (held === buf.length) {
        const grown = Buffer.allocUnsafeSlow(buf.length * 2)
        buf.copy(grown, 0, 0, held)
        buf = grown
      }
      const {bytesRead} = await file.read(buf, held, buf.length - held, null)
      const filled = held + bytesRead
      const end = bytesRead === 0 ? filled : buf.lastIndexOf(10, filled - 1) + 1
      if (end > 0) yield {block: buf.subarray(0, end), offset}
      if (bytesRead === 0) return
      buf.copyWithin(0, end, filled)
      held = filled - end
      offset += end
    }
  } finally {
    await file.close()
  }
}
