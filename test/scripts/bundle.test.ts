/**
 * One copy of what the runtime bundle holds (scripts/bundle.mjs, bundleRuntime): a module a command loads outside
 * dist/runtime.cjs that imports a package the bundle holds (zod, cli-table3, @noble/hashes), itself or through our
 * modules, loads a second copy of it from node_modules (zod: ~45-75 ms of the command's start). Checked on the built
 * dist/ as Node loads it: every file reachable from the commands' files, the hook and the bundle's lazy import()s,
 * through static and dynamic imports; a face of the bundle (it cachedRequire()s it) ends the walk. What the bundle
 * holds is found apart from the build: esbuild over src/runtime.ts, its static imports only.
 */
import {spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join, relative} from 'node:path'
import {build} from 'esbuild'
import {expect, it} from 'vitest'
import {BIN, ROOT, cleanEnv, tempConfigDir} from '../helpers/cli.js'

/** The package a path under node_modules or a bare specifier names ('zod', '@noble/hashes'). */
function packageOf(path: string): string {
  const at = path.lastIndexOf('node_modules/')
  const parts = (at < 0 ? path : path.slice(at + 'node_modules/'.length)).split('/')
  return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]
}

/** The packages a load of src/runtime.ts loads with it (its static imports; import()s stay out). */
async function heldByRuntime(): Promise<Set<string>> {
  const result = await build({
    entryPoints: [join(ROOT, 'src', 'runtime.ts')],
    bundle: true,
    write: false,
    outdir: join(tmpdir(), 'pay-bundle-test'),
    platform: 'node',
    format: 'esm',
    metafile: true,
    logLevel: 'silent',
    plugins: [{name: 'static-only', setup: (b) => b.onResolve({filter: /.*/}, (a) => (a.kind === 'dynamic-import' || a.path === '@oclif/core' ? {path: a.path, external: true} : undefined))}],
  })
  return new Set(Object.keys(result.metafile.inputs).filter((p) => p.includes('node_modules/')).map(packageOf))
}

function files(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? files(join(dir, name)) : name.endsWith('.js') ? [join(dir, name)] : []))
}

/**
 * `chain -> package` for each import of a package in `held` by a file of `dist` that a command loads outside the
 * runtime bundle.
 */
function secondCopies(dist: string, held: Set<string>): string[] {
  const via = new Map<string, string | undefined>()
  const queue: string[] = []
  const reach = (file: string, from?: string) => {
    if (!via.has(file) && existsSync(file)) {
      via.set(file, from)
      queue.push(file)
    }
  }
  for (const file of [...files(join(dist, 'commands')), ...files(join(dist, 'hooks'))]) reach(file)
  const bundle = join(dist, 'runtime.cjs')
  if (existsSync(bundle)) for (const m of readFileSync(bundle, 'latin1').matchAll(/__payImport\((["'])(\.{1,2}\/[^"']+)\1/g)) reach(join(dist, m[2]), bundle)
  const found: string[] = []
  const chain = (file?: string): string[] => (file ? [...chain(via.get(file)), relative(dist, file)] : [])
  while (queue.length > 0) {
    const file = queue.shift()!
    const text = readFileSync(file, 'utf8')
    if (text.includes('cachedRequire(')) continue // the bundle's face: what it imports is the bundle's
    for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])([^'"]+)\1/g)) {
      const spec = m[2]
      if (spec.startsWith('.')) reach(join(dirname(file), spec), file)
      else if (held.has(packageOf(spec))) found.push(`${chain(file).join(' -> ')} -> ${spec}`)
    }
  }
  return [...new Set(found)].sort()
}

it('finds a package the bundle holds imported outside it, and stops at a face of the bundle (the check itself works)', () => {
  const dist = mkdtempSync(join(tmpdir(), 'pay-bundle-'))
  const tree = {
    'commands/a.js': "import {x} from '../run/a.js'\nexport default class A {}",
    'commands/b.js': "export default class B { async run() { await import('../run/b.js') } }",
    'run/a.js': "import {y} from '../config/y.js'\nimport {request} from 'undici'",
    'config/y.js': "import * as z from 'zod'",
    'run/b.js': "import {q} from '../config/face.js'\nimport Table from 'cli-table3'",
    'config/face.js': "import {cachedRequire} from '../vendor/cached-require.cjs'\nimport 'zod'\nexport const {q} = cachedRequire('../runtime.cjs')",
    'runtime.cjs': '__payImport("./lazy.js")',
    'lazy.js': "import {sha256} from '@noble/hashes/sha2.js'",
  }
  try {
    for (const [path, text] of Object.entries(tree)) {
      mkdirSync(dirname(join(dist, path)), {recursive: true})
      writeFileSync(join(dist, path), text)
    }
    expect(secondCopies(dist, new Set(['zod', 'cli-table3', '@noble/hashes']))).toEqual([
      'commands/a.js -> run/a.js -> config/y.js -> zod',
      'commands/b.js -> run/b.js -> cli-table3',
      'runtime.cjs -> lazy.js -> @noble/hashes/sha2.js',
    ])
  } finally {
    rmSync(dist, {recursive: true, force: true})
  }
})

it('no module a command loads outside dist/runtime.cjs imports a package the bundle holds', async () => {
  const held = await heldByRuntime()
  expect([...held]).toContain('zod')
  expect(secondCopies(join(ROOT, 'dist'), held)).toEqual([])
})

/** The ES modules Node loads (their URLs) while `pay args…` runs in config dir `dir`, and its exit code. */
function esModulesLoaded(dir: string, args: string[], env: Record<string, string> = {}): {status: number | null; loaded: string[]} {
  const list = join(dir, 'loaded.txt')
  writeFileSync(join(dir, 'hooks.mjs'), `import {appendFileSync} from 'node:fs'\nexport async function load(url, context, next) {\n  appendFileSync(${JSON.stringify(list)}, url + '\\n')\n  return next(url, context)\n}\n`)
  writeFileSync(join(dir, 'register.mjs'), `import {register} from 'node:module'\nregister(${JSON.stringify(new URL(`file://${join(dir, 'hooks.mjs')}`).href)})\n`)
  const r = spawnSync(process.execPath, ['--import', join(dir, 'register.mjs'), BIN, ...args], {cwd: ROOT, env: cleanEnv({PAY_CONFIG_DIR: dir, ...env}), encoding: 'utf8', timeout: 60_000})
  return {status: r.status, loaded: readFileSync(list, 'utf8').split('\n')}
}

it('`pay profiles list` loads zod only inside the runtime bundle (as Node loads it)', () => {
  const dir = tempConfigDir()
  try {
    const {status, loaded} = esModulesLoaded(dir, ['profiles', 'list'])
    expect(status).toBe(0)
    expect(loaded.some((url) => url.endsWith('/dist/profiles/manage.js'))).toBe(true)
    const packages = new Set(loaded.filter((url) => url.includes('/node_modules/')).map(packageOf))
    expect([...packages].filter((p) => ['zod', 'cli-table3', '@noble/hashes'].includes(p))).toEqual([])
  } finally {
    rmSync(dir, {recursive: true, force: true})
  }
})

it("a bulk run loads undici from its bundle (dist/vendor/undici.cjs, code-cached), not undici's files in node_modules", () => {
  const dir = tempConfigDir()
  try {
    const rows = join(dir, 'rows.csv')
    writeFileSync(rows, 'amount,currency,reference,mobile,provider\n10.00,KES,bundle-1,254700000001,mpesa\n')
    // nothing listens on port 9: the token is refused, but the Pool (and undici) loads meanwhile
    const env = {PAY_BASE_URL: 'http://127.0.0.1:9', PAY_CLIENT_ID: 'id', PAY_CLIENT_SECRET: 'secret'}
    const {status, loaded} = esModulesLoaded(dir, ['collections', 'create', '--from-file', rows, '--yes', '--retries', '0'], env)
    expect(status).not.toBe(0)
    expect(loaded.filter((url) => url.endsWith('/dist/vendor/undici.js'))).toHaveLength(1)
    expect(loaded.filter((url) => url.includes('/node_modules/undici/'))).toEqual([])
  } finally {
    rmSync(dir, {recursive: true, force: true})
  }
})
