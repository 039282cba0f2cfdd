/**
 * zod's compiled parsers are a sandbox's (it parses a body per request), set where a sandbox starts: a process that
 * only imports a module of the sandbox (a flow, a test, the MCP server's tools) keeps the command's jitless zod
 * (src/api/zod-config.ts). The build shares one zod between the runtime bundle and the sandbox, so this is
 * process-wide.
 */
import * as z from 'zod'
import {afterEach, beforeEach, expect, it, vi} from 'vitest'

let before: boolean | undefined
beforeEach(() => {
  before = z.config().jitless
  z.config({jitless: true})
  // the sandbox's modules evaluated afresh, as in a new process
  vi.resetModules()
})
afterEach(() => {
  z.config({jitless: before})
})

it("importing the sandbox's modules leaves zod's settings alone", async () => {
  await import('../../src/sandbox/server.js')
  await import('../../src/sandbox/index.js')
  expect(z.config().jitless).toBe(true)
})

it('a started sandbox answers with compiled parsers (set before its first request is handled)', async () => {
  const {startSandbox} = await import('../../src/sandbox/index.js')
  const sb = await startSandbox({port: 0, quiet: true})
  try {
    const r = await fetch(`${sb.url}/v1/oauth/token`, {method: 'POST', headers: {'content-type': 'application/json'}, body: '{"grant_type":"client_credentials"}'})
    expect(r.status).toBe(400)
    expect(z.config().jitless).toBe(false)
  } finally {
    await sb.close()
  }
})
