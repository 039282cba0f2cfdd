/**
 * Tables on a terminal fit its width (the widest columns cut, with an ellipsis); -o wide and a pipe keep every value
 * whole. In-process, with an Output on in-memory streams that says it is a 100-column terminal.
 */
import {stripVTControlCharacters} from 'node:util'
import {describe, expect, it} from 'vitest'
import {fitWidths, listTable, neutralized, unneutralized} from '../../src/output/table.js'
import {outputOptions} from '../../src/output/options.js'
import {StreamTable} from '../../src/output/views.js'
import {memoryOutput} from '../helpers/in-process.js'

/** The widest line as a terminal shows it (colour codes take no room). */
const widest = (text: string) => Math.max(...text.split('\n').map((line) => stripVTControlCharacters(line).length))

// a journal-like list: ~160 characters wide in full
const rows = Array.from({length: 3}, (_, i) => ({
  at: `2026-11-26T14:0${i}:00.000Z`,
  endpoint: 'POST /v1/collections',
  reference: `order-2026-11-26-long-reference-${i}`,
  outcome: 'succeeded',
  status: '201',
  id: `CL_8K2M4Q7R1T${i}ABCDEFGH`,
  idempotency_key: `5f1c2d3e-0000-4000-8000-00000000000${i}`,
}))
const columns = Object.keys(rows[0])

describe('tables and the terminal width', () => {
  it('fitWidths cuts the widest columns to one cap, keeps narrow ones whole, never below 3', () => {
    expect(fitWidths([10, 20, 30], 100)).toEqual([10, 20, 30])
    expect(fitWidths([10, 20, 30], 45)).toEqual([10, 17, 17])
    expect(fitWidths([2, 50], 10)).toEqual([2, 8])
    expect(fitWidths([40, 40], 2)).toEqual([3, 3])
    // ids are kept whole while cutting the others is enough
    expect(fitWidths([23, 30, 30], 40, [true, false, false])).toEqual([23, 8, 8])
    expect(fitWidths([23, 30], 10, [true, false])).toEqual([5, 5]) // not enough: the id is cut too
  })

  it('a list on a 100-column terminal fits it, cut values end with …; -o wide keeps them whole; a pipe is tab-separated and whole', () => {
    const tty = memoryOutput({format: 'table'}, {stdoutIsTTY: true, columns: 100})
    const fitted = tty.out.list(rows, columns)
    expect(widest(fitted)).toBeLessThanOrEqual(100)
    expect(fitted).toContain('…')
    expect(fitted).toContain('201') // narrow columns stay whole
    for (const r of rows) expect(fitted).toContain(r.id) // and ids, as long as cutting the others is enough

    const wide = memoryOutput(outputOptions({output: 'wide'}).options, {stdoutIsTTY: true, columns: 100})
    const full = wide.out.list(rows, columns)
    expect(widest(full)).toBeGreaterThan(150)
    expect(full).not.toContain('…')
    expect(full).toContain(rows[0].idempotency_key)

    const piped = memoryOutput({format: 'table'}, {stdoutIsTTY: false, columns: 100}).out.list(rows, columns)
    expect(piped.split('\n')[1]).toBe(Object.values(rows[0]).join('\t'))
    expect(listTable(['a'], [['x'.repeat(300)]], false, true, 100)).toContain('x'.repeat(300))
  })

  it('-o wide is a table format; --json with it is refused as with any other -o', () => {
    expect(outputOptions({output: 'wide'})).toEqual({options: expect.objectContaining({format: 'table', wide: true}), problems: []})
    expect(outputOptions({output: 'wide', json: true}).problems).toEqual([expect.objectContaining({flag: '--json'})])
    expect(outputOptions({output: 'nope'}).problems[0].rule).toContain('wide')
  })

  it('a streamed list (--all) fits the terminal too, and -o wide keeps it whole', () => {
    const page = rows.map((r) => ({id: r.id, status: r.outcome, merchant_reference: r.reference + '-and-even-longer-than-forty-characters', created_at: r.at, amount: '1500.00'}))
    const tty = memoryOutput({format: 'table'}, {stdoutIsTTY: true, columns: 60})
    new StreamTable(tty.out, Object.keys(page[0])).push(page)
    expect(widest(tty.stdout())).toBeLessThanOrEqual(60)
    expect(tty.stdout()).toContain('…')
    const wide = memoryOutput(outputOptions({output: 'wide'}).options, {stdoutIsTTY: true, columns: 60})
    new StreamTable(wide.out, Object.keys(page[0])).push(page)
    expect(wide.stdout()).toContain(page[0].merchant_reference)
  })
})

describe('formula cells: neutralized and its inverse', () => {
  // awkward cells: formula starts, references that themselves start with ', and cells that only look close
  const cells = ['-neg1', '@at1', '=1+1', '+x', '\tx', '\rx', "'", "'-x", "''=x", "'''@x", "'plain", "''", "plain'", "a'-b", "'a=b", 'plain', '', '-', "'-", '- 5', '-50.00']

  it.each(cells)('%j round-trips exactly', (cell) => {
    expect(unneutralized(neutralized(cell))).toBe(cell)
  })

  it('what a spreadsheet would run is always prefixed; other cells are written as they are', () => {
    for (const cell of cells) {
      const written = neutralized(cell)
      expect(/^[=+\-@\t\r]/.test(written), JSON.stringify(cell)).toBe(false)
      if (!/^'*[=+\-@\t\r]/.test(cell)) expect(written).toBe(cell)
    }
    expect(neutralized('-neg1')).toBe("'-neg1")
    expect(neutralized("'-neg1")).toBe("''-neg1")
    expect(unneutralized("'plain")).toBe("'plain")
  })
})
