/**
 * Runs the built CLI (package.json's bin, bin/run.cjs → dist/) as a real process. Every end-to-end test goes through here.
 */
import {spawn} from 'node:child_process'
import {mkdtempSync, readFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

export const ROOT = fileURLToPath(new URL('../..', import.meta.url))
/** What `pay` runs: package.json's bin. */
export const BIN = join(ROOT, (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {bin: {pay: string}}).bin.pay)

export interface CliResult {
  code: number
  stdout: string
  stderr: string
}

export interface RunOptions {
  env?: Record<string, string | undefined>
  input?: string
  timeoutMs?: number
  cwd?: string
}

/** A fresh, empty config dir so that no test sees another's profiles or tokens. */
export function tempConfigDir(): string {
  return mkdtempSync(join(tmpdir(), 'pay-test-'))
}

/** A clean environment: no PAY_* leaking in from the developer's shell, no colour, CI set (never prompts). */
let stateHome: string | undefined
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('PAY_') && k !== 'NO_COLOR' && k !== 'FORCE_COLOR') env[k] = v
  env.CI = 'true'
  env.NO_COLOR = '1'
  // no D-Bus session: a test never writes into the developer's own OS keyring (test/e2e/keyring.test.ts passes its own)
  delete env.DBUS_SESSION_BUS_ADDRESS
  delete env.XDG_RUNTIME_DIR
  // state (the journal, the webhook history) of a run without PAY_CONFIG_DIR goes to a temporary dir, never HOME's
  env.XDG_STATE_HOME = stateHome ??= mkdtempSync(join(tmpdir(), 'pay-test-state-'))
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k]
    else env[k] = v
  }
  return env
}

export function runCli(args: string[], options: RunOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd ?? ROOT,
      env: cleanEnv(options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`pay ${args.join(' ')} timed out\nstdout: ${stdout}\nstderr: ${stderr}`))
    }, options.timeoutMs ?? 30_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({code: code ?? -1, stdout, stderr})
    })
    // a command that never reads its stdin may exit before this write lands (the direct path exits as soon as its
    // output is drained): the pipe's EPIPE is no failure of the command, whose exit code and output are the result
    child.stdin.on('error', () => undefined)
    child.stdin.end(options.input ?? '')
  })
}

/**
 * Runs the built CLI with cleanEnv(env), and sends it `signal` once `when()` holds (polled every 50 ms): for what a
 * signal in the middle of a run shows. After 60 s without it, the process is killed and the run fails.
 */
export function signalledRun(args: string[], env: Record<string, string | undefined>, when: () => boolean, signal: NodeJS.Signals): Promise<{code: number | null; stdout: string; stderr: string}> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {cwd: ROOT, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    const started = Date.now()
    const poll = setInterval(() => {
      if (when()) {
        clearInterval(poll)
        child.kill(signal)
      } else if (Date.now() - started > 60_000) {
        clearInterval(poll)
        child.kill('SIGKILL')
        reject(new Error(`what the signal waited for never happened\n${stderr}`))
      }
    }, 50)
    child.on('close', (code) => resolve({code, stdout, stderr}))
  })
}

/** Parses stdout as JSON, with the whole output in the error when it is not. */
export function json<T = any>(result: CliResult): T {
  try {
    return JSON.parse(result.stdout) as T
  } catch {
    throw new Error(`stdout is not JSON (exit ${result.code}):\n${result.stdout}\nstderr:\n${result.stderr}`)
  }
}
