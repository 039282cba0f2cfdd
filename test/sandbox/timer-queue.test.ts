/**
 * The one timer queue and the lookup indexes: settlement comes from a min-heap (no timer per object), lookups
 * come from indexes that are rebuilt when the state is replaced (reset) or loaded (--state).
 */
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it, vi} from 'vitest'
import type {Sandbox} from '../../src/sandbox/index.js'
import {TimerQueue} from '../../src/sandbox/timer-queue.js'
import {acmeClient, collectionBody, start, until} from '../helpers/sandbox-http.js'

let sb: Sandbox | undefined
afterEach(async () => {
  await sb?.close()
  sb = undefined
})

describe('TimerQueue', () => {
  it('gives back entries in due-time order, equal times first in first out, and only those due', () => {
    const q = new TimerQueue()
    let seed = 7
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
    const pushed: {at: number; id: string}[] = []
    for (let i = 0; i < 2000; i++) {
      const at = Math.floor(rand() * 500)
      pushed.push({at, id: `x${i}`})
      q.push(at, 'k', `x${i}`)
    }
    expect(q.popDue(-1)).toBeUndefined()
    const out: {at: number; id: string}[] = []
    for (let e = q.popDue(249); e; e = q.popDue(249)) out.push({at: e.at, id: e.id})
    const expected = pushed.filter((p) => p.at <= 249).sort((a, b) => a.at - b.at || Number(a.id.slice(1)) - Number(b.id.slice(1)))
    expect(out).toEqual(expected)
    expect(q.size).toBe(2000 - expected.length)
    expect(q.peek()).toBe(Math.min(...pushed.filter((p) => p.at > 249).map((p) => p.at)))
  })
})

describe('settlement through the queue', () => {
  it('300 processing collections add no timer each: one timer is armed for the earliest; all settle', async () => {
    sb = await start({settleMs: 300})
    const acme = await acmeClient(sb)
    // count the timers of about --settle-ms armed while they are created (a timer per object would be 300)
    const spy = vi.spyOn(globalThis, 'setTimeout')
    const ids: string[] = []
    let delays: unknown[] = []
    try {
      for (let i = 0; i < 300; i++) ids.push((await acme.post('/v1/collections', collectionBody())).body.id)
      delays = spy.mock.calls.map((c) => c[1])
    } finally {
      spy.mockRestore()
    }
    const settleTimers = delays.filter((ms) => typeof ms === 'number' && ms > 100 && ms <= 310).length
    expect(settleTimers).toBeGreaterThan(0)
    expect(settleTimers).toBeLessThan(60)
    await until(() => ids.every((id) => sb!.state.collections[id].status === 'succeeded'), 10_000, 'settlement')
  })

  it('the clock advance settles what becomes due (checkout expiry after 24 h)', async () => {
    sb = await start({settleMs: 60_000})
    const acme = await acmeClient(sb)
    const cs = (await acme.post('/v1/checkout/sessions', {amount: '10.00', currency: 'KES', merchant_reference: 'exp-1', success_url: 'https://s.example/ok', cancel_url: 'https://s.example/no'})).body
    const col = (await acme.post('/v1/collections', collectionBody())).body
    sb.advanceClock(61)
    expect(sb.state.collections[col.id].status).toBe('succeeded')
    expect(sb.state.checkouts[cs.id].status).toBe('processing')
    sb.advanceClock(24 * 3600)
    expect(sb.state.checkouts[cs.id].status).toBe('failed')
  })
})

describe('indexes after the state is replaced', () => {
  it('reset: lookups by reference find only the new state', async () => {
    sb = await start()
    let acme = await acmeClient(sb)
    await acme.post('/v1/collections', collectionBody({merchant_reference: 'before-reset'}))
    expect((await acme.get('/v1/collections?merchant_reference=before-reset')).status).toBe(200)
    sb.reset()
    acme = await acmeClient(sb)
    expect((await acme.get('/v1/collections?merchant_reference=before-reset')).status).toBe(404)
    await acme.post('/v1/collections', collectionBody({merchant_reference: 'after-reset'}))
    expect((await acme.get('/v1/collections?merchant_reference=after-reset')).status).toBe(200)
    // seeded customers' collections are indexed too
    expect((await acme.get('/v1/customers/MC_ACME0001/collections?per_page=100')).body.total).toBe(47)
  })

  it('a state loaded from --state is indexed and its waiting records are queued again', async () => {
    const statePath = join(mkdtempSync(join(tmpdir(), 'sb-sched-')), 'state.json')
    sb = await start({statePath, settleMs: 400})
    let acme = await acmeClient(sb)
    const col = (await acme.post('/v1/collections', collectionBody({merchant_reference: 'persisted'}))).body
    await sb.close()
    sb = await start({statePath, settleMs: 400})
    acme = await acmeClient(sb)
    const found = await acme.get('/v1/collections?merchant_reference=persisted')
    expect(found.body.id).toBe(col.id)
    await until(async () => (await acme.get(`/v1/collections/${col.id}`)).body.status === 'succeeded', 10_000, 'settlement after reload')
  })
})
