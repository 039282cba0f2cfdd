/**
 * Input rules: what would corrupt a request or the service's stored text is refused with exit 2 before anything
 * is sent: header values with CR/LF or non-ASCII, an --idempotency-key over 255 characters, prototype keys in -F /
 * --data, control characters, direction overrides and invalid UTF-8 in stored text fields, non-http(s) checkout
 * URLs, and `pay api` paths outside /v1/ or with dot segments. In-process (runInProcess, runCommand), against a
 * scripted server whose log shows that nothing was sent.
 */
import {describe, expect, it} from 'vitest'
import {json, tempConfigDir, type CliResult} from '../helpers/cli.js'
import {runCommand, runInProcess} from '../helpers/in-process.js'
import {TEST_CLIENT_ID, TEST_CLIENT_SECRET, useScriptedServer} from '../helpers/scripted-server.js'

const server = useScriptedServer()
const env = () => ({PAY_CONFIG_DIR: tempConfigDir(), PAY_BASE_URL: server.url, PAY_CLIENT_ID: TEST_CLIENT_ID, PAY_CLIENT_SECRET: TEST_CLIENT_SECRET})

/** Expects exit 2, the flag (and the rule, if given) named in the error, and nothing sent (not even a token request). */
function expectRefused(r: CliResult, args: string[], flag: string, rule: string): void {
  expect(r.code, `${args.join(' ')}\n${r.stderr}`).toBe(2)
  expect(json(r).error.message, args.join(' ')).toContain(flag)
  expect(json(r).error.message, args.join(' ')).toContain(rule)
  expect(server.requests, args.join(' ')).toHaveLength(0)
}

/** A resource command, in-process: refused as expectRefused says. */
async function refused(args: string[], flag: string, rule = '', environment = env()): Promise<void> {
  expectRefused(await runInProcess([...args, '--json'], {env: {NO_COLOR: '1', ...environment}}), args, flag, rule)
}

/** `pay api` in-process (its command class): refused as expectRefused says. */
async function apiRefused(args: string[], flag: string, rule = '', environment = env()): Promise<void> {
  expectRefused(await runCommand([...args, '--json'], {env: environment}), args, flag, rule)
}

const COLLECTION = ['collections', 'create', '--amount', '10.00', '--currency', 'KES', '--mobile', '254700000001', '--provider', 'mpesa']

describe('header values', () => {
  it('--idempotency-key with CR/LF or non-ASCII, or longer than 255 characters: exit 2, nothing sent', async () => {
    await refused([...COLLECTION, '--reference', 'h-1', '--idempotency-key', 'key\r\nX-Injected: 1'], '--idempotency-key')
    await refused([...COLLECTION, '--reference', 'h-2', '--idempotency-key', 'ключ-1'], '--idempotency-key')
    await refused([...COLLECTION, '--reference', 'h-3', '--idempotency-key', 'k'.repeat(256)], '--idempotency-key')
  })

  it('-H values with CR/LF or non-ASCII: exit 2, nothing sent', async () => {
    await apiRefused(['api', 'GET', '/v1/balance', '-H', 'X-Trace: a\rb'], '-H')
    await apiRefused(['api', 'GET', '/v1/balance', '-H', 'X-Trace: café'], '-H')
    await apiRefused(['api', 'GET', '/v1/balance', '-H', 'X Bad Name: 1'], '-H')
  })

  it('a 255-character ASCII key is still accepted', async () => {
    const r = await runInProcess([...COLLECTION, '--reference', 'h-4', '--idempotency-key', 'k'.repeat(255), '--json'], {env: env()})
    expect(r.code, r.stderr).toBe(0)
  })
})

describe('prototype keys in -F and --data', () => {
  it('-F __proto__.polluted=1, -F constructor.prototype.x=1 and --data {"__proto__":…}: exit 2, nothing sent', async () => {
    await apiRefused(['api', 'POST', '/v1/collections', '-F', '__proto__.polluted=1'], '-F')
    await apiRefused(['api', 'POST', '/v1/collections', '-F', 'constructor.prototype.x=1'], '-F')
    await apiRefused(['api', 'POST', '/v1/collections', '-F', 'meta:={"__proto__":{"x":1}}'], '-F')
    await apiRefused(['api', 'POST', '/v1/collections', '--data', '{"__proto__":{"x":1}}'], '--data')
    await apiRefused(['api', 'POST', '/v1/collections', '--data', '{"a":{"b":[{"__proto__":{}}]}}'], '--data')
  })
})

describe('stored text fields', () => {
  const hostile: [string, string][] = [
    ['ESC', 'ref\u001b[2J'],
    ['CR/LF', 'ref\r\nX'],
    ['tab', 'ref\tx'],
    ['DEL', 'ref\u007f'],
    ['C1', 'ref\u009b'],
    ['bidi override', 'ref\u202egnp.exe'],
    ['invalid UTF-8 (decoded as U+FFFD)', 'ref\ufffd'],
  ]
  it.each(hostile)('%s in --reference or --description: exit 2, nothing sent', async (_name, value) => {
    await refused([...COLLECTION, '--reference', value], '--reference')
    await refused([...COLLECTION, '--reference', 'clean-1', '--description', value], '--description')
  })

  it('NUL and a lone surrogate in --data fields: exit 2, nothing sent', async () => {
    await refused([...COLLECTION, '--reference', 'clean-2', '--data', '{"description":"a\\u0000b"}'], 'description')
    await refused([...COLLECTION, '--reference', 'clean-3', '--data', '{"description":"a\\ud800b"}'], 'description')
  })

  it('ordinary text, accents and emoji included, still passes', async () => {
    const r = await runInProcess([...COLLECTION, '--reference', 'order-42', '--description', 'Café crème – 2 × ☕ 🎉', '--json'], {env: env()})
    expect(r.code, r.stderr).toBe(0)
  })
})

describe('checkout URLs', () => {
  it('--success-url and --cancel-url must be http(s): exit 2, nothing sent', async () => {
    const base = ['checkout', 'create', '--amount', '10.00', '--currency', 'KES', '--reference', 'co-1']
    await refused([...base, '--success-url', 'javascript:alert(1)', '--cancel-url', 'https://shop.example/c'], '--success-url')
    await refused([...base, '--success-url', 'https://shop.example/ok', '--cancel-url', 'ftp://shop.example/c'], '--cancel-url')
  })
})

describe('pay api paths', () => {
  it('dot segments (plain or encoded) and paths outside /v1/ are refused unless --allow-any-path', async () => {
    await apiRefused(['api', 'POST', '/v1/../_sandbox/reset'], 'PATH')
    await apiRefused(['api', 'GET', '/v1/%2e%2e/_sandbox/requests'], 'PATH')
    await apiRefused(['api', 'GET', '/_sandbox/requests'], 'PATH')
    // the URL parser drops tabs and line breaks, and control characters or spaces at the end, before it resolves
    // the dot segments: each of these would leave /v1/ (the first three become /_sandbox/reset)
    await apiRefused(['api', 'POST', '/v1/.\t./_sandbox/reset'], 'PATH')
    await apiRefused(['api', 'POST', '/v1/\n../_sandbox/reset'], 'PATH')
    await apiRefused(['api', 'POST', '/v1/.\r./_sandbox/reset'], 'PATH')
    await apiRefused(['api', 'POST', '/v1/.. '], 'PATH')
    await apiRefused(['api', 'POST', '/v1/..\x1f'], 'PATH')
    // the pathname ends at `#` and `?`: each of these is refused by the PATH rules themselves, not only by the last
    // guard on the parsed URL (`/v1/..#` is sent as /, `/v1/.. ?a=1` as /?a=1)
    await apiRefused(['api', 'POST', '/v1/..#', '--dry-run'], 'PATH', 'must not contain . or .. segments')
    await apiRefused(['api', 'POST', '/v1/.. ?a=1', '--dry-run'], 'PATH', 'or begin or end with a space')
    // `..;` is `..` to servers that strip a segment's ;params (sent as it is, it stays under /v1/ for the parser)
    await apiRefused(['api', 'POST', '/v1/..;/_sandbox/reset'], 'PATH', 'must not contain . or .. segments')
    await apiRefused(['api', 'POST', '/v1/..#'], 'PATH', 'must not contain . or .. segments', {...env(), PAY_BASE_URL: `${server.url}/prefix`})
    const r = await runCommand(['api', 'GET', '/_sandbox/requests', '--allow-any-path'], {env: env()})
    expect(r.code).toBe(4) // the scripted server does not know it; it was sent
    expect(server.apiRequests().map((q) => q.path)).toEqual(['/_sandbox/requests'])
  })

  it('a base URL with a path prefix: PATH goes under it', async () => {
    const r = await runCommand(['api', 'GET', '/v1/balance#top', '--dry-run', '--json'], {env: {...env(), PAY_BASE_URL: `${server.url}/prefix`}})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain(`${server.url}/prefix/v1/balance`)
    expect(r.stdout).not.toContain('#top')
    expect(server.requests).toHaveLength(0)
  })

  it('the token never leaves the base URL origin: absolute URLs and //host paths are refused, even with --allow-any-path', async () => {
    await apiRefused(['api', 'GET', 'http://127.0.0.1:1/v1/balance', '--allow-any-path'], 'PATH')
    await apiRefused(['api', 'GET', '//evil.example/v1/balance', '--allow-any-path'], 'PATH')
    await apiRefused(['api', 'GET', '/\\evil.example/v1/balance', '--allow-any-path'], 'PATH')
  })
})
