/** Lines kept as UTF-8 bytes until a batch of them is written. */
import {describe, expect, it} from 'vitest'
import {ByteLines} from '../../src/journal/byte-lines.js'

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
})
