/**
 * `pay webhook verify` in-process (src/webhooks/verify-delivery.ts): which variant matched, --explain, the masked
 * shape; the command's run function with the body from a file or stdin and the secret from a flag, the environment or
 * a pinned format in the profile.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {Readable} from 'node:stream'
import {describe, expect, it} from 'vitest'
import {parseSchemeId, sign} from '../../src/webhooks/signature.js'
import {runWebhookVerify} from '../../src/webhooks/verify-delivery.js'
import {json} from '../helpers/cli.js'
import {commandEnv, memoryOutput, runCommand} from '../helpers/in-process.js'
import {eventBody, nowSeconds, opensslHeader} from '../helpers/webhooks.js'

type VerifyOptions = Parameters<typeof runWebhookVerify>[0]

const SECRET = 'whsec_verify_test'
const BODY = '{"id":"EVT_ABCDEFGHIJKL0123456789AB","object":"event","type":"payout.succeeded","data":{}}'

describe('pay webhook verify (runWebhookVerify)', () => {
  const env = commandEnv()
  const {body} = eventBody('collection.failed')
  const file = join(env.PAY_CONFIG_DIR!, 'body.json')
  writeFileSync(file, body)
  /** The run function with a body on stdin (a stream that is not a terminal), as the command gets it. */
  const verify = async (o: Partial<VerifyOptions> & {signature: string}, stdin?: string, more: Record<string, string> = {}) => {
    const io = memoryOutput(Boolean(more.json))
    const code = await runWebhookVerify({tolerance: 300, ...o}, io.out, {env: {...env, ...more}, stdin: Readable.from(stdin === undefined ? [] : [Buffer.from(stdin)])})
    return {code, stdout: io.stdout(), stderr: io.stderr()}
  }

  it('says which variant matched (table and JSON) and how to pin it', async () => {
    const t = nowSeconds()
    const h = sign(SECRET, BODY, {timestamp: t, scheme: parseSchemeId('header-base64-sha256')})
    const io = await verify({signature: `Service-Signature: ${h.signature}`, timestamp: h.timestamp, secret: [SECRET]}, BODY)
    expect(io.code).toBe(0)
    expect(io.stderr).toMatch(/valid: signature matches as header-base64-sha256 \(<base64 HMAC-SHA-256> in Service-Signature, timestamp in Service-Timestamp\)/)
    expect(io.stderr).toMatch(/webhook_signature=header-base64-sha256/)
    expect(JSON.parse(io.stdout).type).toBe('payout.succeeded')
    const json = await verify({signature: h.signature, timestamp: h.timestamp, secret: [SECRET]}, BODY, {json: '1'})
    expect(json.code).toBe(0)
    expect(JSON.parse(json.stdout)).toMatchObject({valid: true, timestamp: t, scheme: 'header-base64-sha256'})
  })

  it('--explain lists the candidates tried, and for an unreadable header the formats recognised', async () => {
    const h = sign('whsec_other', BODY, {timestamp: nowSeconds(), scheme: parseSchemeId('inline-hex-sha512')})
    const io = await verify({signature: h.signature, secret: [SECRET], explain: true}, BODY)
    expect(io.code).toBe(1)
    expect(io.stderr).toMatch(/signature candidates tried:\n {2}inline-hex-sha512 +t=…,v1=<hex HMAC-SHA-512> in Service-Signature: no match/)
    expect(io.stderr).toMatch(/invalid: no_matching_signature/)

    const bad = await verify({signature: 'signature="k1:Zm9v"', secret: [SECRET], explain: true}, BODY, {json: '1'})
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/the formats pay recognises/)
    expect(bad.stderr).toMatch(/header-base64-sha512 +<base64 HMAC-SHA-512> in Service-Signature, timestamp in Service-Timestamp/)
    expect(JSON.parse(bad.stdout)).toMatchObject({valid: false, reason: 'malformed_header', detail: expect.stringContaining('unrecognised Service-Signature format: xxxxxxxxx="x0:xx0x"')})
  })

  it('a replayed delivery is outside the window unless --ignore-timestamp', async () => {
    const h = sign(SECRET, BODY, {timestamp: nowSeconds() - 3600})
    const io = await verify({signature: h.signature, secret: [SECRET]}, BODY)
    expect(io.code).toBe(1)
    expect(io.stderr).toMatch(/timestamp_outside_tolerance/)
    expect((await verify({signature: h.signature, secret: [SECRET], 'ignore-timestamp': true}, BODY)).code).toBe(0)
  })

  it('exit 0 and the event for an openssl-signed body (file and stdin, secret from a flag or PAY_WEBHOOK_SECRET)', async () => {
    const sig = opensslHeader([SECRET], nowSeconds(), body)
    const a = await runCommand(['webhook', 'verify', '--secret', SECRET, '--signature', sig, '--file', file, '--json'])
    expect(a.code, a.stderr).toBe(0)
    expect(json(a)).toMatchObject({valid: true, scheme: 'inline-hex-sha256', event: {type: 'collection.failed'}})
    const b = await verify({signature: `Service-Signature: ${sig}`}, body, {PAY_WEBHOOK_SECRET: SECRET})
    expect(b.code).toBe(0)
    expect(b.stderr).toMatch(/valid/)
    expect(JSON.parse(b.stdout)).toMatchObject({type: 'collection.failed'})
  })

  it('exit 1 with the exact reason: wrong secret, tampered, stale, malformed, trailing newline', async () => {
    const t = nowSeconds()
    const cases: [Partial<VerifyOptions> & {signature: string}, string | undefined, RegExp][] = [
      [{secret: ['whsec_other'], signature: opensslHeader([SECRET], t, body), file}, undefined, /no_matching_signature/],
      [{secret: [SECRET], signature: opensslHeader([SECRET], t, body)}, body.replace('collection', 'c0llection'), /no_matching_signature/],
      [{secret: [SECRET], signature: opensslHeader([SECRET], t - 301, body), file}, undefined, /timestamp_outside_tolerance: timestamp is 30\d s old/],
      [{secret: [SECRET], signature: 'v1=abc', file}, undefined, /malformed_header/],
      [{secret: [SECRET], signature: opensslHeader([SECRET], t, body)}, `${body}\n`, /WOULD match without the trailing newline/],
    ]
    for (const [o, stdin, reason] of cases) {
      const r = await verify(o, stdin)
      expect(r.code, r.stderr).toBe(1)
      expect(r.stderr).toMatch(reason)
    }
    expect((await verify({secret: [SECRET], signature: opensslHeader([SECRET], t - 86_400, body), file, 'ignore-timestamp': true})).code).toBe(0)
  })

  it('bad input: no secret, an unreadable file, a terminal for stdin, a bad pinned format (exit 2, naming each)', async () => {
    const sig = opensslHeader([SECRET], nowSeconds(), body)
    await expect(verify({signature: sig, file})).rejects.toThrow(/--secret is required/)
    await expect(verify({signature: sig, secret: [SECRET], file: join(env.PAY_CONFIG_DIR!, 'missing.json')})).rejects.toThrow(/--file cannot be read/)
    const tty = Object.assign(Readable.from([]), {isTTY: true})
    await expect(runWebhookVerify({signature: sig, secret: [SECRET], tolerance: 300}, memoryOutput(false).out, {env, stdin: tty})).rejects.toThrow(/--file or a body on stdin is required/)
    const pinned = await runCommand(['webhook', 'verify', '--secret', SECRET, '--signature', sig, '--file', file], {env: {PAY_WEBHOOK_SIGNATURE: 'inline-rot13'}})
    expect(pinned.code).toBe(2)
    expect(pinned.stderr).toMatch(/webhook_signature must be one of inline-hex-sha256/)
    // a pinned format that is not the delivery's: no longer tried
    expect((await verify({signature: sig, secret: [SECRET], file}, undefined, {PAY_WEBHOOK_SIGNATURE: 'header-base64-sha256'})).code).toBe(1)
  })
})
