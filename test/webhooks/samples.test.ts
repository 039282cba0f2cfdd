/** Samples of every event type (what `pay webhook trigger` sends) and the --events glob filter. */
import {describe, expect, it} from 'vitest'
import {EVENT_ID_PATTERN, EVENT_TYPES} from '../../src/webhooks/events.js'
import {eventFilter, parsePatterns, parseSize, unknownPatterns} from '../../src/webhooks/filter.js'
import {runWebhookEvents, sampleEvent} from '../../src/webhooks/samples.js'
import {memoryOutput} from '../helpers/in-process.js'

const PREFIX: Record<string, [string, string]> = {
  collection: ['id', 'CL_'],
  checkout_session: ['id', 'CS_'],
  payout: ['id', 'PO_'],
  mandate: ['mandate_id', 'MD_'],
  mandate_debit: ['mandate_id', 'MD_'],
  subscription: ['subscription_id', 'SUB_'],
}

describe('sample events', () => {
  it('exist for all 20 types of the spec, with the envelope, the id format, and the state of the type', () => {
    expect(EVENT_TYPES).toHaveLength(20)
    for (const type of EVENT_TYPES) {
      const e = sampleEvent(type)
      expect(e).toMatchObject({object: 'event', type})
      expect(e.id).toMatch(EVENT_ID_PATTERN)
      expect(new Date(e.created_at).toISOString()).toBe(e.created_at)
      const [key, prefix] = PREFIX[type.split('.')[0]]
      expect(String(e.data[key]), type).toMatch(new RegExp(`^${prefix}[A-Z0-9]+$`))
      expect(typeof e.data.status).toBe('string')
      if ('amount' in e.data) expect(e.data.amount).toMatch(/^\d+\.\d{2}$/)
      if ('currency' in e.data) expect(e.data.currency).toMatch(/^[A-Z]{3}$/)
    }
    expect(sampleEvent('subscription.created').data.status).toBe('pending_approval')
    expect(sampleEvent('payout.failed').data.status_detail).toBeTruthy()
  })

  it('-F overrides merge into data, nested keys too', () => {
    const e = sampleEvent('collection.succeeded', {amount: '75.00', merchant_reference: 'x-1', extra: {a: 1}})
    expect(e.data).toMatchObject({amount: '75.00', merchant_reference: 'x-1', extra: {a: 1}, currency: 'KES'})
  })
})

describe('--events filter and --max-body', () => {
  it('globs on the type, comma-separated and repeatable', () => {
    const f = eventFilter(parsePatterns(['collection.*,payout.failed', 'subscription.?ctive']))
    expect(EVENT_TYPES.filter(f)).toEqual(['collection.processing', 'collection.succeeded', 'collection.failed', 'payout.failed', 'subscription.active'])
    expect(eventFilter([])('anything')).toBe(true)
    expect(eventFilter(['*.failed'])('mandate_debit.failed')).toBe(true)
    expect(eventFilter(['mandate.*'])('mandate_debit.failed')).toBe(false)
  })
  it('flags patterns that match no type', () => {
    expect(unknownPatterns(['colection.*', 'payout.*'])).toEqual(['colection.*'])
  })
  it('parses sizes', () => {
    expect(parseSize('1MiB')).toBe(1048576)
    expect(parseSize('512KiB')).toBe(524288)
    expect(parseSize('2048')).toBe(2048)
    expect(parseSize('lots')).toBeUndefined()
    expect(parseSize('0')).toBeUndefined()
  })
})

describe('pay webhook events (runWebhookEvents)', () => {
  it('lists every event type of the spec: a table, or JSON rows', () => {
    const json = memoryOutput(true)
    expect(runWebhookEvents(json.out).map((e) => e.type)).toEqual([...EVENT_TYPES])
    expect(JSON.parse(json.stdout()).map((e: {type: string}) => e.type)).toEqual([...EVENT_TYPES])
    const human = memoryOutput(false)
    runWebhookEvents(human.out)
    expect(human.stdout().split('\n')[0].split(/\s+/)).toEqual(['type', 'resource', 'operation', 'state', 'description'])
    for (const t of EVENT_TYPES) expect(human.stdout()).toContain(t)
  })
})
