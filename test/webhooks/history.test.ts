/**
 * The webhook history store (src/webhooks/history.ts) and the listener writing it, in-process: what is kept for
 * each verdict, durable before the answer, bounds, a cut tail, two writers at once, nothing secret; routing.
 */
import {appendFileSync, mkdtempSync, readdirSync, readFileSync, statSync, utimesSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {failedEvents, forwardState, HistoryWriter, readHistory} from '../../src/webhooks/history.js'
import {type Listener, startListener} from '../../src/webhooks/listener.js'
import {eventBody, nowSeconds, opensslHeader, post, startTestApp, type TestApp} from '../helpers/webhooks.js'
import {waitFor} from '../helpers/wait-for.js'

const SECRET = 'whsec_history_test_secret_value'
const tempDir = () => mkdtempSync(join(tmpdir(), 'pay-history-'))
const signed = (body: string) => ({'service-signature': opensslHeader([SECRET], nowSeconds(), body), 'x-custom': 'kept', authorization: 'Bearer abc.def'})

let listener: Listener | undefined
const apps: TestApp[] = []
afterEach(async () => {
  await listener?.close()
  listener = undefined
  for (const app of apps.splice(0)) await app.close()
})

/** A listener whose history syncs before answering ('answer'), every fdatasync held until the test releases it. */
async function heldSyncs(dir: string, forwardTo?: string) {
  const held: (() => void)[] = []
  const history = new HistoryWriter(dir, {sync: 'answer', fdatasync: ((fd: number, cb: (err: Error | null) => void) => held.push(() => cb(null))) as never})
  const l = (listener = await startListener({secrets: [SECRET], history, forwardTo}))
  return {
    held,
    /** Posts a signed delivery; `answered()` says whether its answer has come. */
    post(body: string) {
      let done = false
      const answer = post(`${l.url}${l.path}`, body, signed(body)).then((r) => {
        done = true
        return r
      })
      return {answer, answered: () => done}
    },
    /** Closes the listener, releasing the sync close asks for, if any. */
    async close() {
      const closing = l.close()
      for (let i = 0; i < 40 && held.length === 0; i++) await new Promise((r) => setTimeout(r, 5))
      while (held.length > 0) held.shift()!()
      await closing
      listener = undefined
    },
  }
}

describe('the listener keeps every delivery', () => {
  it('accepted, duplicate and rejected, with raw bytes, headers, verdict and reason; 0600 files, no secret', async () => {
    const dir = tempDir()
    listener = await startListener({secrets: [SECRET], history: new HistoryWriter(dir)})
    const url = `${listener.url}${listener.path}`
    const a = eventBody('collection.succeeded', {merchant_reference: 'order-42', note: 'ünïcode ✓'})
    expect((await post(url, a.body, signed(a.body))).status).toBe(200)
    expect((await post(url, a.body, signed(a.body))).status).toBe(200)
    const forged = eventBody('payout.failed')
    expect((await post(url, forged.body, {'service-signature': opensslHeader(['whsec_other'], nowSeconds(), forged.body)})).status).toBe(401)
    expect((await post(url, 'not json at all', signed('not json at all'))).status).toBe(400)

    const kept = readHistory(dir)
    expect(kept.map((d) => d.verdict)).toEqual(['rejected', 'rejected', 'duplicate', 'accepted'])
    const [notJson, bad, dup, ok] = kept
    expect(ok.body.toString('utf8')).toBe(a.body)
    expect(ok).toMatchObject({event_id: a.id, type: 'collection.succeeded', reference: 'order-42', status: 200, verified: true})
    expect(dup).toMatchObject({event_id: a.id, verdict: 'duplicate', status: 200})
    expect(bad).toMatchObject({event_id: forged.id, status: 401, reason: 'no_matching_signature', verified: false})
    expect(bad.body.toString()).toBe(forged.body)
    expect(notJson).toMatchObject({reason: 'invalid_json', status: 400})
    expect(notJson.body.toString()).toBe('not json at all')
    const headers = Object.fromEntries(ok.headers.map(([k, v]) => [k.toLowerCase(), v]))
    expect(headers['x-custom']).toBe('kept')
    expect(headers['service-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/)
    expect(headers.authorization).toBe('Bearer [REDACTED]')

    expect(statSync(dir).mode & 0o777).toBe(0o700)
    for (const name of readdirSync(dir)) {
      expect(statSync(join(dir, name)).mode & 0o777).toBe(0o600)
      const text = readFileSync(join(dir, name), 'latin1')
      expect(text).not.toContain(SECRET)
      expect(text).not.toContain('abc.def')
    }
  })

  it('by default, a delivery is written before it is answered, and fdatasynced right behind', async () => {
    const dir = tempDir()
    const synced: number[] = []
    const history = new HistoryWriter(dir, {fdatasync: ((fd: number, cb: (err: Error | null) => void) => {
      synced.push(fd)
      setImmediate(() => cb(null))
    }) as never})
    listener = await startListener({secrets: [SECRET], history})
    for (let i = 0; i < 5; i++) {
      const e = eventBody()
      expect((await post(`${listener.url}${listener.path}`, e.body, signed(e.body))).status).toBe(200)
      // on the answer, the delivery is already in the file (a kill -9 now would not lose it)
      expect(readHistory(dir)[0].event_id).toBe(e.id)
    }
    expect(synced.length).toBeGreaterThanOrEqual(1)
  })

  it('under a steady load the background fdatasyncs are paced (one every 10 ms at most), and the last batch is synced', async () => {
    const syncs: {at: number; written: number}[] = []
    let written = 0
    // the writer's own clock, read once per sync: when the writer decided, not when this fake ran (a loaded machine
    // may stop the process between the two)
    let lastRead = 0
    const clock = () => (lastRead = performance.now())
    const history = new HistoryWriter(tempDir(), {clock, fdatasync: ((fd: number, cb: (err: Error | null) => void) => {
      syncs.push({at: lastRead, written})
      setImmediate(() => cb(null))
    }) as never})
    history.open()
    const started = performance.now()
    // a batch a turn, as a busy listener writes them, for 60 ms
    while (performance.now() - started < 60) {
      written++
      history.delivery({event_id: `EVT_${written}`, verdict: 'accepted', status: 200, verified: true}, [], Buffer.from('{}'))
      await new Promise<void>((resolve) => history.afterCommit(resolve))
      await new Promise((resolve) => setImmediate(resolve))
    }
    const elapsed = performance.now() - started
    await waitFor(() => syncs.at(-1)!.written === written)
    expect(written).toBeGreaterThan(5)
    // back to back, a sync per batch or so; paced, one per 10 ms (the first at once, the last after the load)
    expect(syncs.length).toBeLessThanOrEqual(Math.ceil(elapsed / 10) + 2)
    // the pace holds however long a turn of a loaded machine takes (the writer looks at the clock again when its timer fires)
    for (let i = 1; i < syncs.length; i++) expect(syncs[i].at - syncs[i - 1].at).toBeGreaterThanOrEqual(10)
    await history.close()
  })

  it('--history-sync answer: an answer waits until its delivery is fdatasync\'d (held here)', async () => {
    const dir = tempDir()
    const l = await heldSyncs(dir)
    const e = eventBody()
    const sent = l.post(e.body)
    await waitFor(() => l.held.length > 0, 10_000, 'the delivery to be written and its sync asked for')
    expect(l.held.length).toBe(1)
    await new Promise((r) => setTimeout(r, 100))
    expect(sent.answered()).toBe(false)
    // what was written is already readable (written, not yet synced)
    expect(readHistory(dir).map((d) => d.event_id)).toEqual([e.id])
    l.held.shift()!()
    expect((await sent.answer).status).toBe(200)
    // close syncs what is left
    await l.close()
  })

  it('every forward attempt is kept with its status and duration; the app\'s 500 is passed back, and kept as the answer', async () => {
    const dir = tempDir()
    const app = await startTestApp()
    apps.push(app)
    app.failNext = 1
    listener = await startListener({secrets: [SECRET], history: new HistoryWriter(dir), forwardTo: app.url})
    const url = `${listener.url}${listener.path}`
    const e = eventBody()
    expect((await post(url, e.body, signed(e.body))).status).toBe(500)
    expect((await post(url, e.body, signed(e.body))).status).toBe(200)
    const [second, first] = readHistory(dir)
    expect(first.attempts).toMatchObject([{url: app.url, status: 500, ok: false}])
    expect(second.attempts).toMatchObject([{url: app.url, status: 200, ok: true}])
    // the status the listener answered, not a 200 written before the forward ended
    expect([first.status, second.status]).toEqual([500, 200])
    expect(typeof first.attempts[0].ms).toBe('number')
    await app.close()
    const down = eventBody()
    expect((await post(url, down.body, signed(down.body))).status).toBe(502)
    expect(readHistory(dir)[0].attempts).toMatchObject([{url: app.url, error: 'unreachable', ok: false}])
    expect(readHistory(dir)[0].status).toBe(502)
  })

  it('--history-sync answer: a forwarded delivery\'s answer is kept (synced) before it goes out', async () => {
    const dir = tempDir()
    const app = await startTestApp()
    apps.push(app)
    app.failNext = 1
    const l = await heldSyncs(dir, app.url)
    const sent = l.post(eventBody().body)
    // the delivery's own sync, written before the forward's result is known: no status yet
    await waitFor(() => l.held.length > 0, 10_000, 'the delivery to be written')
    expect(readHistory(dir)[0].status).toBeUndefined()
    l.held.shift()!()
    // the forward ended: its attempt and the status answered are written, and the answer waits for their sync
    await waitFor(() => l.held.length > 0, 10_000, 'the answer to be written')
    await new Promise((r) => setTimeout(r, 50))
    expect(sent.answered()).toBe(false)
    expect(readHistory(dir)[0]).toMatchObject({status: 500, attempts: [{status: 500}]})
    l.held.shift()!()
    expect((await sent.answer).status).toBe(500)
    await l.close()
  })
})

/** Total size of the store's segment files (bytes). */
const historySize = (dir: string): number =>
  readdirSync(dir)
    .filter((name) => /^\d{13,}-\d+-[0-9a-z]+\.log$/.test(name))
    .reduce((sum, name) => sum + statSync(join(dir, name)).size, 0)

describe('the store on disk', () => {
  it('with a low size bound, old segments are pruned and the store stays under the bound', async () => {
    const dir = tempDir()
    const maxBytes = 32 * 1024
    const w = new HistoryWriter(dir, {maxBytes})
    expect(w.open()).toBe(true)
    const body = Buffer.from(JSON.stringify({id: 'EVT_X', type: 'collection.succeeded', pad: 'x'.repeat(900)}))
    for (let i = 0; i < 400; i++) {
      w.delivery({event_id: `EVT_${i}`, type: 'collection.succeeded', verdict: 'accepted', status: 200, verified: true}, ['Host', 'x'], body)
      if (i % 10 === 9) await new Promise<void>((r) => w.afterCommit(r))
      expect(historySize(dir)).toBeLessThanOrEqual(maxBytes)
    }
    await w.close()
    expect(historySize(dir)).toBeLessThanOrEqual(maxBytes)
    const ids = readHistory(dir).map((d) => d.event_id)
    expect(ids[0]).toBe('EVT_399')
    expect(ids).not.toContain('EVT_0')
    expect(ids.length).toBeGreaterThan(10)
    expect(ids.length).toBeLessThan(40)
  })

  it('segments older than the age bound are deleted when a writer opens', async () => {
    const dir = tempDir()
    const old = new HistoryWriter(dir)
    old.open()
    old.delivery({event_id: 'EVT_OLD', verdict: 'accepted', status: 200, verified: true}, [], Buffer.from('{}'))
    await old.close()
    const [segment] = readdirSync(dir)
    const twoDaysAgo = (Date.now() - 2 * 86_400_000) / 1000
    utimesSync(join(dir, segment), twoDaysAgo, twoDaysAgo)
    const fresh = new HistoryWriter(dir, {maxAgeMs: 86_400_000})
    fresh.open()
    fresh.delivery({event_id: 'EVT_NEW', verdict: 'accepted', status: 200, verified: true}, [], Buffer.from('{}'))
    await fresh.close()
    expect(readHistory(dir).map((d) => d.event_id)).toEqual(['EVT_NEW'])
  })

  it('a record cut by a crash ends its segment; the records before it are read', async () => {
    const dir = tempDir()
    const w = new HistoryWriter(dir)
    w.open()
    w.delivery({event_id: 'EVT_A', verdict: 'accepted', status: 200, verified: true}, [], Buffer.from('{"id":"EVT_A"}'))
    await w.close()
    const [segment] = readdirSync(dir)
    appendFileSync(join(dir, segment), '{"k":"d","id":"dlv_cut","at":1,"verdict":"accepted","status":200,"verified":true,"h":[],"len":500}\n{"id":"EVT_B","ty')
    expect(readHistory(dir).map((d) => d.event_id)).toEqual(['EVT_A'])
  })

  it('a delivery kept before its forward ended has no status until its answer record; that record is read in any segment order', async () => {
    const dir = tempDir()
    const w = new HistoryWriter(dir)
    w.open()
    const stopped = w.delivery({event_id: 'EVT_STOPPED', verdict: 'accepted', verified: true}, [], Buffer.from('{}'))
    const answered = w.delivery({event_id: 'EVT_ANSWERED', verdict: 'accepted', verified: true}, [], Buffer.from('{}'))
    w.answered(answered, 504)
    await w.close()
    const byEvent = new Map(readHistory(dir).map((d) => [d.event_id, d]))
    expect(byEvent.get('EVT_STOPPED')!.status).toBeUndefined()
    expect(byEvent.get('EVT_ANSWERED')!.status).toBe(504)
    // an answer record in a segment read before its delivery's
    appendFileSync(join(dir, '0000000000001-1-a.log'), `{"k":"s","d":"${stopped}","status":502}\n`)
    expect(new Map(readHistory(dir).map((d) => [d.event_id, d.status])).get('EVT_STOPPED')).toBe(502)
  })

  it('two writers at once in the same directory: each its own segment, both read back whole', async () => {
    const dir = tempDir()
    const a = new HistoryWriter(dir)
    const b = new HistoryWriter(dir)
    a.open()
    b.open()
    for (let i = 0; i < 200; i++) {
      a.delivery({event_id: `EVT_A${i}`, verdict: 'accepted', status: 200, verified: true}, [], Buffer.from(`{"n":${i}}`))
      b.delivery({event_id: `EVT_B${i}`, verdict: 'accepted', status: 200, verified: true}, [], Buffer.from(`{"n":${i}}`))
      if (i % 50 === 0) await Promise.all([new Promise<void>((r) => a.afterCommit(r)), new Promise<void>((r) => b.afterCommit(r))])
    }
    await Promise.all([a.close(), b.close()])
    expect(readdirSync(dir)).toHaveLength(2)
    const ids = new Set(readHistory(dir).map((d) => d.event_id))
    expect(ids.size).toBe(400)
  })
})

describe('where forwarding stands', () => {
  /** A history whose clock the test moves: each record one second after the one before. */
  function clocked() {
    const dir = tempDir()
    let t = 1_700_000_000_000
    const w = new HistoryWriter(dir, {sync: 'none', now: () => (t += 1000)})
    w.open()
    return {dir, w}
  }
  const state = (dir: string) => {
    const all = readHistory(dir)
    return {delivery: forwardState(all[0].attempts), failed: failedEvents(all).map((d) => d.event_id)}
  }

  it('one replay answered 2xx clears the event, whatever spelling of the URL it went to; a later send not 2xx makes it failed again', async () => {
    const {dir, w} = clocked()
    const id = w.delivery({event_id: 'EVT_R', verdict: 'accepted', verified: true}, [], Buffer.from('{}'))
    w.attempt(id, 'EVT_R', {url: 'http://127.0.0.1:4000/hook', status: 500, ms: 1})
    w.answered(id, 500)
    await new Promise<void>((r) => w.afterCommit(r))
    expect(state(dir)).toEqual({delivery: 'failed', failed: ['EVT_R']})
    // the same app, under another spelling of its URL
    w.attempt(id, 'EVT_R', {url: 'http://localhost:4000/hook', status: 200, ms: 1, replay: true})
    await new Promise<void>((r) => w.afterCommit(r))
    expect(state(dir)).toEqual({delivery: 'ok', failed: []})
    w.attempt(id, 'EVT_R', {url: 'http://localhost:4001/hook', error: 'unreachable', detail: 'down', ms: 1, replay: true})
    await w.close()
    expect(state(dir)).toEqual({delivery: 'failed', failed: ['EVT_R']})
  })

  it('the listener forwards one delivery to every route at once: failed while any route was not 2xx, until a later send is', async () => {
    const {dir, w} = clocked()
    // a replay answered 2xx after one route failed clears it
    const one = w.delivery({event_id: 'EVT_O', verdict: 'accepted', verified: true}, [], Buffer.from('{}'))
    w.attempt(one, 'EVT_O', {url: 'http://127.0.0.1:4000/a', status: 200, ms: 1})
    w.attempt(one, 'EVT_O', {url: 'http://127.0.0.1:4000/b', status: 502, ms: 1})
    w.attempt(one, 'EVT_O', {url: 'http://localhost:4000/b', status: 200, ms: 1, replay: true})
    const first = w.delivery({event_id: 'EVT_F', verdict: 'accepted', verified: true}, [], Buffer.from('{}'))
    w.attempt(first, 'EVT_F', {url: 'http://127.0.0.1:4000/a', status: 500, ms: 1})
    w.attempt(first, 'EVT_F', {url: 'http://127.0.0.1:4000/b', status: 200, ms: 1})
    await new Promise<void>((r) => w.afterCommit(r))
    expect(state(dir)).toEqual({delivery: 'failed', failed: ['EVT_F']})
    // the service delivers the event again; both routes answer 2xx this time
    const again = w.delivery({event_id: 'EVT_F', verdict: 'accepted', verified: true}, [], Buffer.from('{}'))
    w.attempt(again, 'EVT_F', {url: 'http://127.0.0.1:4000/a', status: 200, ms: 1})
    w.attempt(again, 'EVT_F', {url: 'http://127.0.0.1:4000/b', status: 204, ms: 1})
    await w.close()
    expect(state(dir)).toEqual({delivery: 'ok', failed: []})
    expect(readHistory(dir).map((d) => `${d.event_id} ${forwardState(d.attempts)}`)).toEqual(['EVT_F ok', 'EVT_F failed', 'EVT_O ok'])
  })
})

describe('routing', () => {
  it('each event goes to every route whose glob matches its type; the worst status is answered', async () => {
    const collections = await startTestApp('/c')
    const payouts = await startTestApp('/p')
    const everything = await startTestApp('/all')
    apps.push(collections, payouts, everything)
    const dir = tempDir()
    listener = await startListener({
      secrets: [SECRET],
      history: new HistoryWriter(dir),
      routes: [
        {pattern: 'collection.*', url: collections.url},
        {pattern: 'payout.*', url: payouts.url},
      ],
    })
    const url = `${listener.url}${listener.path}`
    const sent: {id: string; type: string}[] = []
    for (const type of ['collection.succeeded', 'payout.failed', 'collection.failed', 'payout.succeeded', 'mandate.active']) {
      const e = eventBody(type)
      sent.push({id: e.id, type})
      expect((await post(url, e.body, signed(e.body))).status).toBe(200)
    }
    const got = (app: TestApp) => app.received.map((r) => JSON.parse(r.body.toString()).type).sort()
    expect(got(collections)).toEqual(['collection.failed', 'collection.succeeded'])
    expect(got(payouts)).toEqual(['payout.failed', 'payout.succeeded'])
    await listener.close()

    // overlapping routes: both get it; one answering 500 makes the answer 500, and each attempt is kept
    listener = await startListener({
      secrets: [SECRET],
      history: new HistoryWriter(dir),
      routes: [
        {pattern: 'payout.*', url: payouts.url},
        {pattern: '*', url: everything.url},
      ],
    })
    everything.failNext = 1
    const e = eventBody('payout.failed')
    expect((await post(`${listener.url}${listener.path}`, e.body, signed(e.body))).status).toBe(500)
    expect(payouts.received.map((r) => JSON.parse(r.body.toString()).id)).toContain(e.id)
    expect(everything.received.map((r) => JSON.parse(r.body.toString()).id)).toEqual([e.id])
    const kept = readHistory(dir).find((d) => d.event_id === e.id)!
    expect(kept.attempts.map((a) => [a.url, a.status]).sort()).toEqual([
      [everything.url, 500],
      [payouts.url, 200],
    ].sort())
  })
})
