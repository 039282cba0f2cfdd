/**
 * Runs the built CLI with a preloaded probe that reports whether @oclif/core was loaded by the time the process
 * exited, for the tests of bin/run.js's fast and direct paths (which must skip oclif, and print what it prints).
 */
import {spawn} from 'node:child_process'
import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {BIN, ROOT, cleanEnv} from './cli.js'

const probeDir = mkdtempSync(join(tmpdir(), 'pay-probe-'))
const probe = join(probeDir, 'probe.cjs')
// (oclif is the build's bundle, dist/vendor/oclif.cjs, or the package when there is no bundle)
writeFileSync(probe, "process.on('exit', () => { if (Object.keys(require.cache).some((k) => k.includes('@oclif/core') || k.includes('oclif.cjs'))) process.stderr.write('[oclif loaded]'); try { require('node:fs').writeSync(3, JSON.stringify(process.moduleLoadList)) } catch {} })\n")

export interface ProbedRun {
  code: number
  stdout: string
  stderr: string
  oclifLoaded: boolean
  /** Node's own modules the process loaded (process.moduleLoadList: 'NativeModule http', …) */
  nodeModules: string[]
}

/** `pay …args` with cleanEnv(env) (test/helpers/cli.ts), stdin closed. */
export function probedRun(args: string[], env: Record<string, string | undefined>): Promise<ProbedRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--require', probe, BIN, ...args], {cwd: ROOT, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    let loaded = ''
    child.stdio[3]!.setEncoding('utf8').on('data', (d: string) => (loaded += d))
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({code: code ?? -1, stdout, stderr: stderr.replace('[oclif loaded]', ''), oclifLoaded: stderr.includes('[oclif loaded]'), nodeModules: loaded ? (JSON.parse(loaded) as string[]) : []}))
  })
}

/** Node's own modules a bare `node empty.cjs` loads with the same probe: what a Node version loads by itself (Node 24's bootstrap loads the ES-module job, for one). */
export function bareNodeModules(): Promise<string[]> {
  const empty = join(probeDir, 'empty.cjs')
  writeFileSync(empty, '')
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--require', probe, empty], {stdio: ['ignore', 'ignore', 'ignore', 'pipe']})
    let loaded = ''
    child.stdio[3]!.setEncoding('utf8').on('data', (d: string) => (loaded += d))
    child.on('error', reject)
    child.on('close', () => resolve(loaded ? (JSON.parse(loaded) as string[]) : []))
  })
}
