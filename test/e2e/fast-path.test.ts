/**
 * bin/run.js answers `pay --version` and `pay [words] --help` without loading @oclif/core, from
 * dist/help-cache.json and the texts file it indexes (written by the build). These tests prove that what it prints is byte for byte what oclif
 * itself prints (PAY_NO_FAST_PATH=1 sends the same argv through oclif), for every subject in the cache, with
 * colour off and on, and that the fast path really does skip oclif. Also that the build's bundles (scripts/bundle.mjs)
 * load with a code cache V8 accepts.
 */
import {spawn} from 'node:child_process'
import {mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {describe, expect, it} from 'vitest'
import {ROOT, cleanEnv} from '../helpers/cli.js'
import {probedRun, type ProbedRun} from '../helpers/probed-run.js'

interface HelpCache {
  /** subject: [plain offset, plain bytes, colour offset, colour bytes] in the texts file */
  subjects: Record<string, [number, number, number, number]>
  versionFlags: string[]
  commandIds: string[]
}

const cache = JSON.parse(readFileSync(join(ROOT, 'dist', 'help-cache.json'), 'utf8')) as HelpCache
const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {commands: Record<string, {aliases?: string[]; hasDynamicHelp?: boolean}>}

// an empty config dir: no profile, no theme
const probeDir = mkdtempSync(join(tmpdir(), 'pay-fast-path-'))

function run(args: string[], env: Record<string, string | undefined> = {}): Promise<ProbedRun> {
  return probedRun(args, {NO_COLOR: undefined, PAY_CONFIG_DIR: probeDir, ...env})
}

/** Runs argv through the fast path and through oclif, and checks both print the same. */
async function same(args: string[], env: Record<string, string | undefined> = {}): Promise<void> {
  const [fast, oclif] = await Promise.all([run(args, env), run(args, {...env, PAY_NO_FAST_PATH: '1'})])
  expect(oclif.oclifLoaded, `oclif should serve: pay ${args.join(' ')}`).toBe(true)
  expect(fast.oclifLoaded, `the fast path should serve: pay ${args.join(' ')}\n${fast.stderr}`).toBe(false)
  expect({code: fast.code, stdout: fast.stdout, stderr: fast.stderr}, `pay ${args.join(' ')}`).toEqual({code: oclif.code, stdout: oclif.stdout, stderr: oclif.stderr})
}

async function inBatches<T>(items: T[], size: number, fn: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn))
}

describe('fast paths of bin/run.cjs', () => {
  it('pay --version prints what oclif prints', async () => {
    await same(['--version'])
    await same(['--version', '--help'])
  })

  it('pay -v, pay version, pay help and pay help COMMAND print what --version and --help print, from the cache', {timeout: 120_000}, async () => {
    // each through the fast path, and through oclif (the version and help commands, or oclif's -v) the same
    await inBatches([['-v'], ['version'], ['help'], ['help', 'balance'], ['help', 'collections', 'create'], ['help', 'sandbox']], 2, (args) => same(args))
    const [v, version, help, helpBalance, balanceHelp] = await Promise.all([run(['-v']), run(['--version']), run(['help']), run(['help', 'balance']), run(['balance', '--help'])])
    expect(v).toMatchObject({code: 0, stdout: version.stdout})
    expect(helpBalance).toMatchObject({code: 0, stdout: balanceHelp.stdout})
    expect(help.stdout).toContain('COMMANDS')
    // an unknown subject: oclif's own answer, exit 2, as for `pay nosuch --help`
    expect((await run(['help', 'nosuch'])).code).toBe(2)
  })

  it('bin/run.js (for scripts that name it) runs bin/run.cjs, the bin of package.json', async () => {
    const pjson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {bin: {pay: string}}
    expect(pjson.bin.pay).toBe('./bin/run.cjs')
    const out = (file: string) =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, [join(ROOT, 'bin', file), '--version'], {cwd: ROOT, env: cleanEnv(), stdio: ['ignore', 'pipe', 'inherit']})
        let text = ''
        child.stdout.setEncoding('utf8').on('data', (d: string) => (text += d))
        child.on('error', reject)
        child.on('close', () => resolve(text))
      })
    const viaCjs = await out('run.cjs')
    expect(viaCjs).toMatch(/^pay-cli\/\S+ \S+ node-v/)
    expect(await out('run.js')).toBe(viaCjs)
  })

  it('-h is a help flag too, answered the same as oclif answers it', async () => {
    await same(['balance', '-h'])
    await same(['collections', 'create', '-h'])
  })

  it('the help cache covers every command, alias and topic of the manifest', () => {
    for (const [id, cmd] of Object.entries(manifest.commands)) {
      if (cmd.hasDynamicHelp) continue
      for (const name of [id, ...(cmd.aliases ?? [])]) expect(cache.subjects, name).toHaveProperty([name.split(':').join(' ')])
      for (let i = 1; i < id.split(':').length; i++) expect(cache.subjects).toHaveProperty([id.split(':').slice(0, i).join(' ')])
    }
    expect(cache.subjects).toHaveProperty([''])
    // an unknown command's suggestions come from these, as the hook's come from the manifest
    expect(cache.commandIds).toEqual(Object.keys(manifest.commands))
  })

  it('every cached help, without colour, is exactly what oclif prints', {timeout: 300_000}, async () => {
    const subjects = Object.keys(cache.subjects)
    await same([])
    await inBatches(subjects, 3, (subject) => same([...subject.split(' ').filter(Boolean), '--help']))
  })

  it('with colour forced on or off, and with NO_COLOR, it still matches', {timeout: 120_000}, async () => {
    const subjects = ['', 'balance', 'metadata', 'profiles add']
    for (const env of [{FORCE_COLOR: '1'}, {FORCE_COLOR: '3'}, {FORCE_COLOR: '0'}, {NO_COLOR: '1'}]) {
      await inBatches(subjects, 2, (subject) => same([...subject.split(' ').filter(Boolean), '--help'], env))
    }
  })

  it('an unknown command prints what oclif prints, exit 2, without loading oclif', {timeout: 120_000}, async () => {
    const shapes = [['nosuchcommand'], ['nosuch', 'extra', '--flag'], ['nosuch', 'a=b', 'c'], ['nosuch', '--json']]
    await inBatches(shapes, 2, (args) => same(args))
    for (const env of [{FORCE_COLOR: '3'}, {FORCE_COLOR: '0'}, {NO_COLOR: '1'}]) await same(['nosuchcommand'], env)
    const r = await run(['nosuchcommand'])
    expect(r).toMatchObject({code: 2, stdout: ''})
    // an id oclif would wrap, a known first word, a help flag anywhere: oclif answers
    for (const args of [['x'.repeat(60), 'y'.repeat(20)], ['collections', 'nosuch'], ['nosuch', '--help', 'x']]) {
      expect((await run(args)).oclifLoaded, `pay ${args.join(' ')}`).toBe(true)
    }
  })

  it('the build bundles load with a V8 code cache that this node accepts', async () => {
    // as bin/run.cjs loads them: under V8's default flags (V8 refuses a cache made under other flags)
    const script = `
      import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'vendor', 'cached-require.cjs')).href)}).then(({cachedRequire, codeCacheRejected}) => {
        const files = [${JSON.stringify(join(ROOT, 'dist', 'vendor', 'oclif.cjs'))}, ${JSON.stringify(join(ROOT, 'dist', 'runtime.cjs'))}]
        for (const f of files) cachedRequire(f)
        console.log(JSON.stringify(files.map((f) => codeCacheRejected(f))))
      })`
    const r = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, ['-e', script], {cwd: ROOT, env: cleanEnv(), stdio: ['ignore', 'pipe', 'inherit']})
      let out = ''
      child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d))
      child.on('error', reject)
      child.on('close', () => resolve(out))
    })
    expect(JSON.parse(r)).toEqual([false, false])
  })

  it('anything else goes to oclif: unknown subjects, flags before --help, a user theme', async () => {
    // (an operation command such as `pay balance` has a direct path of its own: fast-path-direct.test.ts)
    // (`constructor`, `__proto__`: a subject is the cache's own, never an inherited property of its index)
    for (const args of [['nope', '--help'], ['constructor', '--help'], ['__proto__', '--help'], ['balance', '--json', '--help'], ['profiles', 'list'], ['help', '--json']]) {
      const r = await run(args, {PAY_BASE_URL: 'http://127.0.0.1:9'})
      expect(r.oclifLoaded, `pay ${args.join(' ')}`).toBe(true)
    }
    const themed = mkdtempSync(join(tmpdir(), 'pay-theme-'))
    writeFileSync(join(themed, 'theme.json'), JSON.stringify({sectionHeader: 'red'}))
    const r = await run(['balance', '--help'], {PAY_CONFIG_DIR: themed})
    expect(r.oclifLoaded).toBe(true)
    expect(r.code).toBe(0)
  })
})
