/**
 * The one request policy (src/client/request-policy.ts), as a table: every outcome of an attempt × whether an
 * earlier attempt under the same key may have reached the service × whether the request is safe to repeat (a GET
 * or a POST with its Idempotency-Key) or not (a POST without one). Each row says whether the attempt is repeated,
 * and the class of the request when it is not: refused (the service certainly did nothing), unknown (it may have
 * acted) or accepted. A single command, a bulk row, a flow step, smoke, `pay api` and --wait's polls all ask this.
 */
import {readFileSync, readdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {type AttemptOutcome, MAX_RETRY_AFTER_MS, RequestAttempts, classify, classOfError, classifyNetworkError, pollDelayMs, provesAbsent, retryAfterMs, saysAbsent, statusOutcome, throttleBackoffMs} from '../../src/client/request-policy.js'
import {scriptedEnv, serviceError, useScriptedServer} from '../helpers/scripted-server.js'
import {runInProcess} from '../helpers/in-process.js'

const status = (s: number, code?: string): AttemptOutcome => ({kind: 'status', status: s, ...(code ? {code} : {})})
const cut: AttemptOutcome = {kind: 'network', sent: true}
const neverConnected: AttemptOutcome = {kind: 'network', sent: false}
const timeout: AttemptOutcome = {kind: 'timeout'}
const tls: AttemptOutcome = {kind: 'tls', code: 'CERT_HAS_EXPIRED'}
const unusable: AttemptOutcome = {kind: 'unusable', status: 201}

type Class = 'accepted' | 'refused' | 'unknown'
/** [name, outcome, retried when safe to repeat, retried when not, class (no earlier attempt maybe sent), class (one was)] */
const TABLE: [string, AttemptOutcome, boolean, boolean, Class, Class][] = [
  ['201 created', status(201), false, false, 'accepted', 'accepted'],
  ['200 ok', status(200), false, false, 'accepted', 'accepted'],
  ['201 with a body pay cannot use', unusable, false, false, 'unknown', 'unknown'],
  ['307 redirect', status(307), false, false, 'unknown', 'unknown'],
  ['400 invalid', status(400, 'invalid_parameter'), false, false, 'refused', 'unknown'],
  ['422 validation', status(422, 'validation_error'), false, false, 'refused', 'unknown'],
  ['409 idempotency_key_mismatch', status(409, 'idempotency_key_mismatch'), false, false, 'refused', 'unknown'],
  ['409 pending conflict', status(409, 'mandate_pending'), false, false, 'refused', 'unknown'],
  ['401 unauthorized', status(401), false, false, 'refused', 'unknown'],
  ['403 forbidden', status(403), false, false, 'refused', 'unknown'],
  ['404 not found', status(404), false, false, 'refused', 'unknown'],
  ['408 request timeout', status(408), true, false, 'unknown', 'unknown'],
  ['429 rate limited', status(429), true, true, 'refused', 'unknown'],
  ['500 internal', status(500), true, false, 'unknown', 'unknown'],
  ['501 not implemented', status(501), false, false, 'unknown', 'unknown'],
  ['502 bad gateway', status(502, 'gateway_error'), true, false, 'unknown', 'unknown'],
  ['503 unavailable', status(503), true, false, 'unknown', 'unknown'],
  ['504 gateway timeout', status(504), true, false, 'unknown', 'unknown'],
  ['connection cut after sending', cut, true, false, 'unknown', 'unknown'],
  ['connection never made', neverConnected, true, true, 'refused', 'unknown'],
  ['timeout', timeout, true, false, 'unknown', 'unknown'],
  ['certificate not verified', tls, false, false, 'refused', 'unknown'],
]

/** Bodies of a 4xx answer: the service's error object (code, message, request_id), and what only looks like one. */
const PAGE = '<html><head><title>400 Bad Request</title></head><body><center><h1>400 Bad Request</h1></center><hr><center>nginx</center></body></html>'
const BODIES: [string, (code: string) => unknown, boolean][] = [
  ["the service's error object", (code) => serviceError(code), true],
  ["a gateway's HTML page", () => PAGE, false],
  ['an empty body', () => undefined, false],
  ['an error object without request_id', (code) => ({error: {code, message: code}}), false],
  ['JSON of another shape', () => ({message: 'no Route matched with those values'}), false],
]
/**
 * [name, status, code] × body × earlier attempt maybe sent × idempotent: [class (none maybe sent), class (one was),
 * whether the answer says the resource is absent (only the service's own not_found)]. After a maybe-sent attempt no
 * refusal settles the key, whatever its body: the interface names no code that says what became of the earlier one.
 */
const REFUSALS: [string, number, string, Class, Class, boolean][] = [
  ['400 invalid_parameter', 400, 'invalid_parameter', 'refused', 'unknown', false],
  ['422 validation_error', 422, 'validation_error', 'refused', 'unknown', false],
  ['409 idempotency_key_mismatch (the key WAS used)', 409, 'idempotency_key_mismatch', 'refused', 'unknown', false],
  ['409 a pending request', 409, 'mandate_pending_approval', 'refused', 'unknown', false],
  ['401 invalid_client', 401, 'invalid_client', 'refused', 'unknown', false],
  ['403 forbidden', 403, 'forbidden', 'refused', 'unknown', false],
  ['404 not_found', 404, 'not_found', 'refused', 'unknown', true],
]

describe('refusals by the body they carry', () => {
  for (const [name, code, errorCode, cleanClass, afterMaybeSent, absent] of REFUSALS) {
    for (const [bodyName, body, fromService] of BODIES) {
      for (const safeToRepeat of [true, false]) {
        for (const earlierMaybeSent of [false, true]) {
          it(`${name} | ${bodyName} | ${earlierMaybeSent ? 'an earlier attempt maybe sent' : 'none maybe sent'} | ${safeToRepeat ? 'idempotent' : 'not idempotent'}`, () => {
            const outcome = statusOutcome(code, body(errorCode))
            expect(outcome).toEqual({kind: 'status', status: code, ...(fromService ? {code: errorCode} : {})})
            const decision = new RequestAttempts({retries: 3, safeToRepeat, earlierMaybeSent}).next(outcome, undefined, () => 0.5)
            expect(decision).toMatchObject({retry: false, class: earlierMaybeSent ? afterMaybeSent : cleanClass})
            // a lookup's 404 says "absent" only as the service's own not_found; a gateway's page is a failed lookup
            expect(saysAbsent(outcome)).toBe(absent && fromService)
            expect(provesAbsent({attemptOutcome: outcome})).toBe(absent && fromService)
          })
        }
      }
    }
  }

  it('the service error shape: code, message and request_id, all strings', () => {
    const codeOf = (body: unknown) => (statusOutcome(404, body) as {code?: string}).code
    expect(codeOf(serviceError('not_found'))).toBe('not_found')
    expect(codeOf({error: {code: 'not_found', message: 'x', request_id: 7}})).toBeUndefined()
    expect(codeOf({error: 'not_found'})).toBeUndefined()
    expect(codeOf(PAGE)).toBeUndefined()
    expect(codeOf(null)).toBeUndefined()
    // a success carries no error code, whatever its body
    expect(statusOutcome(200, serviceError('not_found'))).toEqual({kind: 'status', status: 200})
  })
})

describe('the request policy, as a table', () => {
  for (const [name, outcome, retriedSafe, retriedUnsafe, cleanClass, afterMaybeSent] of TABLE) {
    for (const safeToRepeat of [true, false]) {
      for (const earlierMaybeSent of [false, true]) {
        it(`${name} | ${safeToRepeat ? 'idempotent' : 'not idempotent'} | ${earlierMaybeSent ? 'an earlier attempt maybe sent' : 'no earlier attempt maybe sent'}`, () => {
          const retried = safeToRepeat ? retriedSafe : retriedUnsafe
          const policy = new RequestAttempts({retries: 3, safeToRepeat, earlierMaybeSent})
          const decision = policy.next(outcome, undefined, () => 0.5)
          expect(decision.retry).toBe(retried)
          // the same outcome as the LAST attempt (no retries left): the class of the request
          const last = new RequestAttempts({retries: 0, safeToRepeat, earlierMaybeSent}).next(outcome, undefined, () => 0.5)
          expect(last.retry).toBe(false)
          const expected = earlierMaybeSent ? afterMaybeSent : cleanClass
          if (!last.retry) expect(last.class).toBe(expected)
          expect(classify(outcome, earlierMaybeSent)).toBe(expected)
        })
      }
    }
  }

  it('an attempt that may have reached the service makes every later refusal unknown: 403, 422, a 409 mismatch, a gateway page', () => {
    for (const [first, then] of [[cut, status(403)], [timeout, statusOutcome(422, serviceError('validation_error'))], [status(502), statusOutcome(400, PAGE)], [status(503), statusOutcome(409, serviceError('idempotency_key_mismatch'))]] as const) {
      const policy = new RequestAttempts({retries: 1, safeToRepeat: true})
      expect(policy.next(first, undefined, () => 0).retry).toBe(true)
      expect(policy.next(then)).toMatchObject({retry: false, class: 'unknown'})
    }
  })

  it('one 401 on a request with the bearer token gets a fresh token and one more attempt, not counted', () => {
    const policy = new RequestAttempts({retries: 0, safeToRepeat: true, auth: true})
    expect(policy.next(status(401))).toMatchObject({retry: true, refreshToken: true, waitMs: 0})
    expect(policy.next(status(401))).toMatchObject({retry: false, class: 'refused', again: false})
  })

  it('refused for now (429 to the end, never connected) may be sent again later; a refusal of the request may not', () => {
    expect(new RequestAttempts({retries: 0, safeToRepeat: true}).next(status(429))).toMatchObject({retry: false, class: 'refused', again: true})
    expect(new RequestAttempts({retries: 0, safeToRepeat: true}).next(neverConnected)).toMatchObject({retry: false, class: 'refused', again: true})
    expect(new RequestAttempts({retries: 0, safeToRepeat: true}).next(status(400))).toMatchObject({retry: false, class: 'refused', again: false})
  })

  it('--retries counts every attempt of a single command; a bulk row has a budget of 429s of its own', () => {
    const single = new RequestAttempts({retries: 2, safeToRepeat: true})
    expect([single.next(status(429), 0).retry, single.next(status(503)).retry, single.next(status(429), 0).retry]).toEqual([true, true, false])
    const row = new RequestAttempts({retries: 1, safeToRepeat: true, throttles: 3})
    const seen = [row.next(status(429), 0), row.next(status(429), 0), row.next(status(503)), row.next(status(429), 0), row.next(status(503))].map((d) => d.retry)
    expect(seen).toEqual([true, true, true, true, false])
  })

  it('waits: Retry-After for a 429 (not beyond MAX_RETRY_AFTER_MS), back-off otherwise, never past the deadline', () => {
    expect(new RequestAttempts({retries: 3, safeToRepeat: true}).next(status(429), 1500)).toMatchObject({retry: true, waitMs: 1500, throttled: true})
    expect(new RequestAttempts({retries: 3, safeToRepeat: true}).next(status(429), MAX_RETRY_AFTER_MS + 1)).toMatchObject({retry: false, stoppedBy: 'retry-after'})
    expect(new RequestAttempts({retries: 3, safeToRepeat: true}).next(status(503), undefined, () => 1)).toMatchObject({retry: true, waitMs: 250})
    expect(new RequestAttempts({retries: 3, safeToRepeat: true, timeLeft: () => 100}).next(status(503), undefined, () => 1)).toMatchObject({retry: false, stoppedBy: 'deadline', class: 'unknown'})
  })

  it('a failure thrown before an answer (no token, bad input) is refused unless an earlier attempt may have been sent', () => {
    expect(classOfError(new Error('x'))).toBe('refused')
    expect(classOfError(new Error('x'), true)).toBe('unknown')
    expect(classOfError(Object.assign(new Error('x'), {requestClass: 'unknown'}))).toBe('unknown')
  })

  it('backs off exponentially with jitter, capped; polls and a shared rate the same way every time', () => {
    // the wait before the next attempt, after the `attempt`-th 503 in a row
    const backoffMs = (attempt: number, random: () => number) => {
      const policy = new RequestAttempts({retries: attempt, safeToRepeat: true})
      let decision = policy.next(status(503), undefined, random)
      for (let i = 1; i < attempt; i++) decision = policy.next(status(503), undefined, random)
      return decision.retry ? decision.waitMs : undefined
    }
    expect(backoffMs(1, () => 0)).toBe(125)
    expect(backoffMs(1, () => 1)).toBe(250)
    expect(backoffMs(3, () => 1)).toBe(1000)
    expect(backoffMs(20, () => 1)).toBe(8000)
    expect(pollDelayMs(0, () => 0.5)).toBe(500)
    expect(pollDelayMs(20, () => 0.5)).toBe(5000)
    expect([throttleBackoffMs(0), throttleBackoffMs(1000), throttleBackoffMs(8000)]).toEqual([1000, 2000, 8000])
  })

  it('reads Retry-After as seconds or a date, else the body retry_after', () => {
    expect(retryAfterMs({'retry-after': '3'}, undefined)).toBe(3000)
    expect(retryAfterMs({'retry-after': new Date(10_000).toUTCString()}, undefined, 5000)).toBe(5000)
    expect(retryAfterMs({}, {error: {retry_after: 2}})).toBe(2000)
    expect(retryAfterMs({}, {error: {}})).toBeUndefined()
  })

  it('classifies refused connections as not sent and resets as maybe sent', () => {
    expect(classifyNetworkError(Object.assign(new Error('x'), {code: 'ECONNREFUSED'}))).toEqual({kind: 'network', sent: false})
    expect(classifyNetworkError(Object.assign(new Error('x'), {code: 'UND_ERR_SOCKET', cause: {code: 'ECONNRESET'}}))).toEqual({kind: 'network', sent: true})
    expect(classifyNetworkError(Object.assign(new Error('x'), {code: 'UND_ERR_HEADERS_TIMEOUT'}))).toEqual({kind: 'timeout'})
  })
})

/**
 * The policy through the client core and the journal, against a scripted service where the real one may differ
 * from the sandbox: a gateway in front of it that answers a retry with its own HTML 400, and a service that compares
 * a reused key's body byte for byte (409 idempotency_key_mismatch). Neither may settle a request that may have paid.
 */
describe('a refusal after an attempt that may have reached the service never settles it', () => {
  const server = useScriptedServer()
  const html = (status: number, page: string) => ({
    handle: (_req: unknown, res: import('node:http').ServerResponse) => {
      res.writeHead(status, {'content-type': 'text/html'})
      res.end(page)
    },
  })
  const create = ['collections', 'create', '--amount', '10', '--currency', 'KES', '--mobile', '254700000001', '--provider', 'mpesa']
  const keysSent = () => server.apiRequests().filter((r) => r.method === 'POST').map((r) => r.headers['idempotency-key'])

  it("a 502 then a gateway's HTML 400 under the same key: unknown (the key named), and the next run resumes that key", async () => {
    const env = {...scriptedEnv(server), NO_COLOR: '1'}
    server.script('POST /v1/collections', html(502, '<html><body><h1>502 Bad Gateway</h1></body></html>'), html(400, PAGE))
    const first = await runInProcess([...create, '-r', 'gw-400'], {env})
    expect(first.stderr).toMatch(/outcome is unknown/)
    expect(first.stderr).not.toMatch(/check the flags/)
    const [key] = keysSent()
    expect(keysSent()).toEqual([key, key])
    expect(first.stderr).toContain(key)
    const second = await runInProcess([...create, '-r', 'gw-400'], {env})
    expect(second.code, second.stderr).toBe(0)
    expect(second.stdout).toContain('CL_1')
    expect(new Set(keysSent())).toEqual(new Set([key]))
  })

  it("the service's own 422 to a retry after a timeout keeps it unknown too (it may judge the body afresh)", async () => {
    const env = {...scriptedEnv(server), NO_COLOR: '1'}
    server.script('POST /v1/collections', {drop: true}, {status: 422, body: serviceError('validation_error', 'insufficient balance')})
    const first = await runInProcess([...create, '-r', 'svc-422'], {env})
    expect(first.code).not.toBe(0)
    expect(first.stderr).toMatch(/outcome is unknown/)
    const second = await runInProcess([...create, '-r', 'svc-422'], {env})
    expect(second.code, second.stderr).toBe(0)
    expect(new Set(keysSent()).size).toBe(1)
  })

  /** A service that keeps each key's body bytes: the first request is done but its answer lost; a reuse with other bytes is a 409. */
  const byteComparing = (posts: number) => {
    const stored = new Map<string, string>()
    const handle = (_req: unknown, res: import('node:http').ServerResponse) => {
      const {headers, body: raw} = server.requests.at(-1)! // read whole by the scripted server
      const key = headers['idempotency-key']
      const before = stored.get(key)
      if (before === undefined) {
        stored.set(key, raw)
        return res.socket?.destroy() // done, and the answer lost
      }
      const [status, body] = before === raw ? [201, {id: 'CL_1', object: 'collection', status: 'processing', currency: 'KES', amount: '10.00', merchant_reference: 'mm-1'}] : [409, serviceError('idempotency_key_mismatch', 'Idempotency-Key reused with a different body')]
      res.writeHead(status, {'content-type': 'application/json'})
      res.end(JSON.stringify(body))
    }
    for (let i = 0; i < posts; i++) server.script('POST /v1/collections', {handle})
  }
  const data = JSON.stringify({provider: 'mpesa', mobile: '254700000001', merchant_reference: 'mm-1', currency: 'KES', amount: '10.00'})

  it('the same JSON in another key order resumes the key with the bytes first sent, so a byte-comparing service answers it', async () => {
    const env = {...scriptedEnv(server), NO_COLOR: '1'}
    byteComparing(2)
    const first = await runInProcess([...create, '-r', 'mm-1', '--retries', '0'], {env})
    expect(first.stderr).toMatch(/outcome is unknown/)
    const second = await runInProcess(['collections', 'create', '--data', data], {env})
    expect(second.code, second.stderr).toBe(0)
    expect(second.stdout).toContain('CL_1')
    const posts = server.apiRequests().filter((r) => r.method === 'POST')
    expect(posts.map((r) => r.body)).toEqual([posts[0].body, posts[0].body])
    expect(new Set(keysSent()).size).toBe(1)
  })

  it('so does the resume command, --idempotency-key given, with the JSON in another key order', async () => {
    const env = {...scriptedEnv(server), NO_COLOR: '1'}
    byteComparing(2)
    const first = await runInProcess([...create, '-r', 'mm-1', '--retries', '0'], {env})
    const [key] = keysSent()
    expect(first.stderr).toContain(key)
    const second = await runInProcess(['collections', 'create', '--data', data, '--idempotency-key', key], {env})
    expect(second.code, second.stderr).toBe(0)
    expect(second.stdout).toContain('CL_1')
  })

  it('a 409 idempotency_key_mismatch on a resumed key proves it was used: unknown, never refused, saying how to resume it; the original command does', async () => {
    const env = {...scriptedEnv(server), NO_COLOR: '1'}
    byteComparing(3)
    const first = await runInProcess([...create, '-r', 'mm-1', '--retries', '0'], {env})
    expect(first.stderr).toMatch(/outcome is unknown/)
    // a journal that does not hold the bytes (an older pay's): the resume sends this run's, and the service says 409
    const dir = join(env.PAY_CONFIG_DIR, 'state', 'journal')
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.ndjson'))) {
      const lines = readFileSync(join(dir, f), 'utf8').split('\n').map((l) => (l.includes('"t":"op"') ? JSON.stringify({...JSON.parse(l), body: undefined}) : l))
      writeFileSync(join(dir, f), lines.join('\n'))
    }
    const second = await runInProcess(['collections', 'create', '--data', data], {env})
    expect(second.code).toBe(7) // unknown: the 409's own code (5) would read as a certain failure
    expect(second.stderr).toMatch(/was used before with another body: the request sent under it at .* may have been done, and its outcome stays unknown/)
    expect(second.stderr).toContain('pay collections create --amount 10')
    expect(second.stderr).not.toMatch(/drop --idempotency-key/)
    const third = await runInProcess([...create, '-r', 'mm-1'], {env})
    expect(third.code, third.stderr).toBe(0)
    expect(third.stdout).toContain('CL_1')
    expect(new Set(keysSent()).size).toBe(1)
  })
})
