#!/usr/bin/env node
// Bulk runs (issue 9), against the sandbox (a separate process, so that neither client shares its event loop):
//   1. throughput of `pay collections create --from-file` on BENCH_BULK_ROWS (10,000) rows, as a ratio to a plain
//      Node HTTP loop (undici, keep-alive) posting the same bodies at the same concurrency; interleaved rounds,
//      median. Goal: at least 0.8x. pay is timed as a process (start-up, the checking pass, the journal); the loop
//      twice: as a process of its own reading the same CSV (like for like: timed spawn to exit, as pay is: the goal
//      is judged on this one), and in this process (a reference: warm, its start-up and reading excluded, which pay
//      cannot exclude; against it the sandbox's own limit, ~0.5 s for 10,000 rows, plus start-up and the check of
//      every row before anything is sent leave at most ~0.7x even if pay's sending cost nothing).
//   2. peak RSS of the pay process on BENCH_BULK_RSS_ROWS (1,000,000) rows, as a ratio to the same run on 1,000 rows,
//      measured in this run: the check alone (--dry-run), the send, and the resume (the same command again, every row
//      settled by the send). Goal: memory flat in the row count, at most 1.2x of 1,000 rows.
// Run `npm run build` first. Exits non-zero only when something crashed.
import {spawn} from 'node:child_process'
import {randomUUID} from 'node:crypto'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {performance} from 'node:perf_hooks'
import {fileURLToPath, pathToFileURL} from 'node:url'
import {startSandboxProcess} from './sandbox-process.mjs'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const BIN = join(ROOT, 'bin', 'run.js')
const ROWS = Number(process.env.BENCH_BULK_ROWS ?? 10_000)
const RSS_ROWS = Number(process.env.BENCH_BULK_RSS_ROWS ?? 1_000_000)
const ROUNDS = Number(process.env.BENCH_BULK_ROUNDS ?? 3)
const CONCURRENCY = 16
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]

const body = (prefix, i) => ({amount: `${(i % 900) + 1}.25`, currency: 'KES', merchant_reference: `${prefix}-${i}`, mobile: `2547${10_000_000 + i}`, provider: 'mpesa'})

function writeCsv(file, prefix, rows) {
  const lines = ['amount,currency,reference,mobile,provider']
  for (let i = 1; i <= rows; i++) {
    const b = body(prefix, i)
    lines.push(`${b.amount},${b.currency},${b.merchant_reference},${b.mobile},${b.provider}`)
  }
  writeFileSync(file, lines.join('\n') + '\n')
}

/** The baseline: C workers posting the same bodies with keep-alive, one token, a fresh key per request. */
async function plainLoop(sb, prefix, rows) {
  const {Agent, request} = await import('undici')
  const dispatcher = new Agent({connections: CONCURRENCY})
  const tokenRes = await request(`${sb.url}/v1/oauth/token`, {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify({grant_type: 'client_credentials', client_id: sb.client_id, client_secret: sb.client_secret}), dispatcher})
  const token = (await tokenRes.body.json()).access_token
  let next = 1
  let failed = 0
  const started = performance.now()
  await Promise.all(Array.from({length: CONCURRENCY}, async () => {
    while (next <= rows) {
      const i = next++
      const res = await request(`${sb.url}/v1/collections`, {
        method: 'POST',
        headers: {authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json', 'idempotency-key': randomUUID()},
        body: JSON.stringify(body(prefix, i)),
        dispatcher,
      })
      await res.body.text()
      if (res.statusCode !== 201) failed++
    }
  }))
  const s = (performance.now() - started) / 1000
  await dispatcher.close()
  if (failed > 0) throw new Error(`plain loop: ${failed} of ${rows} requests did not answer 201`)
  return rows / s
}

/**
 * The same plain loop as a whole process, as a user's script would run: node starts, loads undici, reads the CSV
 * (split by hand: the least a script can do), gets a token and posts every row. Timed from spawn to exit, as pay is.
 */
const PLAIN_SCRIPT = `
import {randomUUID} from 'node:crypto'
import {readFileSync} from 'node:fs'
const {Agent, request} = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'node_modules', 'undici', 'index.js')).href)})
const [url, clientId, clientSecret, file, concurrency] = process.argv.slice(2)
const lines = readFileSync(file, 'utf8').split('\\n').filter(Boolean)
const head = lines.shift().split(',')
const bodies = lines.map((l) => { const v = l.split(','); const o = {}; head.forEach((h, i) => (o[h === 'reference' ? 'merchant_reference' : h] = v[i])); return JSON.stringify(o) })
const dispatcher = new Agent({connections: Number(concurrency)})
const t = await request(url + '/v1/oauth/token', {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify({grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret}), dispatcher})
const token = (await t.body.json()).access_token
let next = 0
let failed = 0
await Promise.all(Array.from({length: Number(concurrency)}, async () => {
  while (next < bodies.length) {
    const body = bodies[next++]
    const res = await request(url + '/v1/collections', {method: 'POST', headers: {authorization: 'Bearer ' + token, 'content-type': 'application/json', accept: 'application/json', 'idempotency-key': randomUUID()}, body, dispatcher})
    await res.body.text()
    if (res.statusCode !== 201) failed++
  }
}))
await dispatcher.close()
if (failed > 0) { console.error(failed + ' requests did not answer 201'); process.exit(1) }
`

/** The plain loop as a process on the same CSV; resolves with rows/s from spawn to exit. */
function plainProcess(sb, file, rows, scriptFile) {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, [scriptFile, sb.url, sb.client_id, sb.client_secret, file, String(CONCURRENCY)], {stdio: ['ignore', 'ignore', 'pipe']})
    let err = ''
    child.stderr.on('data', (d) => (err += d))
    child.on('error', reject)
    child.on('close', (code) => (code === 0 ? resolve(rows / ((performance.now() - started) / 1000)) : reject(new Error(`plain loop process exited ${code}: ${err}`))))
  })
}

const PRELOAD = join(mkdtempSync(join(tmpdir(), 'pay-bench-rss-')), 'maxrss.cjs')
writeFileSync(PRELOAD, "process.on('exit', () => require('fs').writeSync(2, `\\nMAXRSS_KB ${process.resourceUsage().maxRSS}\\n`))\n")

// For the RSS runs: what the memory is made of when it peaks (Linux: /proc/self/status and V8's heap spaces, sampled
// every 10 ms, at the highest RSS seen): mapped files (node's binary and libraries), V8's young generation, the rest
// of V8's heap, external memory (Buffers, typed arrays) and the remainder (malloc: threads, libuv, zlib, ...).
const PEAK = join(dirname(PRELOAD), 'peak.cjs')
writeFileSync(
  PEAK,
  `const v8 = require('v8'), fs = require('fs'); let peak = 0, at
const snap = () => {
  const st = fs.readFileSync('/proc/self/status', 'utf8'), kb = (k) => Number(new RegExp(k + ':\\\\s+(\\\\d+)').exec(st)?.[1] ?? 0) / 1024
  let young = 0, heap = 0
  for (const s of v8.getHeapSpaceStatistics()) { const mib = s.physical_space_size / 1048576; heap += mib; if (s.space_name === 'new_space' || s.space_name === 'new_large_object_space') young += mib }
  return {rss: kb('VmRSS'), file: kb('RssFile') + kb('RssShmem'), young, heap: heap - young, external: process.memoryUsage().external / 1048576}
}
setInterval(() => { const r = process.memoryUsage.rss(); if (r > peak) { peak = r; try { at = snap() } catch {} } }, 10).unref()
process.on('exit', () => at && fs.writeSync(2, '\\nPEAK_PARTS ' + JSON.stringify(at) + '\\n'))
`,
)

/** `pay collections create --from-file`; resolves with rows/s and the process's peak RSS (and what it is made of, with `parts`). */
function payRun(sb, file, rows, configDir, extra = [], parts = false) {
  return new Promise((resolve, reject) => {
    const env = {...process.env, PAY_BASE_URL: sb.url, PAY_CLIENT_ID: sb.client_id, PAY_CLIENT_SECRET: sb.client_secret, PAY_CONFIG_DIR: configDir, CI: 'true', NO_COLOR: '1', PAY_BULK_PROGRESS_MS: '600000'}
    const started = performance.now()
    const child = spawn(process.execPath, ['--require', PRELOAD, ...(parts ? ['--require', PEAK] : []), BIN, 'collections', 'create', '--from-file', file, '--concurrency', String(CONCURRENCY), ...extra], {env, stdio: ['ignore', 'ignore', 'pipe']})
    let err = ''
    child.stderr.on('data', (d) => (err = (err + d).slice(-20_000)))
    child.on('error', reject)
    child.on('close', (code) => {
      const s = (performance.now() - started) / 1000
      if (code !== 0) return reject(new Error(`pay exited ${code}: ${err.slice(-1500)}`))
      const at = /PEAK_PARTS (.*)/.exec(err)?.[1]
      resolve({rate: rows / s, maxRssMiB: Number(/MAXRSS_KB (\d+)/.exec(err)?.[1] ?? 0) / 1024, parts: at ? JSON.parse(at) : undefined})
    })
  })
}

const dir = mkdtempSync(join(tmpdir(), 'pay-bench-bulk-'))
const sb = await startSandboxProcess()
try {
  console.log(`  throughput: ${ROWS} rows, ${CONCURRENCY} in flight, median of ${ROUNDS} interleaved rounds (pay includes its start-up, the validation pass and the journal)`)
  await plainLoop(sb, `warm`, 500)
  const script = join(dir, 'plain-loop.mjs')
  writeFileSync(script, PLAIN_SCRIPT)
  const plain = []
  const plainProc = []
  const pay = []
  for (let round = 0; round < ROUNDS; round++) {
    plain.push(await plainLoop(sb, `plain${round}`, ROWS))
    const plainFile = join(dir, `plain-${round}.csv`)
    writeCsv(plainFile, `plainp${round}`, ROWS)
    plainProc.push(await plainProcess(sb, plainFile, ROWS, script))
    const file = join(dir, `rows-${round}.csv`)
    writeCsv(file, `pay${round}`, ROWS)
    pay.push((await payRun(sb, file, ROWS, mkdtempSync(join(dir, 'cfg-')))).rate)
  }
  const p = median(plain)
  const pp = median(plainProc)
  const b = median(pay)
  console.log(`  ${'plain node HTTP loop'.padEnd(34)} ${p.toFixed(0).padStart(6)} rows/s  (baseline: in this process, its start-up and reading excluded)`)
  console.log(`  ${'plain loop as a process'.padEnd(34)} ${pp.toFixed(0).padStart(6)} rows/s  (baseline: spawn to exit, reading the same CSV, as pay is timed)`)
  console.log(`  ${'pay --from-file'.padEnd(34)} ${b.toFixed(0).padStart(6)} rows/s  ${(b / pp).toFixed(2)}x of the loop as a process  goal >= 0.8x  ${b / pp >= 0.8 ? 'ok' : 'UNDER'}`)
  console.log(`  ${''.padEnd(34)} ${''.padStart(6)}         ${(b / p).toFixed(2)}x of the in-process loop (reference, not judged: it leaves out the start-up and reading that pay's time includes)`)

  const small = join(dir, 'rss-small.csv')
  writeCsv(small, 'rsss', 1000)
  const big = join(dir, 'rss-big.csv')
  writeCsv(big, 'rssb', RSS_ROWS)
  const peaks = {}
  for (const [name, file, rows] of [['1000 rows', small, 1000], [`${RSS_ROWS} rows`, big, RSS_ROWS]]) {
    const cfg = mkdtempSync(join(dir, 'cfg-'))
    const check = await payRun(sb, file, rows, cfg, ['--dry-run'], true)
    const send = await payRun(sb, file, rows, cfg, [], true)
    const resume = await payRun(sb, file, rows, cfg, [], true) // every row settled by the send: nothing is sent
    peaks[name] = {check: check.maxRssMiB, send: send.maxRssMiB, resume: resume.maxRssMiB, sendRate: send.rate, parts: {check: check.parts, send: send.parts, resume: resume.parts}}
  }
  const [s, l] = [peaks['1000 rows'], peaks[`${RSS_ROWS} rows`]]
  console.log(`  peak RSS (MiB)        ${'1000 rows'.padStart(10)} ${`${RSS_ROWS} rows`.padStart(14)}   ratio  goal <= 1.2x (memory flat in the row count)`)
  for (const kind of ['check', 'send', 'resume']) {
    const ratio = l[kind] / s[kind]
    console.log(`  ${`${kind}${kind === 'check' ? ' (--dry-run)' : kind === 'resume' ? ' (all settled)' : ''}`.padEnd(21)} ${s[kind].toFixed(0).padStart(10)} ${l[kind].toFixed(0).padStart(14)}   ${ratio.toFixed(2)}x  ${ratio <= 1.2 ? 'ok' : 'OVER'}`)
  }
  console.log(`  (the ${RSS_ROWS}-row send ran at ${l.sendRate.toFixed(0)} rows/s)`)
  // What each peak is made of: what still grows with the row count shows here (a bulk run keeps V8's young generation
  // at a short run's size: src/bulk/young-generation.ts; docs/performance.md, "A bulk run's memory").
  if (Object.values(s.parts).every(Boolean) && Object.values(l.parts).every(Boolean)) {
    const f = (x) => x.toFixed(1).padStart(7)
    console.log(`  at the sampled peak (MiB)       RSS  mapped files  V8 young gen  V8 other  external  other native`)
    for (const kind of ['check', 'send', 'resume'])
      for (const [name, p] of [['1000 rows', s.parts[kind]], [`${RSS_ROWS} rows`, l.parts[kind]]])
        console.log(`  ${`${kind}, ${name}`.padEnd(26)} ${f(p.rss)}  ${f(p.file)}       ${f(p.young)}       ${f(p.heap)}   ${f(p.external)}   ${f(p.rss - p.file - p.young - p.heap - p.external)}`)
    const without = (kind) => (l.parts[kind].rss - l.parts[kind].young) / (s.parts[kind].rss - s.parts[kind].young)
    console.log(`  the same ratios without V8's young generation: check ${without('check').toFixed(2)}x, send ${without('send').toFixed(2)}x, resume ${without('resume').toFixed(2)}x (a reference, not judged)`)
  }
} finally {
  await sb.stop()
  rmSync(dir, {recursive: true, force: true})
  rmSync(dirname(PRELOAD), {recursive: true, force: true})
}
