import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Sandbox} from '../../src/sandbox/index.js'
import {ACME, Client, collectionBody, expectError, start, tokenFor} from '../helpers/sandbox-http.js'

let sb: Sandbox
let anon: Client
beforeAll(async () => {
  sb = await start({tokenTtlSeconds: 60})
  anon = new Client(sb.url)
})
afterAll(() => sb.close())

describe('token endpoint', () => {
  it('issues an opaque 64-character bearer token with expires_in = --token-ttl', async () => {
    const r = await anon.post('/v1/oauth/token', {grant_type: 'client_credentials', client_id: ACME.client_id, client_secret: ACME.client_secret})
    expect(r.status).toBe(200)
    expect(r.body.token_type).toBe('Bearer')
    expect(r.body.expires_in).toBe(60)
    expect(r.body.access_token).toMatch(/^[A-Za-z0-9]{64}$/)
    expect(r.body.access_token.split('.').length).toBe(1) // not a JWT
  })

  it('defaults grant_type and refuses any other grant', async () => {
    expect((await anon.post('/v1/oauth/token', {client_id: ACME.client_id, client_secret: ACME.client_secret})).status).toBe(200)
    expectError(await anon.post('/v1/oauth/token', {grant_type: 'password', client_id: ACME.client_id, client_secret: ACME.client_secret}), 400, 'invalid_parameter', 'grant_type')
  })

  it('answers 401 invalid_client for a wrong secret or unknown client, 403 for a disabled client, 400 for a missing field', async () => {
    expectError(await anon.post('/v1/oauth/token', {client_id: ACME.client_id, client_secret: 'nope'}), 401, 'invalid_client')
    expectError(await anon.post('/v1/oauth/token', {client_id: 'nobody', client_secret: 'nope'}), 401, 'invalid_client')
    expectError(await anon.post('/v1/oauth/token', {client_id: 'sb_acme_disabled_client', client_secret: 'sb_acme_disabled_secret'}), 403, 'forbidden')
    expectError(await anon.post('/v1/oauth/token', {client_id: ACME.client_id}), 400, 'invalid_parameter', 'client_secret')
  })

  it('expires tokens on the sandbox clock', async () => {
    const token = await tokenFor(sb.url, ACME)
    const c = new Client(sb.url, token)
    expect((await c.get('/v1/account')).status).toBe(200)
    sb.advanceClock(61)
    expectError(await c.get('/v1/account'), 401, 'invalid_token')
  })
})

describe('bearer token and headers', () => {
  let c: Client
  beforeAll(async () => {
    c = new Client(sb.url, await tokenFor(sb.url, ACME))
  })

  it('401 without a token or with a bad one, with the error envelope', async () => {
    const e = expectError(await anon.get('/v1/account'), 401, 'invalid_token')
    expect(e.request_id).toMatch(/^REQ_[A-Z0-9]{12}$/)
    expectError(await anon.get('/v1/account', {token: 'x'.repeat(64)}), 401, 'invalid_token')
    expectError(await anon.get('/v1/balance', {headers: {authorization: 'Basic abc'}}), 401, 'invalid_token')
  })

  it('requires Content-Type and Accept application/json', async () => {
    expectError(await c.post('/v1/collections', collectionBody(), {headers: {'content-type': 'text/plain'}}), 400, 'invalid_parameter', 'Content-Type')
    expectError(await c.post('/v1/collections', collectionBody(), {headers: {'content-type': undefined}}), 400, 'invalid_parameter', 'Content-Type')
    expectError(await c.get('/v1/account', {headers: {accept: undefined}}), 400, 'invalid_parameter', 'Accept')
    expectError(await c.get('/v1/account', {headers: {accept: 'text/html'}}), 400, 'invalid_parameter', 'Accept')
    expectError(await c.get('/v1/account', {headers: {'content-type': undefined}}), 400, 'invalid_parameter', 'Content-Type')
  })

  it('requires Idempotency-Key on idempotent endpoints', async () => {
    expectError(await c.post('/v1/collections', collectionBody(), {key: false}), 400, 'invalid_parameter', 'Idempotency-Key')
    expectError(await c.post('/v1/virtual-accounts/merchant', [], {key: false}), 400, 'invalid_parameter', 'Idempotency-Key')
    // not idempotent: no key needed
    expect((await c.post('/v1/verifications/msisdn', {mobile: '254712345670'}, {key: false})).status).toBe(200)
  })

  it('answers every error with X-Request-Id equal to the body request_id', async () => {
    const r = await c.get('/v1/collections/CL_DOESNOTEXIST')
    const e = expectError(r, 404, 'not_found')
    expect(r.headers['x-request-id']).toBe(e.request_id)
  })

  it('404 for a path outside the endpoint table', async () => {
    expectError(await c.get('/v1/nothing-here'), 404, 'not_found')
  })
})
