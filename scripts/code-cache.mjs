// Writes the V8 code caches of the build's bundles for the running Node's V8 (dist/vendor/oclif.cjs.<v8>-<arch>.v8cache,
// dist/runtime.cjs.<v8>-<arch>.v8cache; see scripts/cached-require.cjs; run it with another Node to add that
// Node's caches beside them): loads each through cachedRequire in a fresh process, exercises what a command
// uses (so the functions compiled then are in the cache too), saves. Then checks, in another process set up as
// bin/run.cjs sets itself up, that V8 accepts them. `node scripts/code-cache.mjs <dist dir>`, run by the build.
import {execFileSync} from 'node:child_process'
import {join, resolve} from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'

const root = join(fileURLToPath(import.meta.url), '..', '..')
const [dist = join(root, 'dist'), mode = 'write'] = process.argv.slice(2)
const oclifFile = resolve(dist, 'vendor', 'oclif.cjs')
const runtimeFile = resolve(dist, 'runtime.cjs')

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
  if (mode === 'write') {
    writeCodeCache(oclifFile)
    writeCodeCache(runtimeFile)
  } else {
    const rejected = [oclifFile, runtimeFile].filter((f) => codeCacheRejected(f) !== false)
    if (rejected.length > 0) console.warn(`code cache not accepted by V8 for ${rejected.join(', ')}: start-up will be slower`)
  }
}

// exit now: the exercised client and oclif leave nothing worth waiting for
if (mode === 'write') execFileSync(process.execPath, [fileURLToPath(import.meta.url), dist, 'check'], {stdio: 'inherit'})
process.exit(0)
