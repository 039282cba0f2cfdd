/**
 * The bundles' V8 code caches are per V8 version (scripts/cached-require.cjs): a build run by another Node (22 or
 * 24 after a build with 20, or the other way round) finds no cache of its own and compiles as usual, and a cache
 * V8 refuses (damaged, or made under other flags) is ignored: same output, exit 0, nothing on stderr. Runs on
 * every Node that .ci/run tests with. A copy of the package in a temporary directory, so dist/ is never touched.
 */
import {spawnSync} from 'node:child_process'
import {cpSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {ROOT, cleanEnv} from '../helpers/cli.js'

const MINE = `.${process.versions.v8}-${process.arch}.v8cache`
const BUNDLES = [join('dist', 'vendor', 'oclif.cjs'), join('dist', 'runtime.cjs'), join('dist', 'vendor', 'undici.cjs')]
let pkg: string

function run(root: string, args: string[]) {
  const r = spawnSync(process.execPath, [join(root, 'bin', 'run.cjs'), ...args], {cwd: root, env: cleanEnv(), encoding: 'utf8', timeout: 60_000})
  return {code: r.status, stdout: r.stdout, stderr: r.stderr}
}

/** For each bundle, as bin/run.cjs loads it: true = V8 refused a cache, false = used one, undefined = none read. */
function cacheVerdicts(root: string): (boolean | undefined)[] {
  const script = `
    import(${JSON.stringify(pathToFileURL(join(root, 'dist', 'vendor', 'cached-require.cjs')).href)}).then(({cachedRequire, codeCacheRejected}) => {
      const files = ${JSON.stringify(BUNDLES.map((b) => join(root, b)))}
      for (const f of files) cachedRequire(f)
      console.log(JSON.stringify(files.map((f) => codeCacheRejected(f) ?? null)))
    })`
  const r = spawnSync(process.execPath, ['-e', script], {cwd: root, env: cleanEnv(), encoding: 'utf8', timeout: 60_000})
  expect(r.stderr).toBe('')
  return (JSON.parse(r.stdout) as (boolean | null)[]).map((v) => v ?? undefined)
}

beforeAll(() => {
  pkg = mkdtempSync(join(tmpdir(), 'pay-code-cache-'))
  for (const part of ['bin', 'dist', 'package.json', 'oclif.manifest.json']) cpSync(join(ROOT, part), join(pkg, part), {recursive: true})
  symlinkSync(join(ROOT, 'node_modules'), join(pkg, 'node_modules'))
})
afterAll(() => {
  if (pkg) rmSync(pkg, {recursive: true, force: true})
})

describe('V8 code cache of the bundles on this Node', () => {
  const args = ['webhook', 'events', '--json'] // through oclif: loads both bundles
  it('the build has a cache for this V8, and V8 takes it', () => {
    expect(cacheVerdicts(ROOT)).toEqual([false, false, false])
  })

  it("only another Node's caches: none is read, the bundles compile as usual, same output", () => {
    const expected = run(ROOT, args)
    expect(expected.code).toBe(0)
    for (const bundle of BUNDLES) {
      const dir = join(pkg, bundle, '..')
      for (const f of readdirSync(dir).filter((n) => n.endsWith('.v8cache'))) rmSync(join(dir, f))
      // what a build with another Node leaves
      cpSync(join(ROOT, `${bundle}${MINE}`), join(pkg, `${bundle}.9.9.999.9-node.99-${process.arch}.v8cache`))
    }
    expect(cacheVerdicts(pkg)).toEqual([undefined, undefined, undefined])
    expect(run(pkg, args)).toEqual(expected)
  })

  it('a cache V8 refuses (damaged, cut short, or made under other flags) is ignored: same output, exit 0', () => {
    const expected = run(ROOT, args)
    const [oclif, runtime, undici] = BUNDLES
    for (const damaged of [oclif, undici]) writeFileSync(join(pkg, `${damaged}${MINE}`), Buffer.from('not a code cache at all'.repeat(100)))
    const real = readFileSync(join(ROOT, `${runtime}${MINE}`))
    writeFileSync(join(pkg, `${runtime}${MINE}.tmp`), real.subarray(0, real.length >> 1))
    renameSync(join(pkg, `${runtime}${MINE}.tmp`), join(pkg, `${runtime}${MINE}`))
    expect(cacheVerdicts(pkg)).toEqual([true, true, true])
    expect(run(pkg, args)).toEqual(expected)
    expect(run(pkg, ['--version']).code).toBe(0)
  })
})
