#!/usr/bin/env node
// Sandbox under load (issue 10), as users run it: the built `pay sandbox start` process, against a bare node:http
// server (also a child process) answering the same requests with the same bytes, in the same run.
//   - POST /v1/collections x BENCH_LOAD_N (default 100,000), 16 in flight, --settle-ms 200: throughput per 10k step,
//     last-10k / first-10k (target >= 0.7), overall / bare (target >= 0.5);
//   - GET /v1/balance with all of them held: sandbox / bare (target >= 0.7);
//   - RSS of the sandbox after the load and after settlement (goal <= 400 MiB);
//   - SIGTERM to exit, mid-load (goal <= 2 s), and again with --state set (the state file must be saved and valid).
// Run alone: `npm run bench -- sandbox-load` (or `node test/bench/sandbox-load.mjs`); BENCH_LOAD_N=20000 for a quick look.
// `npm run bench -- sandbox-dashboard`: the same with the dashboard open and updating all along (issue 28): a viewer
// listens to /_dashboard/live and fetches its page again on every push, as the page's script does in a browser.
// Prints ratios; exits non-zero only when something breaks (a non-2xx answer, a crash, an unsaved state file).
import {spawn} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {performance} from 'node:perf_hooks'
import {fileURLToPath} from 'node:url'
import {Pool} from 'undici'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const BIN = join(ROOT, 'bin', 'run.js')
const TOTAL = Number(process.env.BENCH_LOAD_N ?? 100_000)
const STEP = Math.min(10_000, Math.max(1000, Math.floor(TOTAL / 10)))
const CONCURRENCY = 16
const BALANCE_N = Number(process.env.BENCH_BALANCE_N ?? 5000)
const pad = (s, n) => String(s).padEnd(n)
const rate = (r) => `${r.toFixed(0).padStart(6)} req/s`
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]

function env(configDir) {
  const out = {}
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('PAY_') && !k.startsWith('NODE_')) out[k] = v
  return {...out, PAY_CONFIG_DIR: configDir, NO_COLOR: '1', CI: 'true'}
}

/** Starts a child process and resolves with its first stdout line parsed as JSON. */
function startChild(args, childEnv) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {env: childEnv, stdio: ['ignore', 'pipe', 'pipe']})
    let out = ''
    let err = ''
    const onData = (d) => {
      out += d
      const nl = out.indexOf('\n')
      if (nl === -1) return
      child.stdout.off('data', onData)
      child.stdout.resume()
      try {
        resolve({child, info: JSON.parse(out.slice(0, nl)), stderr: () => err})
      } catch {
        reject(new Error(`unexpected first line from ${args.join(' ')}: ${out}\n${err}`))
      }
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', (d) => (err += d))
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code} before starting\n${err}`)))
  })
}

async function startSandbox(configDir, extra = []) {
  const args = [BIN, 'sandbox', 'start', '--port', '0', '--settle-ms', '200', '--no-profile', '--json']
  // the load must not trip the (per-minute and per-hour) write and read caps: 0 disables a cap
  args.push('--rate-write-per-minute', '0', '--rate-write-per-hour', '0', '--rate-read-per-minute', '0', ...extra)
  const {child, info, stderr} = await startChild(args, env(configDir))
  return {child, url: info.url, merchant: info.merchants[0], stderr}
}

const BARE_SERVER = `
import {createServer} from 'node:http'
const [collection, balance] = JSON.parse(process.argv[1])
const server = createServer((req, res) => {
  const chunks = []
  req.on('data', (c) => chunks.push(c))
  req.on('end', () => {
    if (req.method === 'POST') res.writeHead(201, {'content-type': 'application/json; charset=utf-8'}).end(collection)
    else res.writeHead(200, {'content-type': 'application/json; charset=utf-8'}).end(balance)
  })
})
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({url: 'http://127.0.0.1:' + server.address().port})))
`

async function startBare(collectionText, balanceText) {
  const {child, info} = await startChild(['--input-type=module', '-e', BARE_SERVER, JSON.stringify([collectionText, balanceText])], env(tmpdir()))
  return {child, url: info.url}
}

function rssMiB(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m ? Number(m[1]) / 1024 : NaN
}

/** CPU seconds (user + system) a process has used so far. */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100 // utime, stime in clock ticks (USER_HZ = 100)
}

function exited(child) {
  return new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())))
}

/**
 * Sends `total` requests made by `make(i)` with CONCURRENCY in flight; returns the overall rate and the rate of
 * each STEP of completions. `stopAt` (optional) aborts early: returns once `stop()` is called.
 */
async function load(origin, make, total, {onStep, stop, offset = 0} = {}) {
  const pool = new Pool(origin, {connections: CONCURRENCY, pipelining: 1})
  let next = 0
  let done = 0
  let failed = 0
  let firstFailure = ''
  const steps = []
  const started = performance.now()
  let stepStart = started
  const worker = async () => {
    while (next < total && !stop?.stopped) {
      const i = next++
      try {
        const res = await pool.request(make(offset + i))
        const text = await res.body.text()
        if (res.statusCode < 200 || res.statusCode >= 300) {
          failed++
          firstFailure ||= `${res.statusCode} ${text.slice(0, 300)}`
        }
      } catch (err) {
        if (stop?.stopped) return
        failed++
        firstFailure ||= String(err)
      }
      if (++done % STEP === 0) {
        const now = performance.now()
        steps.push(STEP / ((now - stepStart) / 1000))
        stepStart = now
        onStep?.(done)
      }
    }
  }
  await Promise.all(Array.from({length: CONCURRENCY}, worker))
  const seconds = (performance.now() - started) / 1000
  await pool.destroy()
  if (failed > 0 && !stop) throw new Error(`${failed} of ${total} requests to ${origin} failed; first: ${firstFailure}`)
  return {rate: done / seconds, seconds, steps}
}

async function token(url, merchant) {
  const pool = new Pool(url)
  const res = await pool.request({
    method: 'POST',
    path: '/v1/oauth/token',
    headers: {'content-type': 'application/json'},
    body: JSON.stringify({grant_type: 'client_credentials', client_id: merchant.client_id, client_secret: merchant.client_secret}),
  })
  const text = await res.body.text()
  await pool.close()
  if (res.statusCode !== 200) throw new Error(`token: ${res.statusCode} ${text}`)
  return JSON.parse(text).access_token
}

const collectionRequest = (headers, prefix) => (i) => ({
  method: 'POST',
  path: '/v1/collections',
  headers: {...headers, 'idempotency-key': `${prefix}-${i}`},
  body: JSON.stringify({amount: '10.00', currency: 'KES', merchant_reference: `${prefix}-${i}`, mobile: '254712345670', provider: 'mpesa'}),
})

async function one(url, req) {
  const pool = new Pool(url)
  const res = await pool.request(req)
  const text = await res.body.text()
  await pool.close()
  return {status: res.statusCode, text}
}

/** SIGTERM while CONCURRENCY requests are in flight; resolves with the milliseconds from the signal to the exit. */
async function sigtermMidLoad(sb, headers, prefix) {
  const stop = {stopped: false}
  const running = load(sb.url, collectionRequest(headers, prefix), Number.MAX_SAFE_INTEGER, {stop})
  await new Promise((r) => setTimeout(r, 1500))
  const gone = exited(sb.child)
  const t0 = performance.now()
  sb.child.kill('SIGTERM')
  await gone
  const ms = performance.now() - t0
  stop.stopped = true
  await running.catch(() => {})
  return {ms, code: sb.child.exitCode, signal: sb.child.signalCode}
}

/** The page a viewer keeps open: the newest collections (a render reads the whole table: the dearest page). */
const DASHBOARD_PAGE = '/_dashboard/objects?kind=collections'

/**
 * A dashboard page open in a browser, without the browser: listens to the live stream and fetches the page again on
 * every push (one fetch at a time, one more if pushes came meanwhile), as live.js does.
 */
async function dashboardViewer(url) {
  const pool = new Pool(url, {connections: 2})
  const stats = {pushes: 0, pages: 0, ms: []}
  let busy = false
  let again = false
  let stopped = false
  const refresh = async () => {
    if (busy) {
      again = true
      return
    }
    busy = true
    try {
      const t = performance.now()
      const res = await pool.request({method: 'GET', path: DASHBOARD_PAGE})
      const text = await res.body.text()
      if (res.statusCode !== 200) throw new Error(`${DASHBOARD_PAGE}: ${res.statusCode} ${text.slice(0, 200)}`)
      stats.ms.push(performance.now() - t)
      stats.pages++
    } catch (err) {
      if (!stopped) console.log(`  dashboard viewer: ${err.message}`)
    } finally {
      busy = false
      if (again && !stopped) {
        again = false
        void refresh()
      }
    }
  }
  const live = await pool.request({method: 'GET', path: '/_dashboard/live'})
  if (live.statusCode !== 200) throw new Error(`/_dashboard/live: ${live.statusCode}`)
  live.body.setEncoding('utf8')
  live.body.on('data', (chunk) => {
    const n = String(chunk).split('event: change').length - 1
    if (n === 0) return
    stats.pushes += n
    void refresh()
  })
  live.body.on('error', () => undefined)
  return {
    stats,
    stop() {
      stopped = true
      live.body.destroy()
      return pool.destroy().catch(() => undefined)
    },
  }
}

export async function sandboxLoadBench({dashboard = false} = {}) {
  console.log(
    dashboard
      ? `\n== sandbox under load with the dashboard open and updating (issue 28): a viewer on ${DASHBOARD_PAGE}, refetched on every live push ==`
      : `\n== sandbox under load (issue 10): the \`pay sandbox start\` process vs a bare node:http server, same requests ==`,
  )
  const configDir = mkdtempSync(join(tmpdir(), 'pay-bench-load-'))
  const children = []
  let viewer
  try {
    const sb = await startSandbox(configDir)
    children.push(sb.child)
    if (dashboard) viewer = await dashboardViewer(sb.url)
    const headers = {authorization: `Bearer ${await token(sb.url, sb.merchant)}`, 'content-type': 'application/json', accept: 'application/json'}
    // The bare server answers with the sandbox's own bytes.
    const sample = await one(sb.url, collectionRequest(headers, 'sample')(0))
    const balanceSample = await one(sb.url, {method: 'GET', path: '/v1/balance', headers})
    if (sample.status !== 201 || balanceSample.status !== 200) throw new Error(`sandbox answered ${sample.status} / ${balanceSample.status}: ${sample.text} ${balanceSample.text}`)
    const bare = await startBare(sample.text, balanceSample.text)
    children.push(bare.child)

    console.log(`  ${TOTAL} POST /v1/collections, ${CONCURRENCY} in flight, --settle-ms 200, in steps of ${STEP} interleaved with the bare server:`)
    // warm-up (JIT, connections) on both, so the first step measures the sandbox, not the compiler
    await load(bare.url, collectionRequest(headers, 'warm-bare'), 5000)
    await load(sb.url, collectionRequest(headers, 'warm'), 5000)
    // Interleaved by step (bare STEP, sandbox STEP, ...) so a machine whose load changes slows both sides alike;
    // the sandbox keeps everything it created: step k runs with k * STEP collections already held.
    const bareRun = {seconds: 0, steps: [], cpu: -cpuSeconds(bare.child.pid)}
    const sbRun = {seconds: 0, steps: [], cpu: -cpuSeconds(sb.child.pid)}
    for (let offset = 0; offset < TOTAL; offset += STEP) {
      const n = Math.min(STEP, TOTAL - offset)
      for (const [run, url, prefix] of [[bareRun, bare.url, 'bare'], [sbRun, sb.url, 'load']]) {
        const r = await load(url, collectionRequest(headers, prefix), n, {offset})
        run.seconds += r.seconds
        run.steps.push(r.rate)
      }
    }
    bareRun.cpu += cpuSeconds(bare.child.pid)
    sbRun.cpu += cpuSeconds(sb.child.pid)
    bareRun.rate = TOTAL / bareRun.seconds
    sbRun.rate = TOTAL / sbRun.seconds
    const rssLoaded = rssMiB(sb.child.pid)
    console.log(`  ${pad('bare node:http', 22)} ${rate(bareRun.rate)}  (${bareRun.seconds.toFixed(1)} s)`)
    console.log(`  ${pad('sandbox', 22)} ${rate(sbRun.rate)}  (${sbRun.seconds.toFixed(1)} s)  ${(sbRun.rate / bareRun.rate).toFixed(2)}x of bare  target >= 0.5x  ${sbRun.rate / bareRun.rate >= 0.5 ? 'ok' : 'UNDER'}`)
    const us = (run) => ((run.cpu / TOTAL) * 1e6).toFixed(0)
    console.log(`  CPU per request:       bare ${us(bareRun)} µs, sandbox ${us(sbRun)} µs (settlement included)`)
    console.log(`  bare per step:         ${bareRun.steps.map((r) => r.toFixed(0)).join(' ')} req/s`)
    console.log(`  sandbox per step:      ${sbRun.steps.map((r) => r.toFixed(0)).join(' ')} req/s`)
    const first = sbRun.steps[0]
    const last = sbRun.steps[sbRun.steps.length - 1]
    console.log(`  last / first step:     ${(last / first).toFixed(2)}x  target >= 0.7x  ${last / first >= 0.7 ? 'ok' : 'UNDER'}  (last / median step ${(last / median(sbRun.steps)).toFixed(2)}x)`)

    // Everything settles (200 ms + the queue): the newest collection is no longer processing.
    await new Promise((r) => setTimeout(r, 1000))
    const newest = await one(sb.url, {method: 'GET', path: `/v1/collections?merchant_reference=load-${TOTAL - 1}`, headers})
    const settled = newest.status === 200 && JSON.parse(newest.text).status === 'succeeded'
    const rssSettled = rssMiB(sb.child.pid)
    console.log(`  RSS after ${TOTAL} collections: ${rssLoaded.toFixed(0)} MiB; settled: ${rssSettled.toFixed(0)} MiB  goal <= 400 MiB  ${rssSettled <= 400 ? 'ok' : 'OVER'}`)
    if (!settled) throw new Error(`the newest collection did not settle: ${newest.status} ${newest.text}`)

    const balanceReq = () => ({method: 'GET', path: '/v1/balance', headers})
    const bareBal = []
    const sbBal = []
    for (let round = 0; round < 5; round++) {
      bareBal.push((await load(bare.url, balanceReq, BALANCE_N)).rate)
      sbBal.push((await load(sb.url, balanceReq, BALANCE_N)).rate)
    }
    const balRatio = median(sbBal) / median(bareBal)
    console.log(`  GET /v1/balance (${BALANCE_N} x 5 interleaved rounds, median, ${TOTAL} credits held): bare ${rate(median(bareBal))}, sandbox ${rate(median(sbBal))}  ${balRatio.toFixed(2)}x  target >= 0.7x  ${balRatio >= 0.7 ? 'ok' : 'UNDER'}`)

    if (viewer) {
      const ms = viewer.stats.ms
      const mean = ms.reduce((a, b) => a + b, 0) / Math.max(1, ms.length)
      console.log(`  dashboard viewer: ${viewer.stats.pushes} live pushes, ${viewer.stats.pages} page renders fetched (median ${ms.length ? median(ms).toFixed(0) : '-'} ms, mean ${mean.toFixed(0)} ms, max ${ms.length ? Math.max(...ms).toFixed(0) : '-'} ms)`)
    }
    const term = await sigtermMidLoad(sb, headers, 'term')
    console.log(`  SIGTERM mid-load to exit (holding ${TOTAL}): ${term.ms.toFixed(0)} ms (exit ${term.code ?? term.signal})  goal <= 2000 ms  ${term.ms <= 2000 ? 'ok' : 'OVER'}`)

    // Again with --state: the state is saved before the exit.
    const statePath = join(configDir, 'state.json')
    const withState = await startSandbox(configDir, ['--state', statePath])
    children.push(withState.child)
    const h2 = {...headers, authorization: `Bearer ${await token(withState.url, withState.merchant)}`}
    const stateN = Math.min(TOTAL, 20_000)
    await load(withState.url, collectionRequest(h2, 'state'), stateN)
    const term2 = await sigtermMidLoad(withState, h2, 'term2')
    const saved = JSON.parse(readFileSync(statePath, 'utf8'))
    const held = Object.keys(saved.collections).length
    console.log(`  SIGTERM mid-load with --state (${stateN}+ collections): ${term2.ms.toFixed(0)} ms, state saved with ${held} collections  goal <= 2000 ms  ${term2.ms <= 2000 ? 'ok' : 'OVER'}`)
    if (held < stateN) throw new Error(`the state file holds ${held} collections, fewer than the ${stateN} created`)
  } finally {
    await viewer?.stop()
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
    rmSync(configDir, {recursive: true, force: true})
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await sandboxLoadBench({dashboard: process.argv.includes('--dashboard')})
