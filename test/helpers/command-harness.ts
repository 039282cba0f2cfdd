/**
 * Shared set-up of the resource-command tests (issue 4): one in-process sandbox per test file (port 0, its
 * request log kept in memory and written to a file); commands run in-process (`h.run`: the operation's parse and
 * runOperation, real HTTP to the sandbox) for their logic, and as the built CLI process (`h.pay`) where only a
 * process shows it; helpers that read the sandbox's request log and the CLI's human output.
 */
import {spawn} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, expect, vi} from 'vitest'
import {type LogEntry, type Sandbox, type SandboxOptions, startSandbox} from '../../src/sandbox/index.js'
import {BIN, ROOT, type CliResult, cleanEnv, runCli, tempConfigDir} from './cli.js'
import {runCommand, runInProcess} from './in-process.js'
import {type FaultProxy, startFaultProxy} from './fault-proxy.js'

export interface Harness {
  sb: Sandbox
  env: Record<string, string>
  /** Runs the built CLI against this file's sandbox, as a process. */
  pay(args: string[], env?: Record<string, string | undefined>, input?: string): Promise<CliResult>
  /** Runs a resource command in-process (test/helpers/in-process.ts) against this file's sandbox. */
  run(args: string[], env?: Record<string, string | undefined>): Promise<CliResult>
  /** Runs any command in-process (runCommand: its oclif class, bulk runs included) against this file's sandbox. */
  command(args: string[], env?: Record<string, string | undefined>): Promise<CliResult>
  /** Service requests (not the token endpoint, not /_sandbox) matching a predicate. */
  requests(pred?: (e: LogEntry) => boolean): LogEntry[]
  /** POSTs /_sandbox control calls. */
  control(path: string, body?: unknown): Promise<unknown>
}

/** Starts one sandbox for the calling test file and stops it after. */
export function useSandbox(options: SandboxOptions = {}): Harness {
  const h = {} as Harness
  // Several CLI processes per test: leave room for a loaded 2-core machine.
  vi.setConfig({testTimeout: 150_000, hookTimeout: 240_000})
  beforeAll(async () => {
    const dir = tempConfigDir()
    h.sb = await startSandbox({port: 0, settleMs: 150, logFile: join(dir, 'requests.log'), ...options})
    const acme = h.sb.seed.merchants.find((m) => m.key === 'acme')!
    h.env = {PAY_BASE_URL: h.sb.url, PAY_CLIENT_ID: acme.clients[0].client_id, PAY_CLIENT_SECRET: acme.clients[0].client_secret, PAY_CONFIG_DIR: dir}
  })
  afterAll(async () => {
    await h.sb?.close()
  })
  h.pay = (args, env = {}, input) => runCli(args, {env: {...h.env, ...env}, input, timeoutMs: 90_000})
  h.run = (args, env = {}) => runInProcess(args, {env: {...h.env, NO_COLOR: '1', ...env}})
  h.command = (args, env = {}) => runCommand(args, {env: {...h.env, ...env}})
  h.requests = (pred = () => true) => h.sb.requests.filter((e) => e.path.startsWith('/v1/') && e.path !== '/v1/oauth/token' && pred(e))
  h.control = async (path, body) => {
    const res = await fetch(h.sb.url + path, {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify(body ?? {})})
    return res.json()
  }
  return h
}

/** The one logged request matching `pred` (fails when there is not exactly one). */
export function only(entries: LogEntry[], what: string): LogEntry {
  expect(entries, `requests for ${what}: ${JSON.stringify(entries.map((e) => `${e.method} ${e.path}`))}`).toHaveLength(1)
  return entries[0]
}

export const byRef = (ref: string) => (e: LogEntry) =>
  (e.body as {merchant_reference?: unknown} | undefined)?.merchant_reference === ref || e.query?.merchant_reference === ref

/** The headers every authenticated request of `pay` carries (the sandbox log redacts the token). */
export function expectServiceHeaders(e: LogEntry, opts: {idempotencyKey?: string | 'any' | 'none'} = {}): void {
  expect(e.headers.authorization).toBe('Bearer [REDACTED]')
  expect(e.headers.accept).toBe('application/json')
  expect(e.headers['content-type']).toBe('application/json')
  expect(e.headers['user-agent']).toMatch(/^pay\/\d+\.\d+\.\d+ node\/v\d+/)
  expect(e.headers['x-service-account-ref']).toBeUndefined()
  const key = opts.idempotencyKey ?? (e.method === 'POST' ? 'any' : 'none')
  if (key === 'none') expect(e.headers['idempotency-key']).toBeUndefined()
  else if (key === 'any') expect(e.headers['idempotency-key']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  else expect(e.headers['idempotency-key']).toBe(key)
}

/** Human key/value output (tab-separated when stdout is not a terminal) as a map of label → value. */
export function kv(r: CliResult): Record<string, string> {
  const out: Record<string, string> = {}
  for (const line of r.stdout.split('\n')) {
    const i = line.indexOf('\t')
    if (i > 0) out[line.slice(0, i)] = line.slice(i + 1)
  }
  return out
}

/** Human list output (tab-separated) as rows of objects. */
export function rows(r: CliResult): Record<string, string>[] {
  const lines = r.stdout.split('\n').filter((l) => l.includes('\t'))
  const head = lines.shift()?.split('\t') ?? []
  return lines.map((l) => Object.fromEntries(l.split('\t').map((v, i) => [head[i], v])))
}

export function ok(r: CliResult): CliResult {
  expect(r.code, `exit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`).toBe(0)
  return r
}

export interface PtyStep {
  /** Output (ANSI stripped) to wait for before answering. */
  expect: RegExp
  /** Keys to send: text, '\r' for Enter, '\u001b[B' for arrow down. */
  send: string
}

export interface PtyResult {
  code: number
  /** Everything the terminal showed (stdout and stderr together), ANSI stripped. */
  screen: string
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001B\[[0-9;?]*[A-Za-z]/g

/**
 * Runs the built CLI inside a pseudo-terminal (util-linux `script`), answering prompts step by step.
 * `shell` wraps the command in shell text (a pipe into it, a redirection of its stdin).
 * CI is removed from the environment (unless `env` sets it) so that the CLI may prompt.
 */
export function runInPty(args: string[], env: Record<string, string | undefined>, steps: PtyStep[], timeoutMs = 20_000, shell: {before?: string; after?: string} = {}): Promise<PtyResult> {
  // shell.before / shell.after: shell text around the command (`cat rows.csv |`, `</dev/null`): stdin a pipe or a file, the terminal still the controlling one
  const quoted = [shell.before ?? '', [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' '), shell.after ?? ''].join(' ').trim()
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qfec', quoted, '/dev/null'], {cwd: ROOT, env: cleanEnv({CI: undefined, TERM: 'xterm', ...env}), stdio: ['pipe', 'pipe', 'pipe']})
    let raw = ''
    const pending = [...steps]
    let answered = 0
    const onData = (d: Buffer) => {
      raw += d.toString('utf8')
      const screen = raw.replace(ANSI, '')
      if (pending.length > 0 && pending[0].expect.test(screen.slice(answered))) {
        const step = pending.shift()!
        answered = screen.length
        setTimeout(() => child.stdin.write(step.send), 50)
      }
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`pty run timed out; screen:\n${raw.replace(ANSI, '')}`))
    }, timeoutMs)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({code: code ?? -1, screen: raw.replace(ANSI, '')})
    })
  })
}

/**
 * A fault proxy (test/helpers/fault-proxy.ts) in front of this file's sandbox, started before its tests: `env`
 * sends pay through it, with a config dir of its own (`dir`), plus `extra`.
 */
export function useFaultProxy(h: Harness, extra: Record<string, string> = {}): {proxy: FaultProxy; env: Record<string, string>; dir: string} {
  const faults = {} as {proxy: FaultProxy; env: Record<string, string>; dir: string}
  beforeAll(async () => {
    faults.proxy = await startFaultProxy(h.sb.url)
    faults.dir = tempConfigDir()
    faults.env = {PAY_BASE_URL: faults.proxy.url, PAY_CONFIG_DIR: faults.dir, ...extra}
  })
  afterAll(async () => {
    await faults.proxy?.close()
  })
  return faults
}

/** The records with exactly this merchant reference. */
export const withReference = <T extends {merchant_reference: string}>(records: Record<string, T>, ref: string): T[] => Object.values(records).filter((c) => c.merchant_reference === ref)

/** The Idempotency-Keys of the POSTs that carried this merchant reference. */
export const keysSent = (h: Harness, ref: string): Set<string> => new Set(h.requests((e) => e.method === 'POST' && (e.body as {merchant_reference?: string})?.merchant_reference === ref).map((e) => e.headers['idempotency-key']))

/** The records whose merchant reference starts with `prefix`. */
export const withPrefix = <T extends {merchant_reference: string}>(records: Record<string, T>, prefix: string): T[] => Object.values(records).filter((c) => c.merchant_reference.startsWith(prefix))

/** A rows file in `dir`: the header, then `line(i)` for i = 1..rows. */
export function writeRows(dir: string, file: string, header: string, rows: number, line: (i: number) => string): string {
  const path = join(dir, file)
  const lines = [header]
  for (let i = 1; i <= rows; i++) lines.push(line(i))
  writeFileSync(path, lines.join('\n') + '\n')
  return path
}

/** Every reference of the prefix exactly once in `records`, and each sent with one key only. */
export function expectOncePerRow(h: Harness, records: Record<string, {merchant_reference: string}>, prefix: string, n: number): void {
  const refs = withPrefix(records, prefix).map((c) => c.merchant_reference)
  expect(refs).toHaveLength(n)
  expect(new Set(refs).size).toBe(n)
  const keys = new Map<string, Set<string>>()
  for (const e of h.requests((x) => x.method === 'POST' && String((x.body as {merchant_reference?: string})?.merchant_reference ?? '').startsWith(prefix))) {
    const ref = (e.body as {merchant_reference: string}).merchant_reference
    if (!keys.has(ref)) keys.set(ref, new Set())
    keys.get(ref)!.add(e.headers['idempotency-key'])
  }
  expect([...keys.values()].filter((k) => k.size !== 1)).toEqual([])
}
