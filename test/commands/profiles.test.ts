/**
 * The profile commands (pay profiles add|use|list|show|remove, pay logout) in-process (runCommand,
 * test/helpers/in-process.ts) against a scripted HTTP server on loopback, in a temporary config dir.
 */
import {describe, expect, it} from 'vitest'
import {json, tempConfigDir} from '../helpers/cli.js'
import {runCommand, runInProcess} from '../helpers/in-process.js'
import {TEST_CLIENT_ID, TEST_CLIENT_SECRET, useScriptedServer} from '../helpers/scripted-server.js'

const server = useScriptedServer()

describe('profiles', () => {
  it('profiles use/remove, and logout forgets the token', async () => {
    const dir = tempConfigDir()
    const base = {PAY_CONFIG_DIR: dir}
    await runCommand(['profiles', 'add', 'a', '--base-url', server.url, '--client-id', TEST_CLIENT_ID, '--client-secret', TEST_CLIENT_SECRET], {env: base})
    await runCommand(['profiles', 'add', 'b', '--base-url', server.url, '--client-id', 'other'], {env: base})
    expect((await runCommand(['profiles', 'use', 'b'], {env: base})).code).toBe(0)
    expect(json(await runCommand(['profiles', 'list', '--json'], {env: base})).find((p: {active: boolean}) => p.active).name).toBe('b')
    expect((await runCommand(['profiles', 'use', 'zzz'], {env: base})).code).toBe(4)
    await runCommand(['profiles', 'use', 'a'], {env: base})
    expect((await runInProcess(['balance'], {env: base})).code).toBe(0)
    expect((await runCommand(['logout'], {env: base})).code).toBe(0)
    expect((await runInProcess(['balance'], {env: base})).code).toBe(0)
    expect(server.requests.filter((q) => q.path === '/v1/oauth/token')).toHaveLength(2)
    expect((await runCommand(['logout', '--all'], {env: base})).code).toBe(0)
    const shown = json(await runCommand(['profiles', 'show', 'a', '--json'], {env: base}))
    expect(shown.client_secret).toBeNull()
    expect((await runCommand(['profiles', 'remove', 'b'], {env: base})).code).toBe(0)
    expect(json(await runCommand(['profiles', 'list', '--json'], {env: base})).map((p: {name: string}) => p.name)).toEqual(['a'])
  })
})
