/**
 * The last guard on the URL `pay api` built, on its own: no PATH that the rules let through reaches it (those are
 * checked end to end in test/api/validate.hostile.test.ts), so its refusals are checked here directly.
 */
import {expect, it} from 'vitest'
import {checkSentUrl} from '../../src/client/raw-path.js'

it('the last guard: the URL as built must stay on the origin and under the base URL\'s path + /v1/', () => {
  const base = new URL('http://127.0.0.1:1/prefix')
  expect(() => checkSentUrl(base, new URL('http://127.0.0.1:1/prefix/v1/balance'), false)).not.toThrow()
  expect(() => checkSentUrl(base, new URL('http://127.0.0.1:1/v1/balance'), false)).toThrow(/must stay under \/v1\/ once parsed \(it would be sent as \/v1\/balance/)
  expect(() => checkSentUrl(base, new URL('http://127.0.0.1:1/prefix/_sandbox/reset'), false)).toThrow(/once parsed/)
  expect(() => checkSentUrl(base, new URL('http://127.0.0.1:1/prefix/_sandbox/reset'), true)).not.toThrow()
  expect(() => checkSentUrl(base, new URL('http://127.0.0.1:2/prefix/v1/balance'), true)).toThrow(/origin/)
})
