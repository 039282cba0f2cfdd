// Writes the V8 code caches of the build's bundles for the running Node's V8 (dist/vendor/oclif.cjs.<v8>-<arch>.v8cache,
// dist/runtime.cjs.<v8>-<arch>.v8cache, dist/vendor/undici.cjs.<v8>-<arch>.v8cache; see scripts/cached-require.cjs;
// run it with another Node to add that Node's caches beside them): loads each through cachedRequire in a fresh
// process, exercises what a command uses (so the functions compiled then are in the cache too: `pay balance` and
// `pay collections create` are run against the built sandbox; then, for undici's, a small bulk run, whose Pool is
// what loads undici), saves. Then checks, in another process set up as bin/run.cjs sets itself up, that V8 accepts
// them. `node scripts/code-cache.mjs <dist dir>`, run by the build.
import {execFileSync} from 'node:child_process'
import {join, resolve} from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'

const root = join(fileURLToPath(import.meta.url), '..', '..')
const [dist = join(root, 'dist'), mode = 'write'] = process.argv.slice(2)
const oclifFile = resolve(dist, 'vendor', 'oclif.cjs')
const runtimeFile = resolve(dist, 'runtime.cjs')
const undiciFile = resolve(dist, 'vendor', 'undici.cjs')

if (mode !== 'write' && mode !== 'check') throw new Error(`unknown mode ${mode}: write or check`)

{
  // under V8's default flags, as bin/run.cjs loads the bundles (V8 ignores a cache made under other flags)
  const {cachedRequire, codeCacheRejected, writeCodeCache} = await import(pathToFileURL(join(dist, 'vendor', 'cached-require.cjs')).href)
  const oclif = cachedRequire(oclifFile)
  const config = await oclif.Config.load(join(root, 'bin', 'run.cjs'))
  config.findCommand('balance')
  await oclif.Parser.parse(['--currency', 'KES', '--json'], {flags: {currency: oclif.Flags.string(), json: oclif.Flags.boolean(), retries: oclif.Flags.integer({default: 3})}, args: {}, strict: true})
  const rt = cachedRequire(runtimeFile)
  const balance = {object: 'balance', data: [{currency: 'KES', collection_wallet: '1.00', collection_wallet_actual: '1.00', collection_wallet_held: '0.00', payout_wallet: '0.00'}]}
  rt.endpoints['balance.get'].response.safeParse(balance)
  rt.problemsOf(rt.endpoints['balance.get'].query, {currency: 'KES'})
  const client = new rt.ApiClient({settings: {baseUrl: 'http://127.0.0.1:9', clientId: 'id', clientSecret: 'secret'}, userAgent: 'pay'})
  client.prepare('balance.get', {query: {currency: 'KES'}})
  await client.close()
  const out = rt.createOutput(false)
  out.human(balance, {columns: ['currency', 'payout_wallet']})
  out.human(balance.data[0])
  // what an operation command runs after that (settings, token cache, journal, transport, checks, views): without
  // it those functions are compiled at every start (~3 ms of `pay collections create`)
  if (mode === 'write') {
    // the two start-up bundles' caches are written before the bulk run: what it compiles of the runtime (the bulk
    // engine, loaded by a bulk run only) would make every command's cache larger
    let written = false
    const writeStartupCaches = () => {
      if (written) return
      writeCodeCache(oclifFile)
      writeCodeCache(runtimeFile)
      written = true
    }
    try {
      await exerciseCommands(rt, writeStartupCaches)
    } catch (err) {
      console.warn(`code cache made without running commands (${err.message}): start-up and bulk runs will be slower`)
    }
    writeStartupCaches()
    cachedRequire(undiciFile) // (loaded by the bulk run when it ran)
    writeCodeCache(undiciFile)
  } else {
    cachedRequire(undiciFile)
    const rejected = [oclifFile, runtimeFile, undiciFile].filter((f) => codeCacheRejected(f) !== false)
    if (rejected.length > 0) console.warn(`code cache not accepted by V8 for ${rejected.join(', ')}: start-up will be slower`)
  }
}

/**
 * Runs `pay balance` and `pay collections create` (plain and --json) as bin/run.cjs's direct path does, against the
 * built sandbox on loopback, in a temporary config dir, output discarded; then `commandsDone()`, then a bulk run of a
 * few rows (`collections create --from-file`: its Pool loads undici). The environment's PAY_* and proxy variables
 * are set aside meanwhile: nothing here may reach a real service or a developer's profile.
 */
async function exerciseCommands(rt, commandsDone) {
  const {mkdtempSync, readFileSync, writeFileSync, rmSync} = await import('node:fs')
  const {tmpdir} = await import('node:os')
  const {Writable} = await import('node:stream')
  const {planDirect} = await import(pathToFileURL(join(dist, 'cli', 'direct-argv.cjs')).href)
  const {startSandbox} = await import(pathToFileURL(join(dist, 'sandbox', 'index.js')).href)
  const table = JSON.parse(readFileSync(join(dist, 'direct-run.json'), 'utf8'))
  const aside = Object.entries(process.env).filter(([k]) => k.startsWith('PAY_') || /^(http_proxy|https_proxy|all_proxy|no_proxy)$/i.test(k))
  for (const [k] of aside) delete process.env[k]
  let sandbox
  let dir
  try {
    dir = mkdtempSync(join(tmpdir(), 'pay-code-cache-'))
    sandbox = await startSandbox({port: 0, quiet: true})
    if (new URL(sandbox.url).hostname !== '127.0.0.1') throw new Error(`the sandbox is not on loopback: ${sandbox.url}`)
    const merchant = sandbox.seed.merchants[0]
    writeFileSync(join(dir, 'profiles.json'), JSON.stringify({active: 'cache', profiles: {cache: {base_url: sandbox.url, client_id: merchant.client_id, client_secret: merchant.client_secret}}}), {mode: 0o600})
    process.env.PAY_CONFIG_DIR = dir
    const create = (ref) => ['collections', 'create', '--amount', '10.00', '--currency', 'KES', '--mobile', '254700000001', '--provider', 'mpesa', '--reference', ref, '--base-url', sandbox.url]
    // bounded: a sandbox that stopped answering costs the build seconds, not minutes
    const bounded = (argv) => [...argv, '--timeout', '10', '--retries', '0']
    const runCommand = async (argv) => {
      const plan = planDirect(argv, table, process.env)
      const sink = () => new Writable({write: (_chunk, _encoding, done) => done()})
      const out = new rt.Output(rt.detectTerminal(), Boolean(plan.flags.json), sink(), sink())
      const code = await rt.runOperationCommand(rt.operations[plan.op], plan.flags, plan.args, {id: plan.id, userAgent: 'pay', out})
      if (code !== 0) throw new Error(`pay ${argv.join(' ')} exited ${code}`)
    }
    for (const argv of [['balance'], create('code-cache-1'), ['balance', '--json'], [...create('code-cache-2'), '--json']].map(bounded)) await runCommand(argv)
    commandsDone()
    const rows = join(dir, 'rows.csv')
    writeFileSync(rows, ['amount,currency,reference,mobile,provider', ...Array.from({length: 64}, (_, i) => `${i + 1}.25,KES,code-cache-row-${i},2547${10000000 + i},mpesa`)].join('\n'))
    await runCommand(bounded(['collections', 'create', '--from-file', rows, '--yes', '--concurrency', '4', '--base-url', sandbox.url]))
  } finally {
    delete process.env.PAY_CONFIG_DIR
    for (const [k, v] of aside) process.env[k] = v
    if (dir) rmSync(dir, {recursive: true, force: true})
    await sandbox?.close()
  }
}

// exit now: the exercised client and oclif leave nothing worth waiting for
if (mode === 'write') execFileSync(process.execPath, [fileURLToPath(import.meta.url), dist, 'check'], {stdio: 'inherit'})
process.exit(0)
