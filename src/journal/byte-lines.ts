/**
 * Lines kept as UTF-8 bytes outside V8's heap until a batch of them is written (a bulk run's journal records and
 * reference index lines, written at each flush): each line's string dies young instead of waiting, for the whole
 * flush interval, in a string that V8 copies at every scavenge and then moves to its old space; and the batch is
 * written as it is, with no string joined, flattened and encoded at write time.
 */
export class ByteLines {
  private bytes: Buffer
  private used = 0

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

  /** Hands over the bytes held (valid until written: never reused here); empty again after. */
  take(): Buffer {
    const taken = this.bytes.subarray(0, this.used)
    if (this.used > 0) this.bytes = Buffer.allocUnsafe(this.initialBytes)
    this.used = 0
    return taken
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
