import {spawnSync} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {describe, expect, it} from 'vitest'
import {loadUndici} from '../../src/client/undici.js'

/** The flag src/client/undici.ts sets. */
const UNDICI_V8_FLAG = /const UNDICI_V8_FLAG = '([^']+)'/.exec(readFileSync(new URL('../../src/client/undici.ts', import.meta.url), 'utf8'))?.[1] ?? 'not found'

describe('loading undici', () => {
  it('gives the package itself (its Pool, Agent and EnvHttpProxyAgent)', async () => {
    const undici = await loadUndici()
    expect(undici).toBe(await import('undici'))
    expect(typeof undici.Pool).toBe('function')
    expect(typeof undici.EnvHttpProxyAgent).toBe('function')
  })

  it("sets a flag this Node's V8 knows (an unknown one is ignored without a word, and the gain is gone)", () => {
    const options = spawnSync(process.execPath, ['--v8-options'], {encoding: 'utf8'}).stdout
    expect(options).toContain(`  ${UNDICI_V8_FLAG} `)
  })
})
