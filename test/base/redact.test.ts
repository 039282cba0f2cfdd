/**
 * The one redactor (src/base/redact.ts): client --debug traces, --dry-run output and the sandbox request log
 * all go through it. Names match case-insensitively; query strings, URL userinfo and unparsable bodies are covered.
 */
import {readFileSync, readdirSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {REDACTED, isSecretHeader, isSecretName, redactAnswer, redactArgv, redactBodyText, redactHeaders, redactJson, redactQuery, redactUrl, redactValues} from '../../src/base/redact.js'
import {ROOT} from '../helpers/cli.js'

const S = 's3cr3t-value-42'

describe('the one redactor', () => {
  it('is the only one: the sandbox log imports it, no other source file keeps a secret list', () => {
    const src = join(ROOT, 'src')
    const files = readdirSync(src, {recursive: true, encoding: 'utf8'}).filter((f) => f.endsWith('.ts'))
    const lists = files.filter((f) => /SECRET_(HEADERS|KEY|NAME)\b|REDACTED = '/.test(readFileSync(join(src, f), 'utf8')))
    expect(lists).toEqual(['base/redact.ts'])
    expect(readFileSync(join(src, 'sandbox', 'request-log.ts'), 'utf8')).toContain("from '../base/redact.js'")
  })

  it('patterns stay linear on long hostile text (no catastrophic backtracking)', () => {
    const started = performance.now()
    for (const text of ['['.repeat(200_000), 'a'.repeat(200_000), 'a='.repeat(100_000), 'http://'.repeat(30_000), '"k":'.repeat(50_000)]) redactBodyText(text) // none parses as JSON: all by pattern
    // generous: linear work on 1 MB of text is milliseconds; quadratic is minutes
    expect(performance.now() - started).toBeLessThan(10_000)
  })

  it('headers: Authorization (keeping the scheme), cookies, API keys, any case', () => {
    expect(
      redactHeaders({Authorization: `Bearer ${S}`, 'Proxy-Authorization': `Basic ${S}`, Cookie: `a=${S}`, 'Set-Cookie': S, 'X-Api-Key': S, 'X-Client-Secret': S, Accept: 'application/json'}),
    ).toEqual({Authorization: `Bearer ${REDACTED}`, 'Proxy-Authorization': `Basic ${REDACTED}`, Cookie: REDACTED, 'Set-Cookie': REDACTED, 'X-Api-Key': REDACTED, 'X-Client-Secret': REDACTED, Accept: 'application/json'})
    expect(redactHeaders({authorization: S})).toEqual({authorization: REDACTED})
  })

  it('camelCase and PascalCase names too (clientSecret, accessToken, ApiKey), not look-alikes', () => {
    const out = redactJson({clientSecret: S, accessToken: S, refreshToken: S, ApiKey: S, webhookSecret: S, tokenType: 'Bearer', pinned: 'yes', spanish: 'si'})
    expect(JSON.stringify(out)).not.toContain(S)
    expect(out).toMatchObject({tokenType: 'Bearer', pinned: 'yes', spanish: 'si'})
    expect(redactQuery({clientSecret: S, page: '2'})).toEqual({clientSecret: REDACTED, page: '2'})
  })

  it('a name is a secret by its last word, in any case and spelling, and nothing else is', () => {
    for (const name of ['secret', 'CLIENT_SECRET', 'x-api-key', 'ApiKey', 'api_KEY', 'APIKEY', 'card-Number', 'cardNumber', 'db_pwd', 'PIN', 'x-auth-token', 'Authorization', 'set-cookie', 'x'.repeat(300) + '_token'])
      expect(isSecretName(name), name).toBe(true)
    for (const name of ['spin', 'pinned', 'japan', 'tokens', 'keyring', 'secretary', 'content-type', 'idempotency-key', 'x-request-id', 'cardnumbers', 'passWord', 'TO\u212AEN', ''])
      expect(isSecretName(name), name).toBe(false)
  })

  it('a URL without userinfo comes back as it was, query values aside', () => {
    expect(redactUrl('https://api.example.com/v1/balance')).toBe('https://api.example.com/v1/balance')
    expect(redactUrl('https://api.example.com/v1?page=2&token=x')).toBe(`https://api.example.com/v1?page=2&token=${REDACTED}`)
    expect(redactUrl('https://u:p@w@api.example.com/v1')).toBe(`https://${REDACTED}@api.example.com/v1`)
  })

  it('a profile view shows no URL password', async () => {
    const {redactProfile} = await import('../../src/config/profile-view.js')
    const view = redactProfile({base_url: `http://user:${S}@127.0.0.1:4010`, client_id: 'c', client_secret: S})
    expect(JSON.stringify(view)).not.toContain(S)
    expect(view.base_url).toBe(`http://${REDACTED}@127.0.0.1:4010`)
  })

  it('JSON keys in any case and at any depth; non-secret keys kept', () => {
    const out = redactJson({CLIENT_SECRET: S, nested: [{Access_Token: S, refresh_token: S, password: S, apiKey: S, 'api-key': S, card_number: S}], token_type: 'Bearer', client_id: 'c'})
    expect(JSON.stringify(out)).not.toContain(S)
    expect(out).toMatchObject({token_type: 'Bearer', client_id: 'c'})
    // a copy in the same key order (dry runs print it)
    const body = {amount: '10.00', currency: 'KES', nested: {b: 1, a: [1, {z: 1, y: 2}]}, password: 'p'}
    expect(JSON.stringify(redactJson(body))).toBe(JSON.stringify({...body, password: REDACTED}))
  })

  it('walks 100,000 levels of nesting without recursion', () => {
    let deep: unknown = {client_secret: S}
    for (let i = 0; i < 100_000; i++) deep = [deep]
    let out = redactJson(deep)
    for (let i = 0; i < 100_000; i++) out = (out as unknown[])[0]
    expect(out).toEqual({client_secret: REDACTED})
    const text = '['.repeat(100_000) + `{"client_secret":"${S}"}` + ']'.repeat(100_000)
    expect(redactBodyText(text)).not.toContain(S)
  })

  it('query strings and URL userinfo', () => {
    expect(redactUrl(`https://user:${S}@api.example.com/v1/x?client_secret=${S}&a=1&ACCESS_TOKEN=${S}&api%5Fkey=${S}`)).toBe(
      `https://${REDACTED}@api.example.com/v1/x?client_secret=${REDACTED}&a=1&ACCESS_TOKEN=${REDACTED}&api%5Fkey=${REDACTED}`,
    )
    expect(redactUrl('/v1/balance?currency=KES')).toBe('/v1/balance?currency=KES')
    expect(redactQuery({Client_Secret: S, merchant_reference: 'r'})).toEqual({Client_Secret: REDACTED, merchant_reference: 'r'})
  })

  it.each([
    'http://user:p@ss-SECRET1@127.0.0.1:9/hook',
    'https://a@b:c@d-SECRET1@example.com?x=1',
    'http://@@SECRET1@example.com#f',
    'https://user:SECRET1@example.com',
  ])('URL userinfo up to the last @ of the authority, as the URL parser reads it: %s', (url) => {
    const out = redactUrl(url)
    expect(out).not.toContain('SECRET1')
    expect(new URL(out).host).toBe(new URL(url).host)
    expect(out.startsWith(`${new URL(url).protocol}//${REDACTED}@${new URL(url).host}`)).toBe(true)
  })

  it('a URL inside a JSON string value: its userinfo and secret-named query values, whatever the key; the rest kept', () => {
    const body = {url: `http://hook:${S}@127.0.0.1:9/hooks?token=${S}&x=1`, nested: [{note: `see https://u:${S}@example.com/a and more`}], success_url: 'https://shop.example/ok?order=42'}
    expect(redactJson(body)).toEqual({
      url: `http://${REDACTED}@127.0.0.1:9/hooks?token=${REDACTED}&x=1`,
      nested: [{note: `see https://${REDACTED}@example.com/a and more`}],
      success_url: 'https://shop.example/ok?order=42',
    })
    expect(redactBodyText(JSON.stringify(body))).not.toContain(S)
    expect(redactJson(`ftp://a:${S}@h/`)).toBe(`ftp://${REDACTED}@h/`)
  })

  it('bodies that do not parse: malformed or truncated JSON, form encoding, free text', () => {
    for (const text of [
      `{"client_id":"x","client_secret":"${S}"`,
      `{"client_secret": "${S}`,
      `{"Client_Secret":${S}}`,
      `client_id=x&client_secret=${S}&grant_type=client_credentials`,
      `Authorization: Bearer ${S}`,
      `see https://admin:${S}@host.example/`,
    ]) {
      expect(redactBodyText(text), text).not.toContain(S)
    }
    expect(redactBodyText('{"client_id":"visible","amount":"10.00"')).toBe('{"client_id":"visible","amount":"10.00"')
  })

  it('the token after `Bearer` whatever precedes it (`token=Bearer …`, a header, a JSON-ish pair)', () => {
    for (const text of [`token=Bearer ${S}`, `auth=Basic ${S}`, `request had token=Bearer ${S}</html>`, `Authorization: Bearer ${S}`, `"authorization": "Bearer ${S}`]) {
      expect(redactBodyText(text), text).not.toContain(S)
    }
    expect(redactBodyText(`token=Bearer ${S}`)).toBe(`token=${REDACTED} ${REDACTED}`)
  })

  it('known secret values anywhere in free text', () => {
    expect(redactBodyText(`{"note":"${S}"}`, [S])).toBe(`{"note":"${REDACTED}"}`)
  })
})

describe('redaction', () => {
  it('redacts the Authorization header and secret-named JSON keys at any depth', () => {
    expect(redactHeaders({authorization: 'Bearer abc', accept: 'application/json'})).toEqual({authorization: 'Bearer [REDACTED]', accept: 'application/json'})
    expect(JSON.parse(redactBodyText('{"client_id":"x","client_secret":"s","nested":{"access_token":"t"}}'))).toEqual({client_id: 'x', client_secret: '[REDACTED]', nested: {access_token: '[REDACTED]'}})
    expect(redactValues('the secret is hunter22', ['hunter22'])).toBe('the secret is [REDACTED]')
  })
})

describe('known secret values, in every form they take once encoded', () => {
  // values with what JSON, URLs and XML escape: quotes, backslash, space, &, <, non-ASCII, +, %, an apostrophe
  // plus a value every encoding leaves as it is (redact.ts takes a short way for it) and one with `~`, which only a
  // query's encoding changes
  const AWKWARD = ['sb_plain-secret.1', 'tilde~key1', 'abc"def1', 'back\\slash', 'hunter2 pass', 'p&ss wrd"1', '<b>&amp;x', 'pässwörd€1', 'a+b+c+d', '100%pure', "it's'ok", '🔑key-1', 'tab\tnew\nline']
  const xml = (v: string, apos: string) => v.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, apos)
  const asciiJson = (v: string) => JSON.stringify(v).slice(1, -1).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)

  it.each(AWKWARD)('%j is redacted raw, JSON-escaped, percent- and form-encoded, XML-escaped', (v) => {
    const url = new URL('http://h/x')
    url.searchParams.set('merchant_reference', v)
    const forms = {
      raw: v,
      json: JSON.stringify(v).slice(1, -1),
      'json twice (a JSON text inside a JSON string)': JSON.stringify(JSON.stringify(v).slice(1, -1)).slice(1, -1),
      'json, ASCII only': asciiJson(v),
      'a path segment': encodeURIComponent(v),
      'a query (searchParams)': url.search.slice('?merchant_reference='.length),
      'a form, + for space': encodeURIComponent(v).replace(/%20/g, '+'),
      'percent, small letters': encodeURIComponent(v).replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()),
      xml: xml(v, '&apos;'),
      html: xml(v, '&#39;'),
    }
    for (const [what, form] of Object.entries(forms)) {
      const text = `before ${form} after`
      const redacted = redactValues(text, [v])
      expect(redacted, `${what}: ${form}`).toBe(`before ${REDACTED} after`)
    }
  })

  it('leave text alone that holds none of them, and values shorter than 4 characters', () => {
    expect(redactValues('nothing to see: abc%22, abc&quot;', ['abc"def1', 'a"b'])).toBe('nothing to see: abc%22, abc&quot;')
  })
})

describe('an answer as pay prints it (redactAnswer)', () => {
  const answer = (text: string, headers: Record<string, string> = {}) => ({text, body: JSON.parse(text) as unknown, headers})

  it('keeps a body that quotes no secret byte for byte, and hides the secret-named headers all the same', () => {
    const text = '{ "b": 1,\n  "a": "x" }'
    const shown = redactAnswer(answer(text, {'set-cookie': 'sid=1', 'x-request-id': 'REQ_1'}), [S])
    expect(shown.text).toBe(text)
    expect(shown.headers).toEqual({'set-cookie': REDACTED, 'x-request-id': 'REQ_1'})
  })

  it('hides a known value in the text, the parsed body (keys too) and the other headers, whatever escapes spell it', () => {
    const escaped = `\\u0073${S.slice(1)}` // `s` written as a JSON escape: only the parse shows the secret
    const shown = redactAnswer(answer(`{ "a": "${escaped}", "b": ["x ${S}"], "${S}": 1 }`, {'x-echo': `Bearer ${S}`}), [S, undefined])
    expect(shown.body).toEqual({a: REDACTED, b: [`x ${REDACTED}`], [REDACTED]: 1})
    expect(JSON.parse(shown.text)).toEqual(shown.body)
    expect(shown.text + JSON.stringify(shown.headers)).not.toContain(S.slice(1))
    expect(shown.headers).toEqual({'x-echo': `Bearer ${REDACTED}`})
    // spelled plainly, the text keeps its layout
    expect(redactAnswer(answer(`{ "a": "${S}" }`), [S]).text).toBe(`{ "a": "${REDACTED}" }`)
    // not JSON: the text alone
    expect(redactAnswer({text: `ok ${S}`, body: undefined, headers: {}}, [S]).text).toBe(`ok ${REDACTED}`)
  })

  it('hands back the same headers when it hides nothing in them, and a redacted copy when one quotes a secret', () => {
    const headers = {'content-type': 'application/json', date: 'Fri, 27 Nov 2026 15:44:32 GMT', 'x-request-id': 'REQ_1'}
    expect(redactAnswer(answer('{"a":"x"}', headers), [S]).headers).toBe(headers)
    const echo = {...headers, 'x-echo': `a value longer than the secret, then ${S}`}
    const shown = redactAnswer(answer('{"a":"x"}', echo), [S])
    expect(shown.headers).not.toBe(echo)
    expect(shown.headers['x-echo']).toBe(`a value longer than the secret, then ${REDACTED}`)
    expect(echo['x-echo']).toContain(S) // the answer's own object is left as it was
    // a value shorter than a secret cannot hold it: as it is
    expect(redactValues(S.slice(0, -1), [S])).toBe(S.slice(0, -1))
  })

  it('hides a secret that stands outside every string (a number): in the text and in what formats print', () => {
    const pin = '48151623'
    const shown = redactAnswer(answer(`{"pin":${pin},"n":"x"}`), [pin])
    expect(shown.text).toBe(`{"pin":${REDACTED},"n":"x"}`)
    expect(JSON.stringify(shown.body)).not.toContain(pin)
  })
})

describe('isSecretHeader', () => {
  it('answers by the name, the same when asked again (remembered) and past the names it remembers', () => {
    const names = ['Authorization', 'x-request-id', 'X-Client-Secret', 'content-type', 'set-cookie', 'X-Api-Key', 'etag']
    const first = names.map(isSecretHeader)
    expect(first).toEqual([true, false, true, false, true, true, false])
    for (let i = 0; i < 300; i++) isSecretHeader(`x-other-${i}`)
    expect(names.map(isSecretHeader)).toEqual(first)
  })
})

describe('a command line as pay prints or stores it (redactArgv)', () => {
  const R = REDACTED
  it('secret-named headers in every spelling of -H, secret flags and a --base-url password; the rest as given', () => {
    const argv = ['api', 'POST', '/v1/payouts', '-H', 'X-Api-Key: k1', '--header=Cookie: s=c2', '-HAuthorization: Bearer t3', '-H', 'X-Trace: plain', '--client-secret', 's4', '--webhook-secret=s5', '--base-url', 'https://u:p6@h.example', '--data', '{"a":"1"}']
    const {args, left} = redactArgv(argv)
    expect(args).toEqual(['api', 'POST', '/v1/payouts', '-H', `X-Api-Key: ${R}`, `--header=Cookie: ${R}`, `-HAuthorization: ${R}`, '-H', 'X-Trace: plain', '--client-secret', R, `--webhook-secret=${R}`, '--base-url', `https://${R}@h.example`, '--data', '{"a":"1"}'])
    for (const secret of ['k1', 'c2', 't3', 's4', 's5', 'p6']) expect(args.join(' ')).not.toContain(secret)
    expect(left).toEqual(['-H X-Api-Key', '-H Cookie', '-H Authorization', '--client-secret', '--webhook-secret', '--base-url'])
  })

  it('a secret pay holds, typed anywhere (a field flag, inside --data, another header), named by its flag', () => {
    const held = 'sb_acme_secret_4f8a2c1e9b7d'
    const {args, left} = redactArgv(['collections', 'create', '--provider', held, '--data', `{"note":"${held}"}`, '-H', `X-Note: ${held}`, '--reference', 'r1'], [held])
    expect(args).toEqual(['collections', 'create', '--provider', R, '--data', `{"note":"${R}"}`, '-H', `X-Note: ${R}`, '--reference', 'r1'])
    expect(left).toEqual(['--provider', '--data', '-H X-Note'])
  })

  it('secret-named fields of an inline --data body and of -F, as a log shows the body; other spellings kept as typed', () => {
    const {args, left} = redactArgv(['api', 'POST', '/v1/x', '--data', '{"api_key": "k123", "note": "n", "n": 12345678901234567890}', '-F', 'auth.password=p456', '-F', 'pin:=9876', '-F', 'note=plain', '--data={ "a" : 1 }'])
    expect(args).toEqual(['api', 'POST', '/v1/x', '--data', `{"api_key":"${R}","note":"n","n":12345678901234567890}`, '-F', `auth.password=${R}`, '-F', `pin:=${JSON.stringify(R)}`, '-F', 'note=plain', '--data={ "a" : 1 }'])
    for (const secret of ['k123', 'p456', '9876']) expect(args.join(' ')).not.toContain(secret)
    expect(left).toEqual(['--data', '-F auth.password', '-F pin'])
  })

  it('a flag is secret by the one naming rule (isSecretName): --secret and --token are, --token-ttl is not', () => {
    const {args, left} = redactArgv(['sandbox', 'start', '--token-ttl', '30', '--rate-token-per-minute=5', '--secret', 'w1', '--token=t2', '--api-key', 'k3'])
    expect(args).toEqual(['sandbox', 'start', '--token-ttl', '30', '--rate-token-per-minute=5', '--secret', R, `--token=${R}`, '--api-key', R])
    expect(left).toEqual(['--secret', '--token', '--api-key'])
  })

  it('nothing secret: the words as given, nothing to put back', () => {
    const argv = ['payouts', 'create', '--amount', '12.00', '-H', 'Idempotency-Key: k', '--yes', '--data', '{"note": "x"}', '-F', 'note=y']
    expect(redactArgv(argv, ['sb_acme_secret_4f8a2c1e9b7d'])).toEqual({args: argv, left: []})
  })
})
