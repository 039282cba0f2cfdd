/**
 * Output formats, --fields, --no-header and --jq, on a single object and on a list: resource commands run
 * in-process against the sandbox (test/helpers/in-process.ts applies the output flags the way the base command
 * does); the pipeline itself (src/output/structured.ts) is tested on values.
 */
import {parse as parseYaml} from 'yaml'
import {describe, expect, it} from 'vitest'
import {outputOptions} from '../../src/output/options.js'
import {loadLibraries, StructuredWriter} from '../../src/output/structured.js'
import {useSandbox} from '../helpers/command-harness.js'

const h = useSandbox()
const JANE = 'MC_ACME0001'
const lines = (s: string) => s.split('\n').filter((l) => l !== '')

describe('formats on a single object (customers get)', () => {
  it('json is the body as received; yaml parses back to it', async () => {
    const j = await h.run(['customers', 'get', JANE, '-o', 'json'])
    expect(j.code, j.stderr).toBe(0)
    const body = JSON.parse(j.stdout)
    expect(body).toMatchObject({id: JANE, name: 'Jane Wanjiku'})
    const y = await h.run(['customers', 'get', JANE, '-o', 'yaml'])
    expect(y.code, y.stderr).toBe(0)
    expect(parseYaml(y.stdout)).toEqual(body)
    expect(y.stdout).toContain('mobile: "254712345678"') // a string stays a string
  })

  it('ndjson is one line; csv and tsv are a header and one row', async () => {
    const n = await h.run(['customers', 'get', JANE, '-o', 'ndjson'])
    expect(lines(n.stdout)).toHaveLength(1)
    expect(JSON.parse(n.stdout).id).toBe(JANE)
    const c = await h.run(['customers', 'get', JANE, '-o', 'csv', '--fields', 'id,name,email'])
    expect(c.stdout).toBe('id,name,email\r\nMC_ACME0001,Jane Wanjiku,jane@example.com\r\n')
    const t = await h.run(['customers', 'get', JANE, '-o', 'tsv', '--fields', 'id,name', '--no-header'])
    expect(t.stdout).toBe('MC_ACME0001\tJane Wanjiku\n')
  })

  it('--fields picks keys in json (missing ones null) and rows in the table', async () => {
    const j = await h.run(['customers', 'get', JANE, '--json', '--fields', 'id,email,nope.deep'])
    expect(JSON.parse(j.stdout)).toEqual({id: JANE, email: 'jane@example.com', nope: {deep: null}})
    const t = await h.run(['customers', 'get', JANE, '--fields', 'name,id'])
    expect(t.stdout).toBe('name\tJane Wanjiku\nid\tMC_ACME0001\n')
  })
})

describe('formats on a list (customers collections)', () => {
  it('ndjson: one collection per line; csv: RFC 4180 with CRLF and a header', async () => {
    const n = await h.run(['customers', 'collections', JANE, '--per-page', '5', '-o', 'ndjson'])
    expect(lines(n.stdout)).toHaveLength(5)
    expect(lines(n.stdout).map((l) => JSON.parse(l).object)).toEqual(Array(5).fill('collection'))
    const c = await h.run(['customers', 'collections', JANE, '--per-page', '3', '-o', 'csv', '--fields', 'id,amount,currency,status'])
    const rows = c.stdout.split('\r\n')
    expect(rows[0]).toBe('id,amount,currency,status')
    expect(rows.slice(1, 4).every((r) => /^CL_\w+,250\.00,KES,\w+$/.test(r))).toBe(true)
  })

  it('--all streams every page: 47 rows in csv (one header), 47 lines of ndjson; --limit stops early', async () => {
    const c = await h.run(['customers', 'collections', JANE, '--all', '--per-page', '10', '-o', 'csv', '--fields', 'id'])
    const rows = c.stdout.trim().split('\r\n')
    expect(rows[0]).toBe('id')
    expect(new Set(rows.slice(1)).size).toBe(47)
    const n = await h.run(['customers', 'collections', JANE, '--all', '--per-page', '10', '-o', 'ndjson', '--fields', 'id'])
    expect(lines(n.stdout)).toHaveLength(47)
    const l = await h.run(['customers', 'collections', JANE, '--limit', '12', '--per-page', '10', '-o', 'ndjson'])
    expect(lines(l.stdout)).toHaveLength(12)
    const p = await h.run(['plans', 'list', '--limit', '1', '-o', 'ndjson'])
    expect(lines(p.stdout)).toHaveLength(1)
  })

  it('table: --fields are the columns, --no-header drops the header', async () => {
    const t = await h.run(['metadata', 'banks', '--fields', 'bank_code', '--no-header'])
    expect(lines(t.stdout).every((l) => /^\w+$/.test(l))).toBe(true)
  })
})

describe('--jq (gh-style examples from the README)', () => {
  it('plain values print raw, objects as compact JSON', async () => {
    const ids = await h.run(['customers', 'collections', JANE, '--per-page', '3', '--jq', '.data[].id'])
    expect(lines(ids.stdout)).toHaveLength(3)
    expect(ids.stdout).toMatch(/^CL_\w+\n/)
    const email = await h.run(['customers', 'get', JANE, '--jq', '.email'])
    expect(email.stdout).toBe('jane@example.com\n')
    const objs = await h.run(['metadata', 'banks', '--jq', '.data[] | select(.bank_name | test("KCB")) | {code: .bank_code}'])
    expect(JSON.parse(lines(objs.stdout)[0])).toHaveProperty('code')
    const count = await h.run(['customers', 'collections', JANE, '--all', '--per-page', '20', '--jq', '.data | length'])
    expect(lines(count.stdout).map(Number).reduce((a, b) => a + b, 0)).toBe(47) // per page, like gh --paginate --jq
    const tsv = await h.run(['plans', 'list', '--jq', '.data[] | [.plan_id, .amount] | @tsv'])
    expect(tsv.stdout).toMatch(/^PLN_\w+\t[\d.]+\n/)
  })

  it('one rule for strings: raw with or without --json (and -o json); other values as JSON; an error envelope under --json', async () => {
    const runs = await Promise.all([[], ['--json'], ['-o', 'json']].map((extra) => h.run(['customers', 'get', JANE, ...extra, '--jq', '.email'])))
    for (const r of runs) expect(r.stdout).toBe('jane@example.com\n')
    const [obj, yaml] = await Promise.all([h.run(['customers', 'get', JANE, '--json', '--jq', '{email}']), h.run(['customers', 'get', JANE, '-o', 'yaml', '--jq', '.email'])])
    expect(JSON.parse(obj.stdout)).toEqual({email: 'jane@example.com'})
    expect(yaml.stdout).toBe('jane@example.com\n')
    const missing = await h.run(['customers', 'get', 'MC_NOSUCH', '--json', '--jq', '.email'])
    expect(missing.code).toBe(4)
    expect(JSON.parse(missing.stdout)).toMatchObject({error: {code: 'not_found'}})
  })

  it('--jq with -o: jq first, then the format', async () => {
    const c = await h.run(['customers', 'collections', JANE, '--per-page', '2', '--jq', '[.data[] | {id, amount}]', '-o', 'csv'])
    expect(c.stdout.split('\r\n')[0]).toBe('id,amount')
  })

  it('a program that does not compile exits 2 before any request', async () => {
    const before = h.requests().length
    const r = await h.run(['customers', 'get', JANE, '--jq', '.data['])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/--jq does not compile: syntax error/)
    expect(r.stdout).toBe('')
    expect(h.requests().length).toBe(before)
  })

  it('a jq error at run time exits 1 with jq\'s message', async () => {
    const r = await h.run(['customers', 'get', JANE, '--jq', '.name | error("stop")'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('--jq: stop')
  })
})

describe('bad output flags exit 2 and send nothing', () => {
  it('--json with another -o, empty --fields', async () => {
    const before = h.requests().length
    expect((await h.run(['customers', 'get', JANE, '--json', '-o', 'csv'])).code).toBe(2)
    expect((await h.run(['customers', 'get', JANE, '--fields', ','])).code).toBe(2)
    expect((await h.run(['customers', 'get', JANE, '-o', 'xml'])).code).toBe(2)
    expect(h.requests().length).toBe(before)
  })
})

describe('the pipeline on values (src/output/structured.ts)', () => {
  async function render(flags: Parameters<typeof outputOptions>[0], ...docs: unknown[]): Promise<string> {
    const {options} = outputOptions(flags)
    let text = ''
    const w = new StructuredWriter(options, await loadLibraries(options), (t) => (text += t.endsWith('\n') ? t : `${t}\n`))
    for (const d of docs) w.document(JSON.stringify(d))
    return text
  }

  it('csv quotes commas, quotes and line breaks (RFC 4180); nested objects become dot-path columns', async () => {
    const text = await render({output: 'csv'}, {object: 'list', data: [{id: 'a', note: 'x, "y"\nz', customer: {name: 'N'}}], has_more: false})
    expect(text).toBe('id,note,customer.name\r\na,"x, ""y""\nz",N\r\n')
  })

  it('tsv escapes tabs and line breaks; the header is written once across pages', async () => {
    const page = (id: string) => ({object: 'list', data: [{id, v: 'a\tb\nc'}], has_more: true})
    expect(await render({output: 'tsv'}, page('1'), page('2'))).toBe('id\tv\n1\ta\\tb\\nc\n2\ta\\tb\\nc\n')
  })

  it('yaml separates documents; ndjson splits arrays', async () => {
    expect(await render({output: 'yaml'}, {a: 1}, {a: 2})).toBe('a: 1\n---\na: 2\n')
    expect(await render({output: 'ndjson'}, [{a: 1}, {a: 2}])).toBe('{"a":1}\n{"a":2}\n')
  })
})

describe('formula cells in csv and tsv (OWASP: prefixed with \')', () => {
  const hostile = {a: '=HYPERLINK("http://x","y")', b: '+1+1', c: '-2+3', d: '@SUM(A1)', e: '\tx', f: 'plain', g: '1.00'}
  async function written(format: 'csv' | 'tsv', raw: boolean): Promise<string> {
    const {options} = outputOptions({output: format, 'raw-csv': raw})
    let text = ''
    // each write is one line (Output.data ends it); csv lines end in CRLF already
    new StructuredWriter(options, await loadLibraries(options), (t) => (text += format === 'tsv' ? `${t}\n` : t)).document(JSON.stringify({data: [hostile], has_more: false}))
    return text
  }

  it('-o csv and -o tsv neutralise cells that start with = + - @ or a tab; --raw-csv writes them as they are', async () => {
    const csv = (await written('csv', false)).split('\r\n')
    expect(csv[1]).toBe(`"'=HYPERLINK(""http://x"",""y"")",'+1+1,'-2+3,'@SUM(A1),'\tx,plain,1.00`)
    const tsv = (await written('tsv', false)).split('\n')
    expect(tsv[1]).toBe("'=HYPERLINK(\"http://x\",\"y\")\t'+1+1\t'-2+3\t'@SUM(A1)\t'\\tx\tplain\t1.00")
    expect((await written('csv', true)).split('\r\n')[1]).toBe(`"=HYPERLINK(""http://x"",""y"")",+1+1,-2+3,@SUM(A1),\tx,plain,1.00`)
  })

  it('--results FILE.csv of a bulk run neutralises its cells too (a reference or a service message), unless --raw-csv', async () => {
    const {ResultSink} = await import('../../src/bulk/report.js')
    const {Output} = await import('../../src/output/output.js')
    const {readFileSync} = await import('node:fs')
    const {join} = await import('node:path')
    const {tempConfigDir} = await import('../helpers/cli.js')
    const {PassThrough} = await import('node:stream')
    const term = {stdoutIsTTY: false, stderrIsTTY: false, stdinIsTTY: false, color: false, colorErr: false, interactive: false, columns: 100}
    const outcome = {row: 1, line: 2, reference: '=cmd|" /C calc"!A0', status: 'failed' as const, http_status: 400, id: null, state: null, error_code: 'invalid_parameter', error_message: '@evil', idempotency_key: 'k', amount: '1.00', currency: 'KES'}
    for (const raw of [false, true]) {
      const file = join(tempConfigDir(), 'results.csv')
      const sink = await ResultSink.open(new Output(term, {format: 'table', rawCsv: raw}, new PassThrough(), new PassThrough()), file)
      sink.write(outcome)
      await sink.close()
      const row = readFileSync(file, 'utf8').split('\n')[1]
      expect(row).toContain(raw ? '"=cmd|"" /C calc""!A0"' : `"'=cmd|"" /C calc""!A0"`)
      expect(row).toContain(raw ? ',@evil,' : ",'@evil,")
    }
  })
})
