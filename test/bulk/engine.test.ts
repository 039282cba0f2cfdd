/**
 * The bulk engine's parts, in-process: keys, the adaptive rate, the field-list adapter, the readers, money totals; and
 * what a run asks of a scripted service before it sends (nothing, until every check passed and the run was confirmed).
 */
import {appendFileSync, existsSync, readFileSync, statSync, utimesSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {rowKey, splitUrl} from '../../src/bulk/engine.js'
import {RowSyntaxError, openInput, readRowChunks, type BulkInput} from '../../src/bulk/input.js'
import {specOperation} from '../../src/bulk/operation.js'
import {operations} from '../../src/api/operations.js'
import {AdaptiveRate} from '../../src/bulk/rate.js'
import {MoneyTotals} from '../../src/bulk/report.js'
import {RowSpool, type SpooledRow} from '../../src/bulk/spool.js'
import {type RowOutcome, RunJournal, RunLineage, resumedSalt} from '../../src/journal/run-journal.js'
import {JournalStore} from '../../src/journal/store.js'
import {AcceptedRows} from '../../src/bulk/references.js'
import {tempConfigDir} from '../helpers/cli.js'
import {runCommand} from '../helpers/in-process.js'
import {TEST_CLIENT_ID, TEST_CLIENT_SECRET, useScriptedServer} from '../helpers/scripted-server.js'

describe('row keys', () => {
  it('are UUID-shaped, derived from scope, exact body bytes and occurrence only', () => {
    const k = rowKey('scope-a', '{"amount":"1.00"}', 1)
    expect(k).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(rowKey('scope-a', '{"amount":"1.00"}', 1)).toBe(k)
    expect(rowKey('scope-a', '{"amount":"1.00"}', 2)).not.toBe(k)
    expect(rowKey('scope-a', '{"amount":"1.01"}', 1)).not.toBe(k)
    expect(rowKey('scope-b', '{"amount":"1.00"}', 1)).not.toBe(k)
  })
})

describe('AdaptiveRate', () => {
  it('holds at most `limit` in flight; a 429 halves the limit and pauses everyone; successes raise it again', async () => {
    const rate = new AdaptiveRate(4)
    for (let i = 0; i < 4; i++) await rate.acquire()
    let fifth = false
    const waiting = rate.acquire().then(() => (fifth = true))
    await new Promise((r) => setTimeout(r, 20))
    expect(fifth).toBe(false)
    rate.release()
    await waiting
    expect(fifth).toBe(true)

    rate.throttle(150)
    expect(rate.limit).toBe(2)
    for (let i = 0; i < 4; i++) rate.release()
    const started = Date.now()
    await rate.acquire()
    expect(Date.now() - started).toBeGreaterThanOrEqual(100) // waited out the pause (lower bound only)
    rate.release()
    for (let i = 0; i < 2 + 3; i++) rate.ok()
    expect(rate.limit).toBe(4)
    expect(rate.throttled).toBe(1)
  })
})

const collection = specOperation(operations['collections:create'])
const problems = (r: Record<string, unknown>) => collection.request(r).problems

describe('a bulk operation from the operation spec', () => {
  it('accepts flag names and the spec field names as columns; others are problems', () => {
    expect(collection.columns).toContain('reference')
    expect(problems({amount: '10.00', currency: 'kes', merchant_reference: 'r', mobile: '254712345678', provider: 'mpesa'})).toEqual([])
    expect(problems({amount: '10.00', currency: 'kes', reference: 'r', mobile: '254712345678', provider: 'mpesa', colour: 'blue'})).toEqual([{flag: 'column "colour"', rule: expect.stringMatching(/is not an input of `pay collections create`/)}])
  })

  it('validates with the single command rules, naming flags; NDJSON numbers are refused (amounts stay exact)', () => {
    expect(problems({amount: 'ten', currency: 'KES', reference: 'r', mobile: '254712345678', provider: 'mpesa'}).map((p) => p.flag)).toEqual(['--amount'])
    expect(problems({amount: 10.5, currency: 'KES', reference: 'r', mobile: '254712345678', provider: 'mpesa'})).toContainEqual({flag: 'column "amount"', rule: expect.stringMatching(/must be a string/)})
  })

  it('builds the same body bytes whatever the column order', () => {
    const a = collection.request({reference: 'r', amount: '1.00', provider: 'mpesa', mobile: '254712345678', currency: 'kes'}).input
    const b = collection.request({currency: 'KES', mobile: '254712345678', amount: '1.00', reference: 'r', provider: 'mpesa'}).input
    expect(JSON.stringify(a.body)).toBe(JSON.stringify(b.body))
    expect(JSON.stringify(a.body)).toBe('{"amount":"1.00","currency":"KES","merchant_reference":"r","mobile":"254712345678","provider":"mpesa"}')
  })
})

/** The rows of an input, in file order, one list (the reader gives them a chunk at a time). */
async function* readRows(input: BulkInput) {
  for await (const chunk of readRowChunks(input)) yield* chunk
}

describe('readers', () => {
  it('CSV: BOM, blank lines and the line of each row; NDJSON: each broken line reported, reading goes on', async () => {
    const dir = tempConfigDir()
    writeFileSync(join(dir, 'a.csv'), '\ufeffamount,reference\n1.00,a\n\n2.00,b\n')
    const rows = []
    for await (const r of readRows(await openInput(join(dir, 'a.csv'), undefined, dir))) rows.push(r)
    expect(rows).toEqual([{row: 1, line: 2, values: {amount: '1.00', reference: 'a'}}, {row: 2, line: 4, values: {amount: '2.00', reference: 'b'}}])

    writeFileSync(join(dir, 'b.ndjson'), '{"amount":"1.00"}\nnot json\n[1]\n{"amount":"2.00","reference":null}\n')
    const nd = []
    for await (const r of readRows(await openInput(join(dir, 'b.ndjson'), undefined, dir))) nd.push(r instanceof RowSyntaxError ? `line ${r.line} ${r.message}` : r)
    expect(nd).toEqual([{row: 1, line: 1, values: {amount: '1.00'}}, 'line 2 is not valid JSON', 'line 3 must be a JSON object', {row: 2, line: 4, values: {amount: '2.00'}}])
  })

  it('CSV: a record of the wrong length, a quote never closed, no line break at the end, CRLF, a repeated column, a column named __proto__', async () => {
    const dir = tempConfigDir()
    const read = async (name: string, text: string) => {
      writeFileSync(join(dir, name), text)
      const out = []
      for await (const r of readRows(await openInput(join(dir, name), undefined, dir))) out.push(r instanceof RowSyntaxError ? `line ${r.line} ${r.message}` : r)
      return out
    }
    expect(await read('short.csv', 'amount,reference\n1.00,a\n2.00\n3.00,c\n')).toEqual([{row: 1, line: 2, values: {amount: '1.00', reference: 'a'}}, expect.stringMatching(/^line 3 is not valid CSV: .*Invalid Record Length/)])
    expect(await read('quote.csv', 'amount,reference\n1.00,a\n2.00,"b\n')).toEqual([{row: 1, line: 2, values: {amount: '1.00', reference: 'a'}}, expect.stringMatching(/^line \d+ is not valid CSV: .*Quote Not Closed/)])
    expect(await read('crlf.csv', 'amount , reference\r\n 1.00 ,"a,b"\r\n2.00,b')).toEqual([{row: 1, line: 2, values: {amount: '1.00', reference: 'a,b'}}, {row: 2, line: 3, values: {amount: '2.00', reference: 'b'}}])
    // a quoted value over two lines: the row's line is where it ends
    expect(await read('multiline.csv', 'amount,reference\n1.00,"a\nb"\n\n2.00,c\n')).toEqual([{row: 1, line: 3, values: {amount: '1.00', reference: 'a\nb'}}, {row: 2, line: 5, values: {amount: '2.00', reference: 'c'}}])
    // line endings mixed (a file saved by two editors): each of CRLF, LF and CR ends a row, and counts one line
    const mixed = [{row: 1, line: 2, values: {amount: '1.00', reference: 'a'}}, {row: 2, line: 3, values: {amount: '2.00', reference: 'b'}}]
    expect(await read('lf-then-crlf.csv', 'amount,reference\n1.00,a\r\n2.00,b\r\n')).toEqual(mixed)
    expect(await read('crlf-then-lf.csv', 'amount,reference\r\n1.00,a\n2.00,b\n')).toEqual(mixed)
    expect(await read('cr.csv', 'amount,reference\r1.00,a\r2.00,b')).toEqual(mixed)
    // a CR or CRLF inside quotes stays in the value (csv-parse counts it as a line of its own: the line shown is then one too far)
    expect(await read('quoted-cr.csv', 'amount,reference\n1.00,"a\rb"\n2.00,"c\r\nd"\n')).toEqual([{row: 1, line: expect.any(Number), values: {amount: '1.00', reference: 'a\rb'}}, {row: 2, line: expect.any(Number), values: {amount: '2.00', reference: 'c\r\nd'}}])
    // a repeated column: refused at its header line, before any row (which value counts is no rule a spreadsheet shows)
    expect(await read('repeat.csv', 'amount,amount,reference\n1.00,2.00,a\n1.00,,b\n')).toEqual(['line 1 has the column "amount" twice: keep one'])
    expect(await read('repeat-trimmed.csv', 'amount, reference ,reference\n1.00,a,b')).toEqual(['line 1 has the column "reference" twice: keep one'])
    const [proto] = (await read('proto.csv', 'amount,__proto__\n1.00,x\n')) as {values: Record<string, unknown>}[]
    expect(Object.keys(proto.values)).toEqual(['amount', '__proto__'])
    expect(Object.getPrototypeOf(proto.values)).toBe(Object.prototype)
    // many rows: several chunks of the file, every row once, in order, with its line
    for (const eol of ['\n', '\r\n']) {
      const many = ['amount,reference', ...Array.from({length: 20_000}, (_, i) => `${i + 1}.00,ref-${i + 1}`)].join(eol)
      const rows = (await read('many.csv', many)) as {row: number; line: number; values: Record<string, unknown>}[]
      expect(rows.length).toBe(20_000)
      expect(rows.every((r, i) => r.row === i + 1 && r.line === i + 2 && r.values.reference === `ref-${i + 1}`)).toBe(true)
    }
  })

  it('the format from --format or the extension, else a clear error', async () => {
    const dir = tempConfigDir()
    const formatOf = async (name: string, format: string | undefined) => {
      writeFileSync(join(dir, name), '')
      return (await openInput(join(dir, name), format, dir)).format
    }
    expect(await formatOf('x.CSV', undefined)).toBe('csv')
    expect(await formatOf('x.jsonl', undefined)).toBe('ndjson')
    expect(await formatOf('x.ndjson', undefined)).toBe('ndjson')
    expect(await formatOf('x.txt', 'ndjson')).toBe('ndjson')
    expect(await formatOf('x.csv', 'ndjson')).toBe('ndjson')
    await expect(formatOf('x.txt', undefined)).rejects.toThrow(/--format is required: cannot tell the format/)
    await expect(formatOf('x.csv', 'xml')).rejects.toThrow(/--format must be csv or ndjson/)
  })
})

it('money totals are exact decimal strings per currency', () => {
  const m = new MoneyTotals()
  for (let i = 0; i < 10; i++) m.add('0.10', 'KES')
  m.add('0.20', 'KES')
  m.add('1500', 'UGX')
  m.add(null, 'KES')
  m.add('not money', 'TZS')
  expect(m.toJSON()).toEqual({KES: '1.20', UGX: '1500.00'})
  // many distinct amounts (the counts are added up along the way), and totals asked for twice
  const many = new MoneyTotals()
  let cents = 0n
  for (let i = 1; i <= 20_000; i++) {
    const amount = `${i % 9000}.${String(i % 100).padStart(2, '0')}`
    many.add(amount, i % 2 ? 'KES' : 'UGX')
    if (i % 2) cents += BigInt(i % 9000) * 100n + BigInt(i % 100)
  }
  expect(many.toJSON().KES).toBe(`${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`)
  many.add('0.01', 'KES')
  cents += 1n
  expect(many.toJSON().KES).toBe(`${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`)
})

describe('the spool of rows ready to send', () => {
  it('gives back every row in order, exact body bytes included, from a 0600 file that dispose removes', async () => {
    const dir = tempConfigDir()
    const spool = new RowSpool(dir)
    const rows: SpooledRow[] = []
    // enough rows to cross several write and read chunks; bodies with quotes, newlines and non-ASCII
    // and the bodies that stay in the row's JSON: none, and one with a raw line break or tab (not JSON.stringify's)
    for (let i = 1; i <= 3000; i++) {
      let body: string | undefined = JSON.stringify({amount: `${i}.00`, currency: 'KES', merchant_reference: `ref-${i}`, note: i % 7 === 0 ? 'line\nbreak\t"quoted" ünïcødé 😀' : 'x'.repeat(i % 50)})
      if (i % 11 === 0) body = undefined
      if (i % 13 === 0) body = `{"raw":\n"line\tbreak"}`
      rows.push({row: i, line: i + 1, endpoint: 'collections.create', target: '/v1/collections', body, key: `key-${i}`, reference: `ref-${i}`, amount: `${i}.00`, currency: 'KES'})
    }
    for (const r of rows) spool.add(r)
    spool.close()
    expect(spool.count).toBe(3000)
    expect(statSync(spool.path).mode & 0o777).toBe(0o600)
    const back: SpooledRow[] = []
    for await (const r of spool.rows()) back.push(r)
    expect(back).toEqual(rows)
    expect(back.filter((r) => r.body === undefined)).toHaveLength(rows.filter((r) => r.body === undefined).length)
    expect(readFileSync(spool.path, 'utf8').split('\n').length).toBe(3001)
    spool.dispose()
    expect(existsSync(spool.path)).toBe(false)
  })

  it('an empty spool reads as no rows', async () => {
    const spool = new RowSpool(tempConfigDir())
    spool.close()
    const back: SpooledRow[] = []
    for await (const r of spool.rows()) back.push(r)
    expect(back).toEqual([])
    spool.dispose()
  })
})

describe('splitUrl', () => {
  it('keeps the origin (user info included) apart from the path and query, which alone are spooled', () => {
    expect(splitUrl('http://u:pw@127.0.0.1:4010/v1/mandates/MD_1/cancel?x=1')).toEqual({origin: 'http://u:pw@127.0.0.1:4010', target: '/v1/mandates/MD_1/cancel?x=1'})
    expect(splitUrl('https://api.example.com/base/v1/collections')).toEqual({origin: 'https://api.example.com', target: '/base/v1/collections'})
  })
})

describe("the client's URL of each row", () => {
  it('is the URL parser\'s, whether kept from the row before or not: a query, another path, another base URL', async () => {
    const {ApiClient} = await import('../../src/client/api-client.js')
    const settings = {baseUrl: 'http://127.0.0.1:9/', clientId: 'c', clientSecret: 's'}
    const client = new ApiClient({settings, userAgent: 'test'})
    const url = (id: 'collections.create' | 'collections.getByReference' | 'mandates.cancel', input: object) => client.prepare(id, input).url
    expect(url('collections.create', {body: {}})).toBe('http://127.0.0.1:9/v1/collections')
    expect(url('collections.create', {body: {}})).toBe('http://127.0.0.1:9/v1/collections')
    expect(url('collections.getByReference', {query: {merchant_reference: 'a b', other: undefined}})).toBe('http://127.0.0.1:9/v1/collections?merchant_reference=a+b')
    expect(url('collections.getByReference', {query: {other: undefined}})).toBe('http://127.0.0.1:9/v1/collections')
    expect(url('mandates.cancel', {path: {mandate_id: 'm 1'}})).toBe('http://127.0.0.1:9/v1/mandates/m%201/cancel')
    expect(url('mandates.cancel', {path: {mandate_id: 'm2'}})).toBe('http://127.0.0.1:9/v1/mandates/m2/cancel')
    settings.baseUrl = 'http://localhost:9'
    expect(url('collections.create', {body: {}})).toBe('http://localhost:9/v1/collections')
    // a dot segment never reaches a URL (it would move the request: /v1/mandates/../cancel is /v1/cancel)
    for (const id of ['.', '..']) expect(() => url('mandates.cancel', {path: {mandate_id: id}})).toThrow(/must not be "\." or "\.\."/)
    expect(url('mandates.cancel', {path: {mandate_id: '...'}})).toBe('http://localhost:9/v1/mandates/.../cancel')
  })
})

describe('the lineage of a file: the salt of its newest run, across edits', () => {
  const at = (day: number) => `2026-01-0${day}T00:00:00.000Z`

  it('names the newest run (the last whole line); a torn or foreign line is skipped; lineages do not mix', () => {
    const store = new JournalStore(tempConfigDir())
    const a = new RunLineage(store, 'a'.repeat(32))
    expect(a.newest()).toBeUndefined()
    a.record({t: 'lineage', run: 'r1', at: at(1), salt: ''})
    a.record({t: 'lineage', run: 'r2', at: at(2), salt: 'salt-2'})
    appendFileSync(a.file, '{"t":"row","row":1}\n{"t":"lineage","run":"r3","at":"2026-01-03T0') // a crash mid-write
    expect(a.newest()).toEqual({t: 'lineage', run: 'r2', at: at(2), salt: 'salt-2'})
    expect(new RunLineage(store, 'b'.repeat(32)).newest()).toBeUndefined()
    expect(statSync(a.file).mode & 0o777).toBe(0o600)
  })

  it("a content run before resumes its own newest salt; a content never run (an edited file) its lineage's", () => {
    const lineage = {t: 'lineage' as const, run: 'r-lineage', at: at(2), salt: 'forced'}
    expect(resumedSalt({salt: '', ran: false}, undefined)).toEqual({salt: ''})
    expect(resumedSalt({salt: '', ran: false}, lineage)).toEqual({salt: 'forced', run: 'r-lineage'})
    expect(resumedSalt({salt: '', ran: false}, {...lineage, salt: ''})).toEqual({salt: '', run: 'r-lineage'})
    expect(resumedSalt({salt: 'own', ran: true}, undefined)).toEqual({salt: 'own'})
    expect(resumedSalt({salt: 'own', ran: true}, lineage)).toEqual({salt: 'own'})
    expect(resumedSalt({salt: '', ran: true}, lineage)).toEqual({salt: ''})
  })

  it("the run journal gives the newest header's salt, and whether any run of the content began", async () => {
    const store = new JournalStore(tempConfigDir())
    const journal = new RunJournal(store, 'c'.repeat(32))
    const none = await journal.load()
    expect(none).toMatchObject({salt: '', ran: false})
    expect(await none.outcomes.count()).toBe(0)
    const header = {t: 'run' as const, run: 'c'.repeat(32), operation: 'collections:create', file: 'x.csv', file_sha256: 'f', profile: 'p', base_url: 'http://127.0.0.1'}
    journal.begin({...header, at: at(1), salt: 'one'})
    journal.begin({...header, at: at(2), salt: ''})
    await journal.end()
    expect(await journal.load()).toMatchObject({salt: '', ran: true})
  })

  it('is pruned with the run files after the retention', () => {
    const dir = tempConfigDir()
    const store = new JournalStore(dir)
    const old = new RunLineage(store, 'd'.repeat(32))
    const recent = new RunLineage(store, 'e'.repeat(32))
    old.record({t: 'lineage', run: 'r', at: at(1), salt: 's'})
    recent.record({t: 'lineage', run: 'r', at: at(1), salt: 's'})
    const eightDaysAgo = (Date.now() - 8 * 86_400_000) / 1000
    utimesSync(old.file, eightDaysAgo, eightDaysAgo)
    // the next pruning (stores prune at most every few hours)
    const next = new JournalStore(dir, {now: () => Date.now() + 7 * 3_600_000})
    expect(next.open()).toBe(true)
    expect(existsSync(old.file)).toBe(false)
    expect(new RunLineage(next, 'e'.repeat(32)).newest()?.salt).toBe('s')
  })
})

describe('the client secret goes out only for a run that will send', () => {
  const server = useScriptedServer()
  const HEADER = 'amount,currency,reference,mobile,provider\n'
  const env = (dir: string) => ({PAY_CONFIG_DIR: dir, PAY_BASE_URL: server.url, PAY_CLIENT_ID: TEST_CLIENT_ID, PAY_CLIENT_SECRET: TEST_CLIENT_SECRET, NO_COLOR: '1'})
  const liveProfile = (dir: string) =>
    writeFileSync(join(dir, 'profiles.json'), JSON.stringify({active: 'prod', profiles: {prod: {base_url: server.url, client_id: TEST_CLIENT_ID, client_secret: TEST_CLIENT_SECRET, live: true}}}), {mode: 0o600})

  it('a file with a bad row: exit 2, nothing asked of the service (no token request)', async () => {
    const dir = tempConfigDir()
    const file = join(dir, 'rows.csv')
    writeFileSync(file, `${HEADER}10.00,KES,tk-1,254700000001,mpesa\nNOT-A-NUMBER,KES,tk-2,254700000002,mpesa\n`)
    const r = await runCommand(['payouts', 'create', '--from-file', file], {env: env(dir)})
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('nothing was sent')
    expect(server.requests).toEqual([])
  })

  it('a row whose reference an earlier run accepted under another key: exit 5, no token request', async () => {
    const dir = tempConfigDir()
    const store = new JournalStore(join(dir, 'state'))
    store.open()
    const earlier = new AcceptedRows(store, (endpoint) => ({endpoint, baseUrl: server.url, clientId: TEST_CLIENT_ID}), 'r'.repeat(32), 'old.csv')
    earlier.add({endpoint: 'payouts.create', reference: 'tk-9', key: 'another-key', line: 2} as SpooledRow, {outcome: 'accepted', id: 'PO_1', state: 'processing'} as RowOutcome)
    earlier.end()
    const file = join(dir, 'rows.csv')
    writeFileSync(file, `${HEADER}10.00,KES,tk-9,254700000001,mpesa\n`)
    const r = await runCommand(['payouts', 'create', '--from-file', file], {env: env(dir)})
    expect(r.stderr).toContain('old.csv')
    expect(r.code).toBe(5)
    expect(server.requests).toEqual([])
  })

  it('a live profile with no one to confirm: exit 2, no token request; confirmed (--yes): the token, then the row', async () => {
    const dir = tempConfigDir()
    liveProfile(dir)
    const file = join(dir, 'rows.csv')
    writeFileSync(file, `${HEADER}10.00,KES,tk-live-1,254700000001,mpesa\n`)
    const refused = await runCommand(['payouts', 'create', '--from-file', file, '--no-input'], {env: {PAY_CONFIG_DIR: dir, NO_COLOR: '1'}})
    expect(refused.stderr).toContain('LIVE profile "prod"')
    expect(refused.code).toBe(2)
    expect(server.requests).toEqual([])
    const sent = await runCommand(['payouts', 'create', '--from-file', file, '--no-input', '--yes'], {env: {PAY_CONFIG_DIR: dir, NO_COLOR: '1'}})
    expect(server.requests.map((q) => `${q.method} ${q.path}`)).toEqual(['POST /v1/oauth/token', 'POST /v1/payouts'])
    expect(sent.stderr).not.toContain('LIVE profile')
  })
})
