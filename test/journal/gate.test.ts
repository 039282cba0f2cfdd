/**
 * The journal gate with the client core, in-process: a scripted transport answers each attempt (no network), the
 * journal lives in a temporary state dir. What a failure records (unknown or failed), which key a re-run sends,
 * what is redacted, and what pruning keeps.
 */
import {existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, utimesSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ApiClient} from '../../src/client/api-client.js'
import {NetworkError, PayError} from '../../src/base/errors.js'
import {ExitCode} from '../../src/base/exit-codes.js'
import {PassThrough} from 'node:stream'
import {JournalGate} from '../../src/journal/gate.js'
import {createJournalGate, openJournalStore} from '../../src/journal/index.js'
import {Output} from '../../src/output/output.js'
import {JournalStore, latestState} from '../../src/journal/store.js'
import {SCOPE, accepted, writeAccepted} from '../helpers/reference-index.js'
import {ReferenceIndex, bucketOf} from '../../src/journal/references.js'
import {tempConfigDir} from '../helpers/cli.js'

type Answer = {status: number; text?: string; headers?: Record<string, string>} | 'refused' | 'cut'
const TOKEN = JSON.stringify({access_token: 'a'.repeat(64), token_type: 'Bearer', expires_in: 3600})
const BODY = {amount: '150.00', currency: 'KES', merchant_reference: 'gate-1', payment_method: 'mobile_money', mobile: '254712345678', provider: 'mpesa'}
const apiError = (status: number, code: string, headers: Record<string, string> = {}): Answer => ({status, text: JSON.stringify({error: {code, message: code}}), headers})

/** One run of `pay collections create`: each POST attempt takes the next answer; returns the keys sent and the error. */
async function run(stateDir: string, answers: Answer[], options: {baseUrl?: string; argv?: string[]; retries?: number; body?: Record<string, string> | string; key?: string; clientId?: string; clientSecret?: string; accountRef?: string; endpoint?: 'collections.create' | 'debits.create' | 'mandates.create'; path?: Record<string, string>; forceNew?: boolean; headers?: Record<string, string>} = {}) {
  const keys: string[] = []
  const notices: string[] = []
  const transport = {
    async send(r: {method: string; url: string; headers: Record<string, string>}) {
      if (r.url.endsWith('/v1/oauth/token')) return {status: 200, headers: {}, text: TOKEN}
      keys.push(r.headers['idempotency-key'])
      const a = answers.shift() ?? 'refused'
      if (a === 'refused' || a === 'cut') throw Object.assign(new Error(a), {code: a === 'refused' ? 'ECONNREFUSED' : 'ECONNRESET'})
      return {status: a.status, headers: a.headers ?? {}, text: a.text ?? ''}
    },
    async close() {},
  }
  const store = new JournalStore(stateDir)
  const journal = new JournalGate(store, {notice: (t) => notices.push(t), warn: (t) => notices.push(t), argv: options.argv ?? ['collections', 'create', '--reference', 'gate-1'], forceNew: options.forceNew})
  const client = new ApiClient({
    settings: {baseUrl: options.baseUrl ?? 'http://127.0.0.1:9', clientId: options.clientId ?? 'c', clientSecret: options.clientSecret ?? 's', accountRef: options.accountRef},
    userAgent: 't', retries: options.retries ?? 3, sleep: async () => {}, transport, journal,
  })
  let error: PayError | undefined
  let res: Awaited<ReturnType<typeof client.call>> | undefined
  try {
    res = await client.call(options.endpoint ?? 'collections.create', {body: options.body ?? BODY, idempotencyKey: options.key, path: options.path, headers: options.headers})
  } catch (err) {
    error = err as PayError
  }
  const entries = store.entries()
  return {keys, error, notices, last: entries.at(-1), res, store}
}

describe('a failure that only looks certain does not wipe out an unknown outcome', () => {
  it('within one run: attempt 1 cut, attempts 2-4 refused: recorded unknown, the key printed, a re-run sends the same key', async () => {
    const dir = tempConfigDir()
    const first = await run(dir, ['cut', 'refused', 'refused', 'refused'])
    expect(first.keys).toHaveLength(4)
    expect(new Set(first.keys).size).toBe(1)
    expect(first.last?.outcome?.request).toBe('unknown')
    expect(first.error?.idempotencyKey).toBe(first.keys[0])
    expect(first.error?.resumeCommand).toContain(`--idempotency-key ${first.keys[0]}`)
    const again = await run(dir, [apiError(503, 'unavailable')], {retries: 0})
    expect(again.keys).toEqual([first.keys[0]])
  })

  it('across runs: refused, a long 429, 401, 403, 400, 422 and a 409 mismatch under the resumed key keep it unknown; a success settles it', async () => {
    const dir = tempConfigDir()
    const first = await run(dir, ['cut'], {retries: 0})
    const key = first.keys[0]
    expect(first.last?.outcome?.request).toBe('unknown')
    const service = (status: number, code: string): Answer => ({status, text: JSON.stringify({error: {code, message: code, request_id: 'REQ_0123456789AB'}})})
    for (const answers of [['refused'], [apiError(429, 'rate_limited', {'retry-after': '3600'})], [apiError(401, 'unauthorized'), apiError(401, 'unauthorized')], [apiError(403, 'forbidden')], [service(400, 'invalid_parameter')], [service(422, 'validation_error')], [service(409, 'idempotency_key_mismatch')]] as Answer[][]) {
      const r = await run(dir, answers, {retries: 0})
      expect(r.keys[0]).toBe(key)
      expect(r.last?.outcome?.request).toBe('unknown')
      expect(r.error?.idempotencyKey).toBe(key)
    }
    const settled = await run(dir, [{status: 201, text: JSON.stringify({id: 'CL_1', object: 'collection', status: 'processing', currency: 'KES', amount: '150.00', merchant_reference: 'gate-1'})}], {retries: 0})
    expect(settled.keys).toEqual([key])
    expect(settled.last?.outcome?.request).toBe('accepted')
    const next = await run(dir, [], {retries: 0})
    expect(next.keys).toEqual([])
  })

  it('a fresh key refused before anything was sent, or refused with 401: failed, and a re-run gets a new key', async () => {
    const dir = tempConfigDir()
    const first = await run(dir, ['refused', 'refused'], {retries: 1})
    expect(first.last?.outcome?.request).toBe('refused')
    expect(first.error?.idempotencyKey).toBeUndefined()
    const second = await run(dir, [apiError(401, 'unauthorized'), apiError(401, 'unauthorized')], {retries: 0})
    expect(second.keys[0]).not.toBe(first.keys[0])
    expect(second.last?.outcome?.request).toBe('refused')
  })

  it('an earlier unknown entry stays authoritative unless a later entry with the SAME key settled it (journal of an older pay)', async () => {
    const dir = tempConfigDir()
    const first = await run(dir, ['cut'], {retries: 0})
    const store = new JournalStore(dir)
    const {op} = first.last!
    // a later run under ANOTHER key with the same request failed "for certain": says nothing about the first key
    store.append({...op, key: 'other-key', at: new Date().toISOString()})
    store.append({t: 'outcome', at: new Date().toISOString(), key: 'other-key', request: 'refused', status: 401})
    const again = await run(dir, [apiError(400, 'invalid_parameter')], {retries: 0})
    expect(again.keys).toEqual([op.key])
  })
})

describe('an answer to a resumed key may be the service\'s first answer, replayed', () => {
  const processing = (headers: Record<string, string> = {}): Answer => ({status: 201, text: JSON.stringify({id: 'CL_RP1', object: 'collection', status: 'processing', amount: '150.00', currency: 'KES', merchant_reference: 'gate-1'}), headers})

  it('its state is dated to when the key was first sent, not now; the answer says so (maybeReplayed) and can note a later state', async () => {
    const dir = tempConfigDir()
    const first = await run(dir, ['cut'], {retries: 0})
    const sentAt = first.last!.op.at
    await new Promise((resolve) => setTimeout(resolve, 20))
    const again = await run(dir, [processing({'idempotent-replayed': 'true'})], {retries: 0})
    expect(again.keys).toEqual(first.keys)
    expect(again.res?.maybeReplayed).toEqual({firstSentAt: sentAt})
    expect(latestState(again.last!)).toMatchObject({state: 'processing', at: sentAt})
    // a later look (the command's lookup, a wait) is the latest known state, dated when it was seen
    again.res!.noteState!('failed', JSON.stringify({id: 'CL_RP1', status: 'failed'}))
    const now = latestState(again.store.entries().at(-1)!)
    expect(now?.state).toBe('failed')
    expect(now!.at > sentAt).toBe(true)
  })

  it('a resume the service does not mark is taken the same way (the interface does not say it marks one); a fresh key unmarked is not', async () => {
    const dir = tempConfigDir()
    const first = await run(dir, ['cut'], {retries: 0})
    const again = await run(dir, [processing()], {retries: 0})
    expect(again.res?.maybeReplayed).toEqual({firstSentAt: first.last!.op.at})
    const fresh = await run(tempConfigDir(), [processing()], {retries: 0})
    expect(fresh.res?.maybeReplayed).toBeUndefined()
    expect(latestState(fresh.last!)?.at).toBe(fresh.last!.outcome!.at)
    // a fresh key the service marks replayed (a key given again, sent from elsewhere): when it was first sent is not known
    const marked = await run(tempConfigDir(), [processing({'idempotent-replayed': 'true'})], {retries: 0})
    expect(marked.res?.maybeReplayed).toEqual({})
  })
})

describe('the request record must be durable before anything is sent', () => {
  const answering = () => {
    const sent: string[] = []
    const transport = {
      async send(r: {url: string; headers: Record<string, string>; ready?: Promise<void>}) {
        if (r.url.endsWith('/v1/oauth/token')) return {status: 200, headers: {}, text: TOKEN}
        await r.ready
        sent.push(r.headers['idempotency-key'])
        return {status: 201, headers: {}, text: JSON.stringify({...BODY, id: 'CL_1', object: 'collection', status: 'processing', created_at: new Date().toISOString()})}
      },
      async close() {},
    }
    return {sent, transport}
  }
  const clientWith = (store: JournalStore, transport: ReturnType<typeof answering>['transport']) =>
    new ApiClient({settings: {baseUrl: 'http://127.0.0.1:9', clientId: 'c', clientSecret: 's'}, userAgent: 't', retries: 3, sleep: async () => {}, transport, journal: new JournalGate(store, {notice: () => {}, warn: () => {}})})

  for (const [what, write] of [
    ['a short write (a full disk)', (_fd: number, data: Buffer) => data.length - 7],
    ['a failed write (ENOSPC)', () => {
      throw Object.assign(new Error('no space left on device'), {code: 'ENOSPC'})
    }],
  ] as [string, (fd: number, data: Buffer) => number][]) {
    it(`${what}: nothing is sent, the error names the reason (exit 1), and no outcome is unknown`, async () => {
      const dir = tempConfigDir()
      const {sent, transport} = answering()
      const store = new JournalStore(dir, {write: write as never})
      const err = await clientWith(store, transport).call('collections.create', {body: BODY}).catch((e: unknown) => e)
      expect(err).toBeInstanceOf(PayError)
      expect((err as PayError).message).toMatch(/ENOSPC.*nothing was sent/)
      expect((err as PayError).exitCode).toBe(1)
      expect((err as PayError).idempotencyKey).toBeUndefined()
      expect(sent).toEqual([])
    })
  }

  it('an fsync that fails: nothing is sent', async () => {
    const dir = tempConfigDir()
    const {sent, transport} = answering()
    const store = new JournalStore(dir, {fsync: ((_fd: number, cb: (err: NodeJS.ErrnoException | null) => void) => cb(Object.assign(new Error('EIO'), {code: 'EIO'}))) as never})
    const err = await clientWith(store, transport).call('collections.create', {body: BODY}).catch((e: unknown) => e)
    expect((err as PayError).message).toMatch(/EIO.*nothing was sent/)
    expect(sent).toEqual([])
  })
})

describe('a password in the base URL', () => {
  it('is kept out of the journal (url, base_url, command) and out of the resume command', async () => {
    const dir = tempConfigDir()
    const base = 'http://user:hunter2pw@127.0.0.1:9'
    const r = await run(dir, ['cut'], {retries: 0, baseUrl: base, argv: ['collections', 'create', '--base-url', base, '--base-url=' + base]})
    expect(r.error?.resumeCommand).toBeDefined()
    expect(r.error?.resumeCommand).not.toContain('hunter2pw')
    expect(r.error?.hint).not.toContain('hunter2pw')
    expect(r.error?.resumeCommand).toContain('--base-url')
    const text = readdirSync(join(dir, 'journal')).filter((n) => n.endsWith('.ndjson')).map((n) => readFileSync(join(dir, 'journal', n), 'utf8')).join('')
    expect(text).toContain('127.0.0.1:9')
    expect(text).not.toContain('hunter2pw')
    // the same request is still recognised (the match hash uses the full URL)
    const again = await run(dir, [apiError(400, 'invalid_parameter')], {retries: 0, baseUrl: base})
    expect(again.keys).toEqual(r.keys)
  })
})

describe('pruning', () => {
  const opRec = (key: string, at: string) => ({t: 'op', at, key, match: `m-${key}`, endpoint: 'collections.create', method: 'POST', url: 'http://x/v1/collections', base_url: 'http://x', body_sha256: 'h', pid: 1})

  it('a file another process already removed does not turn the journal off', () => {
    const dir = tempConfigDir()
    mkdirSync(join(dir, 'journal', 'runs'), {recursive: true})
    // stat of a dangling link fails with ENOENT, as for a run file another process pruned meanwhile
    symlinkSync(join(dir, 'gone'), join(dir, 'journal', 'runs', 'gone.ndjson'))
    const warnings: string[] = []
    const store = new JournalStore(dir, {warn: (t) => warnings.push(t)})
    expect(store.open()).toBe(true)
    expect(store.enabled).toBe(true)
    expect(warnings).toEqual([])
  })

  it('removes spool files a killed bulk run left behind, once they are older than the retention', () => {
    const dir = tempConfigDir()
    const journal = join(dir, 'journal')
    mkdirSync(join(journal, 'runs'), {recursive: true})
    const old = [join(journal, 'rows-123-1.ndjson'), join(journal, 'stdin-123-1.csv')]
    const fresh = join(journal, 'rows-456-2.ndjson')
    for (const f of [...old, fresh]) writeFileSync(f, 'x')
    const eightDaysAgo = new Date(Date.now() - 8 * 86_400_000)
    for (const f of old) utimesSync(f, eightDaysAgo, eightDaysAgo)
    expect(new JournalStore(dir, {retentionDays: 7}).open()).toBe(true)
    expect(old.filter((f) => existsSync(f))).toEqual([])
    expect(existsSync(fresh)).toBe(true)
  })

  it('keeps operations whose outcome is still unknown past the retention (carried into today), drops settled ones', () => {
    const dir = tempConfigDir()
    const now = Date.parse('2026-05-20T12:00:00Z')
    mkdirSync(join(dir, 'journal', 'runs'), {recursive: true})
    const lines = [
      opRec('unknown-1', '2026-05-01T10:00:00Z'),
      {t: 'outcome', at: '2026-05-01T10:00:01Z', key: 'unknown-1', state: 'unknown'},
      opRec('killed-1', '2026-05-01T11:00:00Z'),
      opRec('done-1', '2026-05-01T12:00:00Z'),
      {t: 'outcome', at: '2026-05-01T12:00:01Z', key: 'done-1', state: 'succeeded', status: 201},
      opRec('settled-later', '2026-05-01T13:00:00Z'),
    ]
    writeFileSync(join(dir, 'journal', '2026-05-01.ndjson'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n')
    writeFileSync(join(dir, 'journal', '2026-05-16.ndjson'), JSON.stringify({t: 'outcome', at: '2026-05-16T00:00:00Z', key: 'settled-later', state: 'failed', status: 400}) + '\n')
    const store = new JournalStore(dir, {now: () => now, retentionDays: 7})
    expect(store.open()).toBe(true)
    expect(existsSync(join(dir, 'journal', '2026-05-01.ndjson'))).toBe(false)
    const entries = store.entries()
    expect(entries.map((e) => [e.op.key, e.outcome?.request])).toEqual([['unknown-1', 'unknown'], ['killed-1', undefined]])
    expect(existsSync(join(dir, 'journal', '2026-05-20.ndjson'))).toBe(true)
    // a second prune (next day) carries them again, once
    const later = new JournalStore(dir, {now: () => now + 8 * 86_400_000, retentionDays: 7})
    expect(later.entries().length).toBe(2)
    later.open()
    expect(later.entries().map((e) => e.op.key)).toEqual(['unknown-1', 'killed-1'])
  })
})

describe('the journal of a command run in-process', () => {
  it('lives in the state dir of the environment the command was given, not of the process that runs it', async () => {
    const {createApiContext, createOutput} = await import('../../src/runtime.js')
    const dir = tempConfigDir()
    const collection = JSON.stringify({id: 'CL_1', object: 'collection', status: 'processing', currency: 'KES', amount: '1.00', merchant_reference: 'env-1'})
    const transport = {
      send: async (r: {url: string}) => (r.url.endsWith('/v1/oauth/token') ? {status: 200, headers: {}, text: TOKEN} : {status: 201, headers: {}, text: collection}),
      close: async () => {},
    }
    const env = {PAY_CONFIG_DIR: dir, PAY_BASE_URL: 'http://127.0.0.1:9', PAY_CLIENT_ID: 'c', PAY_CLIENT_SECRET: 's'}
    const ctx = await createApiContext({}, 't', createOutput(true), env, transport)
    await ctx.client.call('collections.create', {body: {...BODY, merchant_reference: 'env-1'}})
    const entries = new JournalStore(join(dir, 'state')).entries()
    expect(entries.map((e) => [e.op.reference, e.outcome?.request])).toEqual([['env-1', 'accepted']])
  })
})

describe('the gate as pay wires it', () => {
  it('its notices go through the one printable path (Output.trace)', () => {
    const err = new PassThrough()
    let text = ''
    err.on('data', (d) => (text += d))
    const term = {stdoutIsTTY: false, stderrIsTTY: true, stdinIsTTY: false, color: false, colorErr: false, interactive: false, columns: 100}
    const gate = createJournalGate(new Output(term, false, new PassThrough(), err), false, {PAY_CONFIG_DIR: tempConfigDir()})
    ;(gate as unknown as {options: {notice(t: string): void}}).options.notice('resuming: key \u001b]0;PWNED\u0007')
    expect(text).toBe('resuming: key \\u001b]0;PWNED\\u0007\n')
  })

  it('its warnings and the journal store\'s are made printable too (they quote keys and times from the file)', () => {
    const err = new PassThrough()
    let text = ''
    err.on('data', (d) => (text += d))
    const term = {stdoutIsTTY: false, stderrIsTTY: true, stdinIsTTY: false, color: false, colorErr: false, interactive: false, columns: 100}
    const out = new Output(term, false, new PassThrough(), err)
    const env = {PAY_CONFIG_DIR: tempConfigDir()}
    ;(createJournalGate(out, false, env) as unknown as {options: {warn(t: string): void}}).options.warn('key \u001b]0;PWNED\u0007 at \u009b2J')
    ;(openJournalStore(out, env) as unknown as {options: {warn(t: string): void}}).options.warn('cannot write \u001b[2J')
    expect(text).toBe('warning: key \\u001b]0;PWNED\\u0007 at \\u009b2J\nwarning: cannot write \\u001b[2J\n')
  })
})

describe('the lookup a message suggests is the one of the kind the request makes, quoted for the shell', () => {
  it('in the unknown-outcome hint and in the refusal of another body while the earlier one is unknown', async () => {
    const dir = tempConfigDir()
    const reference = "a b;$(x)'"
    const first = await run(dir, ['cut'], {retries: 0, body: {...BODY, merchant_reference: reference, amount: '1.00'}})
    expect(first.last?.outcome?.request).toBe('unknown')
    const quoted = `pay collections get --reference 'a b;$(x)'\\'''\``
    expect(JSON.stringify(first.error)).toContain(JSON.stringify(quoted).slice(1, -1))
    const second = await run(dir, [{status: 201, text: '{}'}], {retries: 0, body: {...BODY, merchant_reference: reference}})
    expect(second.error?.exitCode).toBe(ExitCode.CONFLICT)
    expect(second.keys).toEqual([])
    expect(second.error?.hint).toContain(quoted)
  })

  it('a reference that begins with - is given as --reference=VALUE, so that the command reads it as the reference, not a flag', async () => {
    const dir = tempConfigDir()
    const first = await run(dir, ['cut'], {retries: 0, body: {...BODY, merchant_reference: '-abc', amount: '1.00'}})
    expect(first.last?.outcome?.request).toBe('unknown')
    expect(JSON.stringify(first.error)).toContain('pay collections get --reference=-abc`')
  })

  it("a debit's names its mandate and `pay debits status`, a mandate's `pay mandates get`: never the verify lookup, which knows neither", async () => {
    const debit = await run(tempConfigDir(), ['cut'], {retries: 0, endpoint: 'debits.create', path: {mandate_id: 'MD_7H3K9P2W'}, body: {amount: '5.00', currency: 'KES', merchant_reference: 'db1', provider: 'mpesa'}, argv: ['debits', 'create', 'MD_7H3K9P2W', '-r', 'db1']})
    expect(debit.last?.outcome?.request).toBe('unknown')
    expect(debit.error?.hint).toContain('check with `pay debits status --mandate MD_7H3K9P2W --reference db1`')
    expect(debit.error?.hint).not.toContain('transactions verify')
    const mandate = await run(tempConfigDir(), ['cut'], {
      retries: 0, endpoint: 'mandates.create', argv: ['mandates', 'create', '-r', 'md2'],
      body: {mobile: '254700000001', provider: 'mpesa', currency: 'KES', amount: '100.00', frequency: 'MONTHLY', starts_at: '2026-12-01T00:00:00Z', merchant_reference: 'md2'},
    })
    expect(mandate.error?.hint).toContain('check with `pay mandates get --reference md2`')
    expect(mandate.error?.hint).not.toContain('transactions verify')
  })
})

describe('a reference is one promise to a service, whatever the client id, with or without an account ref', () => {
  const created = {status: 201, text: JSON.stringify({id: 'CL_1', object: 'collection', status: 'processing', ...BODY})}

  it('accepted without an account ref: the same command with --account-ref is refused (exit 5, nothing sent), naming the earlier request, its client and account ref, and --force-new', async () => {
    const dir = tempConfigDir()
    const first = await run(dir, [created], {retries: 0})
    expect(first.keys).toHaveLength(1)
    const again = await run(dir, [created], {retries: 0, accountRef: 'acme-main'})
    expect(again.keys).toEqual([])
    expect(again.error?.exitCode).toBe(ExitCode.CONFLICT)
    expect(again.error?.message).toContain(`accepted at`)
    expect(again.error?.message).toContain(`as CL_1 (Idempotency-Key ${first.keys[0]}; client c, no account ref)`)
    expect(again.error?.hint).toContain('--force-new')
    // and the other way round: accepted with the account ref, then without it
    const other = tempConfigDir()
    await run(other, [created], {retries: 0, accountRef: 'acme-main'})
    const without = await run(other, [created], {retries: 0})
    expect(without.keys).toEqual([])
    expect(without.error?.message).toContain('client c, account ref acme-main')
  })

  it("the merchant's second client id is refused too; --force-new sends it on purpose", async () => {
    const dir = tempConfigDir()
    await run(dir, [created], {retries: 0})
    const ops = await run(dir, [created], {retries: 0, clientId: 'ops'})
    expect(ops.keys).toEqual([])
    expect(ops.error?.exitCode).toBe(ExitCode.CONFLICT)
    const forced = await run(dir, [created], {retries: 0, clientId: 'ops', forceNew: true})
    expect(forced.keys).toHaveLength(1)
    expect(forced.error).toBeUndefined()
  })

  it('two different account refs are two sub-accounts: the second is sent; the same request again still replays (nothing sent)', async () => {
    const dir = tempConfigDir()
    const east = await run(dir, [created], {retries: 0, accountRef: 'east'})
    const west = await run(dir, [created], {retries: 0, accountRef: 'west'})
    expect(west.keys).toHaveLength(1)
    expect(west.keys[0]).not.toBe(east.keys[0])
    const replay = await run(dir, [created], {retries: 0, accountRef: 'east'})
    expect(replay.keys).toEqual([])
    expect(replay.error).toBeUndefined()
    expect(replay.notices.join('\n')).toContain('already sent')
  })

  it('the account ref is the one the request carries: a header naming the sub-account (`pay api -H`) scopes the match, the record and the reference', async () => {
    const dir = tempConfigDir()
    const header = (ref: string) => ({'X-Service-Account-Ref': ref})
    const east = await run(dir, [created], {retries: 0, headers: header('east')})
    expect(east.last?.op.account_ref).toBe('east')
    // the same body to another sub-account: sent, not answered with east's object
    const west = await run(dir, [created], {retries: 0, headers: header('west')})
    expect(west.keys).toHaveLength(1)
    expect(west.notices.join('\n')).not.toContain('already sent')
    // the settings name east, the header west: journaled as west, what was sent
    const other = tempConfigDir()
    const sent = await run(other, [created], {retries: 0, accountRef: 'east', headers: header('west')})
    expect(sent.last?.op.account_ref).toBe('west')
    // the same request to west through the settings is that one: replayed, nothing sent
    const again = await run(other, [created], {retries: 0, accountRef: 'west'})
    expect(again.keys).toEqual([])
    expect(again.notices.join('\n')).toContain('already sent')
    // and to east (the settings' of the first) another sub-account: sent
    const toEast = await run(other, [created], {retries: 0, accountRef: 'east'})
    expect(toEast.keys).toHaveLength(1)
  })

  it('an unknown outcome is resumed under its key by the same client and account ref only; with another account ref it is refused, saying how to settle it', async () => {
    const dir = tempConfigDir()
    const first = await run(dir, ['cut'], {retries: 0})
    expect(first.last?.outcome?.request).toBe('unknown')
    const other = await run(dir, [created], {retries: 0, accountRef: 'acme-main'})
    expect(other.keys).toEqual([])
    expect(other.error?.exitCode).toBe(ExitCode.CONFLICT)
    expect(other.error?.message).toContain('outcome is unknown')
    expect(other.error?.hint).toContain('run that command again')
    const resumed = await run(dir, [created], {retries: 0})
    expect(resumed.keys).toEqual([first.keys[0]])
  })
})

describe('what an entry says of its request', () => {
  it('the resume command: the same argv with the key, secrets masked, --force-new dropped, quoted for a shell', async () => {
    const r = await run(tempConfigDir(), ['cut'], {retries: 0, argv: ['collections', 'create', '--reference', 'a b', '--client-secret', 's3cr3t', '--force-new']})
    expect(r.error?.resumeCommand).toBe(`pay collections create --reference 'a b' --client-secret '[REDACTED]' --idempotency-key ${r.keys[0]}`)
    // a key on the command line already: kept where it is, not added again
    const given = await run(tempConfigDir(), ['cut'], {retries: 0, argv: ['api', 'POST', '/v1/payouts', '--idempotency-key', 'K2', '--webhook-secret=abc']})
    expect(given.error?.resumeCommand).toBe("pay api POST /v1/payouts --idempotency-key K2 '--webhook-secret=[REDACTED]'")
  })

  it('the resume command never holds a secret-named header nor a secret pay holds: not in the error, its hint, nor the journal; put back, it resumes the key', async () => {
    const dir = tempConfigDir()
    const held = 'sb_acme_secret_4f8a2c1e9b7d'
    const created = {status: 201, text: JSON.stringify({id: 'CL_1', object: 'collection', status: 'processing', ...BODY})}
    const body = {...BODY, provider: held}
    const argv = ['collections', 'create', '--reference', 'gate-1', '--provider', held, '-H', 'X-Api-Key: topsecret123', '--header=Cookie: session=c00kie456']
    const first = await run(dir, ['cut'], {retries: 0, argv, body, clientSecret: held, headers: {'X-Api-Key': 'topsecret123', Cookie: 'session=c00kie456'}})
    const key = first.keys[0]
    expect(first.error?.resumeCommand).toBe(`pay collections create --reference gate-1 --provider '[REDACTED]' -H 'X-Api-Key: [REDACTED]' '--header=Cookie: [REDACTED]' --idempotency-key ${key}`)
    expect(first.error?.hint).toContain('(put your --provider, -H X-Api-Key, -H Cookie values back where it says [REDACTED])')
    const written = readdirSync(join(dir, 'journal'), {recursive: true, withFileTypes: true}).filter((f) => f.isFile()).map((f) => readFileSync(join(f.parentPath, f.name), 'utf8')).join('\n')
    for (const text of [first.error?.resumeCommand, first.error?.hint, first.last?.op.command, written]) {
      for (const secret of ['topsecret123', 'c00kie456', held]) expect(text).not.toContain(secret)
    }
    // run as printed: refused, nothing sent, saying what to put back
    const verbatim = await run(dir, [created], {retries: 0, key, body: {...BODY, provider: '[REDACTED]'}, headers: {'X-Api-Key': '[REDACTED]'}})
    expect(verbatim.keys).toEqual([])
    expect(verbatim.error?.exitCode).toBe(ExitCode.USAGE)
    expect(verbatim.error?.message).toMatch(/^header x-api-key holds \[REDACTED\]/i)
    // the values put back: the journaled key, answered once
    const resumed = await run(dir, [created], {retries: 0, key, body, clientSecret: held, headers: {'X-Api-Key': 'topsecret123', Cookie: 'session=c00kie456'}})
    expect(resumed.keys).toEqual([key])
    expect(resumed.error).toBeUndefined()
    expect(resumed.last?.outcome?.request).toBe('accepted')
  })

  it('the merchant reference of a JSON object body; none of another body', async () => {
    for (const [body, reference] of [[BODY, 'gate-1'], ['{"amount":"1","merchant_reference":"r-1"}', 'r-1'], ['[]', undefined], ['not json merchant_reference', undefined]] as const) {
      const r = await run(tempConfigDir(), ['cut'], {retries: 0, body})
      expect(r.last?.op.reference, JSON.stringify(body)).toBe(reference)
    }
  })
})

describe('a reference that bulk rows had accepted (the reference index)', () => {
  const rowsOf = (dir: string, keys: string[]) => {
    const store = new JournalStore(dir)
    store.open()
    writeAccepted(store, keys.map((key, i) => accepted('gate-1', key, 2 + i))) // the index of the scope run() sends in
  }

  it('a command resuming the key of a row on the line right after another row with it is sent, not refused', async () => {
    const dir = tempConfigDir()
    rowsOf(dir, ['row-key-1', 'row-key-2'])
    const resumed = await run(dir, ['refused'], {retries: 0, key: 'row-key-2'})
    expect(resumed.keys).toEqual(['row-key-2']) // sent (the service replays the row's answer), not refused
    expect(resumed.error?.exitCode).not.toBe(5)
  })

  it('an index file that cannot be read: nothing is sent, the error names the file (the check does not pass silently)', async () => {
    const dir = tempConfigDir()
    rowsOf(dir, ['row-key-1'])
    const store = new JournalStore(dir)
    const broken = new ReferenceIndex(store, SCOPE).fileOf(bucketOf('gate-1'), '2026-11-20')
    mkdirSync(broken)
    const r = await run(dir, [{status: 201, text: '{}'}], {retries: 0})
    expect(r.keys).toEqual([])
    expect(r.error?.message).toContain(broken)
  })

  it('a command under another key is refused (exit 5), naming the newest row', async () => {
    const dir = tempConfigDir()
    rowsOf(dir, ['row-key-1', 'row-key-2'])
    const other = await run(dir, [{status: 201, text: '{}'}], {retries: 0})
    expect(other.keys).toEqual([])
    expect(other.error?.exitCode).toBe(5)
    expect(other.error?.message).toContain('line 3 of pay.csv')
  })
})

describe('the match of a request', () => {
  it('finds an unknown outcome journaled by an older pay, whose match was taken over the body bytes', async () => {
    const {createHash} = await import('node:crypto')
    const sha = (text: string) => createHash('sha256').update(text).digest('hex')
    const dir = tempConfigDir()
    const first = await run(dir, ['cut'], {retries: 0})
    expect(first.last?.outcome?.request).toBe('unknown')
    const op = first.last!.op
    const bytesMatch = sha(`${['collections.create', 'POST', 'http://127.0.0.1:9/v1/collections', 'http://127.0.0.1:9', 'c', ''].join('\n')}\n${op.body_sha256}`)
    expect(op.match).not.toBe(bytesMatch) // the body as pay builds it is not in sorted key order
    // the entry as an older pay wrote it
    const files = (function walk(d: string): string[] {
      return readdirSync(d, {withFileTypes: true}).flatMap((e) => (e.isDirectory() ? walk(join(d, e.name)) : [join(d, e.name)]))
    })(dir).filter((f) => readFileSync(f, 'utf8').includes(op.match))
    expect(files).toHaveLength(1)
    writeFileSync(files[0], readFileSync(files[0], 'utf8').replaceAll(op.match, bytesMatch))
    const again = await run(dir, [{status: 201, text: JSON.stringify({id: 'CL_1', object: 'collection', status: 'processing', ...BODY})}], {retries: 0})
    expect(again.keys).toEqual([first.keys[0]])
  })
})

describe('a process stopped past its lock\'s lease (SIGSTOP, a sleeping laptop) never sends what another process sent meanwhile', () => {
  const CREATED = JSON.stringify({id: 'CL_taken', object: 'collection', status: 'processing', ...BODY})
  /** A pid that names no process any more: a holder the lock's check sees as gone. */
  const deadPid = async () => (await import('node:child_process')).spawnSync(process.execPath, ['-e', '']).pid
  /** The lock files of the journal: the request's own, or its service's reference lock (`refs-`). */
  const locks = (dir: string, refs: boolean) => readdirSync(join(dir, 'journal', 'locks')).filter((n) => n.endsWith('.lock') && n.startsWith('refs-') === refs).map((n) => join(dir, 'journal', 'locks', n))

  /** A JournalStore whose next lookup runs `during` (what another process did while this one was stopped in it). */
  class StoppedStore extends JournalStore {
    during?: () => void
    entriesAbout(needles: string[]) {
      const found = super.entriesAbout(needles)
      const during = this.during
      this.during = undefined
      during?.()
      return found
    }
  }

  /** `pay collections create` in-process over `store`: the keys it sent, its notices and error. */
  async function send(store: JournalStore, answers: Answer[], now?: () => number) {
    const keys: string[] = []
    const notices: string[] = []
    const transport = {
      async send(r: {url: string; headers: Record<string, string>; ready?: Promise<void>}) {
        if (r.url.endsWith('/v1/oauth/token')) return {status: 200, headers: {}, text: TOKEN}
        await r.ready // as the real transport: no byte before the record is durable
        keys.push(r.headers['idempotency-key'])
        const a = answers.shift() ?? 'refused'
        if (a === 'refused' || a === 'cut') throw Object.assign(new Error(a), {code: a === 'refused' ? 'ECONNREFUSED' : 'ECONNRESET'})
        return {status: a.status, headers: a.headers ?? {}, text: a.text ?? ''}
      },
      async close() {},
    }
    const journal = new JournalGate(store, {notice: (t) => notices.push(t), warn: (t) => notices.push(t), argv: ['collections', 'create', '--reference', 'gate-1'], now})
    const client = new ApiClient({settings: {baseUrl: 'http://127.0.0.1:9', clientId: 'c', clientSecret: 's'}, userAgent: 't', retries: 0, sleep: async () => {}, transport, journal})
    let error: PayError | undefined
    let id: unknown
    try {
      id = ((await client.call('collections.create', {body: BODY})).body as {id?: string}).id
    } catch (err) {
      error = err as PayError
    }
    return {keys, notices, error, id}
  }

  it('stopped inside its lookup: the process that took its lock over sent; on waking it reports that answer and sends nothing', async () => {
    // what the other process leaves: its request record and accepted answer (the same request, from its own state dir)
    const other = tempConfigDir()
    const b = await send(new JournalStore(other), [{status: 201, text: CREATED}])
    expect(b.keys).toHaveLength(1)
    const segment = readdirSync(join(other, 'journal')).find((n) => n.endsWith('.ndjson'))!
    const dir = tempConfigDir()
    const store = new StoppedStore(dir)
    const gone = await deadPid()
    store.during = () => {
      // A's lease ran out: B took the lock over (its record in the file), looked up, found nothing, sent and was answered
      for (const lock of locks(dir, false)) writeFileSync(lock, JSON.stringify({pid: gone, until: Date.now() + 60_000, token: 'b'}))
      writeFileSync(join(dir, 'journal', segment), readFileSync(join(other, 'journal', segment)), {flag: 'a'})
    }
    const a = await send(store, [{status: 201, text: JSON.stringify({...JSON.parse(CREATED), id: 'CL_second'})}])
    expect(a.keys).toEqual([]) // nothing sent: on main, a second collection under A's own key
    expect(a.error).toBeUndefined()
    expect(a.id).toBe('CL_taken')
    expect(a.notices.join('\n')).toMatch(/another pay process took this request over: nothing was sent by this one/)
    expect(a.notices.join('\n')).toMatch(/already sent/)
  })

  it("stopped after its reference check, before its record: a bulk run that took the service's reference lock over and accepted the reference refuses it (exit 5)", async () => {
    const dir = tempConfigDir()
    const store = new JournalStore(dir)
    store.open()
    const gone = await deadPid()
    let during: (() => void) | undefined = () => {
      for (const lock of locks(dir, true)) writeFileSync(lock, JSON.stringify({pid: gone, until: Date.now() + 60_000, token: 'bulk'}))
      writeAccepted(store, [accepted('gate-1', 'row-key-1')]) // the bulk run's row, checked and sent meanwhile
    }
    // the clock is first read for the record, once the lookup (the journal's and the index's) is done: stopped there
    const now = () => {
      const d = during
      during = undefined
      d?.()
      return Date.now()
    }
    const a = await send(store, [{status: 201, text: CREATED}], now)
    expect(during).toBeUndefined()
    expect(a.keys).toEqual([])
    expect(a.error?.exitCode).toBe(ExitCode.CONFLICT)
    expect(a.error?.message).toContain('line 2 of pay.csv')
  })

  it('lock lost after its record was written, before sending: nothing sent, no outcome written, the key and what to do said', async () => {
    const dir = tempConfigDir()
    const gone = await deadPid()
    const {fsync} = await import('node:fs')
    const store = new JournalStore(dir, {
      fsync: ((fd: number, cb: (err: NodeJS.ErrnoException | null) => void) => {
        // stopped between the fence and the record's write, past the lease: the lock is another's by now
        for (const lock of locks(dir, false)) writeFileSync(lock, JSON.stringify({pid: gone, until: Date.now() + 60_000, token: 'b'}))
        fsync(fd, cb)
      }) as typeof fsync,
    })
    const a = await send(store, [{status: 201, text: CREATED}])
    expect(a.keys).toEqual([])
    const entry = store.entries().at(-1)!
    expect(entry.outcome).toBeUndefined() // the record is the other process's to settle
    expect(a.error?.exitCode).toBe(ExitCode.NETWORK)
    expect((a.error as PayError & {idempotencyKey?: string}).idempotencyKey).toBe(entry.op.key)
    expect(a.error?.hint).toMatch(/run the same command again/)
  })
})

describe('a request the journal has no record of is sent under the key derived from it', () => {
  const CREATED = {status: 201, text: JSON.stringify({id: 'CL_1', object: 'collection', status: 'processing', ...BODY})}
  /** A state dir that cannot be made (a file stands where it should be): the journal is off. */
  const off = (dir: string) => {
    const file = join(dir, 'not-a-dir')
    writeFileSync(file, 'a file where the state dir should be')
    return file
  }

  it('run while the journal was off, then once it is on: the same key, so the service answers the first request once', async () => {
    const dir = tempConfigDir()
    const first = await run(off(dir), ['cut'], {retries: 0})
    expect(first.error?.idempotencyKey).toBe(first.keys[0])
    const again = await run(dir, [CREATED], {retries: 0})
    expect(again.keys).toEqual([first.keys[0]])
    expect(again.last?.outcome?.request).toBe('accepted')
    expect((await run(dir, [], {retries: 0})).keys).toEqual([]) // accepted: "already sent", nothing sent
  })

  it('a refused request spends it (the next run gets a new key); --force-new and a key of the user\'s own never take it', async () => {
    const dir = tempConfigDir()
    const derived = (await run(off(dir), ['refused'], {retries: 0})).keys[0]
    const first = await run(dir, ['refused'], {retries: 0})
    expect(first.keys).toEqual([derived])
    expect(first.last?.outcome?.request).toBe('refused')
    const second = await run(dir, [CREATED], {retries: 0})
    expect(second.keys).toHaveLength(1)
    expect(second.keys[0]).not.toBe(derived)
    const other = tempConfigDir()
    expect((await run(other, [CREATED], {retries: 0, forceNew: true})).keys[0]).not.toBe(derived)
    expect((await run(tempConfigDir(), [CREATED], {retries: 0, key: 'own-key-1'})).keys).toEqual(['own-key-1'])
  })
})

describe("a key of the user's own (--idempotency-key, an Idempotency-Key header) for a reference an earlier request holds", () => {
  const CREATED = {status: 201, text: JSON.stringify({id: 'CL_1', object: 'collection', status: 'processing', ...BODY})}

  it('the same body whose outcome is unknown under another key: refused (exit 5, nothing sent), naming that key and how to resume it; --force-new sends it', async () => {
    const dir = tempConfigDir()
    const first = await run(dir, ['cut'], {retries: 0})
    const key = first.keys[0]
    expect(first.last?.outcome?.request).toBe('unknown')
    for (const own of [{key: 'my-own-key-1'}, {headers: {'Idempotency-Key': 'hdr-key-2'}}]) {
      const r = await run(dir, [CREATED], {retries: 0, ...own})
      expect(r.keys).toEqual([])
      expect(r.error?.exitCode).toBe(ExitCode.CONFLICT)
      expect(r.error?.message).toContain(`its outcome is unknown: it may have paid (Idempotency-Key ${key}`)
      expect(r.error?.hint).toContain(`--idempotency-key ${key} in place of`)
    }
    const resumed = await run(dir, [CREATED], {retries: 0, key})
    expect(resumed.keys).toEqual([key])
    const forced = await run(dir, [CREATED], {retries: 0, key: 'my-own-key-3', forceNew: true})
    expect(forced.keys).toEqual(['my-own-key-3'])
  })

  it('the same body accepted under another key: refused too (exit 5); a body without a reference is sent under its key', async () => {
    const dir = tempConfigDir()
    const first = await run(dir, [CREATED], {retries: 0})
    expect(first.last?.outcome?.request).toBe('accepted')
    const own = await run(dir, [CREATED], {retries: 0, key: 'my-own-key-1'})
    expect(own.keys).toEqual([])
    expect(own.error?.exitCode).toBe(ExitCode.CONFLICT)
    expect(own.error?.message).toContain(`accepted at `)
    expect(own.error?.hint).toContain('--force-new')
    const {merchant_reference: _, ...unreferenced} = BODY
    await run(dir, [CREATED], {retries: 0, body: unreferenced})
    expect((await run(dir, [CREATED], {retries: 0, body: unreferenced, key: 'my-own-key-2'})).keys).toEqual(['my-own-key-2'])
  })
})

describe('two processes on one key (the second took the first one\'s lock over after its lease)', () => {
  it("the first one's late unknown never overrides the answer the second recorded: the journal says accepted, a re-run sends nothing", async () => {
    const dir = tempConfigDir()
    const store = new JournalStore(dir)
    const settings = {baseUrl: 'http://127.0.0.1:9', clientId: 'c', clientSecret: 's'}
    const client = new ApiClient({settings, userAgent: 't', retries: 0, transport: {send: async () => ({status: 500, headers: {}, text: ''}), close: async () => {}}})
    const gate = new JournalGate(store, {notice() {}, warn() {}, argv: ['collections', 'create', '--reference', 'gate-1']})
    // the first process: its request recorded, then suspended past its lease (its lock let go here)
    const first = await gate.begin(client.prepare('collections.create', {body: BODY}), settings, client.baseUrl())
    await first.durable
    first.end()
    const key = first.request.idempotencyKey!
    const second = await run(dir, [{status: 201, text: JSON.stringify({id: 'CL_9', object: 'collection', status: 'processing', ...BODY})}], {retries: 0})
    expect(second.keys).toEqual([key])
    // the first wakes: its attempt timed out (the request policy's class: unknown)
    first.failed(Object.assign(new NetworkError('POST /v1/collections failed: timeout'), {requestClass: 'unknown'}))
    const entries = new JournalStore(dir).entries()
    expect(entries.map((e) => [e.op.key, e.outcome?.request, e.outcome?.id])).toEqual([
      [key, 'accepted', 'CL_9'],
      [key, 'accepted', 'CL_9'],
    ])
    expect((await run(dir, [], {retries: 0})).keys).toEqual([])
  })
})
