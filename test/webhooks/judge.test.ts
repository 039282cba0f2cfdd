/**
 * The listener's judge (src/webhooks/judge.ts) as a table: headers and raw body in, judgement out (reject with its
 * reason and status, or an event with its verdict and duplicate decision). Signatures made by openssl, not by our
 * code; the clock fixed.
 */
import {describe, expect, it} from 'vitest'
import {createJudge, type Judgement, type Seen, STATUS_OF} from '../../src/webhooks/judge.js'
import {MAX_JSON_DEPTH} from '../../src/output/json-shape.js'
import {opensslHeader} from '../helpers/webhooks.js'

type JudgeRules = Parameters<typeof createJudge>[0]

const SECRET = 'whsec_judge_table_1'
const NOW = 1_760_000_000
const EVENT = JSON.stringify({id: 'EVT_JUDGE_0001', object: 'event', type: 'collection.succeeded', created_at: '2026-01-01T00:00:00Z', data: {id: 'CL_1', status: 'succeeded'}})
const signed = (body: string, at = NOW, secrets = [SECRET]) => ({'service-signature': opensslHeader(secrets, at, body)})

function judgeWith(rules: Partial<JudgeRules> = {}, seen: Record<string, Seen> = {}) {
  return createJudge({verify: true, secrets: [SECRET], maxBodyBytes: 1024, toleranceSeconds: 300, now: () => NOW, seen: (id) => seen[id], ...rules})
}

/** The parts of a judgement a row compares: its kind and reason (with status), or its verdict and dedupe. */
function summary(j: Judgement): Record<string, unknown> {
  if (j.kind === 'reject') return {reject: j.reason, status: STATUS_OF[j.reason]}
  return {event: j.event.id, verified: j.verdict.verified, status: j.verdict.status, dedupe: j.dedupe}
}

const deep = `${'['.repeat(MAX_JSON_DEPTH + 5)}${']'.repeat(MAX_JSON_DEPTH + 5)}`
const other = JSON.stringify({order: 'o-1', paid: true})

const rows: {what: string; headers: Record<string, string>; raw: Buffer | 'too_large' | 'aborted'; rules?: Partial<JudgeRules>; seen?: Record<string, Seen>; expected: Record<string, unknown>}[] = [
  {what: 'a signed event, first time', headers: signed(EVENT), raw: Buffer.from(EVENT), expected: {event: 'EVT_JUDGE_0001', verified: true, status: 200, dedupe: 'new'}},
  {what: 'a signed event answered 200 before', headers: signed(EVENT), raw: Buffer.from(EVENT), seen: {EVT_JUDGE_0001: 'accepted'}, expected: {event: 'EVT_JUDGE_0001', verified: true, status: 200, dedupe: 'duplicate'}},
  {what: 'a signed event whose forwarding failed before', headers: signed(EVENT), raw: Buffer.from(EVENT), seen: {EVT_JUDGE_0001: 'failed'}, expected: {event: 'EVT_JUDGE_0001', verified: true, status: 200, dedupe: 'new'}},
  {what: 'a signed event being forwarded now', headers: signed(EVENT), raw: Buffer.from(EVENT), seen: {EVT_JUDGE_0001: 'in_flight'}, expected: {event: 'EVT_JUDGE_0001', verified: true, status: 200, dedupe: 'wait'}},
  {what: 'either secret during a rotation', headers: signed(EVENT, NOW, ['whsec_old']), raw: Buffer.from(EVENT), rules: {secrets: ['whsec_old', SECRET]}, expected: {event: 'EVT_JUDGE_0001', verified: true, status: 200, dedupe: 'new'}},
  {what: 'no signature header', headers: {}, raw: Buffer.from(EVENT), expected: {reject: 'missing_header', status: 400}},
  {what: 'a header of no known format', headers: {'service-signature': 'hello'}, raw: Buffer.from(EVENT), expected: {reject: 'malformed_header', status: 400}},
  {what: 'another secret', headers: signed(EVENT, NOW, ['whsec_other']), raw: Buffer.from(EVENT), expected: {reject: 'no_matching_signature', status: 401}},
  {what: 'a tampered body', headers: signed(EVENT), raw: Buffer.from(EVENT.replace('succeeded', 'failed')), expected: {reject: 'no_matching_signature', status: 401}},
  {what: 'a stale timestamp', headers: signed(EVENT, NOW - 301), raw: Buffer.from(EVENT), expected: {reject: 'timestamp_outside_tolerance', status: 401}},
  {what: 'a signed body that is not JSON', headers: signed('not json'), raw: Buffer.from('not json'), expected: {reject: 'invalid_json', status: 400}},
  {what: 'a signed body nested too deep (never parsed)', headers: signed(deep), raw: Buffer.from(deep), expected: {reject: 'invalid_json', status: 400}},
  {what: 'a signed JSON array', headers: signed('[1,2]'), raw: Buffer.from('[1,2]'), expected: {reject: 'invalid_event', status: 400}},
  {what: 'a body over the limit', headers: {}, raw: 'too_large', expected: {reject: 'body_too_large', status: 413}},
  {what: 'a body cut short', headers: {}, raw: 'aborted', expected: {reject: 'aborted', status: 400}},
  {what: 'unsigned with verification off', headers: {}, raw: Buffer.from(EVENT), rules: {verify: false, secrets: []}, expected: {event: 'EVT_JUDGE_0001', verified: false, status: 200, dedupe: 'new'}},
  {what: 'not JSON with verification off', headers: {}, raw: Buffer.from('{'), rules: {verify: false, secrets: []}, expected: {reject: 'invalid_json', status: 400}},
  {what: 'a signed object of another shape, id from the header', headers: {...signed(other), 'service-event-id': 'EVT_HDR_1', 'service-event-type': 'payout.failed'}, raw: Buffer.from(other), expected: {event: 'EVT_HDR_1', verified: true, status: 200, dedupe: 'new'}},
]

describe('judge(headers, raw)', () => {
  for (const row of rows) {
    it(row.what, () => {
      expect(summary(judgeWith(row.rules, row.seen)(row.headers, row.raw))).toEqual(row.expected)
    })
  }

  it('the signature is checked before the shape: an unsigned non-event is refused for its signature, not its shape', () => {
    expect(summary(judgeWith()({}, Buffer.from('[1]')))).toEqual({reject: 'missing_header', status: 400})
  })

  it('a rejection names the event when the body was one (shown in red), and the bytes', () => {
    const j = judgeWith()(signed(EVENT, NOW, ['whsec_other']), Buffer.from(EVENT))
    expect(j).toMatchObject({kind: 'reject', event: {id: 'EVT_JUDGE_0001'}, bytes: Buffer.byteLength(EVENT)})
  })

  it('an object of another shape without headers: a digest id (a redelivery is still a duplicate) and type unknown', () => {
    const a = judgeWith()(signed(other), Buffer.from(other))
    const b = judgeWith()(signed(other), Buffer.from(other))
    expect(a.kind === 'event' && a.event.type).toBe('unknown')
    expect(a.kind === 'event' && a.event.id).toMatch(/^sha256:[0-9a-f]{24}$/)
    expect(a.kind === 'event' && b.kind === 'event' && a.event.id === b.event.id).toBe(true)
  })

  it('the scheme that matched is named in the verdict', () => {
    const j = judgeWith()(signed(EVENT), Buffer.from(EVENT))
    expect(j.kind === 'event' && j.verdict.scheme).toBe('inline-hex-sha256')
  })
})
