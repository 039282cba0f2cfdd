/**
 * Bulk input that could move the wrong money: a -F/--data value that would replace each row's own value, an
 * NDJSON key given twice, --results naming the input itself (refused, exit 2, nothing sent); and a --results file
 * that fails mid-run (a full disk, /dev/full) ends the run cleanly: exit 7, the outcomes journaled, resumable.
 */
import {linkSync, readFileSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {RowSyntaxError, readRowChunks, type BulkInput, type InputRow} from '../../src/bulk/input.js'
import {tempConfigDir} from '../helpers/cli.js'
import {useSandbox} from '../helpers/command-harness.js'

const h = useSandbox({rateLimits: {writePerMinute: 10_000_000, writePerHour: 100_000_000}})
const byRefPrefix = (prefix: string) => h.requests((e) => e.method === 'POST' && String((e.body as {merchant_reference?: string})?.merchant_reference ?? '').startsWith(prefix))

function file(name: string, text: string): string {
  const path = join(tempConfigDir(), name)
  writeFileSync(path, text)
  return path
}

describe('bulk input refusals (exit 2, nothing sent)', () => {
  it('-F or --data setting a field every row may set (a row\'s amount) is refused, naming the flag to use instead', async () => {
    const rows = file('rows.csv', 'amount,reference,mobile\n1.00,bi-f-1,254712345678\n2.00,bi-f-2,254712345678\n')
    const f = await h.command(['collections', 'create', '--from-file', rows, '--currency', 'KES', '--provider', 'mpesa', '-F', 'amount=999.00'])
    expect(f.code, f.stderr).toBe(2)
    expect(f.stderr).toMatch(/-F sets amount, which every row of --from-file may set: give a default with --amount instead/)
    const d = await h.command(['collections', 'create', '--from-file', rows, '--currency', 'KES', '--provider', 'mpesa', '--data', '{"merchant_reference":"x"}'])
    expect(d.code, d.stderr).toBe(2)
    expect(d.stderr).toMatch(/--data sets merchant_reference, which every row of --from-file may set: give a default with --reference/)
    expect(byRefPrefix('bi-f-')).toHaveLength(0)
    // a flag is a default: each row's own amount is sent
    const ok = await h.command(['collections', 'create', '--from-file', rows, '--currency', 'KES', '--provider', 'mpesa', '--amount', '999.00'])
    expect(ok.code, ok.stderr).toBe(0)
    expect(byRefPrefix('bi-f-').map((e) => (e.body as {amount: string}).amount).sort()).toEqual(['1.00', '2.00'])
  })

  it('an NDJSON key given twice is refused like a CSV column given twice', async () => {
    const rows = file('rows.ndjson', '{"amount":"1.00","reference":"bi-dup-1","mobile":"254712345678"}\n{"amount":"1.00","amount":"900.00","reference":"bi-dup-2","mobile":"254712345678"}\n')
    const r = await h.command(['collections', 'create', '--from-file', rows, '--currency', 'KES', '--provider', 'mpesa'])
    expect(r.code, r.stderr).toBe(2)
    expect(r.stderr).toMatch(/rows\.ndjson:2 \(row\) has the key "amount" twice: keep one/)
    expect(byRefPrefix('bi-dup-')).toHaveLength(0)
    // at any depth; the same key in two objects is no repeat; a key with an escaped quote is one key
    const nested = file('nested.ndjson', '{"a":{"b":1,"b":2}}\n{"a":{"b":1},"c":{"b":2},"u":"http://x:y"}\n{"a\\"b":1,"a\\"b":2}\n')
    const read = []
    for await (const chunk of readRowChunks({path: nested, name: nested, format: 'ndjson', sha256: '', dispose: () => undefined})) for (const r of chunk) read.push(r instanceof RowSyntaxError ? `line ${r.line} ${r.message}` : r)
    expect(read).toEqual(['line 1 has the key "b" twice: keep one', {row: 1, line: 2, values: {a: {b: 1}, c: {b: 2}, u: 'http://x:y'}}, 'line 3 has the key "a\\"b" twice: keep one'])
  })

  it('an NDJSON line nested 200,000 levels deep is a row error, not a stack overflow', async () => {
    const path = file('deep.ndjson', `{"amount":${'['.repeat(200_000)}${']'.repeat(200_000)}}\n`)
    const input: BulkInput = {path, name: path, format: 'ndjson', sha256: '', dispose: () => undefined}
    const rows = []
    for await (const chunk of readRowChunks(input)) rows.push(...chunk)
    expect(rows).toHaveLength(1)
    expect((rows[0] as Error).message).toBe('nests deeper than 32 levels')
  })

  it('--results that is the input itself (same path, a symbolic link, a hard link) is refused', async () => {
    const rows = file('self.csv', 'amount,reference,mobile\n1.00,bi-self-1,254712345678\n')
    const link = join(tempConfigDir(), 'link.csv')
    symlinkSync(rows, link)
    const hard = join(tempConfigDir(), 'hard.csv')
    linkSync(rows, hard)
    for (const results of [rows, link, hard]) {
      const r = await h.command(['collections', 'create', '--from-file', rows, '--currency', 'KES', '--provider', 'mpesa', '--results', results])
      expect(r.code, r.stderr).toBe(2)
      expect(r.stderr).toMatch(/--results is the --from-file input itself/)
    }
    expect(readFileSync(rows, 'utf8')).toBe('amount,reference,mobile\n1.00,bi-self-1,254712345678\n')
    expect(byRefPrefix('bi-self-')).toHaveLength(0)
  })
})

describe('a --results file that fails mid-run', () => {
  it('a full disk (/dev/full): exit 7, no stack trace, the resume said; the re-run resumes every row from the journal', async () => {
    const rows = file('full.csv', `amount,reference,mobile\n${Array.from({length: 5}, (_, i) => `1.00,bi-full-${i},254712345678`).join('\n')}\n`)
    const args = ['collections', 'create', '--from-file', rows, '--currency', 'KES', '--provider', 'mpesa']
    const r = await h.command([...args, '--results', '/dev/full'])
    expect(r.code, r.stderr).toBe(7)
    expect(r.stderr).toMatch(/--results \/dev\/full could not be written \(ENOSPC\); every row's outcome is in the journal/)
    expect(r.stderr).toMatch(/run the same command again: it resumes/)
    expect(r.stderr).not.toMatch(/Unhandled|at .*\.js:\d+/)
    const again = await h.command(args)
    expect(again.code, again.stderr).toBe(0)
    expect(again.stderr).toMatch(/resuming run/)
    // one request per row across both runs: the rows of the first are settled by its journal
    expect(new Set(byRefPrefix('bi-full-').map((e) => (e.body as {merchant_reference: string}).merchant_reference)).size).toBe(5)
    expect(byRefPrefix('bi-full-')).toHaveLength(5)
  })
})

describe('CSV rows and their lines', () => {
  it("each row's line is the one csv-parse's own info option gives its record (quoted line breaks, CR, CRLF, blank lines)", async () => {
    const {parse} = await import('csv-parse/sync')
    const {CSV_OPTIONS} = await import('../../src/bulk/input.js')
    const cells = ['1.00', '"a\nb"', '"c\r\nd"', '"e\rf"', 'g', '" h "', '""']
    const breaks = ['\n', '\r\n', '\r', '\n\n', '\r\n\r\n']
    // enough records to cross the reader's 16 KiB chunks
    let text = 'amount,reference\n'
    for (let i = 0; i < 3000; i++) text += `${cells[i % cells.length]},${cells[(i * 3 + 1) % cells.length]}${breaks[i % breaks.length]}`
    const path = join(tempConfigDir(), 'lines.csv')
    writeFileSync(path, text)
    const expected = (parse(text, {...CSV_OPTIONS, info: true}) as {info: {lines: number}}[]).slice(1).map((r) => r.info.lines)
    const got: number[] = []
    const input: BulkInput = {path, name: path, format: 'csv', sha256: '', dispose: () => undefined}
    for await (const chunk of readRowChunks(input)) for (const r of chunk) got.push('line' in r ? r.line : -1)
    expect(got).toHaveLength(3000)
    expect(got).toEqual(expected)
  })

  it('a plain file (ASCII, no quote, no CR) is read as csv-parse reads it: the same values and lines, whatever the delimiter, blanks and BOM', async () => {
    const {parse} = await import('csv-parse/sync')
    const {CSV_OPTIONS} = await import('../../src/bulk/input.js')
    const cells = ['1.00', ' 2.50', '3 ', '', '  a b  ', 'x', '__proto__', '-', ' ']
    const cases: [string, string][] = []
    for (const delimiter of [',', ';', '\t']) {
      // enough records to cross the reader's 16 KiB chunks; blank lines, a last line without a line break
      let text = ['amount', ' reference ', 'mobile'].join(delimiter) + '\n\n'
      for (let i = 0; i < 2500; i++) text += [0, 1, 2].map((k) => cells[(i * (k + 1) + k) % cells.length]).join(delimiter) + (i % 7 === 0 ? '\n\n' : '\n')
      cases.push([delimiter, text + ['9', 'last', '7'].join(delimiter)])
    }
    cases.push([',', '\ufeffamount,reference\n1.00,bom\n'], [',', '\n\n a , b \n,\n1,2\n'])
    for (const [delimiter, text] of cases) {
      const records = parse(text, {...CSV_OPTIONS, delimiter, info: true}) as {record: string[]; info: {lines: number}}[]
      const header = records[0].record
      const expected = records.slice(1).map(({record, info}) => ({line: info.lines, values: Object.fromEntries(record.map((v, i) => [header[i], v]).filter(([, v]) => v !== ''))}))
      const path = join(tempConfigDir(), 'plain.csv')
      writeFileSync(path, text)
      const input: BulkInput = {path, name: path, format: 'csv', sha256: '', dispose: () => undefined}
      const got: unknown[] = []
      for await (const chunk of readRowChunks(input)) for (const r of chunk) got.push('line' in r && !(r instanceof RowSyntaxError) ? {line: r.line, values: {...r.values}} : r)
      expect(got).toEqual(expected)
      expect(input.headerLine).toBe(records[0].info.lines)
    }
  })

  it('a file that is not plain is read by csv-parse: a row of another length is its error, on its line', async () => {
    for (const text of ['a,b\n1,2\n3\n4,5\n', 'a,b\n1,"2"\n3,4,5\n', 'a,b\r\n1,2\r\n3\r\n', 'a,b\n1,\u00e9\n3\n']) {
      const path = join(tempConfigDir(), 'rows.csv')
      writeFileSync(path, text)
      const input: BulkInput = {path, name: path, format: 'csv', sha256: '', dispose: () => undefined}
      const got: (InputRow | RowSyntaxError)[] = []
      for await (const chunk of readRowChunks(input)) got.push(...chunk)
      const error = got.find((r) => r instanceof RowSyntaxError) as RowSyntaxError | undefined
      expect(error?.message, text).toMatch(/^is not valid CSV: Invalid Record Length: expect 2, got (1|3) on line [34]$/)
    }
  })
})

/**
 * CSV as spreadsheets save it: `;`-separated (Excel where the decimal separator is a comma), tab-separated, headers
 * in another case or with spaces around them. One reader for bulk runs and `pay reconcile`: the delimiter is read
 * from the header line, and column names are matched trimmed and case-insensitive (columnsByInput).
 */
describe('CSV as spreadsheets save it', () => {
  const read = async (path: string) => {
    const got: (InputRow | string)[] = []
    for await (const chunk of readRowChunks({path, name: path, format: 'csv', sha256: '', dispose: () => undefined})) for (const r of chunk) got.push(r instanceof RowSyntaxError ? `line ${r.line} ${r.what} ${r.message}` : r)
    return got
  }

  it('a ;-separated file and a tab-separated one are read by the delimiter of their header line (a , inside quotes stays)', async () => {
    expect(await read(file('semi.csv', '\uFEFFreference;amount;note\r\nxl-1;1200.00;"a, b"\r\nxl-2;3.50;c\r\n'))).toEqual([
      {row: 1, line: 2, values: {reference: 'xl-1', amount: '1200.00', note: 'a, b'}},
      {row: 2, line: 3, values: {reference: 'xl-2', amount: '3.50', note: 'c'}},
    ])
    expect(await read(file('tabs.csv', 'reference\tamount\nxl-3\t5.00\n'))).toEqual([{row: 1, line: 2, values: {reference: 'xl-3', amount: '5.00'}}])
    // a comma-separated file whose quoted header holds a ; is comma-separated
    expect(await read(file('comma.csv', 'reference,"note; more"\nxl-4,x\n'))).toEqual([{row: 1, line: 2, values: {reference: 'xl-4', 'note; more': 'x'}}])
  })

  it('a header line with two delimiters is refused at its line, saying what to do', async () => {
    const path = file('mixed.csv', '\nreference;amount,currency\nxl-5;1,00;KES\n')
    expect(await read(path)).toEqual([`line 2 (header) separates its columns with both "," and ";": pay cannot tell which one the file uses; save it as CSV separated by one of , ; or tab (a spreadsheet's "CSV (comma delimited)")`])
  })

  it('a bulk run reads a ;-separated file whose header has capitals and spaces (--dry-run: checked, nothing sent)', async () => {
    const rows = file('excel.csv', 'Amount ;Reference;MOBILE\n1200.00;xl-b-1;254712345678\n3.50;xl-b-2;254712345678\n')
    const r = await h.command(['collections', 'create', '--from-file', rows, '--currency', 'KES', '--provider', 'mpesa', '--dry-run', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain('"rows":2')
    expect(byRefPrefix('xl-b-')).toHaveLength(0)
  })

  it("an amount with a decimal comma (a ;-separated file's usual spelling) is refused, never read as another amount", async () => {
    const rows = file('comma-amount.csv', 'amount;reference;mobile\n1200,50;xl-c-1;254712345678\n')
    const r = await h.command(['collections', 'create', '--from-file', rows, '--currency', 'KES', '--provider', 'mpesa'])
    expect(r.code, r.stderr).toBe(2)
    expect(r.stderr).toMatch(/comma-amount\.csv:2 .*--amount/)
    expect(byRefPrefix('xl-c-')).toHaveLength(0)
  })
})
