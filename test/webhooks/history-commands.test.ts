/**
 * `pay webhook history`, `show` and `replay` through their run functions (src/webhooks/history-commands.ts),
 * in-process, over a history written by the real listener; the replay of an app's failures against the sandbox.
 */
import {randomUUID} from 'node:crypto'
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {InputError, PayError} from '../../src/base/errors.js'
import {startSandbox, type Sandbox} from '../../src/sandbox/index.js'
import {historyBounds, parseRoutes, runWebhookHistory, runWebhookReplay, runWebhookShow} from '../../src/webhooks/history-commands.js'
import {failedEvents, HistoryWriter, historyDir, readHistory} from '../../src/webhooks/history.js'
import {type Listener, startListener} from '../../src/webhooks/listener.js'
import {parseSchemeId, verifySignature} from '../../src/webhooks/signature.js'
import {memoryOutput} from '../helpers/in-process.js'
import {eventBody, nowSeconds, opensslDigest, opensslHeader, post, startTestApp, type TestApp} from '../helpers/webhooks.js'

type ReplayOptions = Parameters<typeof runWebhookReplay>[0]

const SECRET = 'whsec_history_commands_secret'
const signed = (body: string, secret = SECRET) => ({'service-signature': opensslHeader([secret], nowSeconds(), body)})

let listener: Listener | undefined
let sandbox: Sandbox | undefined
const apps: TestApp[] = []
afterEach(async () => {
  await listener?.close()
  listener = undefined
  await sandbox?.close()
  sandbox = undefined
  for (const app of apps.splice(0)) await app.close()
})

async function app(path = '/hooks'): Promise<TestApp> {
  const a = await startTestApp(path)
  apps.push(a)
  return a
}

/** A state dir with a listener writing its history there, forwarding to `forwardTo`. */
async function listen(forwardTo?: string, secret = SECRET, more: {verify?: boolean} = {}): Promise<{env: NodeJS.ProcessEnv; url: string}> {
  const env = {PAY_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'pay-history-cmd-'))}
  listener = await startListener({secrets: [secret], history: new HistoryWriter(historyDir(env)), forwardTo, ...more})
  return {env, url: `${listener.url}${listener.path}`}
}

const replayOptions = (env: NodeJS.ProcessEnv, to: string, more: Partial<ReplayOptions> = {}): ReplayOptions => ({
  ids: [],
  failed: false,
  to,
  includeRejected: false,
  originalHeaders: false,
  secret: [SECRET],
  timeoutMs: 5000,
  concurrency: 4,
  userAgent: 'pay-test',
  env,
  ...more,
})

describe('pay webhook history and show', () => {
  it('lists newest first with filters, in every output format; shows one event in full', async () => {
    const target = await app()
    target.failNext = 1
    const {env, url} = await listen(target.url)
    const first = eventBody('payout.failed', {merchant_reference: 'order-7'})
    const second = eventBody('collection.succeeded', {merchant_reference: 'order-8'})
    expect((await post(url, first.body, signed(first.body))).status).toBe(500)
    expect((await post(url, second.body, signed(second.body))).status).toBe(200)
    expect((await post(url, second.body, signed(second.body))).status).toBe(200)
    expect((await post(url, 'oops', signed('oops', 'whsec_wrong'))).status).toBe(401)

    const json = memoryOutput(true)
    const rows = runWebhookHistory({limit: 50, env}, json.out)
    expect(rows.map((r) => r.verdict)).toEqual(['rejected', 'duplicate', 'accepted', 'accepted'])
    expect(JSON.parse(json.stdout())).toEqual(rows)

    const only = (flags: Record<string, unknown>) => runWebhookHistory({limit: 50, env, ...flags}, memoryOutput(true).out).map((r) => `${r.event_id}:${r.verdict}`)
    expect(only({type: ['payout.*']})).toEqual([`${first.id}:accepted`])
    expect(only({type: ['collection.*,payout.failed'], verdict: 'accepted'})).toEqual([`${second.id}:accepted`, `${first.id}:accepted`])
    expect(only({forward: 'failed'})).toEqual([`${first.id}:accepted`])
    expect(only({forward: 'none'})).toHaveLength(2)
    expect(only({reference: 'order-8'})).toEqual([`${second.id}:duplicate`, `${second.id}:accepted`])
    expect(only({since: '1h', limit: 1})).toHaveLength(1)
    expect(only({since: '2999-01-01'})).toEqual([])
    expect(() => runWebhookHistory({limit: 5, env, since: 'yesterday'}, memoryOutput(false).out)).toThrow(InputError)
    try {
      runWebhookHistory({limit: 5, env, since: 'yesterday'}, memoryOutput(false).out)
    } catch (err) {
      expect((err as InputError).problems[0].flag).toBe('--since')
    }

    const csv = memoryOutput({format: 'csv'})
    await csv.out.prepare()
    runWebhookHistory({limit: 50, env, type: ['payout.*']}, csv.out)
    expect(csv.stdout().split('\n')[0]).toContain('event_id')
    expect(csv.stdout()).toContain(first.id)
    const table = memoryOutput(false)
    runWebhookHistory({limit: 50, env}, table.out)
    expect(table.stdout()).toContain(second.id)
    const empty = memoryOutput(false)
    runWebhookHistory({limit: 5, env: {PAY_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'pay-history-none-'))}}, empty.out)
    expect(empty.stderr()).toContain('No webhook deliveries are kept')

    const shown = memoryOutput(false)
    runWebhookShow({id: first.id, env}, shown.out)
    const text = shown.stdout()
    expect(text).toContain('"type": "payout.failed"')
    expect(text).toContain('service-signature: t=')
    expect(text).toMatch(new RegExp(`→ ${target.url.replace(/[/.]/g, '\\$&')}\\s+500`))
    const shownJson = memoryOutput(true)
    runWebhookShow({id: second.id, env}, shownJson.out)
    const view = JSON.parse(shownJson.stdout())
    expect(view.deliveries.map((d: {verdict: string}) => d.verdict)).toEqual(['duplicate', 'accepted'])
    expect(view.deliveries[1].body).toEqual(JSON.parse(second.body))
    expect(() => runWebhookShow({id: 'EVT_NOPE', env}, memoryOutput(false).out)).toThrow(PayError)
  })
})

describe('pay webhook show: the signature format', () => {
  it('--json names the format the signature was verified in (`scheme`, as `pay webhook verify --json`), null when it was not verified; the text says it too', async () => {
    const {env, url} = await listen()
    const e = eventBody('collection.succeeded')
    const t = nowSeconds()
    // base64 HMAC-SHA256 as the whole header, the timestamp apart: not pay's default format
    expect((await post(url, e.body, {'service-signature': opensslDigest('sha256', SECRET, t, e.body).toString('base64'), 'service-timestamp': String(t)})).status).toBe(200)
    const forged = eventBody('collection.succeeded')
    expect((await post(url, forged.body, signed(forged.body, 'whsec_wrong'))).status).toBe(401)
    const [kept, rejected] = [e, forged].map((x) => readHistory(historyDir(env)).find((d) => d.event_id === x.id)!)

    const json = memoryOutput(true)
    runWebhookShow({id: kept.id, env}, json.out)
    expect(JSON.parse(json.stdout())).toMatchObject({id: kept.id, verified: true, scheme: 'header-base64-sha256'})
    const none = memoryOutput(true)
    runWebhookShow({id: rejected.id, env}, none.out)
    expect(JSON.parse(none.stdout())).toMatchObject({verdict: 'rejected', verified: false, scheme: null})
    const text = memoryOutput(false)
    runWebhookShow({id: kept.id, env}, text.out)
    expect(text.stdout()).toContain('signature verified as header-base64-sha256')
  })
})

describe('pay webhook replay', () => {
  it('posts the exact body signed afresh with the replay header; exit 1 when not 2xx; rejected only when asked', async () => {
    const {env, url} = await listen()
    const e = eventBody('collection.succeeded', {merchant_reference: 'order-9'})
    expect((await post(url, e.body, {...signed(e.body), 'x-original': 'yes'})).status).toBe(200)
    const forged = eventBody('payout.succeeded')
    expect((await post(url, forged.body, signed(forged.body, 'whsec_wrong'))).status).toBe(401)

    const target = await app()
    const ok = memoryOutput(false)
    expect((await runWebhookReplay(replayOptions(env, target.url, {ids: [e.id]}), ok.out)).exitCode).toBe(0)
    const got = target.received[0]
    expect(got.body.toString()).toBe(e.body)
    expect(got.headers['service-delivery-replay']).toBe('true')
    expect(got.headers['service-event-id']).toBe(e.id)
    expect(got.headers['x-original']).toBeUndefined()
    expect(verifySignature(String(got.headers['service-signature']), got.body, SECRET)).toMatchObject({ok: true})
    expect(ok.stderr()).toContain('Replayed 1: 1 answered 2xx')

    // --original-headers: the headers as received, with a fresh signature
    await runWebhookReplay(replayOptions(env, target.url, {ids: [e.id], originalHeaders: true}), memoryOutput(false).out)
    const orig = target.received[1]
    expect(orig.headers['x-original']).toBe('yes')
    expect(verifySignature(String(orig.headers['service-signature']), orig.body, SECRET)).toMatchObject({ok: true})

    // a rejected delivery needs --include-rejected; nothing is sent without it
    await expect(runWebhookReplay(replayOptions(env, target.url, {ids: [forged.id]}), memoryOutput(false).out)).rejects.toThrow(/--include-rejected/)
    expect(target.received).toHaveLength(2)
    target.status = 500
    const bad = memoryOutput(true)
    const r = await runWebhookReplay(replayOptions(env, target.url, {ids: [forged.id], includeRejected: true}), bad.out)
    expect(r.exitCode).toBe(1)
    expect(JSON.parse(bad.stdout())).toMatchObject([{event_id: forged.id, status: 500, ok: false}])
    expect(target.received[2].body.toString()).toBe(forged.body)

    // bad input: named, nothing sent
    await expect(runWebhookReplay(replayOptions(env, 'ftp://x'), memoryOutput(false).out)).rejects.toThrow(/--to/)
    await expect(runWebhookReplay(replayOptions(env, target.url), memoryOutput(false).out)).rejects.toThrow(/EVENT_ID/)
    await expect(runWebhookReplay(replayOptions(env, target.url, {ids: [e.id], secret: []}), memoryOutput(false).out)).rejects.toThrow(/--secret/)
    await expect(runWebhookReplay(replayOptions(env, target.url, {ids: ['EVT_UNKNOWN']}), memoryOutput(false).out)).rejects.toThrow(/no kept delivery/)
    expect(target.received).toHaveLength(3)
  })

  it('an event named twice, or by its id and a delivery id of it, is replayed once, with a warning naming the repeats', async () => {
    const {env, url} = await listen()
    const e = eventBody('collection.succeeded', {merchant_reference: 'order-twice'})
    expect((await post(url, e.body, signed(e.body))).status).toBe(200)
    expect((await post(url, e.body, signed(e.body))).status).toBe(200) // a redelivery: a second delivery of the event
    const deliveries = readHistory(historyDir(env)).filter((d) => d.event_id === e.id)
    expect(deliveries).toHaveLength(2)
    const target = await app()
    const o = memoryOutput(false)
    const r = await runWebhookReplay(replayOptions(env, target.url, {ids: [e.id, deliveries[1].id, e.id]}), o.out)
    expect(r.exitCode).toBe(0)
    expect(target.received).toHaveLength(1)
    expect(o.stderr()).toContain(`${deliveries[1].id}, ${e.id}: an event named before`)
  })

  it('a delivery accepted under --no-verify is never signed and sent by default: skipped and counted, or sent with --include-unverified and a warning', async () => {
    const {env, url} = await listen(undefined, SECRET, {verify: false})
    const forged = eventBody('payout.succeeded', {amount: '9999.00'})
    const zeros = `t=${nowSeconds()},v1=${'0'.repeat(64)}`
    expect((await post(url, forged.body, {'service-signature': zeros})).status).toBe(200)
    expect((await post(url, forged.body, {})).status).toBe(200)
    const unsigned = eventBody('collection.succeeded')
    expect((await post(url, unsigned.body, {})).status).toBe(200)
    expect(readHistory(historyDir(env)).map((d) => `${d.event_id === forged.id ? 'forged' : 'unsigned'} ${d.verdict} ${d.verified}`)).toEqual(['unsigned accepted false', 'forged duplicate false', 'forged accepted false'])

    const target = await app()
    // by filters: nothing sent, the two events counted and the flag named
    const byFilter = memoryOutput(true)
    expect((await runWebhookReplay(replayOptions(env, target.url, {since: '1h'}), byFilter.out)).results).toEqual([])
    expect(byFilter.stderr()).toMatch(/skipped 2 events .*without verifying the signature.*--include-unverified/)
    expect(JSON.parse(byFilter.stdout())).toEqual([])
    // by id: refused, naming the flag, nothing sent
    await expect(runWebhookReplay(replayOptions(env, target.url, {ids: [forged.id]}), memoryOutput(false).out)).rejects.toThrow(/--include-unverified.*--no-verify/)
    expect(target.received).toHaveLength(0)

    // opted in: sent, signed, with a warning that says so
    const opted = memoryOutput(false)
    const r = await runWebhookReplay(replayOptions(env, target.url, {ids: [forged.id], includeUnverified: true}), opted.out)
    expect(r.exitCode).toBe(0)
    expect(opted.stderr()).toMatch(/1 of these deliveries never had a verified signature/)
    expect(target.received).toHaveLength(1)
    expect(target.received[0].body.toString()).toBe(forged.body)
    expect(verifySignature(String(target.received[0].headers['service-signature']), target.received[0].body, SECRET)).toMatchObject({ok: true})
  })

  it('a replay is signed in the format the delivery was verified in, or the pinned one; --original-headers replaces Service-Timestamp too', async () => {
    const {env, url} = await listen()
    const e = eventBody('collection.succeeded')
    const t = nowSeconds()
    // the service's format here: base64 HMAC-SHA256 as the whole header, the timestamp apart (openssl's digest)
    const delivered = {'service-signature': opensslDigest('sha256', SECRET, t, e.body).toString('base64'), 'service-timestamp': String(t), 'x-original': 'yes'}
    expect((await post(url, e.body, delivered)).status).toBe(200)
    expect(readHistory(historyDir(env))[0].scheme).toBe('header-base64-sha256')

    const target = await app()
    const inScheme = (i: number, scheme: string) => {
      const got = target.received[i]
      const timestamp = got.headers['service-timestamp'] as string | undefined
      return verifySignature(String(got.headers['service-signature']), got.body, SECRET, {timestampHeader: timestamp, pinned: parseSchemeId(scheme)})
    }
    await runWebhookReplay(replayOptions(env, target.url, {ids: [e.id]}), memoryOutput(false).out)
    expect(inScheme(0, 'header-base64-sha256')).toMatchObject({ok: true})
    await runWebhookReplay(replayOptions(env, target.url, {ids: [e.id], originalHeaders: true}), memoryOutput(false).out)
    const orig = target.received[1]
    expect(orig.headers['x-original']).toBe('yes')
    // one fresh timestamp, not the old one beside a new signature (node joins a repeated header with ", ")
    expect(orig.headers['service-timestamp']).toMatch(/^\d+$/)
    expect(inScheme(1, 'header-base64-sha256')).toMatchObject({ok: true})

    // pinned (PAY_WEBHOOK_SIGNATURE): the pin wins, with or without --original-headers
    const pinned = {...env, PAY_WEBHOOK_SIGNATURE: 'inline-hex-sha512'}
    await runWebhookReplay(replayOptions(pinned, target.url, {ids: [e.id]}), memoryOutput(false).out)
    await runWebhookReplay(replayOptions(pinned, target.url, {ids: [e.id], originalHeaders: true}), memoryOutput(false).out)
    for (const i of [2, 3]) {
      expect(inScheme(i, 'inline-hex-sha512')).toMatchObject({ok: true})
      expect(target.received[i].headers['service-timestamp']).toBeUndefined()
    }
    // a bad pin is bad input, nothing sent
    await expect(runWebhookReplay(replayOptions({...env, PAY_WEBHOOK_SIGNATURE: 'md5'}, target.url, {ids: [e.id]}), memoryOutput(false).out)).rejects.toThrow(/webhook_signature/)
    expect(target.received).toHaveLength(4)
  })

  it('1,000 sandbox events, the app failing the first 300: replay --failed delivers each event exactly once with a 2xx', {timeout: 120_000}, async () => {
    sandbox = await startSandbox({webhookMaxAttempts: 1})
    const seed = sandbox.seed
    const target = await app()
    target.failNext = 300
    const {env, url} = await listen(target.url, seed.webhook_secret)
    sandbox.setWebhookUrl(seed.client_id, url)

    const token = ((await (await fetch(`${sandbox.url}/v1/oauth/token`, {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify({grant_type: 'client_credentials', client_id: seed.client_id, client_secret: seed.client_secret})})).json()) as {access_token: string}).access_token
    let n = 0
    const create = async () => {
      while (n < 1000) {
        const ref = `order-${n++}`
        const res = await fetch(`${sandbox!.url}/v1/collections`, {
          method: 'POST',
          headers: {'content-type': 'application/json', authorization: `Bearer ${token}`, 'idempotency-key': randomUUID()},
          // a number that stays processing: one event per collection
          body: JSON.stringify({amount: '100.00', currency: 'KES', merchant_reference: ref, mobile: '254712345678', provider: 'mpesa'}),
        })
        expect(res.status).toBe(201)
        await res.arrayBuffer()
      }
    }
    await Promise.all(Array.from({length: 8}, create))
    const deadline = Date.now() + 60_000
    while (!(sandbox.events.length === 1000 && sandbox.events.every((e) => e.state === 'delivered' || e.state === 'failed'))) {
      if (Date.now() > deadline) throw new Error(`sandbox events not all attempted: ${sandbox.events.filter((e) => e.state === 'pending').length} pending`)
      await new Promise((r) => setTimeout(r, 50))
    }
    expect(sandbox.events.filter((e) => e.state === 'failed')).toHaveLength(300)
    // every delivery the sandbox made is kept, and 300 events are failed
    const kept = readHistory(historyDir(env))
    expect(kept).toHaveLength(1000)
    expect(failedEvents(kept)).toHaveLength(300)

    const out = memoryOutput(true)
    const replay = await runWebhookReplay(replayOptions(env, target.url, {failed: true, since: '1h', secret: [seed.webhook_secret], concurrency: 8}), out.out)
    expect(replay.exitCode).toBe(0)
    expect(replay.results).toHaveLength(300)

    // the app answered 500 to the first 300 requests it got, 200 to every later one
    const accepted = target.received.slice(300)
    const ids = accepted.map((r) => JSON.parse(r.body.toString()).id as string)
    expect(ids).toHaveLength(1000)
    expect(new Set(ids)).toEqual(new Set(sandbox.events.map((e) => e.id)))
    const replayed = accepted.filter((r) => r.headers['service-delivery-replay'] === 'true')
    expect(replayed).toHaveLength(300)
    for (const r of accepted) expect(verifySignature(String(r.headers['service-signature']), r.body, seed.webhook_secret)).toMatchObject({ok: true})
    for (const r of replayed) {
      const event = sandbox.events.find((e) => e.id === JSON.parse(r.body.toString()).id)!
      expect(r.body.toString()).toBe(event.body)
    }
    // nothing is left failed: the same command again sends nothing
    expect(failedEvents(readHistory(historyDir(env)))).toHaveLength(0)
    const again = await runWebhookReplay(replayOptions(env, target.url, {failed: true, secret: [seed.webhook_secret]}), memoryOutput(false).out)
    expect(again.results).toHaveLength(0)
    expect(target.received).toHaveLength(1300)
  })
})

describe('the listener\'s history and route flags', () => {
  it('--route GLOB=URL is checked (each bad one named), bounds come from flag, environment or defaults', () => {
    const problems: {flag: string; rule: string}[] = []
    expect(parseRoutes(['collection.*=http://localhost:3000/c', 'payout.*=https://x.test/p'], problems)).toEqual([
      {pattern: 'collection.*', url: 'http://localhost:3000/c'},
      {pattern: 'payout.*', url: 'https://x.test/p'},
    ])
    expect(problems).toEqual([])
    parseRoutes(['http://localhost:3000', '=http://x', 'payout.*=ftp://x'], problems)
    expect(problems.map((p) => p.flag)).toEqual(['--route', '--route', '--route'])
    expect(problems[0].rule).toContain('GLOB=URL')

    expect(historyBounds({})).toEqual({maxAgeMs: 7 * 86_400_000, maxBytes: 256 * 1024 * 1024})
    expect(historyBounds({'history-max-age': '12h', 'history-max-size': '64MiB'})).toEqual({maxAgeMs: 12 * 3_600_000, maxBytes: 64 * 1024 * 1024})
    expect(historyBounds({}, {PAY_WEBHOOK_HISTORY_MAX_AGE: '2d', PAY_WEBHOOK_HISTORY_MAX_SIZE: '1MiB'})).toEqual({maxAgeMs: 2 * 86_400_000, maxBytes: 1024 * 1024})
    expect(() => historyBounds({'history-max-age': 'forever'})).toThrow(/--history-max-age/)
    expect(() => historyBounds({}, {PAY_WEBHOOK_HISTORY_MAX_SIZE: 'big'})).toThrow(/PAY_WEBHOOK_HISTORY_MAX_SIZE/)
  })
})
