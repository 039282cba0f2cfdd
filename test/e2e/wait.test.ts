/**
 * --wait as a process (src/operation/wait.ts): what only a process shows, a signal while polling. The built CLI
 * against the sandbox, whose wallet numbers ending in 8 stay processing (docs/sandbox.md). The wait's logic
 * in-process: test/operation/wait.test.ts.
 */
import {spawn} from 'node:child_process'
import {describe, expect, it} from 'vitest'
import {BIN, ROOT, cleanEnv} from '../helpers/cli.js'
import {useSandbox, withReference} from '../helpers/command-harness.js'

const h = useSandbox()

/** `pay collections create … --wait --json`, sent `signal` once it says it is waiting; its result. */
function interruptWait(ref: string, signal: NodeJS.Signals): Promise<{code: number | null; stdout: string; stderr: string}> {
  const args = ['collections', 'create', '--amount', '12.00', '--currency', 'KES', '--reference', ref, '--mobile', '254700000008', '--provider', 'mpesa', '--wait', '--json']
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {cwd: ROOT, env: cleanEnv(h.env), stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    let sent = false // once: a second signal is the user's "stop now", which ends the process as Node does
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d
      if (!sent && stderr.includes('waiting for collection')) sent = child.kill(signal)
    })
    child.on('close', (code) => resolve({code, stdout, stderr}))
  })
}

describe('a signal while --wait polls', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('%s ends the wait (exit %i): the created collection on stdout, its last state and how to wait again on stderr', async (signal, code) => {
    const ref = `wait-${signal.toLowerCase()}`
    const r = await interruptWait(ref, signal)
    expect(r.code, r.stderr).toBe(code)
    const [created] = withReference(h.sb.state.collections, ref)
    expect(JSON.parse(r.stdout)).toMatchObject({id: created.id, status: 'processing', merchant_reference: ref})
    expect(r.stderr).toContain(`interrupted (${signal}) while waiting: collection ${created.id} was processing when last seen; nothing more was sent; to wait again: pay collections get --wait ${created.id}`)
    expect(withReference(h.sb.state.collections, ref)).toHaveLength(1)
  })
})
