/**
 * The reference index in-process: where an accepted bulk row's reference is written, what a single command's lookup
 * finds, and what pruning drops.
 */
import {existsSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {JournalStore} from '../../src/journal/store.js'
import {ReferenceIndex, bucketOf, describeAccepted, namesIn, sharesPromise} from '../../src/journal/references.js'
import {AcceptedRows} from '../../src/bulk/references.js'
import type {SpooledRow} from '../../src/bulk/spool.js'
import type {RowOutcome} from '../../src/journal/run-journal.js'
import {PayError} from '../../src/base/errors.js'
import {tempConfigDir} from '../helpers/cli.js'
import {SCOPE, accepted, writeAccepted} from '../helpers/reference-index.js'

describe('the reference index', () => {
  it('asks for a directory\'s names without an error when there is none (namesIn)', () => {
    const dir = tempConfigDir()
    expect(namesIn(join(dir, 'references'))).toBeUndefined()
    mkdirSync(join(dir, 'references'))
    expect(namesIn(join(dir, 'references'))).toEqual([])
    writeFileSync(join(dir, 'references', 'a'), '')
    expect(namesIn(join(dir, 'references'))).toEqual(['a'])
    expect(() => namesIn(join(dir, 'references', 'a'))).toThrow(expect.objectContaining({code: 'ENOTDIR'}))
  })

  it('written in batches by bucket and day; a lookup finds a reference among others, of its service only', () => {
    const store = new JournalStore(tempConfigDir())
    store.open()
    const index = new ReferenceIndex(store, SCOPE)
    expect(index.exists()).toBe(false)
    expect(index.lookup('a-1')).toEqual([])
    writeAccepted(store, [...Array.from({length: 100}, (_, i) => accepted(`a-${i}`, `k-${i}`)), accepted('quote"d', 'k-q')])
    expect(index.exists()).toBe(true)
    const files = readdirSync(index.dir)
    expect(files.length).toBeGreaterThan(1)
    expect(files.every((f) => /^[0-9a-f]-\d{4}-\d{2}-\d{2}\.ndjson$/.test(f))).toBe(true)
    expect(index.lookup('a-7')).toEqual([accepted('a-7', 'k-7')])
    expect(index.lookup('quote"d').map((e) => e.key)).toEqual(['k-q'])
    expect(index.lookup('a-700')).toEqual([])
    // another service (endpoint or base URL): another directory
    expect(index.dir).not.toBe(new ReferenceIndex(store, {...SCOPE, endpoint: 'payouts.create'}).dir)
    expect(new ReferenceIndex(store, {...SCOPE, endpoint: 'payouts.create'}).lookup('a-7')).toEqual([])
    expect(new ReferenceIndex(store, {...SCOPE, baseUrl: 'http://127.0.0.1:10'}).lookup('a-7')).toEqual([])
    expect(bucketOf('a-7')).toBe(bucketOf('a-7'))
  })

  it('a lookup reads a large bucket file in chunks: lines across a chunk boundary, torn and unterminated ones', () => {
    const store = new JournalStore(tempConfigDir())
    store.open()
    const index = new ReferenceIndex(store, SCOPE)
    mkdirSync(index.dir, {recursive: true})
    const line = (ref: string, key: string) => JSON.stringify({...accepted(ref, key), client_id: undefined}) // as long as the sizes below were measured
    const filler = Array.from({length: 3000}, (_, i) => line(`other-${i}`, `f-${i}`)) // ~600 KiB: three chunks
    const middle = `k-middle-${'m'.repeat(600)}` // its line crosses the first chunk's end (256 KiB)
    const lines = [line('x', 'k-first'), ...filler.slice(0, 1496), line('x', middle), '{"ref":"x","key":', '\0\0', ...filler.slice(1496), line('x', 'k-last')]
    const text = lines.join('\n') // the last line without its line break
    const at = text.indexOf(middle)
    expect(at < 256 * 1024 && at + middle.length > 256 * 1024 && text.length > 512 * 1024).toBe(true)
    writeFileSync(index.fileOf(bucketOf('x'), '2026-11-25'), text)
    writeFileSync(index.fileOf(bucketOf('x'), '2026-11-26'), `${line('x', 'k-next-day')}\n`)
    expect(index.lookup('x').map((e) => e.key)).toEqual(['k-first', middle, 'k-last', 'k-next-day'])
    expect(index.lookup('other-2999').map((e) => e.key)).toEqual(bucketOf('other-2999') === bucketOf('x') ? ['f-2999'] : [])
    expect(index.lookup('x"')).toEqual([])
  })

  it('a lookup finds every line with the reference, also lines right after one another (every line starts {"ref":)', () => {
    const store = new JournalStore(tempConfigDir())
    store.open()
    const index = new ReferenceIndex(store, SCOPE)
    writeAccepted(store, [accepted('adj', 'k-1', 2), accepted('adj', 'k-2', 3), accepted('adj', 'k-3', 4), accepted('adj-other', 'k-o'), accepted('adj', 'k-4', 9)])
    expect(index.lookup('adj').map((e) => e.key)).toEqual(['k-1', 'k-2', 'k-3', 'k-4'])
    // the same in a file written by hand: no blank line between, and the last line without its line break
    const line = (key: string) => JSON.stringify(accepted('adj2', key))
    writeFileSync(index.fileOf(bucketOf('adj2'), '2026-11-20'), [line('a'), line('b'), line('c')].join('\n'))
    expect(index.lookup('adj2').map((e) => e.key)).toEqual(['a', 'b', 'c'])
  })

  it('a file gone meanwhile is skipped; one that cannot be read stops the lookup, naming it (exit 1), never passes silently', () => {
    const store = new JournalStore(tempConfigDir())
    store.open()
    const index = new ReferenceIndex(store, SCOPE)
    writeAccepted(store, [accepted('u-1', 'k-1')])
    const bucket = bucketOf('u-1')
    symlinkSync(join(index.dir, 'no-such-file'), index.fileOf(bucket, '2026-11-20')) // listed, then ENOENT when opened
    expect(index.lookup('u-1').map((e) => e.key)).toEqual(['k-1'])
    const broken = index.fileOf(bucket, '2026-11-21')
    mkdirSync(broken) // EISDIR when read, as root too
    let error: PayError | undefined
    try {
      index.lookup('u-1')
    } catch (err) {
      error = err as PayError
    }
    expect(error).toBeInstanceOf(PayError)
    expect(error?.exitCode).toBe(1)
    expect(error?.message).toContain(broken)
    expect(error?.message).toContain('EISDIR')
  })

  it('one test of a promise: the same endpoint and base URL, any client id, account refs equal or either unset (absent and empty alike)', () => {
    const op = {endpoint: SCOPE.endpoint, base_url: SCOPE.baseUrl, client_id: 'c'}
    expect(sharesPromise(SCOPE, op)).toBe(true)
    expect(sharesPromise(SCOPE, {...op, account_ref: ''})).toBe(true)
    expect(sharesPromise(SCOPE, {...op, account_ref: 'acct'})).toBe(true) // no header and acme-main: maybe one account
    expect(sharesPromise({...SCOPE, accountRef: 'acct'}, op)).toBe(true)
    expect(sharesPromise({...SCOPE, accountRef: 'acct'}, {...op, account_ref: 'acct'})).toBe(true)
    expect(sharesPromise({...SCOPE, accountRef: 'acct'}, {...op, account_ref: 'other'})).toBe(false) // two sub-accounts
    expect(sharesPromise(SCOPE, {...op, client_id: 'd'})).toBe(true) // the merchant's second client: pay cannot tell
    expect(sharesPromise(SCOPE, {...op, base_url: 'http://127.0.0.1:10'})).toBe(false)
    expect(sharesPromise(SCOPE, {...op, endpoint: 'payouts.create'})).toBe(false)
  })

  it("a lookup reads the service's lines of every client id and of an account ref that may be its own, each naming who sent it", () => {
    const store = new JournalStore(tempConfigDir())
    store.open()
    const rows = (scope: typeof SCOPE | (Omit<typeof SCOPE, 'accountRef'> & {accountRef?: string}), ref: string, key: string) => {
      const w = new AcceptedRows(store, () => scope, 'r'.repeat(32), 'pay.csv')
      w.add({endpoint: scope.endpoint, reference: ref, key, line: 2} as SpooledRow, {outcome: 'accepted', id: `CL_${key}`, state: 'processing', state_at: '2026-11-26T10:00:00.000Z'} as RowOutcome)
      w.end()
    }
    rows(SCOPE, 'm-1', 'k-none')
    rows({...SCOPE, clientId: 'ops', accountRef: 'east'}, 'm-1', 'k-east')
    rows({...SCOPE, accountRef: 'west'}, 'm-1', 'k-west')
    const keys = (scope: Partial<typeof SCOPE> & {accountRef?: string}) => new ReferenceIndex(store, {...SCOPE, ...scope}).lookup('m-1').map((e) => e.key)
    expect(keys({})).toEqual(['k-none', 'k-east', 'k-west']) // no account ref: may be any of them
    expect(keys({accountRef: 'east'})).toEqual(['k-none', 'k-east']) // not west's: another sub-account
    expect(keys({clientId: 'ops', accountRef: 'west'})).toEqual(['k-none', 'k-west'])
    const [east] = new ReferenceIndex(store, {...SCOPE, accountRef: 'east'}).lookup('m-1').filter((e) => e.key === 'k-east')
    expect([east.client_id, east.account_ref]).toEqual(['ops', 'east'])
    expect(describeAccepted(east)).toContain('client ops, account ref east')
    expect(describeAccepted(new ReferenceIndex(store, SCOPE).lookup('m-1')[0])).toContain('client c, no account ref')
  })

  it('lines an older pay wrote under the directory of its exact scope are still read by that scope, as its own', () => {
    const store = new JournalStore(tempConfigDir())
    store.open()
    const scope = {...SCOPE, accountRef: 'acct'}
    const legacy = join(store.dir, 'references', legacyDirName([scope.endpoint, scope.baseUrl, scope.clientId, scope.accountRef]))
    mkdirSync(legacy, {recursive: true})
    const {client_id: _, ...line} = accepted('old-1', 'k-old')
    writeFileSync(join(legacy, `${bucketOf('old-1').toString(16)}-2026-11-25.ndjson`), `${JSON.stringify(line)}\n`)
    const index = new ReferenceIndex(store, scope)
    expect(index.exists()).toBe(true)
    expect(index.lookup('old-1').map((e) => [e.key, e.client_id, e.account_ref])).toEqual([['k-old', 'c', 'acct']])
    expect(new ReferenceIndex(store, SCOPE).lookup('old-1')).toEqual([]) // another scope's old directory is not known
  })

  it('after an upgrade, lines an older pay wrote under one client and no account ref hold the reference for the whole service', () => {
    const store = new JournalStore(tempConfigDir())
    store.open()
    // as e811573 wrote them: the directory of [endpoint, base URL, client id, account ref], lines naming no sender, and
    // the run journal's header naming the operation and base URL (not the client id nor the account ref)
    const legacy = join(store.dir, 'references', legacyDirName([SCOPE.endpoint, SCOPE.baseUrl, SCOPE.clientId, '']))
    mkdirSync(legacy, {recursive: true})
    const {client_id: _, ...line} = accepted('old-1', 'k-old')
    writeFileSync(join(legacy, `${bucketOf('old-1').toString(16)}-2026-11-25.ndjson`), `\n${JSON.stringify(line)}\n`)
    mkdirSync(join(store.dir, 'runs'), {recursive: true})
    const header = {t: 'run', run: line.run, at: line.at, operation: 'collections:create', file: 'pay.csv', file_sha256: '0'.repeat(64), profile: 'default', base_url: SCOPE.baseUrl, salt: ''}
    writeFileSync(join(store.dir, 'runs', `${line.run}.ndjson`), `\n${JSON.stringify(header)}\n`)
    // another service's directory (a bulk run of this pay) is left alone
    writeFileSync(join(store.dir, 'runs', `${'p'.repeat(32)}.ndjson`), `${JSON.stringify({...header, run: 'p'.repeat(32), operation: 'payouts:create', client_id: 'c'})}\n`)
    const payouts = new AcceptedRows(store, () => ({...SCOPE, endpoint: 'payouts.create'}), 'p'.repeat(32), 'pay.csv')
    payouts.add({endpoint: 'payouts.create', reference: 'old-2', key: 'k-p', line: 2} as SpooledRow, {outcome: 'accepted', id: 'PO_1', state: 'processing', state_at: line.at} as RowOutcome)
    payouts.end()
    const keys = (scope: typeof SCOPE | Record<string, string | undefined>, ref = 'old-1') => new ReferenceIndex(store, scope as typeof SCOPE).lookup(ref).map((e) => e.key)
    expect(keys(SCOPE)).toEqual(['k-old'])
    expect(new ReferenceIndex(store, SCOPE).lookup('old-1')[0]).toMatchObject({client_id: 'c', account_ref: undefined})
    expect(keys({...SCOPE, accountRef: 'acme-main'})).toEqual(['k-old'])
    expect(keys({...SCOPE, clientId: 'ops'})).toEqual(['k-old'])
    expect(keys({...SCOPE, clientId: 'ops', accountRef: 'east'})).toEqual(['k-old'])
    expect(keys({...SCOPE, endpoint: 'payouts.create'})).toEqual([])
    expect(keys({...SCOPE, baseUrl: 'http://127.0.0.1:10'})).toEqual([])
    expect(keys({...SCOPE, endpoint: 'payouts.create'}, 'old-2')).toEqual(['k-p'])
    expect(keys(SCOPE, 'old-2')).toEqual([])
    // read by another client, whose scope the directory's name is not: who sent it is not known, and said so
    expect(describeAccepted(new ReferenceIndex(store, {...SCOPE, clientId: 'ops'}).lookup('old-1')[0])).toContain('sender not recorded: an older pay wrote it')
    expect(describeAccepted(new ReferenceIndex(store, SCOPE).lookup('old-1')[0])).toContain('client c, no account ref')
    // found out once: the next command reads the small map, not the run journals
    rmSync(join(store.dir, 'runs'), {recursive: true})
    expect(keys({...SCOPE, clientId: 'ops'})).toEqual(['k-old'])
  })

  it('pruning drops the files of days past the retention', () => {
    const dir = tempConfigDir()
    const store = new JournalStore(dir, {retentionDays: 7})
    const scopeDir = new ReferenceIndex(store, SCOPE).dir
    expect(scopeDir.startsWith(join(dir, 'journal', 'references'))).toBe(true)
    mkdirSync(scopeDir, {recursive: true})
    writeFileSync(join(scopeDir, '3-2001-01-01.ndjson'), '')
    const today = `3-${new Date().toISOString().slice(0, 10)}.ndjson`
    writeFileSync(join(scopeDir, today), '')
    store.open()
    expect(existsSync(join(scopeDir, '3-2001-01-01.ndjson'))).toBe(false)
    expect(existsSync(join(scopeDir, today))).toBe(true)
  })
})

/** The directory an older pay named with two FNV-1a hashes of [endpoint, base URL, client id, account ref]. */
function legacyDirName(parts: string[]): string {
  const text = JSON.stringify(parts)
  const fnv = (seed: number) => {
    let h = seed
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
    return (h >>> 0).toString(16).padStart(8, '0')
  }
  return fnv(0x811c9dc5) + fnv(0x050c5d1f)
}
