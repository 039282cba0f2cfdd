/** The client configuration `pay mcp --print-config` prints. */
import {describe, expect, it} from 'vitest'
import {LOCATION_ENV} from '../../src/config/paths.js'
import {clientConfig} from '../../src/mcp/config.js'

describe('--print-config', () => {
  it('names the settings taken from the environment, never their values', () => {
    const config = clientConfig('/usr/bin/node', '/opt/pay/bin/run.cjs', ['--profile', 'sandbox'], ['PAY_PROFILE', 'PAY_CLIENT_SECRET'], {PAY_CLIENT_SECRET: 's3cret', PAY_PROFILE: '', HOME: '/root'})
    expect(config).toEqual({mcpServers: {pay: {command: '/usr/bin/node', args: ['/opt/pay/bin/run.cjs', 'mcp', '--profile', 'sandbox'], env: {PAY_CLIENT_SECRET: ''}}}})
  })

  it("names the variables that place pay's files when they are set (another journal without them)", () => {
    const config = clientConfig('/usr/bin/node', 'run.cjs', [], ['PAY_PROFILE', ...LOCATION_ENV], {XDG_STATE_HOME: '/home/me/.state', XDG_CONFIG_HOME: '', PAY_PROFILE: 'live'})
    expect(config.mcpServers.pay.env).toEqual({PAY_PROFILE: '', XDG_STATE_HOME: ''})
  })
})
