/**
 * `pay mcp --print-config` in-process (src/mcp/command.ts): the JSON MCP clients take to start this server, the
 * names of the settings taken from the environment and never their values. The server over stdio: test/e2e/mcp.test.ts.
 */
import {describe, expect, it} from 'vitest'
import {runMcp} from '../../src/mcp/command.js'
import {commandEnv, memoryOutput} from '../helpers/in-process.js'

describe('pay mcp --print-config', () => {
  it('prints the command, this pay\'s entry and the arguments given (less --print-config), and env names without values', async () => {
    const io = memoryOutput(false)
    const env = commandEnv({PAY_CLIENT_SECRET: 'topsecret'})
    const argv = ['--profile', 'sandbox', '--allow-money', '--print-config']
    await runMcp({profile: 'sandbox', 'allow-money': true, 'print-config': true}, io.out, {argv, entry: '/opt/pay/bin/run.cjs', userAgent: 'pay-test', version: '0.0.0', commands: {} as never, env})
    const config = JSON.parse(io.stdout())
    expect(config.mcpServers.pay).toMatchObject({command: process.execPath, args: ['/opt/pay/bin/run.cjs', 'mcp', '--profile', 'sandbox', '--allow-money']})
    // the test environment places the journal with XDG_STATE_HOME: named too (without it, another journal)
    expect(config.mcpServers.pay.env).toEqual({PAY_CLIENT_SECRET: '', PAY_CONFIG_DIR: '', XDG_STATE_HOME: ''})
    expect(io.stderr()).toMatch(/env: fill in the values of PAY_CLIENT_SECRET, PAY_CONFIG_DIR, XDG_STATE_HOME \(not printed\), or use --profile instead/)
    expect(io.stdout() + io.stderr()).not.toContain('topsecret')
  })

  it('never prints a password in --base-url: the URL as pay shows it, and a note to put the password back', async () => {
    for (const given of [['--base-url', 'http://user:Pw5ecretXyz@127.0.0.1:4010'], ['--base-url=http://user:Pw5ecretXyz@127.0.0.1:4010']]) {
      const io = memoryOutput(false)
      await runMcp({'base-url': 'http://user:Pw5ecretXyz@127.0.0.1:4010', 'print-config': true}, io.out, {argv: [...given, '--print-config'], entry: 'run.cjs', userAgent: 'pay-test', version: '0.0.0', commands: {} as never, env: commandEnv()})
      expect(JSON.parse(io.stdout()).mcpServers.pay.args.join(' ')).toMatch(/^run\.cjs mcp --base-url[ =]http:\/\/\[REDACTED\]@127\.0\.0\.1:4010$/)
      expect(io.stderr()).toMatch(/the password in --base-url is not printed/)
      expect(io.stdout() + io.stderr()).not.toContain('Pw5ecretXyz')
    }
  })

  it('with nothing from the environment: no env to fill in, and no note', async () => {
    const io = memoryOutput(false)
    const env = commandEnv({PAY_CONFIG_DIR: undefined, XDG_STATE_HOME: undefined, XDG_CONFIG_HOME: undefined})
    await runMcp({'print-config': true}, io.out, {argv: ['--print-config'], entry: 'run.cjs', userAgent: 'pay-test', version: '0.0.0', commands: {} as never, env})
    expect(JSON.parse(io.stdout()).mcpServers.pay).toEqual({command: process.execPath, args: ['run.cjs', 'mcp'], env: {}})
    expect(io.stderr()).toBe('')
  })
})
