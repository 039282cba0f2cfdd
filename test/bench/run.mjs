#!/usr/bin/env node
// `npm run bench`: start-up of the built CLI and a real command's cost (issues 2, 13), sandbox throughput (issue 3),
// webhook listener (issues 5, 12), the start-up table again per installed Node version (issue 15,
// test/bench/node-versions.mjs), bulk runs (issue 9, test/bench/bulk.mjs), reconcile (issue 26,
// test/bench/reconcile.mjs). Parts: startup, sandbox, webhooks, sandbox-load, sandbox-dashboard, nodes, bulk, reconcile (`npm run bench -- startup nodes`).
// Plain Node, builds nothing (run `npm run build` first). Every number is printed as a ratio to a baseline
// measured in the same run, interleaved, so a loaded machine slows both sides alike; timings are shown alongside.
// Exits 0 unless something crashed: the ratios are for people to read against their targets, not a gate.
import {spawn, spawnSync} from 'node:child_process'
import {existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync} from 'node:fs'
import {createServer} from 'node:http'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {performance} from 'node:perf_hooks'
import {fileURLToPath, pathToFileURL} from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
// what `pay` runs: package.json's bin
const BIN = join(ROOT, JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).bin.pay)
const N = Number(process.env.BENCH_N ?? 15)
const only = process.argv.slice(2)
const wants = (part) => only.length === 0 || only.includes(part)

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}
const fmt = (ms) => `${ms.toFixed(0).padStart(4)} ms`
const pad = (s, n) => String(s).padEnd(n)

// Preloaded into every timed process (baseline too): writes the process's own CPU time (user + system, all its
// threads) to fd 3 as it exits. On a loaded machine the wall time of a 20 ms process varies several-fold; its CPU
// time much less, so both are shown.
const cpuProbe = join(mkdtempSync(join(tmpdir(), 'pay-bench-cpu-')), 'cpu.cjs')
writeFileSync(cpuProbe, "process.on('exit', () => { const u = process.cpuUsage(); try { require('node:fs').writeSync(3, String((u.user + u.system) / 1000)) } catch {} })\n")

/** Wall time of one process, from spawn to exit, with stdout/stderr drained, and its CPU time; `code` is the exit code expected. */
function timeProcess(args, env, code = 0) {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, ['-r', cpuProbe, ...args], {env, stdio: ['ignore', 'pipe', 'pipe', 'pipe']})
    let out = ''
    let err = ''
    let cpu = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (err += d))
    child.stdio[3].on('data', (d) => (cpu += d))
    child.on('error', reject)
    child.on('close', (exit) => {
      const ms = performance.now() - started
      if (exit !== code) reject(new Error(`node ${args.join(' ')} exited ${exit}, not ${code}\n${out}\n${err}`))
      else resolve({ms, cpu: Number(cpu), out})
    })
  })
}

// The measured processes get this environment less PAY_* (and with NO_COLOR, CI) and, in the first (strict) run,
// less NODE_*: NODE_OPTIONS, and NODE_EXTRA_CA_CERTS, which this machine sets and which adds ~50 ms of
// certificate loading to every node process, baseline included, flattering every ratio. When NODE_* variables
// are set, a second run keeps them, as the shell's user would run pay.
const nodeVars = Object.keys(process.env).filter((k) => k.startsWith('NODE_'))
function cleanEnv(extra, keepNodeVars) {
  const env = {}
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('PAY_') && (keepNodeVars || !k.startsWith('NODE_'))) env[k] = v
  env.NO_COLOR = '1'
  env.CI = 'true'
  return {...env, ...extra}
}

/** The built sandbox (dist/sandbox/index.js), in this process, with rate limits far above what the bench sends. */
async function startBuiltSandbox() {
  const modulePath = join(ROOT, 'dist', 'sandbox', 'index.js')
  if (!existsSync(modulePath)) return undefined
  const {startSandbox} = await import(pathToFileURL(modulePath).href)
  const huge = 10_000_000
  return startSandbox({
    port: 0,
    quiet: true,
    settleMs: 60_000,
    rateLimits: {writePerMinute: huge, writePerHour: huge, readPerMinute: huge, metadataPerMinute: huge, tokenPerMinutePerIp: huge, tokenPerMinutePerClient: huge},
  })
}

/**
 * Start-up and the cost of a real command, as users run pay: credentials in a stored profile (profiles.json in the
 * config dir, written here as `pay login` writes it), a cached token, the local sandbox as the service. Each row is
 * a ratio to `node -e 0` measured in the same run, interleaved.
 */
async function startupBench(keepNodeVars) {
  const which = keepNodeVars ? `with this environment's ${nodeVars.join(', ')}` : nodeVars.length > 0 ? `strict: without ${nodeVars.join(', ')}` : 'strict'
  console.log(`\n== start-up and a real command (issue 13), ${which}: wall time of a process, median of ${N}, as a ratio to \`node -e 0\` ==`)
  const sandbox = await startBuiltSandbox()
  if (!sandbox) {
    console.log('  skipped: dist/sandbox/index.js does not exist (run `npm run build`)')
    return
  }
  const merchant = sandbox.seed.merchants[0]
  const configDir = mkdtempSync(join(tmpdir(), 'pay-bench-'))
  writeFileSync(
    join(configDir, 'profiles.json'),
    JSON.stringify({active: 'bench', profiles: {bench: {base_url: sandbox.url, client_id: merchant.client_id, client_secret: merchant.client_secret}}}),
    {mode: 0o600},
  )
  const env = cleanEnv({PAY_CONFIG_DIR: configDir}, keepNodeVars)
  const envCredentials = cleanEnv({PAY_CONFIG_DIR: configDir, PAY_BASE_URL: sandbox.url, PAY_CLIENT_ID: merchant.client_id, PAY_CLIENT_SECRET: merchant.client_secret}, keepNodeVars)
  let created = 0
  const collection = () => [BIN, 'collections', 'create', '--amount', '10.00', '--currency', 'KES', '--mobile', '254700000001', '--provider', 'mpesa', '--reference', `bench-${process.pid}-${keepNodeVars}-${created++}`]
  try {
    const cases = [
      {name: 'node -e 0', args: () => ['-e', '0']},
      {name: 'pay --version', args: () => [BIN, '--version'], target: 1.6},
      {name: 'pay balance --help', args: () => [BIN, 'balance', '--help'], target: 1.6},
      {name: 'pay nosuchcommand (exit 2)', args: () => [BIN, 'nosuchcommand'], code: 2, target: 2},
      {name: 'pay balance', args: () => [BIN, 'balance'], target: 2.5},
      {name: 'pay collections create', args: collection, target: 2.5},
      {name: 'pay balance (env credentials)', args: () => [BIN, 'balance'], env: envCredentials},
      // the same command line through oclif instead of bin/run.cjs's direct path: what the direct path saves
      {name: 'pay balance (through oclif)', args: () => [BIN, 'balance'], env: {...env, PAY_NO_FAST_PATH: '1'}},
    ]
    // Warm up: the token cache (one token request) and the OS file cache.
    for (const c of cases) await timeProcess(c.args(), c.env ?? env, c.code)
    const tokensBefore = Object.keys(sandbox.state.tokens ?? {}).length
    const times = cases.map(() => [])
    const cpus = cases.map(() => [])
    for (let i = 0; i < N; i++) {
      for (const [j, c] of cases.entries()) {
        const {ms, cpu} = await timeProcess(c.args(), c.env ?? env, c.code)
        times[j].push(ms)
        cpus[j].push(cpu)
      }
    }
    const tokensAfter = Object.keys(sandbox.state.tokens ?? {}).length
    if (tokensAfter !== tokensBefore) console.log(`  note: ${tokensAfter - tokensBefore} token request(s) during the timed runs (the cache should make it 0)`)
    const base = median(times[0])
    const baseCpu = median(cpus[0])
    console.log(`  ${pad('', 30)} wall: median (min)  ratio   cpu: median  ratio`)
    for (const [j, c] of cases.entries()) {
      const m = median(times[j])
      const ratio = m / base
      const cpu = median(cpus[j])
      const verdict = j === 0 ? '(baseline)' : c.target === undefined ? '' : `target <= ${c.target}x  ${ratio <= c.target ? 'ok' : 'OVER'} (cpu ${cpu / baseCpu <= c.target ? 'ok' : 'OVER'})`
      console.log(`  ${pad(c.name, 30)} ${fmt(m)}  (min ${fmt(Math.min(...times[j]))})  ${(ratio.toFixed(2) + 'x').padStart(6)}       ${fmt(cpu)}  ${((cpu / baseCpu).toFixed(2) + 'x').padStart(6)}  ${verdict}`)
    }
  } finally {
    await sandbox.close()
    rmSync(configDir, {recursive: true, force: true})
  }
}

/** Sends `total` GETs with `concurrency` in flight through an undici Pool; returns requests/second. */
async function load(Pool, origin, path, headers, total, concurrency) {
  const pool = new Pool(origin, {connections: concurrency, pipelining: 1})
  let sent = 0
  let failed = 0
  const worker = async () => {
    while (sent < total) {
      sent++
      const res = await pool.request({method: 'GET', path, headers})
      await res.body.text()
      if (res.statusCode !== 200) failed++
    }
  }
  const started = performance.now()
  await Promise.all(Array.from({length: concurrency}, worker))
  const s = (performance.now() - started) / 1000
  await pool.close()
  if (failed > 0) throw new Error(`${failed} of ${total} requests to ${origin}${path} did not answer 200`)
  return total / s
}

async function sandboxBench() {
  console.log('\n== sandbox throughput (issue 3): authenticated GET /v1/metadata/banks, as a ratio to a bare node:http server ==')
  const modulePath = join(ROOT, 'dist', 'sandbox', 'index.js')
  if (!existsSync(modulePath)) {
    console.log('  skipped: dist/sandbox/index.js does not exist yet (the sandbox is not built)')
    return
  }
  const sandboxModule = await import(pathToFileURL(modulePath).href)
  if (typeof sandboxModule.startSandbox !== 'function') {
    console.log('  skipped: dist/sandbox/index.js does not export startSandbox')
    return
  }
  const {Pool, request} = await import('undici')
  // Rate limits far above what the bench sends: the limiter still runs on every request, but never answers 429.
  const sandbox = await sandboxModule.startSandbox({port: 0, quiet: true, rateLimits: {metadataPerMinute: 10_000_000, tokenPerMinutePerIp: 10_000, tokenPerMinutePerClient: 10_000}})
  let bare
  try {
    const base = sandbox.url.replace(/\/+$/, '')
    const merchant = sandbox.seed?.merchants?.[0]
    if (!merchant?.client_id) throw new Error('startSandbox() returned no seed.merchants[0].client_id to get a token with')
    const tokenRes = await request(`${base}/v1/oauth/token`, {
      method: 'POST',
      headers: {'content-type': 'application/json'},
      body: JSON.stringify({grant_type: 'client_credentials', client_id: merchant.client_id, client_secret: merchant.client_secret}),
    })
    const tokenText = await tokenRes.body.text()
    if (tokenRes.statusCode !== 200) throw new Error(`sandbox token request answered ${tokenRes.statusCode}: ${tokenText}`)
    const headers = {authorization: `Bearer ${JSON.parse(tokenText).access_token}`, accept: 'application/json', 'content-type': 'application/json'}
    const banksRes = await request(`${base}/v1/metadata/banks`, {headers})
    const banksText = await banksRes.body.text()
    if (banksRes.statusCode !== 200) throw new Error(`sandbox GET /v1/metadata/banks answered ${banksRes.statusCode}: ${banksText}`)

    // The bare server answers the same bytes, with no auth, routing or state.
    bare = createServer((req, res) => {
      req.resume()
      res.writeHead(200, {'content-type': 'application/json'})
      res.end(banksText)
    })
    await new Promise((r) => bare.listen(0, '127.0.0.1', r))
    const bareOrigin = `http://127.0.0.1:${bare.address().port}`
    const origin = new URL(base).origin
    const total = Number(process.env.BENCH_REQUESTS ?? 4000)
    const concurrency = 16
    await load(Pool, bareOrigin, '/v1/metadata/banks', headers, 500, concurrency) // warm-up
    await load(Pool, origin, '/v1/metadata/banks', headers, 500, concurrency)
    const bareRates = []
    const sandboxRates = []
    for (let i = 0; i < 3; i++) {
      bareRates.push(await load(Pool, bareOrigin, '/v1/metadata/banks', headers, total, concurrency))
      sandboxRates.push(await load(Pool, origin, '/v1/metadata/banks', headers, total, concurrency))
    }
    const b = median(bareRates)
    const s = median(sandboxRates)
    console.log(`  ${total} requests, ${concurrency} in flight, median of 3 interleaved rounds`)
    console.log(`  ${pad('bare node:http', 28)} ${b.toFixed(0).padStart(6)} req/s  (baseline)`)
    console.log(`  ${pad('sandbox', 28)} ${s.toFixed(0).padStart(6)} req/s  ${(s / b).toFixed(2)}x of bare`)
  } finally {
    if (bare) await new Promise((r) => bare.close(r))
    await sandbox.close()
  }
}

function webhookBench() {
  console.log('\n== webhook listener (issues 5 and 12): the whole `pay webhook listen` process against a bare node:http server, same load ==')
  const dir = join(ROOT, 'test', 'bench')
  const scripts = readdirSync(dir).filter((f) => /^webhook-.*\.mjs$/.test(f)).sort()
  if (scripts.length === 0) {
    console.log('  skipped: no test/bench/webhook-*.mjs yet')
    return
  }
  for (const script of scripts) {
    console.log(`  -- ${script}`)
    const r = spawnSync(process.execPath, [join(dir, script)], {stdio: 'inherit', timeout: 90_000})
    if (r.status !== 0) throw new Error(`${script} failed (exit ${r.status ?? r.signal})`)
  }
}

const started = performance.now()
if (!existsSync(join(ROOT, 'dist'))) {
  console.error('dist/ is missing: run `npm run build` first')
  process.exit(1)
}
console.log(`pay bench: node ${process.version}, ${process.platform}-${process.arch}`)
if (wants('startup')) {
  await startupBench(false)
  if (nodeVars.length > 0) await startupBench(true)
}
if (wants('sandbox')) await sandboxBench()
if (wants('webhooks')) webhookBench()
// the sandbox under load (issue 10): long (about two minutes); alone with `npm run bench -- sandbox-load`
if (wants('sandbox-load')) await (await import('./sandbox-load.mjs')).sandboxLoadBench()
if (wants('sandbox-dashboard')) await (await import('./sandbox-load.mjs')).sandboxLoadBench({dashboard: true})
if (wants('nodes')) (await import('./node-versions.mjs')).startupPerNode()
if (wants('bulk')) {
  console.log('\n== bulk runs (issue 9): pay collections create --from-file against the sandbox ==')
  const r = spawnSync(process.execPath, [join(ROOT, 'test', 'bench', 'bulk.mjs')], {stdio: 'inherit', timeout: 900_000})
  if (r.status !== 0) throw new Error(`bulk.mjs failed (exit ${r.status ?? r.signal})`)
}
if (wants('reconcile')) {
  console.log('\n== reconcile (issue 26): pay reconcile against the sandbox, as a ratio to a plain loop of the same GETs ==')
  const r = spawnSync(process.execPath, [join(ROOT, 'test', 'bench', 'reconcile.mjs')], {stdio: 'inherit', timeout: 900_000})
  if (r.status !== 0) throw new Error(`reconcile.mjs failed (exit ${r.status ?? r.signal})`)
}
console.log(`\nbench done in ${((performance.now() - started) / 1000).toFixed(0)} s`)
