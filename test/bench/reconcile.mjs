#!/usr/bin/env node
// pay reconcile (issue 26), against the sandbox in a process of its own: BENCH_RECONCILE_ROWS (10,000) references of
// collections made beforehand, checked by `pay reconcile FILE --kind collection` (one GET
// /v1/collections?merchant_reference= per row, CONCURRENCY in flight), as a ratio to a plain Node loop doing the same
// GETs at the same concurrency (undici, keep-alive, one token), run as a process reading the same CSV: both timed
// from spawn to exit. Interleaved rounds, median. Goal: at least 0.8x. Run `npm run build` first.
import {spawn} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {performance} from 'node:perf_hooks'
import {fileURLToPath, pathToFileURL} from 'node:url'
import {startSandboxProcess} from './sandbox-process.mjs'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const BIN = join(ROOT, 'bin', 'run.js')
const ROWS = Number(process.env.BENCH_RECONCILE_ROWS ?? 10_000)
const ROUNDS = Number(process.env.BENCH_RECONCILE_ROUNDS ?? 3)
const CONCURRENCY = 16
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
const UNDICI = pathToFileURL(join(ROOT, 'node_modules', 'undici', 'index.js')).href

/** The collections to look up, made with plain POSTs (the bench measures the lookups, not this). */
async function seed(sb, rows) {
  const {Agent, request} = await import(UNDICI)
  const dispatcher = new Agent({connections: CONCURRENCY})
  const t = await request(`${sb.url}/v1/oauth/token`, {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify({client_id: sb.client_id, client_secret: sb.client_secret}), dispatcher})
  const token = (await t.body.json()).access_token
  let next = 1
  await Promise.all(Array.from({length: CONCURRENCY}, async () => {
    while (next <= rows) {
      const i = next++
      const body = JSON.stringify({amount: `${(i % 900) + 1}.25`, currency: 'KES', merchant_reference: `rb-${i}`, mobile: `2547${String(i).padStart(7, '0')}1`, provider: 'mpesa'})
      const res = await request(`${sb.url}/v1/collections`, {method: 'POST', headers: {authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json', 'idempotency-key': `rb-${i}`}, body, dispatcher})
      await res.body.text()
      if (res.statusCode !== 201) throw new Error(`seed: HTTP ${res.statusCode}`)
    }
  }))
  await dispatcher.close()
}

/** The plain loop as a user's script would run it: reads the CSV, gets a token, GETs every reference. */
const PLAIN_SCRIPT = `
import {readFileSync} from 'node:fs'
const {Agent, request} = await import(${JSON.stringify(UNDICI)})
const [url, clientId, clientSecret, file, concurrency] = process.argv.slice(2)
const lines = readFileSync(file, 'utf8').split('\\n').filter(Boolean)
lines.shift()
const refs = lines.map((l) => l.split(',')[0])
const dispatcher = new Agent({connections: Number(concurrency)})
const t = await request(url + '/v1/oauth/token', {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify({client_id: clientId, client_secret: clientSecret}), dispatcher})
const token = (await t.body.json()).access_token
let next = 0
let found = 0
await Promise.all(Array.from({length: Number(concurrency)}, async () => {
  while (next < refs.length) {
    const ref = refs[next++]
    const res = await request(url + '/v1/collections?merchant_reference=' + encodeURIComponent(ref), {headers: {authorization: 'Bearer ' + token, 'content-type': 'application/json', accept: 'application/json'}, dispatcher})
    const body = await res.body.json()
    if (res.statusCode === 200 && body.merchant_reference === ref) found++
  }
}))
await dispatcher.close()
if (found !== refs.length) { console.error((refs.length - found) + ' references not found'); process.exit(1) }
`

function timed(args, env) {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, args, {env, stdio: ['ignore', 'ignore', 'pipe']})
    let err = ''
    child.stderr.on('data', (d) => (err += d))
    child.on('error', reject)
    child.on('close', (code) => (code === 0 ? resolve(ROWS / ((performance.now() - started) / 1000)) : reject(new Error(`${args.slice(-4).join(' ')} exited ${code}: ${err.slice(-1500)}`))))
  })
}

const dir = mkdtempSync(join(tmpdir(), 'pay-bench-reconcile-'))
const sb = await startSandboxProcess()
try {
  await seed(sb, ROWS)
  const file = join(dir, 'expected.csv')
  const lines = ['reference,amount,currency']
  for (let i = 1; i <= ROWS; i++) lines.push(`rb-${i},${(i % 900) + 1}.25,KES`)
  writeFileSync(file, lines.join('\n') + '\n')
  const script = join(dir, 'plain-loop.mjs')
  writeFileSync(script, PLAIN_SCRIPT)
  // wait for the collections to settle (succeeded): pay's exit code says whether every row matched
  await new Promise((r) => setTimeout(r, 2500))
  console.log(`  ${ROWS} references, ${CONCURRENCY} in flight, median of ${ROUNDS} interleaved rounds; both timed spawn to exit, reading the same CSV`)
  const plain = []
  const pay = []
  for (let round = 0; round < ROUNDS; round++) {
    plain.push(await timed([script, sb.url, sb.client_id, sb.client_secret, file, String(CONCURRENCY)], process.env))
    const env = {...process.env, PAY_BASE_URL: sb.url, PAY_CLIENT_ID: sb.client_id, PAY_CLIENT_SECRET: sb.client_secret, PAY_CONFIG_DIR: mkdtempSync(join(dir, 'cfg-')), CI: 'true', NO_COLOR: '1', PAY_BULK_PROGRESS_MS: '600000'}
    pay.push(await timed([BIN, 'reconcile', file, '--kind', 'collection', '--concurrency', String(CONCURRENCY)], env))
  }
  const p = median(plain)
  const b = median(pay)
  console.log(`  ${'plain loop as a process (GETs)'.padEnd(34)} ${p.toFixed(0).padStart(6)} rows/s  (baseline)   rounds: ${plain.map((x) => x.toFixed(0)).join(', ')}`)
  console.log(`  ${'pay reconcile'.padEnd(34)} ${b.toFixed(0).padStart(6)} rows/s  ${(b / p).toFixed(2)}x  goal >= 0.8x  ${b / p >= 0.8 ? 'ok' : 'UNDER'}   rounds: ${pay.map((x) => x.toFixed(0)).join(', ')}`)
} finally {
  await sb.stop()
  rmSync(dir, {recursive: true, force: true})
}
