/**
 * Hardening (issue 12, terminal safety): every string from the network is made printable (src/output/printable.ts,
 * the function tables use) before it reaches a terminal: error messages, codes, request ids, hints, --debug traces,
 * a 500's HTML body; and piped tab-separated output keeps one record per line.
 */
import {spawnSync} from 'node:child_process'
import {PassThrough} from 'node:stream'
import {describe, expect, it} from 'vitest'
import {ApiError, InvalidResponseError, NetworkError} from '../../src/base/errors.js'
import {renderError} from '../../src/output/errors.js'
import {Output} from '../../src/output/output.js'
import {forStdout, printable} from '../../src/output/printable.js'
import {StreamTable} from '../../src/output/views.js'
import type {Terminal} from '../../src/output/terminal.js'
import {runInPty} from '../helpers/command-harness.js'
import {tempConfigDir} from '../helpers/cli.js'
import {runCommand, runInProcess} from '../helpers/in-process.js'
import {TEST_CLIENT_ID, TEST_CLIENT_SECRET, useScriptedServer} from '../helpers/scripted-server.js'

const hasScript = spawnSync('script', ['--version']).status === 0
const HOSTILE = '\u001b]0;PWNED\u0007\u001b[2J\u009b31m\u202eevil'
// eslint-disable-next-line no-control-regex -- finding raw control characters is the point
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/

function capture(tty = true): {out: Output; stdout: () => string; stderr: () => string} {
  const o = new PassThrough()
  const e = new PassThrough()
  let so = ''
  let se = ''
  o.on('data', (d) => (so += d))
  e.on('data', (d) => (se += d))
  const term: Terminal = {stdoutIsTTY: tty, stderrIsTTY: tty, stdinIsTTY: false, color: false, colorErr: false, interactive: false, columns: 100}
  return {out: new Output(term, false, o, e), stdout: () => so, stderr: () => se}
}

describe('errors are printable', () => {
  it('printable() escapes bidi overrides and isolates too', () => {
    expect(printable('a\u202eb\u2066c')).toBe('a\\u202eb\\u2066c')
  })

  it.each([
    ['a service error (message, code, request id, docs)', new ApiError(400, {code: `bad${HOSTILE}`, message: `no ${HOSTILE}`, request_id: `REQ${HOSTILE}`, doc_url: `https://x/${HOSTILE}`}, {}, `hint ${HOSTILE}`)],
    ['a network error', new NetworkError(`GET /v1/x failed: ${HOSTILE}`, 1, `hint ${HOSTILE}`)],
    ['an unusable body', new InvalidResponseError(`answered ${HOSTILE}`, 200, HOSTILE, [`data: ${HOSTILE}`])],
    ['a plain Error', new Error(`boom ${HOSTILE}`)],
  ])('%s reaches stderr escaped', (_name, err) => {
    const c = capture()
    renderError(c.out, err)
    expect(c.stderr()).not.toMatch(RAW)
    expect(c.stderr()).toContain('\\u001b]0;PWNED\\u0007')
  })
})

describe('pay api on a terminal', () => {
  const onTerminal = forStdout(true)
  it('JSON on a terminal: what printable() escapes as \\uXXXX, and the JSON value stays the same; piped: as it is', () => {
    const value = {note: HOSTILE, del: 'a\u007fb', lines: 'x\ny'}
    for (const text of [JSON.stringify(value, null, 2), JSON.stringify(value).replace(',', ',\r\n')]) {
      const shown = onTerminal.json(text)
      expect(shown).not.toMatch(RAW)
      expect(JSON.parse(shown)).toEqual(value)
      expect(forStdout(false).json(text)).toBe(text)
    }
  })

  it('text on a terminal: a CRLF line end as a newline; a lone CR stays escaped; piped: as it is', () => {
    expect(onTerminal.text('a,b\r\n1,2\r\n')).toBe('a,b\n1,2\n')
    expect(onTerminal.text('x\ry\r\n')).toBe('x\\u000dy\n')
    expect(forStdout(false).text('x\ry\r\n')).toBe('x\ry\r\n')
  })
})

describe('piped (tab-separated) output keeps one record per line', () => {
  it('escapes newline, tab and backslash inside values of a list and of an object', () => {
    const c = capture(false)
    c.out.body('', {object: 'list', data: [{id: 'a', note: 'line1\nline2\tcol\\x'}, {id: 'b', note: 'ok'}]})
    expect(c.stdout().trimEnd().split('\n')).toEqual(['id\tnote', 'a\tline1\\nline2\\tcol\\\\x', 'b\tok'])
    const d = capture(false)
    d.out.body('', {id: 'a', note: 'x\ny'})
    expect(d.stdout().trimEnd().split('\n')).toEqual(['id\ta', 'note\tx\\ny'])
    const e = capture(false)
    const stream = new StreamTable(e.out, ['id', 'note'])
    stream.push([{id: 'a', note: 'x\ny'}])
    expect(e.stdout().trimEnd().split('\n')).toEqual(['id\tnote', 'a\tx\\ny'])
  })
})

describe('through the built CLI', () => {
  const server = useScriptedServer()
  const env = () => ({PAY_CONFIG_DIR: tempConfigDir(), PAY_BASE_URL: server.url, PAY_CLIENT_ID: TEST_CLIENT_ID, PAY_CLIENT_SECRET: TEST_CLIENT_SECRET})

  it('a 400 whose message holds escape sequences, and a 500 HTML body, are printed escaped', async () => {
    server.script('GET /v1/balance', {status: 400, body: {error: {code: 'invalid_parameter', message: `bad ${HOSTILE}`, request_id: 'REQ_1'}}})
    const r400 = await runInProcess(['balance'], {env: env()})
    expect(r400.code).toBe(1)
    expect(r400.stderr).not.toMatch(RAW)
    expect(r400.stderr).toContain('\\u001b]0;PWNED')

    server.script('GET /v1/balance', {
      handle: (_req: unknown, res: import('node:http').ServerResponse) => {
        res.writeHead(500, {'content-type': 'text/html'})
        res.end(`<html><title>${HOSTILE}</title></html>`)
      },
    })
    const r500 = await runInProcess(['balance', '--retries', '0', '--debug'], {env: env()})
    expect(r500.code).toBe(7)
    expect(r500.stderr).not.toMatch(RAW)
    expect(r500.stderr).toContain('\\u001b[2J')
  })

  /** 200 with this content type and body, written as it is. */
  const answer = (type: string, body: string) => ({
    handle: (_req: unknown, res: import('node:http').ServerResponse) => {
      res.writeHead(200, {'content-type': type})
      res.end(body)
    },
  })
  const TEXT = `line1 ${HOSTILE}\nline2\tcol`
  const JSON_BODY = JSON.stringify({note: HOSTILE}) // ESC and BEL escaped by JSON itself, C1 and U+202E raw

  it.skipIf(!hasScript)('pay api on a terminal: a text body and JSON (--json too) are shown escaped, JSON still JSON', async () => {
    // the terminal turns \n into \r\n: only that CR is taken out before looking for raw control characters
    const screen = async (args: string[]) => {
      const r = await runInPty(['api', 'GET', '/v1/not-in-the-table', ...args], env(), [])
      expect(r.code, r.screen).toBe(0)
      return r.screen.replaceAll('\r\n', '\n')
    }
    server.script('GET /v1/not-in-the-table', answer('text/plain', TEXT))
    const text = await screen([])
    expect(text).not.toMatch(RAW)
    expect(text).toContain('line1 \\u001b]0;PWNED\\u0007')
    expect(text).toContain('\nline2\tcol')
    for (const args of [[], ['--json']]) {
      server.script('GET /v1/not-in-the-table', answer('application/json', JSON_BODY))
      const shown = await screen(args)
      expect(shown, args.join(' ')).not.toMatch(RAW)
      expect(JSON.parse(shown)).toEqual({note: HOSTILE})
    }
  })

  it.skipIf(!hasScript)('pay api on a terminal: JSON through --jq, --fields, -o ndjson and --paginate --jq is shown escaped too; a CRLF text body keeps plain line ends', async () => {
    // the writer parses the body and writes it again (JSON.stringify leaves C1 controls and U+202E raw)
    const note = '\u001b]0;PWNED\u0007\u009b31m\u202eevil'
    for (const args of [['--json', '--jq', '.'], ['--json', '--fields', 'note'], ['-o', 'ndjson'], ['--paginate', '--json', '--jq', '.']]) {
      server.script('GET /v1/not-in-the-table', answer('application/json', JSON.stringify({note})))
      const r = await runInPty(['api', 'GET', '/v1/not-in-the-table', ...args], env(), [])
      expect(r.code, r.screen).toBe(0)
      const bytes = Buffer.from(r.screen)
      expect(bytes.includes(0x1b), args.join(' ')).toBe(false)
      expect(bytes.includes(Buffer.from([0xc2, 0x9b])), args.join(' ')).toBe(false)
      expect(bytes.includes(Buffer.from([0xe2, 0x80, 0xae])), args.join(' ')).toBe(false)
      expect(JSON.parse(r.screen), args.join(' ')).toEqual({note})
    }
    server.script('GET /v1/not-in-the-table', answer('text/csv', 'a,b\r\n1,2\r\n'))
    const csv = await runInPty(['api', 'GET', '/v1/not-in-the-table'], env(), [])
    expect(csv.code, csv.screen).toBe(0)
    expect(csv.screen).not.toContain('\\u000d')
    expect(csv.screen.replaceAll('\r\n', '\n')).toContain('a,b\n1,2\n')
  })

  it('pay api piped: the body is written byte for byte (text, and JSON with --json)', async () => {
    server.script('GET /v1/not-in-the-table', answer('text/plain', TEXT))
    const text = await runCommand(['api', 'GET', '/v1/not-in-the-table'], {env: env()})
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toBe(`${TEXT}\n`)
    server.script('GET /v1/not-in-the-table', answer('application/json', JSON_BODY))
    const json = await runCommand(['api', 'GET', '/v1/not-in-the-table', '--json'], {env: env()})
    expect(json.code, json.stderr).toBe(0)
    expect(json.stdout).toBe(`${JSON_BODY}\n`)
  })

  it('pay sandbox … --debug: the control API\'s body in the trace is printed escaped', async () => {
    const event = {id: `EVT${HOSTILE}`, type: 'collection.succeeded', created_at: '2026-01-01T00:00:00Z', state: 'delivered', deliveries: []}
    server.script('GET /_sandbox/events', {status: 200, body: {object: 'list', data: [event]}})
    const r = await runCommand(['sandbox', 'events', '--url', server.url, '--debug'], {env: env()})
    expect(r.code, r.stderr).toBe(0)
    expect(server.requests.map((q) => q.path)).toEqual(['/_sandbox/events'])
    expect(r.stderr).toContain('<- 200 GET /_sandbox/events')
    expect(r.stderr).not.toMatch(RAW)
    expect(r.stderr).toContain('\\u001b]0;PWNED\\u0007')
  })
})
