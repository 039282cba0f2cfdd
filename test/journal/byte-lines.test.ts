/** Lines kept as UTF-8 bytes until a batch of them is written. */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ByteLines, lineBlocks} from '../../src/journal/byte-lines.js'
import {tempConfigDir} from '../helpers/cli.js'

describe('ByteLines', () => {
  it('hands over exactly the UTF-8 bytes of the lines pushed, growing past its first size, and starts again empty', () => {
    const lines = new ByteLines(8)
    const texts = ['{"a":1}\n', 'é ü \u2028 😀\n', `${'x'.repeat(100)}\n`]
    for (const t of texts) lines.push(t)
    expect(lines.length).toBe(Buffer.byteLength(texts.join('')))
    const taken = lines.take()
    expect(taken.toString('utf8')).toBe(texts.join(''))
    expect(lines.length).toBe(0)
    expect(lines.take()).toHaveLength(0)
    // what was taken is never written over by later lines
    lines.push('y'.repeat(taken.length))
    expect(taken.toString('utf8')).toBe(texts.join(''))
  })

  it('held() and clear(): the same memory for the next lines once the held bytes are written', () => {
    const lines = new ByteLines(64)
    lines.push('one\n')
    expect(lines.held().toString('utf8')).toBe('one\n')
    lines.clear()
    expect(lines.length).toBe(0)
    lines.push('two\n')
    expect(lines.held().toString('utf8')).toBe('two\n')
  })

  it('giveBack(): a buffer handed back once written holds the lines after next; one handed back late is only dropped', () => {
    const lines = new ByteLines(16)
    lines.push('first line, long enough to grow\n')
    const first = lines.take()
    lines.push('second\n')
    lines.giveBack(first)
    const second = lines.take()
    expect(second.toString('utf8')).toBe('second\n')
    lines.push('third\n')
    const third = lines.take()
    expect(third.buffer === first.buffer && third.byteOffset === first.byteOffset).toBe(true) // the memory handed back, not a new buffer
    expect(third.toString('utf8')).toBe('third\n')
    lines.giveBack(second) // not the last one taken: dropped
    lines.push('fourth\n')
    const fourth = lines.take()
    expect(fourth.buffer === second.buffer && fourth.byteOffset === second.byteOffset).toBe(false)
  })
})

describe('lineBlocks', () => {
  it('whole lines a block at a time with their file offsets, through a buffer grown for a long line, the last line without its break', async () => {
    const file = join(tempConfigDir(), 'lines.txt')
    const text = `a\n${'b'.repeat(40)}\nccc\n${'d'.repeat(10)}\né\nlast`
    writeFileSync(file, text)
    const blocks: {text: string; offset: number}[] = []
    for await (const {block, offset} of lineBlocks(file, 8)) blocks.push({text: block.toString('utf8'), offset})
    expect(blocks.map((b) => b.text).join('')).toBe(text)
    for (const b of blocks) expect(Buffer.from(text).subarray(b.offset, b.offset + Buffer.byteLength(b.text)).toString('utf8')).toBe(b.text)
    expect(blocks.slice(0, -1).every((b) => b.text.endsWith('\n'))).toBe(true)
    expect(blocks.at(-1)?.text.endsWith('last')).toBe(true)
  })
})

