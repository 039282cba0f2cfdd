/**
 * Every example of every command's help (the manifest's examples, as `pay … --help` shows them) run against a fresh
 * sandbox, each checked against its documented outcome: exit 0, unless its description says it exits with another
 * code ("exits 2 naming …", "exits 7 saying so"); the examples of `pay sandbox start` and `pay webhook listen` run
 * until Ctrl-C (their help says so): each must get ready, keep running, and stop on SIGINT.
 *
 * The world the examples assume is made first, as a user's would be: the profiles `sandbox` (active), `live`, `old`
 * and `staging`, and the objects the examples look up (order-42, supplier-0425, gym-jane-2026 and its debit, sub-jane-gold,
 * a mandate waiting for approval as m-1, …). Placeholders stand for what only the user knows: an id the service
 * issued (CL_8K2M4Q7R1T: the id of order-42 here), `…` for a secret, a receiver URL; PLACEHOLDERS below lists them.
 * Operation commands run in-process; what needs a shell (pipes, $(…), variables, other commands) or is not an
 * operation runs as the built CLI under bash, at most CONCURRENCY at a time, each with its own copy of the config
 * dir (an example that adds or removes a profile changes no other). The README's shell examples are run the same way
 * (its bulk CSV as payouts.csv, whose payouts must then succeed).
 */
import {spawn} from 'node:child_process'
import {cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startSandbox, type Sandbox} from '../../src/sandbox/index.js'
import {historyDir, HistoryWriter} from '../../src/webhooks/history.js'
import {sign} from '../../src/webhooks/signature.js'
import {BIN, ROOT, type CliResult, cleanEnv, runCli, tempConfigDir} from '../helpers/cli.js'
import {isOperation, runInProcess} from '../helpers/in-process.js'

interface Example {
  id: string
  description: string
  line: string
}

const CONCURRENCY = 4
const TIMEOUT_MS = 20_000

/** Every example, as help renders it (`pay …`). */
const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {commands: unknown}
const examples: Example[] = Object.entries(manifest.commands as Record<string, {examples?: (string | {description?: string; command: string})[]}>).flatMap(([id, cmd]) =>
  (cmd.examples ?? []).map((e) => {
    const {description = '', command} = typeof e === 'string' ? {command: e} : e
    // (a line that is not pay's is written with its own prompt, `$ curl …`, which is not part of the command)
    return {id, description, line: command.replace(/^\$ /, '').replace(/<%=\s*config\.bin\s*%>/g, 'pay').replace(/<%=\s*command\.id\s*%>/g, id.replace(/:/g, ' '))}
  }),
)

/** The README's shell examples (its ```sh blocks' `pay …` lines, comments dropped), checked the same way. */
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
const readmeExamples: Example[] = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)]
  .flatMap((m) => m[1].split('\n'))
  .map((l) => l.replace(/\s+#\s.*$/, '').trim())
  .filter((l) => l.startsWith('pay '))
  .map((line) => ({id: 'README', description: '', line}))

/** What an example's description documents: the exit code it ends with, or that it runs until Ctrl-C. */
function outcomeOf(e: Example): {exit: number} | {runs: true} {
  const exits = /\bexits (\d+)\b/.exec(e.description)
  if (exits) return {exit: Number(exits[1])}
  if (/\bpay (sandbox start|webhook listen)\b/.test(e.line)) return {runs: true}
  return {exit: 0}
}

let sb: Sandbox
let receiver: Server
let template = ''
let work = ''
let shim = ''
const ids: Record<string, string> = {}
let placeholders: [string, string][] = []
let shellEnv: Record<string, string> = {}
const delivery = JSON.stringify({id: 'EVT_ABCDEFGHIJKLMNOPQRSTUVWX', object: 'event', type: 'collection.succeeded', created_at: '2026-01-01T00:00:00Z', data: {id: 'CL_1', status: 'succeeded'}})

/** The example's line with the placeholders filled in. */
function filled(line: string): string {
  let out = line
  for (const [from, to] of placeholders) out = out.split(from).join(to)
  if (/\bpay sandbox start\b/.test(out) && !out.includes('--port')) out = out.replace('pay sandbox start', 'pay sandbox start --port 0') // tests never bind a fixed port
  return out
}

/** Shell words of a line without shell syntax (quotes as the shell reads them), or undefined when it needs a shell. */
function plainWords(line: string): string[] | undefined {
  if (/[|&;<>`$()]|^\w+=/.test(line) || !line.startsWith('pay ')) return undefined
  const words: string[] = []
  for (const m of line.slice(4).matchAll(/(?:"(?:[^"\\]|\\.)*"|'[^']*'|[^\s"']+)+/g)) {
    words.push(m[0].replace(/"((?:[^"\\]|\\.)*)"|'([^']*)'/g, (_, dq: string | undefined, sq: string | undefined) => (dq !== undefined ? dq.replace(/\\(.)/g, '$1') : sq!)))
  }
  return words
}

/**
 * A config dir of its own for one example: the template's profiles and history; its journal (the fixtures' creates)
 * only for an example that reads the journal. Every other example starts as a reader trying it alone would: with the
 * fixtures' references in its journal, a create of one of them with another body is refused (a reference is a
 * promise: exit 5), which is not what the example shows.
 */
function ownConfig(line = ''): string {
  const dir = tempConfigDir()
  const keepJournal = /\bpay (journal|find)\b/.test(line)
  cpSync(template, dir, {recursive: true, filter: (src) => keepJournal || !src.startsWith(join(template, 'state', 'journal'))})
  return dir
}

/** Runs a line under bash with `pay` on PATH; for a long-running one, Ctrl-C once it is ready. */
function shell(line: string, runs: boolean): Promise<CliResult & {ready?: boolean; endedAlone?: boolean}> {
  return new Promise((resolve, reject) => {
    const env = cleanEnv({...shellEnv, PAY_CONFIG_DIR: ownConfig(line), PATH: `${shim}:${process.env.PATH}`})
    const child = spawn('bash', ['-c', `fpath=(unused "$PWD/zfunc"); ${line}`], {cwd: work, env, detached: true, stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    let ready = false
    let endedAlone = true
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    const timer = setTimeout(() => {
      process.kill(-child.pid!, 'SIGKILL')
      reject(new Error(`timed out: ${line}\n${stdout}\n${stderr}`))
    }, TIMEOUT_MS)
    if (runs) {
      const poll = setInterval(() => {
        if (!ready && /Ready\.|"url":"http:\/\/127\.0\.0\.1:\d+"|listening on http:\/\/127\.0\.0\.1:\d+/i.test(stdout + stderr)) {
          ready = true
          // it keeps running by itself; then Ctrl-C, as a person would
          setTimeout(() => {
            endedAlone = child.exitCode !== null
            process.kill(-child.pid!, 'SIGINT')
          }, 500)
        }
      }, 50)
      child.on('close', () => clearInterval(poll))
    }
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({code: code ?? -1, stdout, stderr, ready, endedAlone})
    })
  })
}

async function run(e: Example): Promise<void> {
  const outcome = outcomeOf(e)
  const line = filled(e.line)
  const words = plainWords(line)
  const what = `${e.id}: "${e.description}"\n  ${line}`
  if ('runs' in outcome) {
    const r = await shell(line, true)
    expect(r.ready, `${what}\nnever got ready:\n${r.stdout}\n${r.stderr}`).toBe(true)
    expect(r.endedAlone, `${what}\nended by itself`).toBe(false)
    return
  }
  // in-process: an operation command (not a bulk run: the helper runs the single request's path)
  const r = words && isOperation(words) && !words.includes('--from-file') ? await runInProcess(words, {env: {...shellEnv, PAY_CONFIG_DIR: ownConfig(line), NO_COLOR: '1'}}) : await shell(line, false)
  expect(r.code, `${what}\nexit ${r.code}, documented ${outcome.exit}\n${r.stdout.slice(0, 2000)}\n${r.stderr.slice(0, 2000)}`).toBe(outcome.exit)
}

async function pool<T>(items: T[], n: number, fn: (item: T) => Promise<void>): Promise<unknown[]> {
  const failures: unknown[] = []
  let next = 0
  await Promise.all(
    Array.from({length: n}, async () => {
      while (next < items.length) {
        const item = items[next++]
        await fn(item).catch((err: unknown) => failures.push(err))
      }
    }),
  )
  return failures
}

beforeAll(async () => {
  sb = await startSandbox({port: 0, settleMs: 30, webhookRetryBaseMs: 20, quiet: true})
  const acme = sb.seed.merchants.find((m) => m.key === 'acme')!
  const client = acme.clients[0]
  receiver = createServer((_req, res) => res.writeHead(200, {'content-type': 'application/json'}).end('{"ok":true}'))
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  const hook = `http://127.0.0.1:${(receiver.address() as {port: number}).port}/webhooks`

  // the profiles a user of the examples has: sandbox (active), live and old, all on this sandbox
  template = tempConfigDir()
  const secretEnv = {PAY_CONFIG_DIR: template, PAY_CLIENT_SECRET: client.client_secret}
  for (const args of [['sandbox', '--use'], ['live'], ['old'], ['staging']]) {
    const r = await runCli(['profiles', 'add', args[0], '--base-url', sb.url, '--client-id', client.client_id, '--webhook-secret', client.webhook_secret, ...args.slice(1)], {env: secretEnv})
    expect(r.code, r.stderr).toBe(0)
  }
  // the objects the examples look up, made as the user would have made them
  // (in the template config dir: its journal then holds them, as `pay journal order-42` expects)
  const env = {PAY_CONFIG_DIR: template, PAY_BASE_URL: sb.url, PAY_CLIENT_ID: client.client_id, PAY_CLIENT_SECRET: client.client_secret}
  const pay = async (line: string): Promise<any> => {
    const r = await runInProcess([...plainWords(`pay ${line}`)!, '--json'], {env})
    expect(r.code, `${line}\n${r.stderr}`).toBe(0)
    return JSON.parse(r.stdout)
  }
  const control = (path: string) => fetch(sb.url + path, {method: 'POST', headers: {'content-type': 'application/json'}, body: '{}'})
  ids.CL_8K2M4Q7R1T = (await pay('collections create --amount 1500.00 --currency KES --reference order-42 --mobile 254712345670 --provider mpesa --wait')).id
  await pay('mandates create --mobile 254712345670 --provider mpesa --currency KES --amount 1500.00 --frequency MONTHLY --starts-at 2026-12-01T09:00:00Z --reference gym-jane-2026 --wait')
  ids.MD_7H3K9P2W = (await pay('mandates get gym-jane-2026')).mandate_id
  await Promise.all([
    pay(`debits create ${ids.MD_7H3K9P2W} --amount 1500.00 --currency KES --reference gym-jane-2026-12 --provider mpesa --wait`),
    pay('payouts create --amount 1200.00 --currency KES --reference supplier-0425 --mobile 254712345670 --provider mpesa --wait'),
    pay('payouts create --amount 500 --currency KES --reference payroll-2026-04-jane --rail bank_transfer --bank-code 68 --account-number 0123456780 --account-name Jane --wait'),
    pay('subscriptions create --plan PLN_ACMEGOLD --reference sub-jane-gold --customer-name Jane --customer-email jane@example.com --mobile 254712345670 --provider mpesa --wait'),
    pay('mandates create --mobile 254712345678 --provider mpesa --currency KES --amount 10 --frequency MONTHLY --starts-at 2026-12-01T09:00:00Z --reference m-1'),
    pay('checkout create --amount 10 --currency KES --reference order-77 --success-url https://shop.example/ok --cancel-url https://shop.example/no').then(async (cs) => {
      ids.CS_4T9W2B6N8M = cs.id
      await control(`/_sandbox/transactions/${cs.id}/succeed`) // the customer paid on the link
    }),
    pay('payouts create --amount 5 --currency KES --reference po-stays --mobile 254712345678 --provider mpesa').then((po) => (ids.PO_LSDIRSVWOJXBMRAZLJWR = po.id)),
    pay('collections create --amount 5 --currency KES --reference cl-stays --mobile 254712345678 --provider mpesa').then((cl) => (ids.CL_8W7MS7ZAC2H8YDXQ62V7 = cl.id)),
    pay('virtual-accounts create --merchant').then((va) => (ids['9012345678'] = va.virtual_account.account_number)),
    pay('virtual-accounts create --customer MC_ACME0001'),
    // what the reconcile examples' files expect (references no other example uses, so no run of theirs races them)
    pay('payouts create --amount 100.00 --currency KES --reference po-reconcile-1 --mobile 254712345670 --provider mpesa --wait'),
    pay('payouts create --amount 200.00 --currency KES --reference po-reconcile-2 --mobile 254712345670 --provider mpesa --wait'),
    pay('collections create --amount 250.00 --currency KES --reference col-reconcile-1 --mobile 254712345670 --provider mpesa --wait'),
  ])

  // events the sandbox sent to its client's webhook URL, kept by a `pay webhook listen` of this machine (the
  // history of `pay webhook show/replay`), and delivered to the receiver (`pay sandbox deliveries/resend`)
  sb.setWebhookUrl(client.client_id, hook)
  const [first, second] = sb.events
  const history = new HistoryWriter(historyDir({PAY_CONFIG_DIR: template}))
  history.open()
  for (const e of [first, second]) {
    history.delivery({event_id: e.id, type: e.type, verdict: 'accepted', status: 200, verified: true}, ['Content-Type', 'application/json', 'Service-Signature', sign(client.webhook_secret, e.body).signature], Buffer.from(e.body))
  }
  await history.close()
  ids.EVT_8F2K1P0Q9R3S7T5U4V6W2X1Y = first.id
  ids.EVT_3D9J2M5N8B1V4C7X0Z6L2K1H = second.id

  // what only the user knows, filled in: ids the service issued, secrets (…), a receiver for webhooks, the service URL
  placeholders = [
    ...Object.entries(ids),
    ['PAY_BASE_URL=…', `PAY_BASE_URL=${sb.url}`],
    ['PAY_CLIENT_ID=…', `PAY_CLIENT_ID=${client.client_id}`],
    ['PAY_CLIENT_SECRET=…', `PAY_CLIENT_SECRET=${client.client_secret}`],
    ['whsec_...', client.webhook_secret],
    ["'t=1767225600,v1=5f2b…'", `'${sign(client.webhook_secret, delivery, {timestamp: 1767225600}).signature}'`],
    ['https://api.example.com', sb.url],
    ['http://127.0.0.1:4010', sb.url],
    ['--client-id cli_123', `--client-id ${client.client_id}`],
    ['http://127.0.0.1:4242/webhooks', hook],
    ['https://shop.example.com/hooks', hook],
    ['http://localhost:3000/webhooks', hook],
    ['http://localhost:4000/payouts', hook],
    ['--port 4242', '--port 0'],
    // the README's
    ['http://localhost:3000/webhooks', hook],
    ["'t=…,v1=…'", `'${sign(client.webhook_secret, delivery).signature}'`],
  ]
  // where the shell examples run: the files they read, `pay` on PATH, a home for fish's completions
  work = tempConfigDir()
  shim = join(work, 'bin')
  mkdirSync(shim)
  writeFileSync(join(shim, 'pay'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, {mode: 0o755})
  mkdirSync(join(work, 'zfunc'))
  mkdirSync(join(work, 'home', '.config', 'fish', 'completions'), {recursive: true})
  symlinkSync(join(ROOT, 'flows'), join(work, 'flows'))
  writeFileSync(join(work, 'payout.json'), JSON.stringify({amount: '300.00', currency: 'KES', merchant_reference: 'api-payout-1', mobile: '254712345670', provider: 'mpesa'}))
  writeFileSync(join(work, 'delivery.json'), delivery)
  writeFileSync(join(work, 'body.json'), delivery)
  writeFileSync(join(work, 'payouts.csv'), /```csv\n([\s\S]*?)```/.exec(readme)![1]) // the README's bulk file
  writeFileSync(join(work, 'payouts-2026-11-25.csv'), 'reference,amount,currency\npo-reconcile-1,100.00,KES\npo-reconcile-2,200.00,KES\n')
  writeFileSync(join(work, 'created.csv'), 'reference,amount,currency\ncol-reconcile-1,250.00,KES\n')
  writeFileSync(join(work, 'expected.ndjson'), '{"reference":"po-reconcile-1","amount":"100.00","currency":"KES"}\n')
  // BROWSER: `pay sandbox open` "opens" the dashboard with true(1), never a real browser of the machine running the tests
  shellEnv = {HOME: join(work, 'home'), BROWSER: 'true', BODY: delivery, SIG: sign(client.webhook_secret, delivery).signature, NGROK_AUTHTOKEN: '', PAY_BASE_URL: sb.url, PAY_WEBHOOK_SECRET: client.webhook_secret}
}, 120_000)

afterAll(async () => {
  await sb?.close()
  await new Promise((resolve) => receiver?.close(resolve))
})

/**
 * Run after the others: they change what other examples use (the mandate, the client's webhook URL, the clock, which
 * expires every token issued before it moves, and the whole sandbox).
 */
const LAST = ['mandates:cancel', 'sandbox:webhook', 'sandbox:advance', 'sandbox:reset']

describe('every example of every command\'s help', () => {
  it('has its documented outcome against the sandbox', {timeout: 150_000}, async () => {
    expect(examples.length).toBeGreaterThan(100)
    const first = examples.filter((e) => !LAST.includes(e.id))
    const failures = await pool(first, CONCURRENCY, run)
    for (const id of LAST) for (const e of examples.filter((x) => x.id === id)) await run(e).catch((err: unknown) => failures.push(err))
    expect(failures.map((f) => (f as Error).message).join('\n\n')).toBe('')
  })

  it('and so has every shell example of the README', {timeout: 150_000}, async () => {
    expect(readmeExamples.map((e) => e.line)).toEqual(expect.arrayContaining([expect.stringMatching(/^pay collections create /), expect.stringMatching(/^pay payouts create --from-file payouts\.csv/)]))
    // one at a time, in the README's order: its walk-throughs build on the line before (create order-42, then
    // verify it), which examples run side by side raced under load
    const failures = await pool(readmeExamples, 1, run)
    expect(failures.map((f) => (f as Error).message).join('\n\n')).toBe('')
    // the README's bulk file pays wallets whose payouts succeed on the sandbox (not one that stays processing or fails)
    const refs = /```csv\n([\s\S]*?)```/.exec(readme)![1].trim().split('\n').slice(1).map((row) => row.split(',')[1])
    for (const ref of refs) {
      const r = await runInProcess(['payouts', 'get', ref, '--wait', '--wait-timeout', '10', '--json'], {env: {...shellEnv, PAY_CONFIG_DIR: ownConfig()}})
      expect(r.code, `${ref}: ${r.stderr}`).toBe(0)
    }
  })
})
