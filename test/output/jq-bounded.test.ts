/**
 * --jq under a time and a memory bound: a program that never ends or grows without limit ends the command with
 * exit 2 and a message naming the flag that raises the bound (in-process it took the process to a V8 fatal error,
 * SIGTRAP, or a stray "Aborted()"). The bounded engine in-process, and the built CLI for the exit and the output.
 */
import {describe, expect, it} from 'vitest'
import {boundedJq} from '../../src/output/jq-bounded.js'
import {runCli, tempConfigDir} from '../helpers/cli.js'

describe('the bounded jq engine', () => {
  it('answers like jq, passes jq\'s own errors on, and stops a program past its time or memory bound (exit 2)', async () => {
    const jq = await boundedJq({timeoutSeconds: 2, memoryMb: 4096})
    expect(jq.raw('{"a":[1,2]}', '.a | add', ['-c'])).toBe('3')
    expect(() => jq.raw('{"a":"x"}', '.a | tonumber', ['-c'])).toThrow()
    const started = Date.now()
    expect(() => jq.raw('null', 'repeat(1)', ['-c'])).toThrow(expect.objectContaining({exitCode: 2, message: '--jq took longer than 2 s: stopped'}))
    expect(Date.now() - started).toBeLessThan(8000)
    const memory = await boundedJq({timeoutSeconds: 60, memoryMb: 64})
    expect(() => memory.raw('null', '[range(1e9)]', ['-c'])).toThrow(expect.objectContaining({exitCode: 2, message: '--jq used more than 64 MB: stopped'}))
  }, 90_000)
})

describe('pay … --jq (the built CLI)', () => {
  const env = () => ({PAY_CONFIG_DIR: tempConfigDir()})

  it('repeat(1) and [range(1e9)] end cleanly: exit 2 naming --jq-timeout / --jq-memory, no fatal error, no stray output', async () => {
    const endless = await runCli(['webhook', 'events', '--json', '--jq', 'repeat(1)', '--jq-timeout', '2'], {env: env()})
    expect(endless.code, endless.stderr).toBe(2)
    expect(endless.stderr).toMatch(/^error: --jq took longer than 2 s: stopped\n {2}next: raise the bound with --jq-timeout SECONDS/)
    expect(endless.stdout).not.toMatch(/^1$/m) // nothing of the endless output
    // the time bound as high as it goes: on a busy machine the default 10 s could trip first, and this is the memory bound's case
    const huge = await runCli(['webhook', 'events', '--json', '--jq', '[range(1e9)]', '--jq-memory', '64', '--jq-timeout', '3600'], {env: env(), timeoutMs: 60_000})
    expect(huge.code, huge.stderr).toBe(2)
    expect(huge.stderr).toMatch(/^error: --jq used more than 64 MB: stopped\n {2}next: raise the bound with --jq-memory MB/)
    expect(huge.stdout + huge.stderr).not.toMatch(/Aborted|FATAL|heap/)
    const fine = await runCli(['webhook', 'events', '--json', '--jq', '.[0].type'], {env: env()})
    expect(fine.code, fine.stderr).toBe(0)
    expect(fine.stdout).toBe('collection.processing\n')
  }, 90_000)
})
