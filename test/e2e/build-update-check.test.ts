/**
 * `npm ci` builds (prepare), and the build runs the oclif CLI, whose update check (plugin-warn-if-update-available)
 * printed "update available" in every install. The build pins oclif through package-lock.json, so each oclif run of
 * the build turns the check off with OCLIF_SKIP_NEW_VERSION_CHECK, which the plugin honours (its own source says so).
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ROOT} from '../helpers/cli.js'

describe('the build says nothing about oclif updates', () => {
  it('every oclif run of scripts/build.mjs sets OCLIF_SKIP_NEW_VERSION_CHECK, the variable the plugin checks', () => {
    const build = readFileSync(join(ROOT, 'scripts', 'build.mjs'), 'utf8')
    const runs = build.split('\n').filter((line) => line.includes("bin('oclif')"))
    expect(runs.length).toBeGreaterThan(0)
    for (const line of runs) expect(line, line).toContain("OCLIF_SKIP_NEW_VERSION_CHECK: 'true'")
    const plugin = readFileSync(join(ROOT, 'node_modules', '@oclif', 'plugin-warn-if-update-available', 'lib', 'hooks', 'init', 'check-update.js'), 'utf8')
    expect(plugin).toContain("scopedEnvVarTrue('SKIP_NEW_VERSION_CHECK')")
  })
})
