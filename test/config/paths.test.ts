/**
 * Where the journal lives: $PAY_CONFIG_DIR/state wins over $XDG_STATE_HOME, and the README, `pay journal --help`
 * and docs/assumptions.md say it in that order.
 */
import {readFileSync} from 'node:fs'
import {homedir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {stateDir} from '../../src/config/paths.js'
import {ROOT} from '../helpers/cli.js'

describe('the state dir (the journal)', () => {
  it('PAY_CONFIG_DIR/state over XDG_STATE_HOME/pay over ~/.local/state/pay', () => {
    expect(stateDir({PAY_CONFIG_DIR: '/c', XDG_STATE_HOME: '/x'})).toBe('/c/state')
    expect(stateDir({XDG_STATE_HOME: '/x'})).toBe('/x/pay')
    expect(stateDir({})).toBe(join(homedir(), '.local', 'state', 'pay'))
  })

  it('the README, the journal help and docs/assumptions.md name PAY_CONFIG_DIR first, as the code reads them', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8').replace(/\s+/g, ' ')
    expect(readme).toContain('The journal lives in `$PAY_CONFIG_DIR/state/journal` when `PAY_CONFIG_DIR` is set (it wins over `XDG_STATE_HOME`), else in `$XDG_STATE_HOME/pay/journal`')
    expect(readme).toContain('The journal lives in the state dir ($PAY_CONFIG_DIR/state/journal when PAY_CONFIG_DIR is set, else $XDG_STATE_HOME/pay/journal')
    expect(readFileSync(join(ROOT, 'docs', 'assumptions.md'), 'utf8')).toContain('`$PAY_CONFIG_DIR/state/journal` when `PAY_CONFIG_DIR` is set (it wins over `XDG_STATE_HOME`), else `$XDG_STATE_HOME/pay/journal`')
  })
})
