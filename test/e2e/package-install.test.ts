/**
 * The package as users install it: `npm pack`, installed into a temporary prefix without dev dependencies, and the
 * standalone tarball (Node included) run with no Node on PATH; each passes scripts/install-smoke.sh (version, help,
 * sandbox start/stop, a collection with --wait, completion, a shipped flow), run from a temporary directory, so
 * the repository is on no path the installed pay sees. Dependencies come from npm's cache (`npm ci` filled it) or
 * the registry. Once per CI run: .ci/run sets PAY_TEST_PACKAGE=0 for its repeat runs on other Nodes, which test
 * the same files. Its long steps run asynchronously: a worker blocked for a minute misses vitest's own RPC deadline.
 */
import {execFile, execFileSync} from 'node:child_process'
import {promisify} from 'node:util'
import {existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {ROOT, cleanEnv} from '../helpers/cli.js'

const SMOKE = join(ROOT, 'scripts', 'install-smoke.sh')
const run = promisify(execFile)

describe.skipIf(process.env.PAY_TEST_PACKAGE === '0')('the installed package', () => {
  let work: string
  let tarball: string

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'pay-package-'))
    const name = (await run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', work], {cwd: ROOT, encoding: 'utf8'})).stdout.trim().split('\n').at(-1)!
    tarball = join(work, name)
  }, 120_000)
  afterAll(() => rmSync(work, {recursive: true, force: true}))

  /** Runs the smoke script from an empty directory with `env`; returns its output, throws (with it) on failure. */
  async function smoke(pay: string, flows: string, env: NodeJS.ProcessEnv): Promise<string> {
    const cwd = mkdtempSync(join(work, 'cwd-'))
    return (await run('sh', [SMOKE, pay, flows], {cwd, env, encoding: 'utf8', timeout: 120_000})).stdout
  }

  it('npm pack installs with production dependencies only and passes the smoke script', async () => {
    const prefix = join(work, 'prefix')
    await run('npm', ['install', '--global', '--prefix', prefix, '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', tarball], {timeout: 180_000})
    const app = join(prefix, 'lib', 'node_modules', 'pay-cli')
    expect(existsSync(join(app, 'dist', 'runtime.cjs'))).toBe(true)
    // nothing of the repository's dev tooling came along
    for (const absent of ['src', 'scripts', 'test', join('node_modules', 'vitest'), join('node_modules', 'typescript')]) expect(existsSync(join(app, absent)), absent).toBe(false)
    expect(await smoke(join(prefix, 'bin', 'pay'), join(app, 'flows'), cleanEnv({NODE_PATH: undefined}))).toContain('install smoke passed')
  }, 300_000)

  it('the standalone tarball runs with no Node on PATH and passes the smoke script', async () => {
    const out = join(work, 'standalone')
    mkdirSync(out)
    const file = (await run(process.execPath, [join(ROOT, 'scripts', 'pack-standalone.mjs'), '--tarball', tarball, '--out', out], {encoding: 'utf8', timeout: 240_000})).stdout.trim()
    const unpacked = join(work, 'unpacked')
    mkdirSync(unpacked)
    await run('tar', ['-xzf', file, '-C', unpacked])
    // a PATH of the shell tools the smoke script uses, and no node
    const bin = join(work, 'no-node-bin')
    mkdirSync(bin)
    for (const tool of ['sh', 'mktemp', 'rm', 'grep', 'cat', 'sleep', 'dirname', 'readlink']) {
      const path = execFileSync('sh', ['-c', `command -v ${tool}`], {encoding: 'utf8'}).trim()
      symlinkSync(path, join(bin, tool))
    }
    expect(() => execFileSync('sh', ['-c', 'command -v node'], {env: {PATH: bin}})).toThrow()
    const pay = join(unpacked, 'pay', 'bin', 'pay')
    const output = await smoke(pay, join(unpacked, 'pay', 'lib', 'node_modules', 'pay-cli', 'flows'), {PATH: bin, HOME: work, LANG: 'C.UTF-8'})
    expect(output).toContain('install smoke passed')
  }, 400_000)
})
